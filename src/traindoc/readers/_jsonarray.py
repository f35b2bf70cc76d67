"""One big array inside a JSON object file, parsed a batch of elements at a time.

trainer_state.json keeps its whole log_history (a record per logged step: millions
in a long run) in one array next to a few small keys. Parsed whole, a file costs
about five times its size in Python objects; here only one chunk's records exist
at a time. Each batch is cut at a `}` followed by `,` or `]` and parsed with one
`loads_json` of `[batch]`: if that parses, the cut was between two elements (a cut
inside a string or a nested object leaves the brackets or quotes open), so no
byte-level tokenizer is needed. The rest of the object is parsed once with the
array emptied, which also proves the key was the top-level one.

Anything this does not understand (no such key, a value that is not an array, a
batch that will not parse, a truncated file) returns None, possibly after some
batches went out: the caller undoes them and reads the file the plain way, so an
odd file costs memory, never a different answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from traindoc.readers._base import VALUE_TOKENS, loads_json

# Bytes per batch. Small on purpose: orjson's working buffer is ~14x its input, and
# once glibc frees a big block it raises its mmap threshold to that size, so the
# growing columns move into the heap and fragment it (1 MB batches: peak 81 MB on the
# 100 MB bench file; 256 KB: 70 MB, 30 of them the interpreter). Speed is the same.
CHUNK = 256 << 10
_MAX_BUF = 64 << 20  # one element (or the text before the key) bigger than this: read whole
_TRIES = 8  # cuts tried per buffer before reading more (a nested record defeats a few)
_SCAN = 10_000  # "}" looked at per buffer for those cuts
_WS = b" \t\r\n"
_START, _SEP, _ELEM = range(3)  # after "[", after an element, after a ","


class _Buffer:
    def __init__(self, f: BinaryIO, seen: Callable[[int], None] | None) -> None:
        self.f, self.seen, self.buf, self.eof = f, seen, b"", False

    def fill(self, size: int = 0) -> bool:
        """Append `size` bytes (a chunk by default); False at the end of the file."""
        data = self.f.read(size or CHUNK)
        if self.seen is not None:
            self.seen(self.f.tell())
        self.eof = not data
        self.buf += data
        return bool(data)


def stream(
    path: Path,
    key: str,
    on_batch: Callable[[list[Any], int], None],
    seen: Callable[[int], None] | None = None,
) -> dict[str, Any] | None:
    """Feed the elements of the top-level `key` array to on_batch(elements, index of the
    first); return the object with that array emptied, or None (read the file whole).
    OSError propagates."""
    with path.open("rb") as f:
        r = _Buffer(f, seen)
        head = _head(r, json.dumps(key).encode())
        if head is None:
            return None
        state, index = _START, 0
        while True:
            if len(r.buf) < CHUNK:  # top up to one chunk: the batch size is what it costs
                r.fill(CHUNK - len(r.buf))
            r.buf = r.buf.lstrip(_WS)
            c = r.buf[:1]
            if not c:
                if r.fill():
                    continue
                return None  # the file ends inside the array
            if state == _SEP:
                if c == b",":
                    r.buf, state = r.buf[1:], _ELEM
                    continue
                if c != b"]":
                    return None
            if c == b"]":
                if state == _ELEM:
                    return None  # a trailing comma
                tail = r.buf[1:] + f.read()
                break
            got = _batch(r.buf)
            if got is None:
                if len(r.buf) > _MAX_BUF or not r.fill():
                    return None
                continue
            elements, end = got
            on_batch(elements, index)
            index += len(elements)
            r.buf, state = r.buf[end:], _SEP
    if json.dumps(key).encode() in tail:
        return None  # a second key of that name: the plain parser keeps the last
    try:
        rest = loads_json(head + b"[]" + tail)
    except ValueError:
        return None
    if not isinstance(rest, dict) or rest.get(key) != []:
        return None  # the key found was nested or inside a string
    return rest


def _head(r: _Buffer, token: bytes) -> bytes | None:
    """The text up to the array's "[" (excluded); the buffer is left just after it."""
    start = 0
    while True:
        at = r.buf.find(token, start)
        if at < 0:
            start = max(0, len(r.buf) - len(token))
            if len(r.buf) > _MAX_BUF or not r.fill():
                return None
            continue
        after = r.buf[at + len(token) : at + len(token) + 256]
        while len(after.strip(_WS)) < 2 and not r.eof and r.fill():
            after = r.buf[at + len(token) : at + len(token) + 256]
        rest = after.lstrip(_WS)
        if rest[:1] != b":":
            start = at + 1  # the name as a value ("x": "log_history"), not as a key
            continue
        value = rest[1:].lstrip(_WS)
        if value[:1] != b"[":
            return None  # null, an object, a number: the plain reader says what it is
        bracket = at + len(token) + len(after) - len(value)
        head, r.buf = r.buf[:bracket], r.buf[bracket + 1 :]
        return head


def _batch(buf: bytes) -> tuple[list[Any], int] | None:
    """The elements up to the last record end that parses, and where they end. orjson
    alone first (a wrong cut costs a fast failure); the Python parser `loads_json`
    falls back to (NaN inside a string, huge integers, bad UTF-8) only after."""
    cuts = _cuts(buf)
    for parse in (_orjson, loads_json):
        for p in cuts:
            try:
                items = parse(b"[" + buf[: p + 1] + b"]")
            except ValueError:  # JSONDecodeError, bad UTF-8, nesting too deep
                continue
            if isinstance(items, list):
                return items, p + 1
    return None


def _cuts(buf: bytes) -> list[int]:
    """The last few `}` that look like a record's end: followed by `, {` or by `]`. (A
    `}` inside a record is followed by `,` and a key, or by another `}`.)"""
    out: list[int] = []
    end = len(buf)
    for _ in range(_SCAN):
        p = buf.rfind(b"}", 0, end)
        if p < 0:
            break
        end = p
        nxt = buf[p + 1 : p + 256].lstrip(_WS)
        if nxt[:1] == b"]" or (nxt[:1] == b"," and nxt[1:].lstrip(_WS)[:1] == b"{"):
            out.append(p)
            if len(out) == _TRIES:
                break
    return out


def _orjson(raw: bytes) -> Any:
    if b"NaN" in raw or b"Infinity" in raw:
        for token, standin in VALUE_TOKENS:
            raw = raw.replace(token, standin)
        if b"NaN" in raw or b"Infinity" in raw:
            raise ValueError("a NaN or Infinity token inside a string")
    return orjson.loads(raw)
