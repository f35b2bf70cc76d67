"""TFRecord framing and CRC32C for TensorBoard event files (FORMATS.md 4.1), numpy only.

A record is `u64 length | masked crc32c(length) | data | masked crc32c(data)`.
Finding record boundaries is the one sequential step (a tight Python loop over
the length fields); every check after that is vectorised over all records:
CRC32C runs one table step per byte position across all records at once
(records sorted by length, so step i touches only those longer than i).
Nothing here needs tensorboard, protobuf or google-crc32c.
"""

from __future__ import annotations

import struct

import numpy as np

_MASK_DELTA = 0xA282EAD8
_LONG = 512  # records longer than this get a per-record CRC (few: histograms, graphs, text)


def _make_tables() -> np.ndarray:
    """Slicing-by-8 tables for CRC32C (reflected Castagnoli polynomial); row 0 is the byte table."""
    t0 = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t0 = np.where(t0 & 1, (t0 >> 1) ^ np.uint32(0x82F63B78), t0 >> 1).astype(np.uint32)
    rows = [t0]
    for _ in range(7):
        rows.append((rows[-1] >> np.uint32(8)) ^ t0[rows[-1] & 0xFF])
    return np.stack(rows)


_T = _make_tables()
_TABLE = _T[0]
_TABLE_LIST = _TABLE.tolist()


def _mask(crc: np.ndarray) -> np.ndarray:
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(_MASK_DELTA)


def _c_crc32c():
    """google-crc32c's function when installed (C speed, the same result), else None.
    Looked up once: a failed import is not cached, and searching sys.path on every
    record cost 1 ms a CRC."""
    try:
        import google_crc32c
    except ImportError:
        return None
    return google_crc32c.value


_C_CRC32C = _c_crc32c()


