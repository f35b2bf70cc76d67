"""Format-aware mutators: damage one record and fix the framing around it, so the
decoders behind the checksums are reached (TFRecord, W&B chunks, safetensors
headers, zip members, Parquet pages)."""

from __future__ import annotations

import io
import json
import random
import struct
import zipfile
import zlib

from tests.fuzz import mutate, pickles
from traindoc.readers._tbevents import encode_scalar
from traindoc.readers._tfrecord import masked_crc

# ---- TFRecord ------------------------------------------------------------------------


def tf_split(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos + 12 <= len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        if pos + 16 + n > len(data):
            break
        out.append(data[pos + 12 : pos + 12 + n])
        pos += 16 + n
    return out


def tf_join(records: list[bytes]) -> bytes:
    parts = []
    for r in records:
        head = struct.pack("<Q", len(r))
        parts += [head, struct.pack("<I", masked_crc(head)), r, struct.pack("<I", masked_crc(r))]
    return b"".join(parts)


def tfrecord(rng: random.Random, data: bytes) -> bytes:
    recs = tf_split(data)
    if not recs:
        return mutate.generic(rng, data)
    op = rng.randrange(6)
    i = rng.randrange(len(recs))
    if op == 0:  # damage one record's payload, CRCs fixed
        recs[i] = mutate.generic(rng, recs[i])
    elif op == 1:  # a scalar event with an odd value, step or wall time
        step = rng.choice((0, 1, -1, 2**62, 2**63 - 1, -(2**63), 10**12))
        value = rng.choice(mutate.FLOATS)
        value = value if abs(value) < 3.4e38 or value != value else float("inf")  # float32
        wall = rng.choice((0.0, -1.0, 1e300, float("nan"), float("inf"), 1.7e9))
        tag = rng.choice(("loss", "train/loss", "learning_rate", "grad_norm", "", "\xff" * 3))
        recs.insert(i, encode_scalar(tag, value, step, wall))
    elif op == 2:  # drop, duplicate, reorder
        k = rng.randrange(3)
        if k == 0:
            del recs[i]
        elif k == 1:
            recs.insert(i, recs[i])
        else:
            rng.shuffle(recs)
    elif op == 3:  # a record whose length field lies, with its length CRC right
        body = tf_join(recs)
        head = struct.pack("<Q", rng.choice((2**40, 2**63, len(body) + 100, 0)))
        return body + head + struct.pack("<I", masked_crc(head))
    elif op == 4:  # protobuf field with a wrong wire type / huge varint
        recs[i] = (
            rng.choice(
                (
                    b"\x10" + b"\xff" * 10 + b"\x01",
                    b"\x2a\x05\x0a\x03\x0a\x01",
                    b"\x09\x00",
                    b"\x12\x80",
                )
            )
            + recs[i][rng.randrange(len(recs[i]) + 1) :]
        )
    else:
        recs = recs[: rng.randrange(len(recs) + 1)]
    return tf_join(recs)


# ---- W&B transaction log -------------------------------------------------------------

_W_HEAD = 7
_BLOCK = 32 << 10


def wb_split(data: bytes) -> list[bytes]:
    out, parts, pos = [], [], _W_HEAD
    while pos + 7 <= len(data):
        left = _BLOCK - pos % _BLOCK
        if left < 7:
            pos += left
            continue
        _crc, length, kind = struct.unpack_from("<IHB", data, pos)
        if length == 0 and kind == 0:
            pos += left
            continue
        payload = data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        if kind == 1:
            out.append(payload)
        elif kind == 2:
            parts = [payload]
        elif kind == 3:
            parts.append(payload)
        elif kind == 4:
            out.append(b"".join((*parts, payload)))
    return out


def wb_join(head: bytes, records: list[bytes]) -> bytes:
    buf = bytearray(head)
    for r in records:
        first = True
        while True:
            left = _BLOCK - len(buf) % _BLOCK
            if left < 7:
                buf += b"\0" * left
                continue
            chunk = r[: left - 7]
            r = r[len(chunk) :]
            kind = (1 if not r else 2) if first else (4 if not r else 3)
            crc = zlib.crc32(chunk, zlib.crc32(bytes((kind,))))
            buf += struct.pack("<IHB", crc, len(chunk), kind) + chunk
            first = False
            if not r:
                break
    return bytes(buf)


def _wire_swap(rng: random.Random, rec: bytes) -> bytes:
    """Rewrite one field key of a message so its wire type is wrong for the field."""
    keys = [i for i in range(len(rec)) if rec[i] & 0x80 == 0 and (rec[i] & 7) in (0, 1, 2, 5)]
    if not keys:
        return rec
    i = rng.choice(keys)
    wire = rng.choice([w for w in (0, 1, 2, 5) if w != rec[i] & 7])
    return rec[:i] + bytes(((rec[i] & ~7) | wire,)) + rec[i + 1 :]


def wandb(rng: random.Random, data: bytes) -> bytes:
    recs = wb_split(data)
    if not recs:
        return mutate.generic(rng, data)
    i = rng.randrange(len(recs))
    op = rng.randrange(5)
    if op == 0:
        recs[i] = mutate.generic(rng, recs[i])
    elif op == 1:
        for _ in range(rng.randint(1, 4)):
            recs[i] = _wire_swap(rng, recs[i])
    elif op == 2:  # a history record whose item holds an odd number
        key = rng.choice((b"loss", b"train/loss", b"_step", b"lr", b"grad_norm"))
        val = rng.choice(mutate.NUMBER_TEXTS).encode()
        item = b"\x0a" + bytes((len(key),)) + key + b"\x82\x01" + _len(val) + val
        history = b"\x0a" + _len(item) + item
        recs.insert(i, b"\x12" + _len(history) + history)  # Record.history = field 2
    elif op == 3:
        recs = recs[: rng.randrange(len(recs) + 1)]
    else:
        recs[i] = recs[i] + recs[rng.randrange(len(recs))]
    return wb_join(data[:_W_HEAD], recs)


def _len(b: bytes) -> bytes:
    n, out = len(b), bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# ---- safetensors ---------------------------------------------------------------------

_ODD = [[], ["F32"], {"a": 1}, None, 5, 1.5, True, "F99", "f32", "", "F32 ", "BF16", "I64", "BOOL"]


def safetensors(rng: random.Random, data: bytes) -> bytes:
    if len(data) < 8:
        return mutate.generic(rng, data)
    (n,) = struct.unpack_from("<Q", data)
    try:
        header = json.loads(data[8 : 8 + n])
    except (ValueError, RecursionError):  # an earlier mutation nested it past the stack
        return mutate.generic(rng, data)
    body = data[8 + n :]
    names = [k for k in header if k != "__metadata__"] or ["x"]
    name = rng.choice(names)
    spec = header.get(name) if isinstance(header.get(name), dict) else {}
    op = rng.randrange(8)
    raw = None
    if op == 0:
        spec["dtype"] = rng.choice(_ODD)
    elif op == 1:
        spec["shape"] = rng.choice(
            ([-1], [2**64], [10**30, 10**30], [1.5], ["3"], [], [0], None, {}, [[2]], [2] * 64)
        )
    elif op == 2:
        spec["data_offsets"] = rng.choice(
            ([0], [5, 1], [0, 2**64], [-4, 0], [0, len(body) * 2], ["0", "8"], None, [0.0, 8.0])
        )
    elif op == 3:
        header["__metadata__"] = rng.choice(([1], "x", {"a": {"b": [1]}}, 5, {"format": None}))
    elif op == 4:  # the length prefix lies
        n2 = rng.choice((0, 1, n - 1, n + 1, len(data), 2**63, 2**64 - 1, 100 << 20))
        return struct.pack("<Q", n2) + data[8:]
    elif op == 5:  # numbers JSON cannot hold, and deep nesting, written as raw text
        text = json.dumps(header)
        tok = rng.choice(("1e309", "-1e309", "NaN", "Infinity", "9" * 5000, "5e-324"))
        text = text.replace("[", "[" + tok + ",", 1) if rng.random() < 0.5 else text
        if rng.random() < 0.5:
            d = rng.choice((1000, 100_000))
            text = text[:-1] + ', "deep": ' + "[" * d + "]" * d + "}"
        raw = text.encode()
    elif op == 6:
        header[rng.choice(("", "\x00", "a" * 300, "__metadata__x"))] = spec.copy()
    else:
        spec.pop(rng.choice(("dtype", "shape", "data_offsets")), None)
    if op not in (3, 5, 6):
        header[name] = spec
    raw = raw if raw is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + body


# ---- zip (torch checkpoints, training_args.bin, optimizer.pt) --------------------------


def _members(data: bytes) -> list[tuple[str, bytes]] | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return [(i.filename, zf.read(i)) for i in zf.infolist()]
    except Exception:
        return None


def _rezip(members: list[tuple[str, bytes]], compress: set[str] = frozenset()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, raw in members:
            kind = zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED
            info = zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0))
            info.compress_type = kind
            zf.writestr(info, raw)
    return buf.getvalue()


