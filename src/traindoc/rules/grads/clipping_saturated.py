"""clipping-saturated: the pre-clip grad norm exceeds max_grad_norm on almost every step."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import fmt, head, median, tail, trend
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.grads._common import lr_peak_step


@dataclass(frozen=True)
class Params:
    # "Almost every step": 90% of the post-warmup points above the threshold.
    share: float = 0.9
    # Without an LR peak, skip the first 10% of the log (init transient, warmup).
    head_frac: float = 0.1
    # "The loss still decreases well": a significant falling trend AND at least
    # this relative drop from the first to the last 10% of the window.
    good_drop: float = 0.05
    min_points: int = 20


@rule(
    "clipping-saturated",
    minimum="20 logged pre-clip grad norms and the clipping threshold (max_grad_norm)",
    family="grads",
    severity=Severity.WARNING,
    params=Params(),
    requires=("grad_norm", "fact:max_grad_norm"),
    uses=("loss", "lr", "fact:warmup_steps"),
    explained_by=(
        "grad-explosion",
        "lr-too-high",
        "fp16-instability",
        "absurd-initial-loss",
        "exploded-weights",
        # a model that does not learn keeps its gradients large: clipping follows
        "lr-too-low",
        "no-learning",
        "uniform-plateau",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Pre-clip grad norm above max_grad_norm on almost every step: the effective LR is not the logged LR.

    **What it does.** After warmup (the LR peak, or the first 10% of the log),
    counts the logged pre-clip gradient norms above the clipping threshold
    `max_grad_norm` (only when it is known and > 0). At 90% or more, every
    update is being rescaled. It reports the median factor c/||g|| by which the
    steps are shrunk.

    **Why it matters.** Clipping is meant for the rare bad batch. When it
    fires on every step, the optimizer takes steps of LR x c/||g||: the LR in
    the log is not the one the model sees, the schedule's shape is distorted,
    and comparing LRs across runs is meaningless. It is a warning when the
    loss is not clearly decreasing (the hidden LR cut may be why), and info
    when the loss still falls well (seen in many healthy runs with the HF
    default c=1.0, so it is worth knowing, not an alarm).

    **Known false positives.** Small models and RL trainers often run with
    grad norms of a few units and c=1.0 and train fine: those get info.

    **What to do.** Decide which knob you mean: raise max_grad_norm to about
    the median pre-clip norm so clipping only catches outliers, and tune the LR
    directly; or, if the norms are large because the LR is too high, lower it.
    """
    gn = run.get("grad_norm")
    assert gn is not None
    c = float(run.fact("max_grad_norm"))
    if not c > 0:
        return
    g = gn.finite()
    peak = lr_peak_step(run)
    post = g.after(peak) if peak is not None else g
    if peak is None or len(post) < p.min_points:
        post = g.after(int(g.steps[int(len(g) * p.head_frac)])) if len(g) else g
    if len(post) < p.min_points:
        return
    above = post.values > c
    share = float(above.mean())
    if share < p.share:
        return
    med = median(post.values)
    shrink = c / med
    start, end = int(post.steps[0]), int(post.steps[-1])

    loss_ok = None
    loss_drop = None
    loss = run.get("loss")
    if loss is not None:
        lw = loss.finite().after(start)
        if len(lw) >= 8:
            a, b = median(head(lw.values)), median(tail(lw.values))
            loss_drop = (a - b) / abs(a) if a else 0.0
            loss_ok = bool(trend(lw.steps, lw.values).falling and loss_drop >= p.good_drop)
    severity = Severity.INFO if loss_ok or loss_ok is None else Severity.WARNING
    yield Hit(
        title=(
            f"Pre-clip grad norm above max_grad_norm={fmt(c)} on {share:.0%} of steps after "
            f"warmup (median {fmt(med)}): updates are shrunk ~{1 / shrink:.1f}x"
        ),
        step=start,
        end_step=end,
        evidence={
            "max_grad_norm": c,
            "share_clipped": share,
            "median_grad_norm": med,
            "effective_lr_factor": shrink,
            "points": len(post),
            "from_step": start,
            "lr_peak_step": peak,
            "loss_drop": loss_drop,
            "loss_decreasing": loss_ok,
            "clipped_steps": int(np.count_nonzero(above)),
        },
        explanation=(
            "With clipping at c, an update with gradient norm ||g|| > c is rescaled by "
            "c/||g||. When that happens on almost every step, the effective LR is the logged "
            f"LR times ~{fmt(shrink, 2)}, not the logged LR: the schedule you configured is not "
            "the one applied. "
            + (
                "The loss is still falling well, so this is worth knowing rather than fixing."
                if loss_ok
                else "The loss is not clearly decreasing, and this hidden LR cut may be why."
                if loss_ok is False
                else "No loss was logged over the window to judge the effect."
            )
        ),
        prescription=(
            f"Set max_grad_norm to about the median pre-clip norm ({fmt(med, 2)}) so clipping "
            "only catches outliers and tune the LR directly; if the norms are large because "
            "the LR is too high, lower the LR instead."
        ),
        severity=severity,
    )
