"""A numpy-only safetensors writer for tests and the bench (bf16 by truncating float32)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2", "I64": "<i8", "I8": "i1"}


def to_raw(x: np.ndarray, dtype: str) -> np.ndarray:
    """The array as stored: BF16 keeps the top 16 bits of each float32 (round toward zero)."""
    if dtype == "BF16":
        return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype("<u2")
    return np.ascontiguousarray(x, DTYPES[dtype])


def from_raw(raw: np.ndarray, dtype: str) -> np.ndarray:
    """What the stored values are, in float64 (the reference for the statistics)."""
    if dtype == "BF16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.astype(np.float64)


def header_bytes(specs: list[tuple[str, str, tuple[int, ...], int]]) -> bytes:
    """8-byte length + JSON for (name, dtype, shape, nbytes) in order, 8-aligned."""
    head, off = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape, nbytes in specs:
        head[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + nbytes]}
        off += nbytes
    raw = json.dumps(head, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw


def write(path: Path, tensors: dict[str, tuple[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Write {name: (dtype, array)}; returns the float64 values actually stored."""
    raws = {n: (dt, to_raw(x, dt)) for n, (dt, x) in tensors.items()}
    specs = [(n, dt, r.shape, r.nbytes) for n, (dt, r) in raws.items()]
    with open(path, "wb") as fh:
        fh.write(header_bytes(specs))
        for _, r in raws.values():
            fh.write(r.tobytes())
    return {n: from_raw(r, dt) for n, (dt, r) in raws.items()}
