"""Numbers as users print them, and the one place input numbers become steps.

Logs spell numbers every way: `2.275809E+00`, `1,234`, `nan`, `-inf`,
`Infinity`, `7.000e-05`, `45%`. `NUM` finds them where they are values (not
inside a name such as `pg0`, `rec@1`, `layers.3` or `top-1`). `to_step` is how
every reader turns a parsed value into a step: a non-finite, fractional-junk or
astronomically large counter is a bad record, never an `int()` crash.
"""

from __future__ import annotations

import math
import re

# A value, not part of a name: no letter, digit, '.', '@' or '-' right before it.
_NOT_IN_NAME = rb"(?<![\w.@\-])"
NUM_SRC = (
    _NOT_IN_NAME
    + rb"(?:[-+]?(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
    + rb"|[-+]?(?:nan|NaN|NAN|inf|Inf|INF|infinity|Infinity)(?![A-Za-z_]))"
)
NUM = re.compile(NUM_SRC)
# Splitting on a capturing group gives [text, number, text, number, ...]: one C pass.
SPLIT = re.compile(b"(" + NUM_SRC + b")")

# A step above this is a corrupt counter (2**53: where float64 stops counting exactly).
MAX_STEP = 2**53


def to_num(raw: bytes | str) -> float:
    """The value of a NUM match (thousands separators allowed); ValueError otherwise."""
    try:
        return float(raw)
    except ValueError:
        if isinstance(raw, bytes):
            return float(raw.replace(b",", b""))
        return float(raw.replace(",", ""))


def parse(raw: object) -> float | None:
    """Any logged value as a float (NaN/Inf spellings included); None if not a number."""
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, int | float):
        try:
            return float(raw)
        except OverflowError:  # a 5000-digit int: too big to be a metric
            return math.inf if raw > 0 else -math.inf
    if isinstance(raw, bytes | str):
        text = raw.strip()
        if isinstance(text, bytes):
            text = text.decode("ascii", "replace")
        if text.endswith("%"):
            text = text[:-1]
        try:
            return to_num(text)
        except (ValueError, OverflowError):
            return None
    return None


def to_step(value: object) -> int | None:
    """A step counter as an int: None for NaN/Inf, negatives and absurd magnitudes."""
    f = parse(value)
    if f is None or not math.isfinite(f) or f < 0 or f > MAX_STEP:
        return None
    return int(f)
