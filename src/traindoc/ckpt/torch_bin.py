"""PyTorch `.bin` / `.pt` (zip format) without torch and without executing the pickle.

`torch.save` writes a zip whose `data.pkl` describes the tensors and whose
`data/<key>` members hold the raw storages, stored uncompressed. We read
`data.pkl` with a restricted unpickler: `find_class` never imports anything;
it returns our own inert tensor/storage records for the handful of names a
state dict uses and an inert stub for everything else, so a hostile pickle
(`os.system`, `builtins.exec`, ...) only builds stub objects. The storages
are then streamed from the zip members exactly like safetensors data.

Legacy (pre-1.6, non-zip) pickles interleave data with the pickle stream;
they are skipped with a note, never unpickled.
"""

from __future__ import annotations

import io
import math
import pickle
import struct
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from traindoc.ckpt.safetensors import CheckpointError
from traindoc.ckpt.stats import Entry
from traindoc.model.checkpoint import DTYPE_SIZE

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
class _StorageType:
    dtype: str


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


class _Stub:
    """Stands in for any class the pickle names; accepts everything, does nothing."""

    qualname = "?"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def append(self, value: Any) -> None:
        pass

    def extend(self, values: Any) -> None:
        pass


def _rebuild_tensor(storage: Any, offset: Any, size: Any, stride: Any, *rest: Any) -> _Tensor:
    return _Tensor(storage, int(offset), tuple(int(s) for s in size), tuple(int(s) for s in stride))


def _rebuild_parameter(data: Any, *rest: Any) -> Any:
    return data


class _SafeUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.unknown: set[str] = set()

    def find_class(self, module: str, name: str) -> Any:  # never imports
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in _STORAGES:
            return _StorageType(_STORAGES[name])
        self.unknown.add(f"{module}.{name}")
        return type(name, (_Stub,), {"qualname": f"{module}.{name}"})

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage":
            kind = pid[1]
            dtype = kind.dtype if isinstance(kind, _StorageType) else "?"
            return _Storage(str(pid[2]), dtype, int(pid[4]))
        return _Stub(pid)


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
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise CheckpointError(path, f"broken zip archive ({exc})") from None
    with zf:
        pkl = [i for i in zf.infolist() if i.filename.endswith("data.pkl")]
        if not pkl:
            raise CheckpointError(path, "zip archive without data.pkl: not a torch checkpoint")
        prefix = pkl[0].filename[: -len("data.pkl")]
        up = _SafeUnpickler(zf.read(pkl[0]))
        try:
            obj = up.load()
        except Exception as exc:  # any malformed pickle: report, never retry unsafely
            raise CheckpointError(
                path, f"data.pkl could not be read ({type(exc).__name__})"
            ) from None
        members = {i.filename: i for i in zf.infolist()}
        notes = []
        if up.unknown:
            names = ", ".join(sorted(up.unknown)[:5])
            notes.append(f"{path}: pickle names non-tensor classes ({names}): ignored, not loaded")
        entries: list[Entry] = []
        for name, t in _tensors(_weights(obj)):
            e = _locate(path, fh_offsets(zf, members, prefix, t.storage.key), name, t, notes)
            if e is not None:
                entries.append(e)
        if not entries:
            notes.append(f"{path}: no tensors found")
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
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len, info.file_size


def _weights(obj: Any) -> Any:
    if isinstance(obj, dict):
        for k in _WEIGHT_KEYS:
            if isinstance(obj.get(k), dict):
                return obj[k]
    return obj


def _tensors(obj: Any, prefix: str = "") -> list[tuple[str, _Tensor]]:
    out: list[tuple[str, _Tensor]] = []
    if isinstance(obj, _Tensor):
        out.append((prefix, obj))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_tensors(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.extend(_tensors(v, f"{prefix}.{i}" if prefix else str(i)))
    return out


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
