"""divergence at a constant LR that a schedule's cut ended: the loss climbed through a
whole stretch logged at one LR and only came down once the LR was divided, so the run's
end looks recovered while the stretch before the cut diverged."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_late import _late, _late_rise

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _cut_short(run: Run, p: Params, f: Series) -> Hit | None:
    """A rise at a constant LR that the schedule's cut ended: the loss climbed for a
    whole stretch at one LR and only came down when the LR was divided (a step decay,
    ReduceLROnPlateau, an anneal-on-plateau loop). The run's end looks recovered; the
    stretch before the cut diverged at that LR: it ends 10%+ above where it began."""
    for lo, hi, lr, cut_to in _constant_lr_stretches(run, p):
        keep = (f.steps >= lo) & (f.steps < hi)
        seg = Series(f.name, f.steps[keep], f.values[keep], None, f.source)
        if len(seg) < p.min_points:
            continue
        # The stretch as a whole left the model worse than it found it: it ends 10%+
        # above where it began. (After a step decay a loss often dips fast and creeps
        # back up a little at the new LR, still far below where the stretch began.)
        head = float(np.median(seg.values[: p.head_points]))
        if not _late(p, seg) >= (1 + p.min_rise) * head:
            continue
        hit = _late_rise(run, p, seg)
        if hit is None:
            continue
        ev = dict(hit.evidence) | {"lr": lr, "lr_cut_to": cut_to, "cut_step": hi}
        return Hit(
            title=(
                f"Loss diverges at LR {fmt(lr)}: from a best of {fmt(ev['best_loss'])} it "
                f"climbs to {fmt(ev['late_loss'])} ({ev['rise']:+.0%}) until the LR is cut "
                f"to {fmt(cut_to)} at step {hi}"
            ),
            step=hit.step,
            end_step=hi,
            evidence=ev,
            explanation=(
                f"At a constant LR of {fmt(lr)} the training loss went up and stayed up for "
                "the whole stretch; it came down only when the schedule cut the LR. The "
                "updates at that LR were making the model worse: every step of the stretch "
                "was wasted, and the run restarts from a worse point than its best."
            ),
            prescription=(
                f"Start below {fmt(lr)} (the cut to {fmt(cut_to)} is what worked); "
                + advice.join(*advice.steadier(run, "or lower the peak LR 3-10x"))
                + "."
            ),
            severity=Severity.WARNING,  # the cut rescued the run: not its end state
        )
    return None


def _constant_lr_stretches(run: Run, p: Params) -> Iterator[tuple[int, int, float, float]]:
    """(first step, cut step, LR, LR after) of each stretch logged at one LR (within
    `lr_level`) that ends with the LR divided by `lr_cut` or more. A cosine or
    linear decay changes the LR a little at every log: it has no such stretch."""
    lr = run.get("lr")
    if lr is None or len(lr) < 2 * p.min_points:
        return
    lf = lr.finite()
    v, st = lf.values, lf.steps
    if v.size < 2 or (v <= 0).any():
        return
    # a new level wherever the LR moves by more than `lr_level` of itself
    breaks = np.flatnonzero(np.abs(np.diff(v)) > p.lr_level * v[:-1]) + 1
    starts = np.concatenate(([0], breaks))
    for a, b in zip(starts[:-1], breaks, strict=True):
        if v[b] <= v[b - 1] / p.lr_cut:
            yield int(st[a]), int(st[b]), float(v[b - 1]), float(v[b])
