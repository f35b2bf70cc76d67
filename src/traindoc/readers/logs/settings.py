"""Settings a plain-PyTorch script prints at the top of its log: an argparse
`Namespace(lr=20, model='LSTM', data='./data/wikitext-2', ...)` dump, or a config
module echoed line by line (nanoGPT's `init_from = 'gpt2'`).

Read as a metric line, a Namespace is a record: its `lr=20` and `epochs=6` become a
curve point at step 6, and its strings are lost. Read here, each value is parsed as a
Python literal (`ast.literal_eval`, one value at a time: never eval), and a value that
is not a literal (`device=device(type='cuda')`, `act=<function relu at 0x7f>`) is
skipped while the rest are kept. Which keys become facts is configs.py's alias table.
"""

from __future__ import annotations

import ast
import re

from traindoc.readers import configs

_NAMESPACE = b"Namespace("
_MAX_VALUE = 400  # longer than any setting a fact is taken from
_KEY = re.compile(r"\s*([A-Za-z_]\w{0,60})\s*=(.*)", re.DOTALL)
# `key = 'text'` (a quoted literal, a comment after it): a config module's line
_ASSIGN = re.compile(
    rb"^\s*([A-Za-z_]\w{0,60})\s*=\s*('[^'\n]{0,300}'|\"[^\"\n]{0,300}\")\s*,?\s*(?:#.*)?$"
)
_PAIRS = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSERS = frozenset(_PAIRS.values())


def is_namespace(text: bytes) -> bool:
    return _NAMESPACE in text


def namespace(text: bytes) -> dict[str, object]:
    """The well-known settings of the argparse Namespace printed on this line (its
    literal values only; empty when it holds none)."""
    at = text.find(_NAMESPACE)
    if at < 0:
        return {}
    body = text[at + len(_NAMESPACE) :].decode("utf-8", "replace")
    out: dict[str, object] = {}
    for piece in _split(body):
        m = _KEY.match(piece)
        if m is None or (key := m.group(1).lower()) not in configs.SETTING_KEYS:
            continue
        value = _literal(m.group(2))
        if value is not _NOT:
            out.setdefault(key, value)
    return out


def assignment(text: bytes) -> tuple[str, object] | None:
    """A well-known setting given a quoted value on a line of its own
    (`dataset = 'shakespeare'`, `init_from = 'gpt2' # a comment`)."""
    m = _ASSIGN.match(text)
    if m is None:
        return None
    key = m.group(1).decode().lower()
    if key not in configs.SETTING_KEYS:
        return None
    value = _literal(m.group(2).decode("utf-8", "replace"))
    return None if value is _NOT else (key, value)


_NOT = object()


def _literal(src: str) -> object:
    src = src.strip()
    if not src or len(src) > _MAX_VALUE:
        return _NOT
    try:
        return ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT


def _split(body: str) -> list[str]:
    """The `key=value` pieces of a call's arguments: split at the commas outside
    brackets and quotes, up to the parenthesis that closes the call (or the end of
    the line, when the dump was cut)."""
    pieces, depth, start, quote, i = [], [], 0, "", 0
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif ord(c) in _PAIRS:
            depth.append(_PAIRS[ord(c)])
        elif ord(c) in _CLOSERS:
            if not depth:  # the Namespace's own ")"
                pieces.append(body[start:i])
                return pieces
            if depth[-1] == ord(c):
                depth.pop()
        elif c == "," and not depth:
            pieces.append(body[start:i])
            start = i + 1
        i += 1
    pieces.append(body[start:])  # cut short: its last value is dropped if not whole
    return pieces
