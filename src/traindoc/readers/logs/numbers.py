"""Numbers as users print them, and the one place input numbers become steps.

Logs spell numbers every way: `2.275809E+00`, `1,234`, `nan`, `-inf`,
`Infinity`, `7.000e-05`, `45%`, PaddleOCR's `nanxxx` / `infxxx` / `-infxx`
(its SmoothedValue logs every stat as `'{}: {:x<6f}'`: fill `x`, width 6, so a
finite value never shows the fill, but `nan` and `inf` are padded with `x`), and
the Microsoft C runtime's `1.#QNAN`, `-1.#IND`, `1.#INF` (printf of NaN/Inf on
Windows before VS2015: Caffe, darknet, C++ and old Python builds; a precision pads
them as `1.#QNAN0`, `-1.#IND00`, `1.#INF00`).
`NUM` finds them where they are values (not
inside a name such as `pg0`, `rec@1`, `layers.3` or `top-1`). `to_step` is how
a text reader turns a parsed value into a step: a non-finite, fractional-junk or
astronomically large counter is a bad record, never an `int()` crash (the rules
themselves live in model/numbers.py, shared by every reader).
"""

from __future__ import annotations

import re

from traindoc.model.numbers import MAX_STEP, count, number

__all__ = ["MAX_STEP", "MSVC_SRC", "NUM", "NUM_SRC", "SPLIT", "msvc", "parse", "to_num", "to_step"]

# A value, not part of a name: no letter, digit, '.', '@' or '-' right before it.
_NOT_IN_NAME = rb"(?<![\w.@\-])"
# MSVC's printf of NaN/Inf: "1.#QNAN", "-1.#IND", "1.#INF", padded by a precision
# ("1.#QNAN0", "-1.#IND00", "1.#INF00"); before the digit form, which would take "1." alone.
MSVC_SRC = rb"[-+]?\d\.#(?:QNAN|SNAN|IND|INF)\d*"
NUM_SRC = (
    _NOT_IN_NAME
    + rb"(?:"
    + MSVC_SRC
    + rb"|[-+]?(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
    + rb"|[-+]?(?:nan|NaN|NAN|inf|Inf|INF|infinity|Infinity)(?![A-Za-z_])"
    + rb"|(?:nanxxx|infxxx|-infxx)(?![A-Za-z_]))"
)
# ... but a counter glued to its name by a hyphen ("Epoch-12\tloss:11.5", STgram-MFN's
# logger; "Iter-300") is that counter's value: not a name like `top-1`, and not inside a
# path or a file name (`model_epoch-3.pth`, `/ckpt/Epoch-3/`).
_GLUED = rb"(?<![\w/.\-])"
NUM_SRC = (
    rb"(?:"
    + NUM_SRC
    + rb"|(?:(?<="
    + _GLUED
    + rb"[Ee]poch-)|(?<="
    + _GLUED
    + rb"EPOCH-)|(?<="
    + _GLUED
    + rb"[Ii]ter-)|(?<="
    + _GLUED
    + rb"ITER-)|(?<="
    + _GLUED
    + rb"[Ii]teration-))\d+(?![\w.]))"
)
NUM = re.compile(NUM_SRC)
# Splitting on a capturing group gives [text, number, text, number, ...]: one C pass.
SPLIT = re.compile(b"(" + NUM_SRC + b")")


def to_num(raw: bytes | str) -> float:
    """The value of a NUM match (thousands separators allowed); ValueError otherwise."""
    if "#" in (raw if isinstance(raw, str) else raw.decode("ascii", "replace")):
        return msvc(raw)
    if raw[-2:] in (b"xx", "xx"):  # PaddleOCR's x-filled nan/inf (`{:x<6f}`)
        raw = raw.rstrip(b"x" if isinstance(raw, bytes) else "x")
    try:
        return float(raw)
    except ValueError:
        if isinstance(raw, bytes):
            return float(raw.replace(b",", b""))
        return float(raw.replace(",", ""))


def msvc(raw: bytes | str) -> float:
    """MSVC's NaN/Inf spelling ("1.#QNAN", "-1.#IND00", "1.#INF") as a float; ValueError
    for anything else. "#IND" (indeterminate) is a NaN, "#INF" an infinity of its sign."""
    text = raw if isinstance(raw, str) else raw.decode("ascii", "replace")
    m = re.fullmatch(MSVC_SRC.decode(), text.strip())
    if m is None:
        raise ValueError(text)
    if "#INF" in text:
        return float("-inf") if text.strip().startswith("-") else float("inf")
    return float("nan")


def parse(raw: object) -> float | None:
    """Any logged value as a float (NaN/Inf spellings, `45%`, `1,234` included)."""
    if isinstance(raw, bytes | str):
        text = raw.strip()
        if isinstance(text, bytes):
            text = text.decode("ascii", "replace")
        if text.endswith("%"):
            text = text[:-1]
        if "," in text:
            text = text.replace(",", "")
        if text.endswith("xx") and text.rstrip("x") in ("nan", "inf", "-inf"):
            text = text.rstrip("x")  # PaddleOCR's x-filled nan/inf (`{:x<6f}`)
        if "#" in text:
            try:
                return msvc(text)
            except ValueError:
                return None
        return number(text)
    return number(raw)


def to_step(value: object) -> int | None:
    """A step counter as an int: None for NaN/Inf, negatives and absurd magnitudes."""
    return count(parse(value))
