"""Decode TensorBoard `Event` records: a vectorised fast path and a wire-level fallback.

Fast path (FORMATS.md 4.2-4.5): nearly every record a trainer writes is one scalar,
`09 <f64 wall> [10 <varint step>] 2a L1 0a L2 0a T <tag> <value tail>` where the
tail is `15 <f32>` (simple_value: torch, tensorboardX, HF, Lightning) or
`42 L <tensor> [4a M <metadata>]` with one of a few fixed scalar tensors (torch
new_style / torchtune: float_val or double_val; TF2: tensor_shape{} + tensor_content).
All records are checked against these layouts at once with byte-stride-1 numpy
views; whatever does not match byte for byte (text, histograms, tags over ~110
bytes, steps >= 2^56 or negative, several values per event) goes to `decode()`.

Fallback: a small hand-written protobuf wire decoder for the scalar/text subset,
rather than tensorboard's `event_pb2`: no tensorboard+protobuf dependency for a
core format, it is faster than the upb loop (FORMATS.md 4.5), and malformed bytes
come back as one ValueError to count instead of a library-specific exception.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from traindoc.readers._protowire import fields
from traindoc.readers._tfrecord import _view

# tensor bodies (after `42 L`) holding one scalar; the value is the last `width` bytes
_TENSORS = [
    (b"\x08\x01\x2a\x04", "<f4"),  # DT_FLOAT, float_val (torch new_style=True)
    (b"\x08\x01\x12\x00\x2a\x04", "<f4"),  # + empty shape (tensorboard scalar_pb)
    (b"\x08\x01\x12\x00\x22\x04", "<f4"),  # + tensor_content (TF2 summary ops)
    (b"\x08\x01\x22\x04", "<f4"),
    (b"\x08\x02\x32\x08", "<f8"),  # DT_DOUBLE (new_style, double_precision=True)
    (b"\x08\x02\x12\x00\x32\x08", "<f8"),
    (b"\x08\x02\x12\x00\x22\x08", "<f8"),
]
_NP = {1: "<f4", 2: "<f8", 3: "<i4", 9: "<i8", 10: "?", 19: "<f2"}
_PACKED = {5: "<f4", 6: "<f8"}


def decode_fast(data: bytes, offs: np.ndarray, lens: np.ndarray) -> dict[str, Any]:
    """Scalars of every record in the fixed layouts; `rest` = record indices left to decode()."""
    data = data + bytes(32)  # reads run a little past the last record before they are checked
    u8, u64 = np.frombuffer(data, np.uint8), _view(data, "<u8")
    o, end = offs, offs + lens
    ok = (u8[o] == 0x09) & (lens >= 21)
    wall = _view(data, "<f8")[o + 1]
    has_step = u8[o + 9] == 0x10
    w = u64[o + 10]
    t = ~w & np.uint64(0x8080808080808080)  # high bit clear = last byte of the varint
    ok &= ~has_step | (t != 0)  # 9-10 byte varints (negative or >= 2^56): fallback
    low = t & (~t + np.uint64(1))
    vlen = ((np.log2(np.maximum(low, np.uint64(1)).astype(np.float64)) - 7) // 8 + 1).astype(
        np.int64
    )
    x = w & (low + low - np.uint64(1)) & np.uint64(0x7F7F7F7F7F7F7F7F)
    for keep, shift in (
        (0x007F007F007F007F, 1),
        (0x00003FFF00003FFF, 2),
        (0x000000000FFFFFFF, 4),
    ):
        x = (x & np.uint64(keep)) | ((x & ~np.uint64(keep)) >> np.uint64(shift))
    step = np.where(has_step, x.view(np.int64), 0)
    q = o + 9 + np.where(has_step, 1 + vlen, 0)
    h = u64[q]  # `2a L1 0a L2 0a T`: six header bytes in one read
    len1 = ((h >> np.uint64(8)) & np.uint64(0xFF)).astype(np.int64)
    len2 = ((h >> np.uint64(24)) & np.uint64(0xFF)).astype(np.int64)
    taglen = ((h >> np.uint64(40)) & np.uint64(0xFF)).astype(np.int64)
    ok &= (h & np.uint64(0xFF00FF00FF)) == np.uint64(0x0A000A002A)
    ok &= len1 < 128
    ok &= (len1 == len2 + 2) & (taglen < 128) & (q + 2 + len1 == end)
    ts = np.where(ok, q + 6 + taglen, o)  # the value tail: from the tag's end to the record's end
    tail = end - ts
    value = np.full(o.size, np.nan)
    # simple_value, alone or followed by metadata (tensorboardX display_name / description)
    meta = (u8[ts + 5] == 0x4A) & (u8[ts + 6].astype(np.int64) == tail - 7) & (tail < 135)
    simple = ok & (u8[ts] == 0x15) & ((tail == 5) | meta)
    value[simple] = _view(data, "<f4")[ts[simple] + 1]
    tensor = np.zeros(o.size, dtype=bool)
    cand = np.flatnonzero(ok & ~simple & (u8[ts] == 0x42) & (tail >= 8))
    for body, dtype in _TENSORS:
        size = len(body) + np.dtype(dtype).itemsize
        c = cand[u8[ts[cand] + 1] == size]
        for i, byte in enumerate(body):
            c = c[u8[ts[c] + 2 + i] == byte]
        rest = tail[c] - 2 - size
        meta = (u8[ts[c] + 2 + size] == 0x4A) & (u8[ts[c] + 3 + size] == rest - 2) & (rest < 130)
        c = c[(rest == 0) | meta]
        value[c] = _view(data, dtype)[ts[c] + 2 + len(body)]
        tensor[c] = True
    good = simple | tensor
    idx = np.flatnonzero(good)
    tag_ids, tags = _group_tags(u64, q[idx] + 6, taglen[idx])
    return {
        "idx": idx,
        "tag": tag_ids,
        "tags": tags,
        "step": step[idx],
        "wall": wall[idx],
        "value": value[idx],
        "tensor": tensor[idx],
        "rest": np.flatnonzero(~good),
    }


def _group_tags(
    u64: np.ndarray, start: np.ndarray, n: np.ndarray
) -> tuple[np.ndarray, list[bytes]]:
    """Tag id per record: tags of one length compared as 8-byte words, hashed then checked."""
    ids = np.empty(start.size, dtype=np.int64)
    tags: list[bytes] = []
    for length in np.unique(n).tolist():
        rows = np.flatnonzero(n == length)
        words = []
        for j in range(0, length, 8):
            w = u64[start[rows] + j]
            if length - j < 8:  # the bytes after the tag are not part of it
                w = w & np.uint64((1 << 8 * (length - j)) - 1)
            words.append(w)
        mat = np.stack(words, axis=1) if words else np.zeros((rows.size, 1), np.uint64)
        h = np.full(rows.size, length, dtype=np.uint64)
        for j in range(mat.shape[1]):
            h = h * np.uint64(1099511628211) ^ mat[:, j]
        _, first, inv = np.unique(h, return_index=True, return_inverse=True)
        if not (mat == mat[first[inv]]).all():  # a hash collision: compare the words
            _, first, inv = np.unique(mat, axis=0, return_index=True, return_inverse=True)
        ids[rows] = len(tags) + inv.ravel()
        tags += [mat[i].astype("<u8").tobytes()[:length] for i in first.tolist()]
    return ids, tags


def decode(b: bytes) -> tuple[float, int, list[tuple[str, str, Any, str]]]:
    """(wall_time, step, [(tag, kind, value, plugin)]) with kind scalar | text | other."""
    wall, step, values = 0.0, 0, []
    for f, wt, v in fields(b, 0, len(b)):
        if f == 1 and wt == 1:
            wall = struct.unpack("<d", v)[0]
        elif f == 2 and wt == 0:
            step = v - (1 << 64) if v >= 1 << 63 else v
        elif f == 5 and wt == 2:
            values += [_value(b, *span) for g, gw, span in fields(b, *v) if g == 1 and gw == 2]
    return wall, step, values


def _value(b: bytes, i: int, end: int) -> tuple[str, str, Any, str]:
    tag, kind, value, plugin = "", "other", None, ""
    for f, wt, v in fields(b, i, end):
        if f == 1 and wt == 2:
            tag = b[v[0] : v[1]].decode("utf-8", errors="replace")
        elif f == 2 and wt == 5:
            kind, value = "scalar", struct.unpack("<f", v)[0]
        elif f == 8 and wt == 2:
            kind, value = _tensor(b, *v)
        elif f == 9 and wt == 2:
            for g, gw, pd in fields(b, *v):
                if g == 1 and gw == 2:
                    for h, hw, name in fields(b, *pd):
                        if h == 1 and hw == 2:
                            plugin = b[name[0] : name[1]].decode("utf-8", errors="replace")
    return tag, kind, value, plugin


def _tensor(b: bytes, i: int, end: int) -> tuple[str, Any]:
    dtype, dims, vals, strings = 0, [], [], []
    for f, wt, v in fields(b, i, end):
        if f == 1 and wt == 0:
            dtype = v
        elif f == 2 and wt == 2:
            for g, gw, d in fields(b, *v):
                if g == 2 and gw == 2:
                    dims.append(next((s for h, _, s in fields(b, *d) if h == 1), 0))
        elif f == 4 and wt == 2 and dtype in _NP:
            vals += np.frombuffer(b[v[0] : v[1]], _NP[dtype]).tolist()
        elif f in _PACKED and wt == 2:
            vals += np.frombuffer(b[v[0] : v[1]], _PACKED[f]).tolist()
        elif f == 5 and wt == 5:
            vals.append(struct.unpack("<f", v)[0])
        elif f == 6 and wt == 1:
            vals.append(struct.unpack("<d", v)[0])
        elif f in (7, 10, 11, 13) and wt == 0:  # int, int64, bool, half bits (rare)
            vals.append(v if f != 13 else float(np.uint16(v).view(np.float16)))
        elif f == 8 and wt == 2:
            strings.append(b[v[0] : v[1]].decode("utf-8", errors="replace"))
    if dtype == 7 and strings:
        return "text", strings[0]
    if len(vals) == 1 and int(np.prod(dims)) == 1:
        return "scalar", float(vals[0])
    return "other", None


# ---- encoder (tests and the bench write event files with it) --------------------------


def _uvarint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 two's complement, as protobuf writes negative steps
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def encode_scalar(tag: str, value: float, step: int, wall: float) -> bytes:
    """The Event bytes torch's SummaryWriter.add_scalar writes (checked against it in tests)."""
    t = tag.encode()
    v = b"\x0a" + _uvarint(len(t)) + t + b"\x15" + struct.pack("<f", value)
    s = b"\x0a" + _uvarint(len(v)) + v
    head = b"\x09" + struct.pack("<d", wall) + (b"\x10" + _uvarint(step) if step else b"")
    return head + b"\x2a" + _uvarint(len(s)) + s


def encode_version(wall: float) -> bytes:
    """The first Event of every file: `file_version: "brain.Event:2"`."""
    return b"\x09" + struct.pack("<d", wall) + b"\x1a\x0dbrain.Event:2"