def crc32c_one(data: bytes) -> int:
    if _C_CRC32C is not None:
        return int(_C_CRC32C(data))
    crc, table = 0xFFFFFFFF, _TABLE_LIST
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    c = crc32c_one(data)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def crc32c_many(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Masked CRC32C of buf[s:s+n] for every (s, n), vectorised across records.

    Slicing-by-8: one 8-byte word of every record per step (records sorted by
    word count, so step j touches only the first k, those longer than 8j), then
    the last 0-7 bytes one at a time.
    """
    out = np.empty(starts.size, dtype=np.uint32)
    long = lengths > _LONG
    for i in np.flatnonzero(long).tolist():
        s, n = int(starts[i]), int(lengths[i])
        out[i] = masked_crc(buf[s : s + n].tobytes())
    idx = np.flatnonzero(~long)
    if not idx.size:
        return out
    words = lengths[idx].astype(np.int64) // 8
    order = np.argsort(-words, kind="stable")
    idx, words = idx[order], words[order]
    pos, n = starts[idx].astype(np.int64), lengths[idx].astype(np.int64)
    crc = np.full(idx.size, 0xFFFFFFFF, dtype=np.uint32)
    u64 = np.ndarray((max(buf.size - 7, 0),), "<u8", buffer=buf, strides=(1,))
    t = _T
    active = np.searchsorted(-words, -np.arange(int(words[0])), side="left")
    for j, k in enumerate(active.tolist()):
        w = u64[pos[:k] + 8 * j]
        c = crc[:k] ^ (w & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        hi = (w >> np.uint64(32)).astype(np.uint32)
        crc[:k] = (
            t[7][c & 0xFF] ^ t[6][(c >> 8) & 0xFF] ^ t[5][(c >> 16) & 0xFF] ^ t[4][c >> 24]
        ) ^ (t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24])
    rem, at = n - 8 * words, pos + 8 * words
    for r in range(7):
        sel = np.flatnonzero(rem > r)
        if not sel.size:
            break
        c = crc[sel]
        crc[sel] = _TABLE[(c ^ buf[at[sel] + r]) & 0xFF] ^ (c >> np.uint32(8))
    out[idx] = _mask(crc ^ np.uint32(0xFFFFFFFF))
    return out


def frame(data: bytes) -> bytes:
    """One TFRecord around `data` (used by tests and the bench to write event files)."""
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


def _view(data: bytes, dtype: str) -> np.ndarray:
    """Every byte offset read as `dtype` (stride 1, unaligned): view[o] = value at byte o."""
    size = np.dtype(dtype).itemsize
    return np.ndarray((max(len(data) - size + 1, 0),), dtype, buffer=data, strides=(1,))


def _walk(data: bytes) -> np.ndarray:
    """Start offsets of the complete records. Records repeat a short length pattern
    (the same tags every logging step), so after a few plain steps the next 4096
    repeats of the last P lengths are predicted at once and checked against the
    length fields found there; the matching prefix is taken (each prediction
    rests only on lengths already confirmed) and the walk goes on from there."""
    n, pos, out = len(data), 0, []
    if n < 16:
        return np.empty(0, np.int64)
    u64 = _view(data, "<u8")
    unpack = struct.Struct("<Q").unpack_from
    starts: list[int] = []
    lens: list[int] = []
    while pos + 12 <= n:
        length = unpack(data, pos)[0]
        if pos + 16 + length > n:
            break
        starts.append(pos)
        lens.append(length)
        pos += 16 + length
        if len(lens) < 16 or len(lens) % 8:
            continue
        for p in (1, 2, 3, 4, 5, 6, 8):
            if lens[-p:] != lens[-2 * p : -p]:
                continue
            pat = np.tile(np.asarray(lens[-p:], dtype=np.int64), 4096)
            nxt = pos + np.cumsum(pat + 16)  # where each predicted record would end
            at = nxt - pat - 16
            fits = nxt <= n
            good = fits & (u64[np.minimum(at, n - 8)].astype(np.int64) == pat)
            k = int(np.argmin(good)) if not good.all() else good.size
            if k:
                out += [np.asarray(starts, np.int64), at[:k]]
                starts, lens = [], pat[k - p : k].tolist()
                pos = int(nxt[k - 1])
            break
    out.append(np.asarray(starts, np.int64))
    return np.concatenate(out)


def split(data: bytes, check_crc: bool = True) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(data offsets, data lengths, problems) of the intact records, in file order.

    A record running past the end is a truncated tail (a writer still writing)
    when its header CRC holds; a bad header CRC ends the file there (the length
    cannot be trusted); a bad payload CRC drops only that record.
    """
    unpack = struct.Struct("<Q").unpack_from
    n = len(data)
    heads, pos = _walk(data), 0
    if heads.size:
        pos = int(heads[-1]) + 16 + unpack(data, int(heads[-1]))[0]
    buf = np.frombuffer(data, dtype=np.uint8)
    lengths = _view(data, "<u8")[heads].astype(np.int64)
    problems: list[str] = []
    if check_crc and heads.size:
        bad = np.flatnonzero(
            crc32c_many(buf, heads, np.full(heads.size, 8)) != _view(data, "<u4")[heads + 8]
        )
        if bad.size:
            first = int(bad[0])
            problems.append(f"bad record header CRC at byte {heads[first]}: stopped there")
            heads, lengths, pos = heads[:first], lengths[:first], n
    if pos < n:
        tail = data[pos : pos + 12]
        if len(tail) == 12 and masked_crc(tail[:8]) != struct.unpack("<I", tail[8:])[0]:
            problems.append(f"corrupt record header at byte {pos}: stopped there")
        else:
            want = 16 + unpack(tail[:8].ljust(8, b"\0"))[0] if len(tail) >= 8 else 16
            problems.append(
                f"truncated last record at byte {pos} ({n - pos} of {want} bytes; "
                "the writer may still be running)"
            )
    offs = heads + 12
    if check_crc and offs.size:
        ok = crc32c_many(buf, offs, lengths) == _view(data, "<u4")[offs + lengths]
        if not ok.all():
            bad = np.flatnonzero(~ok)
            problems.append(
                f"{bad.size} record(s) with a bad data CRC skipped, first at byte {heads[bad[0]]}"
            )
            offs, lengths = offs[ok], lengths[ok]
    return offs, lengths, problems
