"""The W&B transaction log's framing and the protobuf wire format of its records.

Framing: a LevelDB-log variant, a 7-byte file header (":W&B", uint16 0xBEE1,
version), then 32 KiB blocks of chunks (uint32 zlib-crc32 over type byte +
payload, uint16 length, uint8 FULL/FIRST/MIDDLE/LAST). Records: protobuf
messages, decoded field by field (why not wandb's own classes: see wandb.py).
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from traindoc.readers import _protowire as protowire
from traindoc.readers._base import Notes, to_float

MAGIC = b":W&B\xe1\xbe"
BLOCK = 32 << 10
_HDR = struct.Struct("<IHB")
_TYPE_CRC = [zlib.crc32(bytes((t,))) for t in range(256)]


def records(
    data: bytes | BinaryIO, f: Path, notes: Notes, chunk: int = 32 * BLOCK
) -> Iterator[bytes]:
    """Complete records in file order; a truncated or corrupt chunk ends the walk with a Note.

    Read `chunk` bytes (whole blocks) at a time: a chunk never spans blocks, so only the
    file's last read can end inside one; a record split over blocks is joined as it goes.
    1 MB: bigger reads buy no speed (decoding the records is the cost) and hold more.
    """
    fh = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    buf, base, pos, parts = _fill(fh, chunk), 0, 7, []
    while buf:
        n = len(buf)
        while pos < n:
            left = BLOCK - pos % BLOCK
            if left < 7:  # block trailer: zero padding
                pos += left
                continue
            if pos + 7 > n:
                notes.add(f, f"truncated chunk header at byte {base + pos}; records before it kept")
                return
            crc, length, kind = _HDR.unpack_from(buf, pos)
            end = pos + 7 + length
            if crc == 0 and length == 0 and kind == 0:  # zero-filled tail (preallocated file)
                pos += left
                continue
            if end > n or length > left - 7:
                notes.add(f, f"truncated record at byte {base + pos}; records before it kept")
                return
            payload = buf[pos + 7 : end]
            if zlib.crc32(payload, _TYPE_CRC[kind]) != crc or not 1 <= kind <= 4:
                notes.add(
                    f,
                    f"bad checksum at byte {base + pos}; records before it kept, the rest not read",
                )
                return
            pos = end
            if kind == 1:
                yield payload
            elif kind == 2:
                parts = [payload]
            elif kind == 3 and parts:
                parts.append(payload)
            elif kind == 4 and parts:
                yield b"".join((*parts, payload))
                parts = []
        if n < chunk:  # the end of the file
            return
        buf, base, pos = _fill(fh, chunk), base + n, pos - n


def _fill(fh: BinaryIO, size: int) -> bytes:
    """`size` bytes, fewer only at the end of the file."""
    out = fh.read(size)
    while 0 < len(out) < size and (more := fh.read(size - len(out))):
        out += more
    return out


def fields(b: bytes) -> Iterator[tuple[int, Any]]:
    """(field number, value) of one message: int for varints, bytes otherwise.

    The wire type says what a value is, not the schema: a damaged record can hold a
    varint where a message or string belongs. `fields`, `text`, `whole` and `double`
    raise ValueError (an undecodable record) for a value of the wrong kind.
    """
    if not isinstance(b, bytes):
        raise ValueError("a message field of the wrong wire type")
    for num, wire, v in protowire.fields(b):
        yield num, (b[v[0] : v[1]] if wire == 2 else v)


def text(v: Any) -> str:
    if not isinstance(v, bytes):
        raise ValueError("a string field of the wrong wire type")
    return v.decode()


def whole(v: Any) -> int:
    if not isinstance(v, int):
        raise ValueError("an integer field of the wrong wire type")
    return v


def double(v: Any) -> float:
    if not isinstance(v, bytes) or len(v) != 8:
        raise ValueError("a double field of the wrong wire type")
    return struct.unpack("<d", v)[0]


def item(b: bytes) -> tuple[str, Any]:
    """One HistoryItem/ConfigItem/SummaryItem: (key, value or its JSON text)."""
    key, nested, value = "", [], None
    for num, v in fields(b):
        if num == 1:
            key = text(v)
        elif num == 2:
            nested.append(text(v))
        elif num in (16, 7, 8):  # value_json, text, json
            value = text(v)
        elif num == 6:  # typed double
            value = double(v)
        elif num in (4, 5):  # bool, zigzag sint64
            v = whole(v)
            value = v if num == 4 else (v >> 1) ^ -(v & 1)
    return key or ".".join(nested), value


def history_row(b: bytes) -> dict[str, float]:
    row: dict[str, float] = {}
    for num, v in fields(b):
        if num == 1:
            key, value = item(v)
            f = to_float(value)  # JSON numbers, NaN/Infinity; dicts (media, histograms) skipped
            if f is not None:
                row[key] = f
    return row


def items(b: bytes, out: dict[str, Any]) -> None:
    for num, v in fields(b):
        if num == 1:
            key, value = item(v)
            try:
                out[key] = json.loads(value) if isinstance(value, str) else value
            except ValueError:
                out[key] = value
