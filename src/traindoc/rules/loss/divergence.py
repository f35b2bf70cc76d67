"""divergence: the loss trends upward or blows up."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules._stats import bins, fmt, mad, rolling_median, trend
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._common import is_rl


@dataclass(frozen=True)
class Params:
    # Enough points for "best so far" and "late" to be different stretches.
    min_points: int = 10
    # Smoothing window (in bins) for the best-so-far level, so that the minimum of a
    # noisy curve is not one lucky batch.
    smooth: int = 9
    # "Late" = median of the last 10% of raw points.
    tail_fraction: float = 0.1
    # Late median this far above the best smoothed level (relative) is a rise worth
    # a warning; healthy train losses do not climb 10% and stay there.
    min_rise: float = 0.10
    # ... and this far above it (or back at ln(V) after learning) is a blow-up: error.
    blowup_rise: float = 0.5
    # The rise must also beat this many standard errors of the late median.
    noise_z: float = 4.0


@rule(
    "divergence",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss",),
    uses=("lr",),
    explained_by=(
        "lr-too-high",
        "warmup-too-short",
        "fp16-instability",
        "grad-explosion",
        "nonfinite-gradients",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Loss trends upward or blows up after having been lower.

    **What it does.** Compares the median of the last 10% of the training loss with
    the best (lowest) level of the median-smoothed curve before it. Flags when the
    late level is >= 10% above the best (and beyond noise) with a rising
    Mann-Kendall trend since the best point, or >= 50% above it (blow-up, error,
    no trend needed). The onset is where the smoothed curve first climbs a quarter of
    the way from the best level to the late one.

    **Why it matters.** A training loss that climbs and stays up means the updates
    are making the model worse: the LR is too high for the regime or the warmup too
    short, or the numerics broke (fp16 overflow, exploding gradients). Every step
    after the onset is wasted compute; the best checkpoint is before it.

    **Known false positives.** A short warmup bump is ignored (only a sustained late
    level counts). Curriculum or data-mixture changes can legitimately raise the
    loss. RL trainers (GRPO/PPO) are skipped: their loss can legitimately rise.
    A loss jump at a resume is `resume-loss-jump`'s.

    **What to do.** Roll back to a checkpoint before the onset; lower the peak LR
    3-10x and/or lengthen warmup to 2-5% of steps; use bf16 instead of fp16; check
    gradient clipping (max_grad_norm ~1.0).
    """
    loss = run.get("loss")
    assert loss is not None
    if is_rl(run):
        return
    f = loss.finite()
    n = len(f)
    if n < p.min_points:
        return
    st, vals = bins(f)
    nb = vals.size
    kt = max(3, int(p.tail_fraction * n))
    late = float(np.median(f.values[-kt:]))
    tail_start = f.steps[-kt]
    before = st < tail_start
    if before.sum() < 3:
        return
    sm = rolling_median(vals, p.smooth)
    i_best = int(np.argmin(np.where(before, sm, np.inf)))
    best = float(sm[i_best])
    scale = max(abs(best), 1e-12)
    rise = (late - best) / scale
    sigma = mad(np.diff(f.values)) / math.sqrt(2)
    se = 1.2533 * sigma / math.sqrt(kt)
    if rise < p.min_rise or late - best < p.noise_z * se:
        return
    after = slice(i_best, nb)
    tr = trend(st[after], vals[after])
    floor = run.floor
    back_at_floor = floor is not None and best < 0.9 * floor and late >= 0.97 * floor
    blowup = rise >= p.blowup_rise or back_at_floor
    if not blowup and not tr.rising:
        return
    mark = best + 0.25 * (late - best)
    above = np.flatnonzero(sm[i_best:] > mark)
    onset = int(st[i_best + above[0]]) if above.size else int(st[i_best])
    severity = Severity.ERROR if blowup else Severity.WARNING
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
    lr = run.get("lr")
    if lr is not None:
        lf = lr.finite()
        at = lf.values[lf.steps <= onset]
        if at.size:
            evidence["lr_at_onset"] = float(at[-1])
    yield Hit(
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
        prescription=(
            f"Roll back to a checkpoint before step {onset}; lower the peak LR 3-10x or "
            "lengthen warmup to 2-5% of steps; train in bf16 rather than fp16; keep "
            "gradient clipping on (max_grad_norm ~1.0)."
        ),
        severity=severity,
    )
