"""Tables in text logs: a header row of names, then rows of numbers under it.

Markdown (`| Step | Training Loss |`), tab- or comma-separated and space-aligned
tables keep their column names apart; a header printed with single spaces
(`Step Training Loss Validation Loss`, as a notebook's table reads when pasted)
is split into as many columns as its rows have numbers, choosing the split
that names the most known metrics.

A results table in a PR or a paper is often transposed: its columns are the
steps (or checkpoints, or epochs) and its rows the metrics (`| step | 10 | 20 |
… | epoch avg |` then `| loss | 4.31 | **1.44** | … |`). Its first header cell
names the axis; a column whose header is not a step ("…", "epoch avg") is not
a point of the curve.
"""

from __future__ import annotations

import math
import re
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
            known = 1 if _known(name) and not _joins_identifiers(words[i:j]) else 0
            cand = (rest[0] + known, rest[1] - (j - i - 1), (name, *rest[2]))
            if out is None or cand[:2] > out[:2]:
                out = cand
        best[(i, k)] = out  # type: ignore[assignment]
        return out

    found = go(0, n)
    return found[2] if found else None


def _joins_identifiers(words: tuple[str, ...]) -> bool:
    """Whether a name would join a snake_case identifier with another word: a header that
    writes its names as identifiers (fastai's "accuracy_thresh f2_opt") spaces them apart,
    never within one name."""
    return len(words) > 1 and any("_" in w for w in words)


def _known(name: str) -> bool:
    low = name.lower()
    return kind(name) != "other" or low in TEXT_STEP_KEYS or low in ("epoch", "epochs")


# The first header cell of a table laid out by step, and a column header that is a step.
_AXES = frozenset(
    {*TEXT_STEP_KEYS, "steps", "checkpoint", "checkpoints", "ckpt", "epoch", "epochs"}
)
_EPOCHS = frozenset({"epoch", "epochs"})
_AXIS_CELL = r"(?i)(?:(?:step|steps|iter|checkpoint|ckpt|epoch)[\s_-]*)?"
_STEP_CELL = re.compile(_AXIS_CELL + r"(\d[\d,]*)")
# (in a shape a number is NUL, but "ckpt-500" is a name, its digits kept)
_SLOT_CELL = re.compile(_AXIS_CELL + "(?=[\\d\x00])[\\d,\x00]+")


def md_cells(text: str) -> list[str]:
    """The cells of a Markdown table row, bold markers off."""
    return [c.strip().strip("*").strip() for c in text.strip().strip("|").split("|")]


def is_axis_header(shape: str) -> bool:
    """A Markdown header row (as a shape: numbers are NUL) whose columns are steps."""
    if not shape.lstrip().startswith("|"):
        return False
    cells = md_cells(shape)
    return (
        len(cells) >= 3
        and cells[0].lower() in _AXES
        and sum(1 for c in cells[1:] if _SLOT_CELL.fullmatch(c)) >= 2
    )


def axis_steps(cells: list[str]) -> tuple[bool, list[float]]:
    """(the axis counts epochs, the step of each column after the first: NaN for a column
    that is not a step) of a header row that is_axis_header accepted."""
    steps = []
    for c in cells[1:]:
        m = _STEP_CELL.fullmatch(c)
        steps.append(float(m.group(1).replace(",", "")) if m else math.nan)
    return cells[0].lower() in _EPOCHS, steps


# A long-format results table: one row per (epoch, phase), a column naming the phase
# ("epoch,phase,loss,acc" then "1,train,..." and "1,val,..."), as a loop that appends a
# dict per phase to a DataFrame writes it. The row's metrics belong to its phase: a val
# row's loss is the validation loss, not the next point of the training loss.
_PHASE_COLUMNS = frozenset({"phase", "split", "mode", "stage", "subset", "set"})
_PHASE_PREFIX = {
    **dict.fromkeys(("train", "training", "trn"), ""),
    **dict.fromkeys(("val", "valid", "validation", "eval", "evaluation", "dev"), "val_"),
    **dict.fromkeys(("test", "testing"), "test_"),
}


def phase_column(header: tuple[str, ...]) -> int | None:
    """The index of the header's phase column, if it has exactly one."""
    at = [i for i, h in enumerate(header) if h.strip().lower() in _PHASE_COLUMNS]
    return at[0] if len(at) == 1 else None


def phase_prefix(cell: str) -> str | None:
    """What a phase cell puts before its row's metric names ("" for training, "val_" for
    validation), or None for a cell that names no phase."""
    return _PHASE_PREFIX.get(cell.strip().lower())


def row_cells(text: str, header_line: str) -> list[str]:
    """A row's cells, split as its header was: on |, tabs, commas, else runs of spaces."""
    head = header_line.strip()
    if head[:1] == "|":
        return md_cells(text)
    for sep in ("\t", ","):
        if sep in head:
            return [c.strip() for c in text.strip().split(sep)]
    return text.split()
