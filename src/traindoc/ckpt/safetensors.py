"""safetensors: header parsing and validation (FORMATS.md 7.1). Reads no tensor data.

Layout: u64 LE header length N, N bytes of JSON, then the data buffer. The
header maps name -> {dtype, shape, data_offsets [begin, end)} with offsets
relative to the data buffer. Everything a lying header could do is checked
before a byte of data is touched: sizes match shape x itemsize, ranges do not
overlap, the buffer is covered, and the file is long enough.
"""

from __future__ import annotations

import math
import os
import struct

from traindoc.ckpt.stats import Entry
from traindoc.model.checkpoint import DTYPE_SIZE
from traindoc.model.numbers import loads

MAX_HEADER = 100 << 20  # the reference implementation's limit


class CheckpointError(Exception):
    """A checkpoint that cannot be read; the message names the file and the fault."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


def read_header(path: str) -> tuple[list[Entry], dict[str, str], list[str]]:
    """(entries with absolute offsets, __metadata__, notes). Raises CheckpointError."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise CheckpointError(
                path, f"truncated: {size} bytes, too short for a safetensors header"
            )
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER:
            raise CheckpointError(
                path, f"header length {n} exceeds the 100 MB limit: not safetensors"
            )
        if 8 + n > size:
            raise CheckpointError(
                path, f"truncated: header needs {8 + n} bytes but the file has {size}"
            )
        raw = fh.read(n)
    try:
        header = loads(raw)  # huge integers read as inf (a bad shape below), depth is an error
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
        raise CheckpointError(path, f"header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise CheckpointError(path, "header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise CheckpointError(path, "__metadata__ is not an object")
    data_start = 8 + n
    entries = [_entry(path, name, spec, data_start) for name, spec in header.items()]
    notes = _check_layout(path, entries, data_start, size)
    return entries, {str(k): str(v) for k, v in meta.items()}, notes


def _entry(path: str, name: str, spec: object, data_start: int) -> Entry:
    if not isinstance(spec, dict):
        raise CheckpointError(path, f"tensor {name!r}: entry is not an object")
    dtype = spec.get("dtype")
    shape = spec.get("shape")
    offs = spec.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in DTYPE_SIZE:
        raise CheckpointError(path, f"tensor {name!r}: unknown dtype {str(dtype)[:40]!r}")
    if not _ints(shape) or len(shape) > 64:
        raise CheckpointError(path, f"tensor {name!r}: bad shape {str(shape)[:60]}")
    if not _ints(offs) or len(offs) != 2 or offs[0] > offs[1]:
        raise CheckpointError(path, f"tensor {name!r}: bad data_offsets {str(offs)[:60]}")
    want = math.prod(shape) * DTYPE_SIZE[dtype]
    if offs[1] - offs[0] != want:
        raise CheckpointError(
            path,
            f"tensor {name!r}: data_offsets span {offs[1] - offs[0]} bytes but "
            f"{dtype}{shape} needs {want}",
        )
    return Entry(name, dtype, tuple(shape), data_start + offs[0], data_start + offs[1])


def _ints(x: object) -> bool:
    """A list of non-negative integers (JSON true is no integer; 1e309 is a float)."""
    return isinstance(x, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x
    )


def _check_layout(path: str, entries: list[Entry], data_start: int, size: int) -> list[str]:
    notes: list[str] = []
    pos = data_start
    prev = None
    for e in sorted(entries, key=lambda e: (e.begin, e.end)):
        if e.begin < pos:
            raise CheckpointError(
                path, f"tensor {e.name!r} overlaps {prev!r} (offsets lie about the layout)"
            )
        if e.begin > pos:
            raise CheckpointError(
                path,
                f"bytes {pos - data_start}..{e.begin - data_start} of the data buffer belong "
                f"to no tensor (offsets lie about the layout)",
            )
        pos, prev = e.end, e.name
    if pos > size:
        raise CheckpointError(
            path,
            f"truncated: tensors need {pos} bytes but the file has {size} "
            f"({pos - size} missing, from tensor {prev!r})",
        )
    if pos < size:
        notes.append(f"{path}: {size - pos} trailing bytes after the last tensor (ignored)")
    return notes