def torch_zip(rng: random.Random, data: bytes, marker: str) -> bytes:
    members = _members(data)
    if not members:
        return mutate.generic(rng, data)
    names = [n for n, _ in members]
    pkl = next((k for k, n in enumerate(names) if n.endswith("data.pkl")), 0)
    op = rng.randrange(10)
    if op == 0:  # the pickle, mutated, with the zip's CRC right
        members[pkl] = (names[pkl], pickle_bytes(rng, members[pkl][1], marker))
    elif op == 1:  # a storage cut short / grown
        k = rng.randrange(len(members))
        n, raw = members[k]
        members[k] = (n, raw[: rng.randrange(len(raw) + 1)] if rng.random() < 0.7 else raw * 2)
    elif op == 2:  # compressed members (torch never compresses storages)
        return _rezip(members, {rng.choice(names)})
    elif op == 3:  # bad CRC: a stored byte changed after the CRC was written
        out = bytearray(_rezip(members))
        at = out.find(members[rng.randrange(len(members))][1][:8] or b"\0")
        if at > 0:
            out[at] ^= 0xFF
        return bytes(out)
    elif op == 4:  # the archive cut anywhere, or its central directory damaged
        out = _rezip(members)
        if rng.random() < 0.5:
            return out[: rng.randrange(len(out))]
        cd = out.rfind(b"PK\x01\x02")
        return mutate.bitflip(rng, out[: max(cd, 0)]) + out[max(cd, 0) :]
    elif op == 5:  # a local header whose name/extra lengths lie (struct / offset errors)
        out = bytearray(_rezip(members))
        hdr = [i for i in range(len(out) - 30) if out[i : i + 4] == b"PK\x03\x04"]
        if hdr:
            at = rng.choice(hdr)
            struct.pack_into("<HH", out, at + 26, rng.randrange(65536), rng.randrange(65536))
        return bytes(out)
    elif op == 6:  # a member that is missing or doubled
        k = rng.randrange(len(members))
        if rng.random() < 0.5:
            del members[k]
        else:
            members.append(members[k])
    elif op == 7:  # the pickle replaced by a hostile, deep or shared-reference one
        members[pkl] = (names[pkl], special_pickle(rng, marker))
    elif op == 8:
        members[pkl] = (names[pkl], members[pkl][1][: rng.randrange(len(members[pkl][1]) + 1)])
    else:
        return mutate.generic(rng, _rezip(members))
    return _rezip(members)


