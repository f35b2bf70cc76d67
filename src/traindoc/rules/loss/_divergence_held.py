"""divergence's verdict on a stretch that diverged and was later brought back: the loss's
level climbed back above where the run started, held there for a fifth of the run, and
only then came down (a decaying LR, an anneal). The end-level tests read the end, which
recovered; the stretch diverged all the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import bins, fmt, rolling_median
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_short import _lr_at, _steadier_from
from traindoc.rules.loss._evalcurve import task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _held_stretch(p: Params, f: Series) -> tuple[int, int, int, float, float] | None:
    """(first, peak, last step, start level, peak level) of the stretch whose level (the
    median of a fifth of the run, `held_level_share`, 10+ logs) sits 10%+ above the
    run's start after having been 10%+ below it; None when there is none. A long log is
    read through its bin medians (at most 200: a fifth of them is a fifth of the run)."""
    if int(p.held_level_share * len(f)) < p.held_level_points:
        return None
    start = float(np.median(f.values[: p.head_points]))
    if not start > 0:
        return None
    st, y = bins(f)
    sm = rolling_median(y, max(1, int(p.held_level_share * y.size)))
    i_peak = int(np.argmax(sm))
    peak = float(sm[i_peak])
    if i_peak == 0 or peak < (1 + p.min_rise) * start:
        return None
    if float(sm[:i_peak].min()) > (1 - p.min_rise) * start:
        return None  # it never learned: nothing was given back (a rise from the start)
    learned = int(np.flatnonzero(sm[:i_peak] <= (1 - p.min_rise) * start)[0])
    up = sm >= (1 + p.min_rise) * start
    first = learned + int(np.flatnonzero(up[learned : i_peak + 1])[0])
    down = np.flatnonzero(~up[i_peak:])
    last = i_peak + int(down[0]) - 1 if down.size else y.size - 1
    return int(st[first]), int(st[i_peak]), int(st[last]), start, peak


def _sparse_stretch(run: Run, p: Params, f: Series) -> tuple[int, int, int, float, float] | None:
    """The same stretch in a log too sparse for a level a fifth of the run wide: after the
    loss fell 10%+ below its start (the median of its first `head_points` logs), 3+
    consecutive logs (`short_min_points`) each 50%+ above that start (`blowup_rise`), with
    the eval loss at each of its 2+ evals in that stretch 50%+ above its best eval before
    it. One bad batch lifts one log of the train loss; two curves on different data, up
    by half at every log of a stretch, are a model its updates wrecked."""
    ev = run.get("eval_loss")
    y, steps = f.values, f.steps
    if ev is None or y.size < p.head_points + p.short_min_points:
        return None
    if int(p.held_level_share * y.size) >= p.held_level_points:
        return None
    start = float(np.median(y[: p.head_points]))
    if not start > 0:
        return None
    low = np.flatnonzero(y <= (1 - p.min_rise) * start)
    if not low.size:
        return None  # it never learned: nothing was given back (a rise from the start)
    up = y >= (1 + p.blowup_rise) * start
    up[: int(low[0])] = False
    i0, length = _longest(up)
    if length < p.short_min_points:
        return None
    i1 = i0 + length - 1
    e = ev.finite()
    before = e.values[e.steps < steps[i0]]
    inside = e.values[(e.steps >= steps[i0]) & (e.steps <= steps[i1])]
    if not before.size or inside.size < 2:
        return None
    best = float(before.min())
    if not (best > 0 and bool(np.all(inside >= (1 + p.blowup_rise) * best))):
        return None
    i_peak = i0 + int(np.argmax(y[i0 : i1 + 1]))
    return int(steps[i0]), int(steps[i_peak]), int(steps[i1]), start, float(y[i_peak])


def _longest(mask: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of True in `mask`."""
    best, i, n = (0, 0), 0, mask.size
    while i < n:
        if mask[i]:
            j = i
            while j < n and mask[j]:
                j += 1
            if j - i > best[1]:
                best = (i, j - i)
            i = j
        else:
            i += 1
    return best


