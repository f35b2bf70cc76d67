"""Generic mutators: bytes, text, JSON documents and JSON lines."""

from __future__ import annotations

import json
import random
import re

# Values that break naive int()/float()/formatting code.
FLOATS = [
    float("nan"),
    float("inf"),
    float("-inf"),
    1e308,
    -1e308,
    1.79e308,
    5e-324,
    -5e-324,
    0.0,
    -0.0,
    1e-300,
    2.0**64,
    -(2.0**63),
    3.0,
]
NUMBER_TEXTS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "-1e309",
    "1e308",
    "1.79e308",
    "5e-324",
    "9" * 5000,
    "-" + "9" * 4301,
    "18446744073709551616",
    "-1",
    "0",
    "1e-400",
    "1.5",
    '"x"',
    '"abc"',
    '"nan"',
    '"inf"',
    "null",
    "true",
    "[]",
    "{}",
    '"1/0"',
    '"1e309"',
]
_ODD_VALUES: list = [
    None,
    True,
    False,
    "",
    "x",
    "abc",
    [],
    {},
    [1, 2],
    {"a": 1},
    5,
    -1,
    0,
    2**64,
    10**30,
    "NaN",
    "inf",
    1.5,
    [[[]]],
    {"loss": "x"},
]
_NUM = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def bitflip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(rng: random.Random, data: bytes) -> bytes:
    """Cut at a random byte, or at a boundary (newline, brace, comma) +- 1."""
    if not data:
        return data
    if rng.random() < 0.5:
        marks = [m.start() for m in re.finditer(rb"[\n}\],:]", data[:200_000])]
        if marks:
            return data[: max(0, rng.choice(marks) + rng.randint(-1, 1))]
    return data[: rng.randrange(len(data))]


def splice(rng: random.Random, data: bytes) -> bytes:
    junk = rng.choice(
        (b"\x00", b"\xff\xfe", b"{", b"[", b'"', b"\n", b"\r", b"NaN", b"\xed\xa0\x80", b"\x1b[2K")
    )
    i = rng.randrange(len(data) + 1)
    return data[:i] + junk * rng.randint(1, 3) + data[i:]


def chunk(rng: random.Random, data: bytes) -> bytes:
    if len(data) < 2:
        return data + data
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.randint(1, 256))
    k = rng.randrange(3)
    if k == 0:
        return data[:i] + data[j:]  # delete
    if k == 1:
        return data[:j] + data[i:j] * rng.randint(1, 4) + data[j:]  # repeat
    return data[:i] + bytes(rng.randrange(256) for _ in range(j - i)) + data[j:]  # noise


def numbers(rng: random.Random, data: bytes) -> bytes:
    """Replace a few number tokens by values code must not int() or format blindly."""
    found = [m.span() for m in _NUM.finditer(data[:200_000])]
    if not found:
        return splice(rng, data)
    out = data
    for a, b in sorted(rng.sample(found, min(len(found), rng.randint(1, 3))), reverse=True):
        out = out[:a] + rng.choice(NUMBER_TEXTS).encode() + out[b:]
    return out


def nesting(rng: random.Random, data: bytes) -> bytes:
    d = rng.choice((200, 1000, 50_000, 200_000))
    open_, close = rng.choice(((b"[", b"]"), (b'{"a":', b"}"), (b"- ", b""), (b"(", b")")))
    deep = open_ * d + b"1" + close * d
    i = rng.randrange(len(data) + 1)
    return data[:i] + deep + data[i:]


def generic(rng: random.Random, data: bytes) -> bytes:
    return rng.choice((bitflip, truncate, splice, chunk, numbers, nesting))(rng, data)


# ---- JSON-aware ----------------------------------------------------------------------


def _paths(doc, prefix=(), out=None, limit=400):
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    out.append(prefix)
    if isinstance(doc, dict):
        for k, v in list(doc.items())[:50]:
            _paths(v, (*prefix, k), out, limit)
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:50]):
            _paths(v, (*prefix, i), out, limit)
    return out


def _set(doc, path, value):
    if not path:
        return value
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def json_doc(rng: random.Random, data: bytes) -> bytes:
    """Parse, change one value (wrong type or an odd number), write back as text."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):  # an earlier mutation nested it past the stack
        return generic(rng, data)
    try:
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(_paths(doc))
            odd = rng.random() < 0.5
            value = rng.choice(_ODD_VALUES) if odd else _Raw(rng.choice(NUMBER_TEXTS))
            doc = _set(doc, path, value)
        return _dumps(doc).encode()
    except RecursionError:  # json parses deeper than these walks can recurse
        return generic(rng, data)


class _Raw(str):
    """A token written as is (1e309, NaN, a 5000-digit int)."""


def _dumps(doc) -> str:
    if isinstance(doc, _Raw):
        return str(doc)
    if isinstance(doc, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_dumps(v)}" for k, v in doc.items()) + "}"
    if isinstance(doc, list):
        return "[" + ", ".join(_dumps(v) for v in doc) + "]"
    return json.dumps(doc)


def json_lines(rng: random.Random, data: bytes) -> bytes:
    """Damage a few lines of a JSONL file, each as a JSON document."""
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        k = rng.randrange(4)
        if k == 0:
            lines[i] = json_doc(rng, lines[i])
        elif k == 1:
            lines.insert(i, rng.choice(_LINES))
        elif k == 2:
            lines[i] = generic(rng, lines[i])
        else:
            lines.insert(0, rng.choice(_LINES))
    return b"\n".join(lines)


_LINES = [
    b'{"step": 1e309, "loss": 2}',
    b'{"step": NaN, "loss": 2}',
    b'{"step": Infinity, "loss": 2}',
    b'{"step": ' + b"9" * 5000 + b', "loss": 2}',
    b'{"step": 18446744073709551616, "loss": 2}',
    b'{"step": -5, "loss": 1e308}',
    b'{"step": "x", "loss": "abc"}',
    b'{"step": 1, "loss": [1, 2]}',
    b'{"step": 1, "loss": {"a": 1}}',
    b'{"step": 1, "learning_rate": 5e-324, "loss": 1e308, "grad_norm": 1.79e308}',
    b'{"step": 2, "loss": NaN, "grad_norm": Infinity}',
    b"[1, 2, 3]",
    b"5",
    b'"text"',
    b"{" * 5000,
    b"[" * 100000 + b"]" * 100000,
    b'{"event": "resume", "step": 1e309}',
    b'{"iter": 1e309, "mode": "train", "loss": 1}',
    b'{"train_runtime": "x", "log_history": 5}',
]