def special_pickle(rng: random.Random, marker: str) -> bytes:
    k = rng.randrange(3)
    if k == 0:
        return pickles.hostile(marker, rng)
    if k == 1:
        return pickles.deep(rng)
    return pickles.shared(rng)


_OPCODE_SWAPS = [
    (b"J", b"\x8a\x09" + b"\xff" * 9),  # an int becomes a 9-byte LONG1
    (b"G", b"G\x7f\xf0\0\0\0\0\0\0"),  # a float becomes inf
    (b"X", b"X\xff\xff\xff\x7f"),  # a unicode string claims 2 GB
    (b"q", b"h\xff"),  # a memo put becomes a get of an absent key
    (b"R", b"t"),
    (b"(", b""),
]


def pickle_bytes(rng: random.Random, raw: bytes, marker: str) -> bytes:
    op = rng.randrange(4)
    if op == 0:
        return mutate.generic(rng, raw)
    if op == 1 and raw:
        src, dst = rng.choice(_OPCODE_SWAPS)
        at = raw.find(src, rng.randrange(len(raw)))
        return raw if at < 0 else raw[:at] + dst + raw[at + 1 :]
    if op == 2:
        return special_pickle(rng, marker)
    at = rng.randrange(len(raw) + 1)  # a hostile call spliced in
    return raw[:at] + pickles.hostile(marker, rng)[2:-1] + raw[at:]


# ---- Parquet -------------------------------------------------------------------------


def parquet(rng: random.Random, data: bytes) -> bytes:
    if len(data) < 12 or data[:4] != b"PAR1":
        return mutate.generic(rng, data)
    (footer,) = struct.unpack_from("<I", data, len(data) - 8)
    pages_end = len(data) - 8 - footer
    if not 4 < pages_end < len(data) - 8:
        return mutate.generic(rng, data)
    out = bytearray(data)
    op = rng.randrange(4)
    if op == 0:  # damage inside the pages (compressed / encoded data), footer intact
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(4, pages_end)] = rng.randrange(256)
    elif op == 1:  # damage the footer's thrift metadata
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(pages_end, len(data) - 8)] = rng.randrange(256)
    elif op == 2:
        struct.pack_into("<I", out, len(data) - 8, rng.choice((0, 1, footer + 1, 2**31, 2**32 - 1)))
    else:
        cut = rng.randrange(4, pages_end)
        return data[:cut] + bytes(rng.randrange(256) for _ in range(16)) + data[cut + 16 :]
    return bytes(out)
