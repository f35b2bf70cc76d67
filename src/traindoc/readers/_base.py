"""What every reader shares: the error for unusable input and the counted notes.

A reader raises only when nothing usable can come out of its input; anything
partial (a bad line, a wrong type, a missing side file) becomes a Note, counted
and reported once per file and kind, so a million bad lines make one message.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import orjson

from traindoc.model import Note, numbers

# A trainer's bookkeeping beside its metrics: how far along the run is (LlamaFactory's
# trainer_log.jsonl: total_steps, percentage, elapsed_time, remaining_time, and the
# running count total_tokens, 0 unless it is asked to count) and what it costs (ms-swift:
# memory(GiB), train_speed(iter/s)). Never a measurement of learning: no series is made
# of them (keys lower case, a bracketed unit dropped).
BOOKKEEPING = frozenset(
    {
        "total_steps",
        "percentage",
        "elapsed_time",
        "remaining_time",
        "total_tokens",
        "memory",
        "train_speed",
    }
)


def is_bookkeeping(key: str) -> bool:
    """`key` (any case, with or without a bracketed unit) is one of BOOKKEEPING."""
    low = key.strip().lower()
    if low.endswith(")") and "(" in low:
        low = low[: low.index("(")].rstrip()
    return low in BOOKKEEPING


class ReadError(Exception):
    """The input cannot be read at all. str() is one line naming the file."""

    def __init__(self, path: object, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class Notes:
    """Collects reader notes; repeated problems of one kind are counted, not listed."""

    def __init__(self) -> None:
        self._plain: list[Note] = []
        # (path, what) -> [count, first line, first detail]
        self._counted: dict[tuple[str, str], list[Any]] = {}

    def add(self, path: object, message: str, line: int | None = None) -> None:
        self._plain.append(Note(str(path), message, line))

    def count(
        self,
        path: object,
        what: str,
        line: int | None = None,
        detail: str = "",
        verb: str = "skipped",
    ) -> None:
        """Count one thing ("malformed line"); the note says how many and where the first was."""
        entry = self._counted.setdefault((str(path), f"{verb}\0{what}"), [0, line, detail])
        entry[0] += 1

    def extend(self, notes: Notes) -> None:
        self._plain.extend(notes._plain)
        for key, (n, line, detail) in notes._counted.items():
            entry = self._counted.setdefault(key, [0, line, detail])
            entry[0] += n

    def build(self) -> tuple[Note, ...]:
        out = list(self._plain)
        for (path, key), (n, line, detail) in self._counted.items():
            verb, what = key.split("\0")
            plural = "s" if n != 1 else ""
            what = what.replace("{s}", plural) if "{s}" in what else what + plural
            first = f", first at line {line}" if line is not None else ""
            extra = f" ({detail})" if detail else ""
            out.append(Note(path, f"{verb} {n} {what}{first}{extra}".strip(), line))
        return tuple(out)


# Bare NaN / +-Infinity values (Python's json writes them, HF logs are full of
# them in failing runs) are rewritten to these stand-ins so that orjson can parse
# the text, and mapped back by `to_float` and `restore`. No real metric is one of
# these exact numbers.
NAN_STANDIN, POS_STANDIN, NEG_STANDIN = -7.25e305, 7.25e305, -7.5e305
VALUE_TOKENS = tuple(
    (sep + tok, sep + rep)
    for sep in (b": ", b":", b", ", b",", b"[")
    for tok, rep in (
        (b"-Infinity", b"-7.5e305"),
        (b"Infinity", b"7.25e305"),
        (b"NaN", b"-7.25e305"),
    )
)


def loads_json(raw: bytes) -> Any:
    """Parse JSON bytes with orjson, 3-5x faster than Python's json on big logs.

    orjson refuses the bare NaN/Infinity tokens Python's json writes; when they
    appear only as values (as in trainer_state.json) they are swapped for
    stand-in numbers first. Anything else (a token inside a string, bad UTF-8,
    huge ints, invalid text) goes to Python's json, which also gives the error.
    """
    text = raw
    if b"NaN" in raw or b"Infinity" in raw:
        for token, standin in VALUE_TOKENS:
            text = text.replace(token, standin)
    if b"NaN" not in text and b"Infinity" not in text:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return numbers.loads(raw.decode("utf-8", errors="replace"))


def restore(values: np.ndarray) -> np.ndarray:
    """Turn the NaN/Infinity stand-ins of `loads_json` back into NaN/Inf, in place."""
    values[values == NAN_STANDIN] = math.nan
    values[values == POS_STANDIN] = math.inf
    values[values == NEG_STANDIN] = -math.inf
    return values


_STANDINS = {NAN_STANDIN: math.nan, POS_STANDIN: math.inf, NEG_STANDIN: -math.inf}


def to_float(value: Any) -> float | None:
    """A logged value as a float, NaN/Inf spellings included; None if not a number."""
    if isinstance(value, float) and value in _STANDINS:
        return _STANDINS[value]
    return numbers.number(value) if not isinstance(value, bytes) else None


def to_int(value: Any) -> int | None:
    """A counter: None for NaN/Inf, negatives and absurd magnitudes (model.numbers)."""
    return numbers.count(to_float(value))
