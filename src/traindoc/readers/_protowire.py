"""The protobuf wire format, field by field: what the TensorBoard and W&B decoders share.

Both files are streams of protobuf messages whose few fields we need are wire
contracts (renumbering would break every file ever written), so a small
generic walker replaces the generated classes and their runtime.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def varint(b: bytes, i: int) -> tuple[int, int]:
    """(value, next offset) of the base-128 varint at b[i]."""
    x = b[i]
    if x < 0x80:
        return x, i + 1
    result, shift = x & 0x7F, 7
    while True:
        i += 1
        x = b[i]
        result |= (x & 0x7F) << shift
        if x < 0x80:
            return result, i + 1
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(b: bytes, i: int = 0, end: int | None = None) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of the message in b[i:end].

    Values: int for varints, the raw 8 or 4 bytes for fixed64 / fixed32, and
    for length-delimited fields the (start, stop) span in b, so nested
    messages are walked without copying. ValueError when the bytes lie.
    """
    end = len(b) if end is None else end
    while i < end:
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = (i, i + n), i + n
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        if i > end:
            raise ValueError("field runs past its message")
        yield key >> 3, wt, v
