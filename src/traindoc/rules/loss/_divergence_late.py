"""divergence's main test on a full log: the late level of the loss above its best smoothed
level, beyond noise, with what makes the rise count (it held, the LR was not already
spent) and how the late level is measured."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.losses import solved
from traindoc.measure.stats import bins, fmt, level_noise, rolling_median, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_short import _lr_at, _steadier_from, _undid_learning

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _tail_points(p: Params, n: int) -> int:
    """How many of the last points the late level is the median of: 10% of the log,
    3 at least, and as many as the best level's smoothing window (up to a third of
    the log), so that one or two late batches cannot make the end level."""
    return max(3, int(p.tail_fraction * n), min(p.smooth, n // 3))


def _late(p: Params, f: Series) -> float:
    """Median of the last `_tail_points` finite points: where the run ended."""
    return float(np.median(f.values[-_tail_points(p, len(f)) :]))


def _late_rise(run: Run, p: Params, f: Series) -> Hit | None:
    """The late level 10%+ above the best smoothed level, beyond noise, with a rising
    trend since the best (warning), or 50%+ / back on the floor (error)."""
    n = len(f)
    st, vals = bins(f)
    nb = vals.size
    kt = _tail_points(p, n)
    late = float(np.median(f.values[-kt:]))
    tail_start = f.steps[-kt]
    before = st < tail_start
    if before.sum() < 3:
        return None
    # the late median's standard error from the curve's own noise, over the points of
    # the tail that are independent (a running average's are not: measure.level_noise)
    sigma, lag = level_noise(f.values)
    se_late = 1.2533 * sigma / math.sqrt(max(1.0, kt / lag))
    # A rise is the gap between two levels, each a median of a window of the same noisy
    # curve: it must clear the noise of both, not of the late one only. The best is a
    # median over the raw points its smoothing window spans (`smooth` bins) and the lowest
    # of many such windows - the luckiest draw - so the gap must also clear `diff_z`
    # standard errors of a difference of the two medians.
    in_best = min(p.smooth, nb) * n / max(nb, 1)
    se_best = 1.2533 * sigma / math.sqrt(max(1.0, in_best / lag))
    se_diff = math.hypot(se_late, se_best)
    sm = rolling_median(vals, p.smooth)
    i_best = int(np.argmin(np.where(before, sm, np.inf)))
    best = float(sm[i_best])
    scale = max(abs(best), 1e-12)
    rise = (late - best) / scale
    if rise < p.min_rise or late - best < max(p.noise_z * se_late, p.diff_z * se_diff):
        return None
    # a loss that fell 10x+ (`floor_ratio`) wobbles by multiples of its best: there the
    # rise must be `solved_rise` of what the run learned (start - best)
    head = float(np.median(f.values[: p.head_points]))
    if solved(head, best, p.floor_ratio) and late - best < p.solved_rise * (head - best):
        return None
    after = slice(i_best, nb)
    tr = trend(st[after], vals[after])
    floor = run.floor
    back_at_floor = floor is not None and best < 0.9 * floor and late >= 0.97 * floor
    blowup = rise >= p.blowup_rise or back_at_floor
    held = _held(p, sm, i_best, best, late)
    if not blowup and not tr.rising and not held:
        return None
    # An error needs the log to show what the rise undid: all of it (back on ln(V), the
    # untrained model's level, from 10%+ under it), or a quarter or more of what it learned
    # before its best. A log that learned nothing before its best (a window resumed at its
    # level, a head within `min_rise` of it) shows no learning to undo: an error there
    # needs the late level 3x its best.
    learned = head >= (1 + p.min_rise) * best
    severe = back_at_floor or (
        blowup
        and (_undid_learning(head, best, late, p) if learned else late >= p.short_still_up * best)
    )
    mark = best + 0.25 * (late - best)
    above = np.flatnonzero(sm[i_best:] > mark)
    onset = int(st[i_best + above[0]]) if above.size else int(st[i_best])
    if not blowup and _lr_spent(run, p, onset):
        return None
    severity = Severity.ERROR if severe else Severity.WARNING
    evidence: dict[str, object] = {
        "best_loss": best,
        "best_step": int(st[i_best]),
        "late_loss": late,
        "rise": rise,
        "trend_z": tr.z,
        "onset_step": onset,
    }
    if floor is not None:
        evidence["floor"] = floor
    if (lr := _lr_at(run, onset)) is not None:
        evidence["lr_at_onset"] = lr
    if held and not tr.rising:
        evidence["held"] = True
    return Hit(
        title=(
            f"Loss diverges: from a best of {fmt(best)} (step {int(st[i_best])}) it climbs "
            f"to {fmt(late)} ({rise:+.0%}), from step {onset}"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=(
            "The training loss went up after having been lower, and stayed up: updates "
            "are making the model worse. That is the signature of steps too large for "
            "the loss surface (LR too high, warmup too short) or of numerics breaking "
            "down (fp16 overflow, exploding gradients)."
        ),
        prescription=_steadier_from(run, f"Roll back to a checkpoint before step {onset}"),
        severity=severity,
    )


def _lr_spent(run: Run, p: Params, onset: int) -> bool:
    """The logged LR at `onset` has decayed under `spent_lr_frac` of its peak before it:
    updates too small to make the model worse (see Params.spent_lr_frac)."""
    lr = run.get("lr")
    if lr is None:
        return False
    lf = lr.finite()
    before = lf.values[lf.steps <= onset]
    if before.size < 3:
        return False
    peak = float(before.max())
    return peak > 0 and float(before[-1]) < p.spent_lr_frac * peak


def _held(p: Params, sm: np.ndarray, i_best: int, best: float, late: float) -> bool:
    """The loss stepped up and stayed up: from the first smoothed point past halfway
    between the best and the late level, it never came back below halfway, for at
    least `held_share` of the points after the best, and it has not been coming down
    since: the first quarter of that stretch is within `held_return` of the rise
    above the late level. A trend test misses this shape (a jump, then a long plateau
    drifting slightly down: most pairs after the jump fall), yet the run ended far
    above its best. A jump that is decaying back (8 -> 6 after a best of 5) is a spike
    still recovering, not this."""
    half = best + 0.5 * (late - best)
    tail = sm[i_best:]
    up = np.flatnonzero(tail > half)
    if not up.size:
        return False
    stretch = tail[up[0] :]
    if stretch.size < max(3, p.held_share * tail.size) or bool((stretch <= half).any()):
        return False
    head = float(np.median(stretch[: max(1, stretch.size // 4)]))
    return head - late <= p.held_return * (late - best)
