"""Tables in text logs: a header row of names, then rows of numbers under it.

Markdown (`| Step | Training Loss |`), tab- or comma-separated and space-aligned
tables keep their column names apart; a header printed with single spaces
(`Step Training Loss Validation Loss`, as a notebook's table reads when pasted)
is split into as many columns as its rows have numbers, choosing the split
that names the most known metrics.
"""

from __future__ import annotations

from functools import lru_cache

from traindoc.model.signals import TEXT_STEP_KEYS, kind


def columns_for(header: tuple[str, ...], n: int) -> tuple[str, ...] | None:
    """The header's column names for a row of n values, or None when they do not fit."""
    if len(header) == n:
        return header
    if len(header) < n:
        return None
    return _segment(header, n)


@lru_cache(maxsize=256)
def _segment(words: tuple[str, ...], n: int) -> tuple[str, ...] | None:
    """Split `words` into n consecutive names, maximising the known ones (then fewer words)."""
    if len(words) > 24:
        return None
    best: dict[tuple[int, int], tuple[int, int, tuple[str, ...]]] = {}

    def go(i: int, k: int) -> tuple[int, int, tuple[str, ...]] | None:
        if k == 0:
            return (0, 0, ()) if i == len(words) else None
        if (i, k) in best:
            return best[(i, k)]
        out = None
        for j in range(i + 1, min(len(words) - k + 1, i + 4) + 1):
            rest = go(j, k - 1)
            if rest is None:
                continue
            name = " ".join(words[i:j])
            known = 1 if _known(name) else 0
            cand = (rest[0] + known, rest[1] - (j - i - 1), (name, *rest[2]))
            if out is None or cand[:2] > out[:2]:
                out = cand
        best[(i, k)] = out  # type: ignore[assignment]
        return out

    found = go(0, n)
    return found[2] if found else None


def _known(name: str) -> bool:
    low = name.lower()
    return kind(name) != "other" or low in TEXT_STEP_KEYS or low in ("epoch", "epochs")
