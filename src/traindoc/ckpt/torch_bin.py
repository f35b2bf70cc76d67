"""PyTorch `.bin` / `.pt` (zip format) without torch and without executing the pickle.

`torch.save` writes a zip whose `data.pkl` describes the tensors and whose
`data/<key>` members hold the raw storages, stored uncompressed. We read
`data.pkl` with traindoc.safepickle, which never imports or calls anything: our
hooks turn the handful of names a state dict uses into inert tensor/storage
records and everything else stays an inert Call, so a hostile pickle
(`os.system`, `builtins.exec`, ...) only builds data. The storages
are then streamed from the zip members exactly like safetensors data.

Legacy (pre-1.6, non-zip) pickles interleave data with the pickle stream;
they are skipped with a note, never unpickled.
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
from dataclasses import dataclass
from typing import Any

from traindoc import safepickle
from traindoc.ckpt.safetensors import CheckpointError
from traindoc.ckpt.stats import Entry
from traindoc.model.checkpoint import DTYPE_SIZE
from traindoc.safepickle import Global, PickleError, key

MAX_PICKLE = 256 << 20  # data.pkl of a 70B model's state dict is a few MB
# ~25 opcodes a tensor: 8,000 tensors, more than a shard holds (a 70B model has ~720).
# Each costs 5-10 us in pickletools, so a 3 MB data.pkl of nested calls took 16 s:
# refused past this.
MAX_OPS = 200_000
_STORAGES = {
    "FloatStorage": "F32",
    "HalfStorage": "F16",
    "BFloat16Storage": "BF16",
    "DoubleStorage": "F64",
    "LongStorage": "I64",
    "IntStorage": "I32",
    "ShortStorage": "I16",
    "CharStorage": "I8",
    "ByteStorage": "U8",
    "BoolStorage": "BOOL",
}
_WEIGHT_KEYS = ("state_dict", "model", "module", "model_state_dict", "params")


@dataclass(frozen=True)
class _Storage:
    key: str
    dtype: str
    numel: int


@dataclass(frozen=True)
class _Tensor:
    storage: Any
    offset: int
    shape: tuple[int, ...]
    stride: tuple[int, ...]


def _ints(x: Any, what: str) -> tuple[int, ...]:
    if not isinstance(x, (tuple, list)) or len(x) > 64:
        raise PickleError(f"tensor {what} is not a short tuple")
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 for v in x):
        raise PickleError(f"tensor {what} holds something other than small integers")
    return tuple(x)


class _Reader:
    """The `make` and `persistent` hooks of safepickle.load for a state dict."""

    def __init__(self) -> None:
        self.unknown: set[str] = set()

    def make(self, g: Global, args: tuple) -> Any:
        if (g.module, g.name) == ("collections", "OrderedDict"):
            pairs = args[0] if args and isinstance(args[0], list) else []
            return {key(p[0]): p[1] for p in pairs if isinstance(p, tuple) and len(p) == 2}
        if g.module == "torch._utils" and g.name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            if len(args) < 4:
                raise PickleError("tensor rebuilt with too few arguments")
            offset = _ints((args[1],), "offset")[0]
            return _Tensor(args[0], offset, _ints(args[2], "shape"), _ints(args[3], "stride"))
        if g.module == "torch._utils" and g.name == "_rebuild_parameter":
            return args[0] if args else None
        self.unknown.add(g.qualname)
        return None  # an inert safepickle.Call

    def persistent(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage":
            kind = pid[1]
            dtype = _STORAGES.get(kind.name, "?") if isinstance(kind, Global) else "?"
            numel = pid[4] if isinstance(pid[4], int) and pid[4] >= 0 else 0
            return _Storage(str(pid[2])[:100], dtype, numel)
        return None


def is_zip(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(4) == b"PK\x03\x04"


def read_entries(path: str) -> tuple[list[Entry], list[str]]:
    """Tensor locations inside a torch zip checkpoint, plus notes. Never executes code."""
    if not is_zip(path):
        with open(path, "rb") as fh:
            magic = fh.read(2)
        what = "a legacy (non-zip) torch pickle" if magic[:1] == b"\x80" else "not a torch zip"
        return [], [f"{path}: {what}: skipped, never unpickled (re-save it as safetensors)"]
    try:
        with zipfile.ZipFile(path) as zf:
            return _read_zip(path, zf)
    except safepickle.ZIP_ERRORS as exc:
        raise CheckpointError(path, f"broken zip archive ({_why(exc)})") from None


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:100]}" if str(exc) else type(exc).__name__


def _read_zip(path: str, zf: zipfile.ZipFile) -> tuple[list[Entry], list[str]]:
    pkl = [i for i in zf.infolist() if i.filename.endswith("data.pkl")]
    if not pkl:
        raise CheckpointError(path, "zip archive without data.pkl: not a torch checkpoint")
    if pkl[0].file_size > MAX_PICKLE:
        raise CheckpointError(path, f"data.pkl is {pkl[0].file_size} bytes: not a state dict")
    prefix = pkl[0].filename[: -len("data.pkl")]
    reader = _Reader()
    try:
        obj = safepickle.load(zf.read(pkl[0]), reader.make, reader.persistent, MAX_OPS)
    except PickleError as exc:  # any malformed pickle: report, never retry unsafely
        raise CheckpointError(path, f"data.pkl could not be read ({exc})") from None
    members = {i.filename: i for i in zf.infolist()}
    notes = []
    if reader.unknown:
        names = ", ".join(sorted(reader.unknown)[:5])
        notes.append(f"{path}: pickle names non-tensor classes ({names}): ignored, not loaded")
    entries: list[Entry] = []
    for name, t in safepickle.leaves(_weights(obj), _Tensor):
        key_ = t.storage.key if isinstance(t.storage, _Storage) else ""
        e = _locate(path, fh_offsets(zf, members, prefix, key_), name, t, notes)
        if e is not None:
            entries.append(e)
    if not entries:
        notes.append(f"{path}: no tensors found")
    size = os.path.getsize(path)  # the central directory can promise more than is there
    if any(e.end > size for e in entries):
        name = next(e.name for e in entries if e.end > size)
        raise CheckpointError(
            path, f"tensor {name!r} reaches past the end of the file (truncated?)"
        )
    return entries, notes


def fh_offsets(
    zf: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], prefix: str, key: str
) -> tuple[int, int] | None:
    """(absolute data offset, size) of a stored (uncompressed) member, or None."""
    info = members.get(f"{prefix}data/{key}")
    if info is None or info.compress_type != zipfile.ZIP_STORED:
        return None
    fp = zf.fp
    assert fp is not None
    fp.seek(info.header_offset)
    local = fp.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        return None  # the central directory points at no local header
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len, info.file_size


def _weights(obj: Any) -> Any:
    if isinstance(obj, dict):
        for k in _WEIGHT_KEYS:
            if isinstance(obj.get(k), dict):
                return obj[k]
    return obj


def _locate(
    path: str, where: tuple[int, int] | None, name: str, t: _Tensor, notes: list[str]
) -> Entry | None:
    st = t.storage
    if not isinstance(st, _Storage) or st.dtype not in DTYPE_SIZE:
        notes.append(f"{path}: {name}: unknown storage type: skipped")
        return None
    if where is None:
        notes.append(f"{path}: {name}: storage {st.key} missing or compressed: skipped")
        return None
    start, size = where
    item = DTYPE_SIZE[st.dtype]
    numel = math.prod(t.shape)
    if not _dense(t.shape, t.stride):
        notes.append(f"{path}: {name}: strided view of a larger storage: skipped")
        return None
    begin = start + t.offset * item
    end = begin + numel * item
    if end > start + size:
        raise CheckpointError(path, f"tensor {name!r} reaches past its storage (truncated file?)")
    # Statistics ignore element order, so a dense permuted (e.g. transposed) view is fine.
    return Entry(name, st.dtype, t.shape, begin, end)


def _dense(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    dims = sorted((s, n) for n, s in zip(shape, stride, strict=False) if n != 1)
    expect = 1
    for s, n in dims:
        if s != expect:
            return False
        expect *= n
    return True
