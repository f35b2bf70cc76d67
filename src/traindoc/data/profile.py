"""Cheap per-sample profile for the mix checks: is it code, which writing system.

Heuristics, tuned to be fast (regexes over the first 2,000 characters) rather
than exact: the mix check needs shares over a corpus, not a verdict per sample.
"""

from __future__ import annotations

import re

import numpy as np

_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import|return\b|#include|function\b|"
    r"(?:public|private|static|const|let|var|fn|func) |if\s*\(|for\s*\(|while\s*\(|\}|@\w+|"
    r"(?:if|elif|else|for|while|try|except|with|finally)\b.*:\s*$|"
    r"[\w.\[\]]+\s*[-+*/|]?=\s*\S|\w+\(.*\)\s*$)"
    r"|[;{]\s*$",
    re.M,
)
_SYMBOLS = re.compile(r"[{}\[\]();=<>#_\\|&*+]")
_SCRIPTS = {
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "greek": re.compile(r"[\u0370-\u03ff]"),
    "arabic": re.compile(r"[\u0600-\u06ff]"),
    "hebrew": re.compile(r"[\u0590-\u05ff]"),
    "devanagari": re.compile(r"[\u0900-\u097f]"),
    "cjk": re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"),
}
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def is_code(text: str) -> bool:
    head = text[:2000]
    lines = head.count("\n") + 1
    if lines >= 2:
        hits = len(_CODE_LINE.findall(head))
        if hits >= 2 and hits >= 0.3 * lines:
            return True
    n = len(head)
    return n >= 40 and len(_SYMBOLS.findall(head)) > 0.12 * n


def script(text: str) -> str:
    """The dominant writing system of the first 300 characters ("latin" for ASCII)."""
    head = text[:300]
    if head.isascii():
        return "latin" if any(c.isalpha() for c in head) else "other"
    counts = {name: len(rx.findall(head)) for name, rx in _SCRIPTS.items()}
    counts["latin"] = len(_LATIN.findall(head))
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else "other"


def length_modes(words: np.ndarray, min_share: float = 0.15, min_ratio: float = 4.0) -> list[float]:
    """Typical lengths of the separate modes of a length distribution.

    Peaks of a log2 histogram (half-octave bins) holding at least `min_share`
    of the samples each, at least `min_ratio`x apart, with a valley below half
    the smaller peak between them. One mode is the normal case.
    """
    w = words[words > 0]
    if w.size < 20:
        return []
    bins = np.floor(np.log2(w) * 2).astype(int)
    hist = np.bincount(bins - bins.min()).astype(float)
    smooth = np.convolve(hist, [0.25, 0.5, 0.25], mode="same")
    peaks = [
        i
        for i in range(len(smooth))
        if smooth[i] > 0
        and smooth[i] >= (smooth[i - 1] if i else 0)
        and smooth[i] > (smooth[i + 1] if i + 1 < len(smooth) else 0)
    ]
    modes: list[int] = []
    for p in sorted(peaks, key=lambda i: -smooth[i]):
        mass = hist[max(p - 2, 0) : p + 3].sum() / w.size
        if mass < min_share:
            continue
        ok = True
        for q in modes:
            lo, hi = sorted((p, q))
            if (hi - lo) / 2 < np.log2(min_ratio):
                ok = False
                break
            if smooth[lo : hi + 1].min() > 0.5 * min(smooth[p], smooth[q]):
                ok = False
                break
        if ok:
            modes.append(p)
    base = bins.min()
    return sorted(float(round(2 ** ((m + base) / 2 + 0.25))) for m in modes)
