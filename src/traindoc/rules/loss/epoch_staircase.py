"""epoch-staircase: the train loss drops in steps at epoch boundaries (normal memorisation)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules._stats import fmt, mad
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Points on each side of a boundary whose medians are compared: a few logged
    # points, so one batch cannot make a step, and the step must be sharp.
    side_points: int = 5
    # A boundary step must exceed the typical drop over the same window elsewhere
    # in the run by 6 robust spreads of those drops (the curve's own noise and slope) ...
    k_spread: float = 6.0
    # ... and be at least 3% of the loss level, so a tiny kink is not called a staircase.
    min_drop_rel: float = 0.03
    # Half the boundaries (at least one) must show the step: a staircase, not a coincidence.
    min_share: float = 0.5
    # Positions sampled to learn the typical (non-boundary) drop: enough for a stable
    # median/MAD, bounded so a million-point log stays cheap.
    samples: int = 400


@rule(
    "epoch-staircase",
    family="loss",
    severity=Severity.INFO,
    params=Params(),
    requires=("loss", "epoch"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Step-shaped drops of the train loss at epoch boundaries: normal memorisation.

    **What it does.** Finds the steps where the logged epoch crosses an integer,
    and compares the median loss of the few points just before and just after
    each crossing with the drop over the same window anywhere else in the run.
    When at least half of the crossings show a drop far above the usual one (and
    >= 3% of the loss), the curve is a staircase.

    **Why it matters.** It is *not* a fault: on small fine-tuning sets the model
    sees each sample again at the start of every epoch and has partly memorised
    it, so the loss drops as soon as the second pass starts. Reported as info so
    that the sudden drops are not read as spikes or bugs, and as a reminder that
    the train loss after epoch 1 over-states how well the model generalises.

    **Known false positives.** A schedule event (LR decay step) placed exactly at
    an epoch boundary also makes a step; the `lr` series tells them apart.

    **What to do.** Nothing, as such. Judge progress by the eval loss (or a task
    metric) rather than the train loss after the first epoch, and watch for
    `overfitting` if more epochs follow.
    """
    loss, ep = run.get("loss"), run.get("epoch")
    assert loss is not None and ep is not None
    lf, ef = loss.finite(), ep.finite()
    x, steps = lf.values, lf.steps
    w = p.side_points
    if x.size < 4 * w or len(ef) < 2:
        return
    # Boundary step k: the first logged step whose epoch reaches the integer k.
    whole = np.floor(ef.values + 1e-6)
    cross = np.flatnonzero(np.diff(whole) > 0) + 1
    b_steps = ef.steps[cross]
    b_idx = np.searchsorted(steps, b_steps)
    ok = (b_idx >= w) & (b_idx <= x.size - w)
    b_idx, b_steps, b_epoch = b_idx[ok], b_steps[ok], whole[cross][ok]
    if b_idx.size == 0:
        return
    windows = np.lib.stride_tricks.sliding_window_view
    # Typical drop over a 2w window at sampled positions away from any boundary.
    pos = np.unique(np.linspace(w, x.size - w, min(p.samples, x.size - 2 * w + 1)).astype(np.int64))
    far = np.min(np.abs(pos[:, None] - b_idx[None, :]), axis=1) > 2 * w
    pos = pos[far]
    if pos.size < 10:
        return
    views = windows(x, w)  # views[i] = x[i:i+w]
    typical = np.median(views[pos - w], axis=1) - np.median(views[pos], axis=1)
    base, spread = float(np.median(typical)), mad(typical)
    before = np.median(views[b_idx - w], axis=1)
    after = np.median(views[b_idx], axis=1)
    drops = before - after
    thresh = np.maximum(base + p.k_spread * max(spread, 1e-12), p.min_drop_rel * np.abs(before))
    step_hit = drops > thresh
    hits = int(step_hit.sum())
    if hits == 0 or hits < p.min_share * b_idx.size:
        return
    rel = drops[step_hit] / np.abs(before[step_hit])
    first = int(b_steps[step_hit][0])
    yield Hit(
        title=(
            f"Train loss drops in steps at {hits} of {b_idx.size} epoch boundaries "
            f"(median drop {np.median(rel):.0%}, first at step {first})"
        ),
        step=first,
        end_step=int(b_steps[step_hit][-1]),
        evidence={
            "boundaries": int(b_idx.size),
            "steps_with_drop": hits,
            "boundary_steps": [int(s) for s in b_steps[step_hit][:20]],
            "epochs": [float(e) for e in b_epoch[step_hit][:20]],
            "median_drop_rel": float(np.median(rel)),
            "typical_drop": base,
            "first_drop": float(drops[step_hit][0]),
        },
        explanation=(
            "Each new pass over a small training set starts on samples the model has partly "
            "memorised, so the loss falls at once at the epoch boundary. This is normal, not a "
            f"spike or a bug (first step: {fmt(float(before[step_hit][0]))} -> "
            f"{fmt(float(after[step_hit][0]))} at step {first})."
        ),
        prescription=(
            "Nothing to fix. Judge generalisation by the eval loss or a task metric, not by the "
            "train loss after epoch 1, and watch for overfitting if you train more epochs."
        ),
    )
