"""TFRecord framing and CRC32C for TensorBoard event files (FORMATS.md 4.1), numpy only.

A record is `u64 length | masked crc32c(length) | data | masked crc32c(data)`.
Files are read a block of whole records at a time (`blocks`). Finding record
boundaries is the one sequential step, taken in vectorised runs of CRC-checked
candidate headers (`_walk`); every check after that is vectorised over all records:
CRC32C runs one table step per byte position across all records at once
(records sorted by length, so step i touches only those longer than i).
Nothing here needs tensorboard, protobuf or google-crc32c.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import BinaryIO

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


def _walk(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the complete records, following the length fields from byte 0.

    The walk is sequential, but most of it is taken in vectorised runs: every byte
    offset whose 8 bytes read as a length under 16 MB with a matching header CRC is a
    candidate record start (false candidates inside payloads are rare, 2**-32 each),
    and a run of candidates each ending where the next begins is one stretch of the
    walk. The walk only ever takes a candidate it stands on, so the offsets are those
    of a plain record-by-record walk; where none fits (a record over 16 MB, a bad
    header CRC) it takes one plain step. Returns (starts, header CRC checked).
    """
    n = len(data)
    if n < 16:
        return np.empty(0, np.int64), np.empty(0, bool)
    u8 = np.frombuffer(data, np.uint8)
    m = n - 15  # a record start leaves room for its 16 bytes of framing
    small = (_view(data, "<u4")[4 : 4 + m] == 0) & (u8[3 : 3 + m] == 0)
    cand = np.flatnonzero(small)
    nxt = cand + 16 + _view(data, "<u8")[cand].astype(np.int64)
    # cheap first: a record ends at the block's end or where another candidate starts
    keep = (nxt <= n) & ((nxt > n - 16) | small[np.minimum(nxt, m - 1)])
    cand, nxt = cand[keep], nxt[keep]
    del small, keep
    if cand.size:
        ok = crc32c_many(u8, cand, np.full(cand.size, 8)) == _view(data, "<u4")[cand + 8]
        cand, nxt = cand[ok], nxt[ok]
    # run ends: candidates whose record does not end where the next candidate starts
    ends = np.r_[np.flatnonzero(nxt[:-1] != cand[1:]), cand.size - 1]
    unpack = struct.Struct("<Q").unpack_from
    out: list[np.ndarray] = []
    checked: list[np.ndarray] = []
    pos = 0
    while pos + 12 <= n:
        i = int(np.searchsorted(cand, pos))
        if i < cand.size and cand[i] == pos:
            j = int(ends[np.searchsorted(ends, i)])
            out.append(cand[i : j + 1])
            checked.append(np.ones(j + 1 - i, bool))
            pos = int(nxt[j])
            continue
        length = unpack(data, pos)[0]
        if pos + 16 + length > n:
            break
        out.append(np.array([pos], np.int64))
        checked.append(np.zeros(1, bool))
        pos += 16 + length
    if not out:
        return np.empty(0, np.int64), np.empty(0, bool)
    return np.concatenate(out), np.concatenate(checked)


def split(data: bytes, check_crc: bool = True) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(data offsets, data lengths, problems) of the intact records, in file order.

    A record running past the end is a truncated tail (a writer still writing)
    when its header CRC holds; a bad header CRC ends the file there (the length
    cannot be trusted); a bad payload CRC drops only that record.
    """
    offs, lens, problems, _, _ = _split(data, check_crc, True, 0)
    return offs, lens, problems


BLOCK = 8 << 20  # bytes read at a time: the per-record arrays of one block stay small


def blocks(
    f: BinaryIO, check_crc: bool = True, size: int = BLOCK
) -> Iterator[tuple[bytes, np.ndarray, np.ndarray, list[str], int]]:
    """(block, data offsets, lengths, problems, file offset of the block) per block read.

    Each block holds whole records: a record cut by the block's end is carried to the
    next read; only at the end of the file is it a truncated last record. Offsets are
    within the block; the problems name file offsets.
    """
    carry, base = b"", 0
    while True:
        want = size
        if len(carry) >= 8:  # a record longer than a block: read the rest of it at once
            want = max(size, 16 + struct.unpack_from("<Q", carry)[0] - len(carry))
        chunk = f.read(min(want, 1 << 34))
        data = carry + chunk if carry else chunk
        if not data:
            return
        offs, lens, problems, end, stop = _split(data, check_crc, not chunk, base)
        yield data, offs, lens, problems, base
        if stop or not chunk:
            return
        carry, base = data[end:], base + end


def _split(
    data: bytes, check_crc: bool, final: bool, base: int
) -> tuple[np.ndarray, np.ndarray, list[str], int, bool]:
    """split() of one block, plus where its whole records end and whether to stop there."""
    unpack = struct.Struct("<Q").unpack_from
    n = len(data)
    (heads, checked), pos, stop = _walk(data), 0, False
    if heads.size:
        pos = int(heads[-1]) + 16 + unpack(data, int(heads[-1]))[0]
    buf = np.frombuffer(data, dtype=np.uint8)
    lengths = _view(data, "<u8")[heads].astype(np.int64)
    problems: list[str] = []
    if check_crc and heads.size:
        rest = np.flatnonzero(~checked)  # the walk's plain steps: their header CRC is unknown
        wrong = (
            crc32c_many(buf, heads[rest], np.full(rest.size, 8))
            != _view(data, "<u4")[heads[rest] + 8]
        )
        bad = rest[wrong]
        if bad.size:
            first = int(bad[0])
            problems.append(f"bad record header CRC at byte {base + heads[first]}: stopped there")
            heads, lengths, pos, stop = heads[:first], lengths[:first], n, True
    if pos < n:
        tail = data[pos : pos + 12]
        if len(tail) == 12 and masked_crc(tail[:8]) != struct.unpack("<I", tail[8:])[0]:
            problems.append(f"bad record header CRC at byte {base + pos}: stopped there")
            stop = True
        elif final:
            want = 16 + unpack(tail[:8].ljust(8, b"\0"))[0] if len(tail) >= 8 else 16
            problems.append(
                f"truncated last record at byte {base + pos} ({n - pos} of {want} bytes; "
                "the writer may still be running)"
            )
    offs = heads + 12
    if check_crc and offs.size:
        ok = crc32c_many(buf, offs, lengths) == _view(data, "<u4")[offs + lengths]
        if not ok.all():
            bad = np.flatnonzero(~ok)
            problems.append(
                f"{bad.size} record(s) with a bad data CRC skipped, first at byte "
                f"{base + heads[bad[0]]}"
            )
            offs, lengths = offs[ok], lengths[ok]
    return offs, lengths, problems, pos, stop