def _evals_agree(run: Run, p: Params, lo: int, hi: int) -> bool:
    """Every held-out curve with an eval before `lo` and 2+ in [lo, hi] is worse inside
    the stretch (its median) than at its best before it: the eval loss 10%+ above, a
    task metric below. A curve that held or improved says the rise was the train loss's
    own (a changed objective), not a worse model. No such curve: the train loss decides."""
    ev = run.get("eval_loss")
    curves = [(ev, False)] if ev is not None else []
    for m, higher in [*curves, *task_metrics(run)]:
        e = m.finite()
        before = e.values[e.steps < lo]
        inside = e.values[(e.steps >= lo) & (e.steps <= hi)]
        if not before.size or inside.size < 2:
            continue
        best, level = float(before.max() if higher else before.min()), float(np.median(inside))
        worse = level < best if higher else best > 0 and level >= (1 + p.min_rise) * best
        if not worse:
            return False
    return True


def held_then_recovered(run: Run, p: Params, f: Series) -> Hit | None:
    """A loss whose level (the median of a fifth of the run) climbed back 10%+ above where
    the run started, after having fallen 10%+ below it, at a nonzero LR, with the evals
    in that stretch worse as well: the updates undid all that was learned and more for a
    whole stretch. It diverged, whether or not a decaying LR brought it back later."""
    y, steps = f.values, f.steps
    held = _held_stretch(p, f)
    # a log too sparse for a level a fifth of it wide is read log by log, with the evals
    sparse = int(p.held_level_share * len(f)) < p.held_level_points
    if sparse:
        held = _sparse_stretch(run, p, f)  # every log of the stretch, with the evals
    if held is None:
        return None
    s0, s_peak, s1, start, peak = held
    lr = _lr_at(run, s_peak)
    if lr is not None and not lr > 0:
        return None  # no update was taken: nothing the updates did
    if not sparse and not _evals_agree(run, p, s0, s1):
        return None
    end = float(np.median(y[-max(p.head_points, y.size // 10) :]))
    lr_end = _lr_at(run, int(steps[-1]))
    decayed = lr is not None and lr_end is not None and lr_end <= lr / p.lr_cut
    evidence: dict[str, object] = {
        "start_loss": start,
        "peak_level": peak,
        "peak_step": s_peak,
        "onset_step": s0,
        "held_until": s1,
        "late_loss": end,
        "window_points": 1 if sparse else int(p.held_level_share * y.size),
    }
    if lr is not None:
        evidence["lr_at_peak"] = lr
    came_back = (
        f"once the LR had decayed to {fmt(lr_end)}"
        if decayed and lr_end is not None
        else f"later (ends at {fmt(end)})"
    )
    return Hit(
        title=(
            f"Loss diverges from step {s0} to {s1}: its level climbs to {fmt(peak)}, above "
            f"where the run started ({fmt(start)}), and comes back only {came_back}"
        ),
        step=s0,
        end_step=s1,
        evidence=evidence,
        explanation=(
            f"After falling below {fmt(start)}, the loss's "
            + (
                "every log, and the eval loss at each eval, "
                if sparse
                else "level (the median of a fifth of the run) "
            )
            + f"climbed back above it and stayed there from step {s0} to {s1}: the updates "
            "undid all that the run had learned, and more, for that whole stretch. "
            + (
                "A bad batch lifts one log of the train loss, not the loss on held-out data "
                "at every eval. "
                if sparse
                else "A spike of a few bad batches cannot move a level that wide. "
            )
            + "The run came back later, but every step of the stretch was wasted at an LR "
            "the model could not take."
        ),
        prescription=_steadier_from(run, f"Keep no checkpoint from steps {s0}-{s1}"),
        severity=Severity.WARNING,  # the run came back: not its end state
    )
