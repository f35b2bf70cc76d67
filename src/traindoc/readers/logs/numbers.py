"""Numbers as users print them, and the one place input numbers become steps.

Logs spell numbers every way: `2.275809E+00`, `1,234`, `nan`, `-inf`,
`Infinity`, YAML's `.nan` / `-.inf`, `7.000e-05`, `45%`, PaddleOCR's `nanxxx` / `infxxx` / `-infxx`
(its SmoothedValue logs every stat as `'{}: {:x<6f}'`: fill `x`, width 6, so a
finite value never shows the fill, but `nan` and `inf` are padded with `x`), and
the old Microsoft C runtime's `1.#QNAN0`, `-1.#IND00`, `1.#INF00` (printf of a NaN or
an infinity on Windows before VS 2015: Caffe, CNTK and darknet builds print them), and
C's NaN with its parenthesised n-char-sequence, `-nan(ind)` / `nan(snan)` (how the
Microsoft runtime since VS 2015 prints a NaN: darknet's Windows builds print
`-nan(ind), -nan(ind) avg loss`; C99 lets any printf or strtod spell one so).
`NUM` finds them where they are values (not
inside a name such as `pg0`, `rec@1`, `layers.3` or `top-1`). `to_step` is how
a text reader turns a parsed value into a step: a non-finite, fractional-junk or
astronomically large counter is a bad record, never an `int()` crash (the rules
themselves live in model/numbers.py, shared by every reader).
"""

from __future__ import annotations

import math
import re

from traindoc.model.numbers import MAX_STEP, count, number

__all__ = ["MAX_STEP", "NUM", "NUM_SRC", "SPLIT", "nonfinite_text", "parse", "to_num", "to_step"]

# A value, not part of a name: no letter, digit, '.', '@' or '-' right before it.
_NOT_IN_NAME = rb"(?<![\w.@\-])"
# ... but "nan" or "inf" before a plural count noun is a word of a name, not a value:
# Megatron's "number of nan iterations:   0", "num_inf steps", "nan grads: 3". A NaN value is
# never followed by the unit it counts.
_COUNTED = (
    rb"(?![ \t]+(?:iterations|iters|steps|batches|samples|updates|values|grads|gradients"
    rb"|losses|tokens|elements|params|parameters)\b)"
)
# The MSVC runtime's NaN / infinity: "1.#QNAN0", "1.#SNAN", "-1.#IND00", "1.#INF00" (the
# digits after the word are printf's precision padding). Tried before the plain numbers,
# whose "1." would otherwise match first and leave "#QNAN0" as text.
_MSVC = rb"[-+]?1\.#(?:QNAN|SNAN|IND|INF)\d*(?![\w#])"
MSVC = re.compile(_MSVC)
# C99's "nan(n-char-sequence)": the UCRT prints "-nan(ind)" (indeterminate) and "nan(snan)";
# the sequence is part of the value, not a parenthesised running average after it.
_CNAN = rb"[-+]?(?:nan|NaN|NAN)\(\w{0,16}\)"
CNAN = re.compile(_CNAN)
NUM_SRC = (
    _NOT_IN_NAME
    + rb"(?:"
    + _MSVC
    + rb"|"
    + _CNAN
    + rb"|[-+]?(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
    + rb"|[-+]?\.?(?:nan|NaN|NAN|inf|Inf|INF|infinity|Infinity)(?![A-Za-z_])"
    + _COUNTED
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


# YAML's spellings of the non-finite floats, `.nan`, `.inf`, `-.inf` (YAML 1.1 / 1.2 core
# schema: how PyYAML dumps a NaN, so RLlib's pretty_print results and OmegaConf dumps show them).
_YAML = re.compile(r"[-+]?\.(?:nan|NaN|NAN|inf|Inf|INF)")


def _msvc(text: str) -> float | None:
    """The value of an MSVC NaN / infinity spelling, None for anything else."""
    if MSVC.fullmatch(text.encode("ascii", "replace")) is None:
        return None
    if "#INF" in text:
        return -math.inf if text.startswith("-") else math.inf
    return math.nan  # QNAN, SNAN, IND (indeterminate): a NaN whatever its sign


def nonfinite_text(raw: bytes | str) -> bool:
    """The printed value is a NaN or an infinity spelling (not a finite number)."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    text = text.strip().lower().lstrip("+-").lstrip(".").rstrip("x")
    if CNAN.fullmatch(text.encode("ascii", "replace")):
        return True
    return text in ("nan", "inf", "infinity") or "1.#" in text


def to_num(raw: bytes | str) -> float:
    """The value of a NUM match (thousands separators allowed); ValueError otherwise."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    if "#" in text and (v := _msvc(text)) is not None:
        return v
    if ")" in text and CNAN.fullmatch(text.encode("ascii", "replace")):
        return math.nan
    if raw[-2:] in (b"xx", "xx"):  # PaddleOCR's x-filled nan/inf (`{:x<6f}`)
        raw = raw.rstrip(b"x" if isinstance(raw, bytes) else "x")
    if "." in text[:2] and _YAML.fullmatch(text):  # YAML's `.nan`, `-.inf`
        return math.nan if text.lower().endswith("nan") else float(text.replace(".", ""))
    try:
        return float(raw)
    except ValueError:
        if isinstance(raw, bytes):
            return float(raw.replace(b",", b""))
        return float(raw.replace(",", ""))


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
        if "#" in text and (v := _msvc(text)) is not None:
            return v
        if ")" in text and CNAN.fullmatch(text.encode("ascii", "replace")):
            return math.nan
        if "." in text[:2] and _YAML.fullmatch(text):  # YAML's `.nan`, `-.inf`
            return math.nan if text.lower().endswith("nan") else float(text.replace(".", ""))
        return number(text)
    return number(raw)


def to_step(value: object) -> int | None:
    """A step counter as an int: None for NaN/Inf, negatives and absurd magnitudes."""
    return count(parse(value))
