"""epoch-staircase: the train loss drops in steps at epoch boundaries (normal memorisation)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # An epoch needs this many logged points to have a first and a second half.
    min_epoch_points: int = 4
    # A smooth decline moves the loss as much across a boundary as within an epoch
    # (the two half-epoch gaps are equal); a staircase moves it mostly at the
    # boundary: the median boundary drop must be this many times the within-epoch one.
    boundary_vs_within: float = 2.5
    # ... and at least 3% of the loss level, so a tiny kink is not called a staircase.
    min_drop_rel: float = 0.03
    # Half the boundaries (at least two) must show the step: a staircase, not a coincidence.
    min_share: float = 0.5
    min_boundaries: int = 2


@rule(
    "epoch-staircase",
    minimum="a loss and an epoch series, with 4 points in each of 3+ epochs",
    family="loss",
    severity=Severity.INFO,
    params=Params(),
    requires=("loss", "epoch"),
    # a small or repetitive dataset is what a model memorises epoch by epoch
    explained_by=("dataset-too-small", "duplicate-samples"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Step-shaped drops of the train loss at epoch boundaries: normal memorisation.

    **What it does.** Splits the loss by epoch (from the logged epoch) and compares
    the drop across each boundary (median of the last half of an epoch vs the
    first half of the next) with the change inside an epoch (first vs second
    half). A smooth decline moves as much inside an epoch as across a boundary; a
    staircase is flat inside and drops at the boundary. When the boundary drop is
    2.5x the within-epoch change, >= 3% of the loss, and shows at half of the
    boundaries (at least two), the curve is a staircase.

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
    if len(lf) < 2 * p.min_epoch_points or len(ef) < 2:
        return
    # Trainers log the epoch reached *after* a step (1.0 on the last step of the
    # first epoch), so a point belongs to epoch ceil(e) - 1.
    e = np.empty(len(lf))  # interpolated a part at a time: interp copies its x as floats
    for a in range(0, e.size, 1 << 17):
        e[a : a + (1 << 17)] = np.interp(lf.steps[a : a + (1 << 17)], ef.steps, ef.values)
    e -= 1e-6
    epoch_of = np.ceil(e, out=e).astype(np.int64)
    del e
    epoch_of -= 1
    ids, starts = _first_of_each(epoch_of)
    bounds = np.r_[starts, epoch_of.size]
    halves = []  # (epoch, first-half median, second-half median, first step)
    for k, lo, hi in zip(ids, bounds[:-1], bounds[1:], strict=True):
        if hi - lo >= p.min_epoch_points:
            mid = (lo + hi) // 2
            seg = lf.values
            halves.append(
                (
                    int(k),
                    float(np.median(seg[lo:mid])),
                    float(np.median(seg[mid:hi])),
                    int(lf.steps[lo]),
                )
            )
    pairs = [(a, b) for a, b in itertools.pairwise(halves) if b[0] == a[0] + 1]
    if len(pairs) < p.min_boundaries:
        return
    drops = np.array([a[2] - b[1] for a, b in pairs])  # end of epoch k -> start of k+1
    within = np.array([h[2] - h[1] for h in halves])  # negative while the loss falls
    before = np.array([a[2] for a, _ in pairs])
    d_med, w_med = float(np.median(drops)), float(np.median(within))
    if d_med < p.boundary_vs_within * max(-w_med, 0.0) or d_med < p.min_drop_rel * float(
        np.median(np.abs(before))
    ):
        return
    step_hit = drops > 0.5 * d_med
    hits = int(step_hit.sum())
    if hits < max(p.min_boundaries, p.min_share * len(pairs)):
        return
    b_steps = np.array([b[3] for _, b in pairs])
    b_epoch = np.array([float(b[0]) for _, b in pairs])
    after = np.array([b[1] for _, b in pairs])
    base = w_med
    rel = drops[step_hit] / np.abs(before[step_hit])
    first = int(b_steps[step_hit][0])
    yield Hit(
        title=(
            f"Train loss drops in steps at {hits} of {len(pairs)} epoch boundaries "
            f"(median drop {np.median(rel):.0%}, first at step {first})"
        ),
        step=first,
        end_step=int(b_steps[step_hit][-1]),
        evidence={
            "boundaries": len(pairs),
            "steps_with_drop": hits,
            "boundary_steps": [int(s) for s in b_steps[step_hit][:20]],
            "epochs": [float(e) for e in b_epoch[step_hit][:20]],
            "median_drop_rel": float(np.median(rel)),
            "within_epoch_change": base,
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


def _first_of_each(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(ids, return_index=True) without its sort (three series-long arrays)
    when the ids never go down, as epochs do in step order."""
    rises = ids[1:] > ids[:-1]
    if ids.size and bool((rises | (ids[1:] == ids[:-1])).all()):
        starts = np.r_[0, np.flatnonzero(rises) + 1]
        return ids[starts], starts
    return np.unique(ids, return_index=True)
