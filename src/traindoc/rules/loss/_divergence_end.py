"""divergence's verdict on a log that ends on a jump: the last logs all sit 2x+ over the
level just before them, clear of every point of it, and the log ends there.

The trend tests read the end as the median of the last tenth of the log (and of no
fewer points than the best level's window): a jump held by the last 2-20 logs of a
300-point log, or by the last 500 of 100k, moves that median little or not at all. The
shape is the same at any length, so it is read from the points, not from the tail's
share of the log."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.losses import solved
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_short import _rise_evidence, _rise_hit

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def ends_on_jump(run: Run, p: Params, f: Series) -> Hit | None:
    """The longest final stretch of 2+ logs that all sit `end_jump` x or more over the
    level before it (the median of its last `end_level_points` logs, 3 at least) and
    above every one of those logs, with the LR not jumped up 2x+ at its start (a warm
    restart is the schedule's). Warning; error at `short_orders` (10x). A loss solved to
    ~0 (100x under where it started) must rise by `solved_rise` of what it learned."""
    y, steps = f.values, f.steps
    n, w = y.size, p.end_level_points
    if n < p.head_points + p.end_jump_points:
        return None
    # for each start j of a final stretch: its lowest log, and the median and the highest
    # of the (up to) w logs before it; vectorised, so a 100k log costs O(n * w)
    low = np.minimum.accumulate(y[::-1])[::-1]
    pad = np.concatenate((np.full(w - 1, np.nan), y))
    win = np.lib.stride_tricks.sliding_window_view(pad, w)[: n - 1]  # row j-1: the w before j
    starts = np.arange(p.head_points, n - p.end_jump_points + 1)
    starts = starts[low[starts] > y[starts - 1]]  # above the log before it, at least
    if not starts.size:
        return None
    before = win[starts - 1]
    level = np.nanmedian(before, axis=1)
    top = np.nanmax(before, axis=1)
    ok = (level > 0) & (low[starts] >= p.end_jump * level) & (low[starts] > top)
    if not ok.any():
        return None
    k = int(np.argmax(ok))  # the earliest start: the longest stretch
    j, lvl = int(starts[k]), float(level[k])
    stretch = y[j:]
    # a loss solved to ~0 wobbles by multiples of itself: the jump must be a share of
    # what the log learned, as in the other tests
    head, best = float(np.max(y[: p.head_points])), float(np.min(y[:j]))
    rise = float(np.min(stretch)) - lvl
    if solved(head, best, p.solved_ratio) and rise < p.solved_rise * (head - best):
        return None
    if _lr_jumped(run, int(steps[j - 1]), int(steps[j]), p.lr_cut):
        return None
    level = lvl
    ratio = float(np.min(stretch)) / level
    onset = int(steps[j])
    i_best = max(0, j - w) + int(np.argmin(y[max(0, j - w) : j]))
    evidence = _rise_evidence(
        run,
        f,
        i_best,
        onset,
        level_before=level,
        peak_loss=float(np.max(stretch)),
        peak_ratio=float(np.max(stretch)) / level,
        held_ratio=ratio,
        held_points=int(stretch.size),
    )
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss jumps from a level of {fmt(level)} to {fmt(float(stretch[0]))} at step "
            f"{onset} and stays {fmt(ratio)}x or more above it for the {stretch.size} logs "
            "to the end"
        ),
        explanation=(
            f"Up to step {int(steps[j - 1])} the loss sat near {fmt(level)}; from step {onset} "
            f"every logged loss is {fmt(ratio)}x that level or more and above every loss just "
            "before it, and the log ends there without coming back. A bad batch is one log "
            "and the next is back; a jump that holds for every log after it is the model "
            "made worse by its updates (steps too large, numerics breaking down)."
        ),
        severity=Severity.ERROR if ratio >= p.short_orders else Severity.WARNING,
    )


def _lr_jumped(run: Run, prev: int, at: int, factor: float) -> bool:
    """The logged LR at `at` is `factor` x or more its value at `prev`: a restart."""
    lr = run.get("lr")
    if lr is None:
        return False
    lf = lr.finite()
    a, b = lf.values[lf.steps <= prev], lf.values[lf.steps <= at]
    return bool(a.size and b.size and a[-1] > 0 and b[-1] >= factor * a[-1])
