"""Numbers from input: the one place a logged value becomes a float or a counter.

Logs and configs hold `1e309`, `NaN`, `Infinity`, 5000-digit integers and 2**64.
They mean something: a value beyond any float is an infinity, a NaN is a NaN.
What they never are is a counter: `count` turns them into None (a bad record,
counted and skipped by the reader) where `int()` would raise. No reader calls
`int()` or `float()` on input itself.
"""

from __future__ import annotations

import json
import math
from typing import Any

# A counter above this is corrupt (2**53: where float64 stops counting exactly).
MAX_STEP = 2**53
# Longer integer literals are infinities: Python refuses int() of > 4300 digits.
_MAX_DIGITS = 400


def number(value: Any) -> float | None:
    """Any logged value as a float: NaN/Inf spellings included, a huge int as +-inf;
    None when it is not a number (a dict, a word, None)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, (str, bytes)):
        text = value.strip()
        if len(text) > 1000:  # a digit string this long: its sign tells the infinity
            digits = text.lstrip(b"+-" if isinstance(text, bytes) else "+-")
            if digits.isdigit():
                neg = text[:1] in ("-", b"-")
                return -math.inf if neg else math.inf
            return None
        try:  # float() takes "nan", "NaN", "inf", "-Infinity", "1e309" (= inf)
            return float(text)
        except ValueError:
            return None
    return None


def count(value: Any, lo: int = 0, hi: int = MAX_STEP) -> int | None:
    """A counter (step, epoch, total, size) as an int in [lo, hi]; None for NaN, +-inf,
    fractions far from whole, absurd magnitudes, and anything not a number."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if lo <= value <= hi else None
    f = number(value)
    if f is None or not math.isfinite(f) or not lo <= f <= hi:
        return None
    return int(f)


def finite(value: Any) -> float | None:
    """A finite float, or None (NaN, +-inf and non-numbers alike)."""
    f = number(value)
    return f if f is not None and math.isfinite(f) else None


def json_int(text: str) -> int | float:
    """`parse_int` for json.loads: a literal too long for int() is the infinity it means."""
    if len(text) > _MAX_DIGITS:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


def loads(text: str | bytes) -> Any:
    """json.loads that maps huge integers to +-inf and turns nesting too deep for the
    parser into ValueError (both are bad input, not crashes)."""
    try:
        return json.loads(text, parse_int=json_int)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
