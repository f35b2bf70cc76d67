"""resume-loss-jump: the loss right after a resume is well above the loss right before it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules._stats import fmt, mad, rolling_median
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Points compared on each side of the resume: medians of 5, so one odd batch
    # on either side cannot make (or hide) a jump.
    side_points: int = 5
    # Fewer than this on a side and there is nothing robust to compare.
    min_side_points: int = 3
    # Points before the resume used to measure the loss's own batch-to-batch noise.
    noise_points: int = 50
    # The jump must clear 4 noise sigmas (the difference of two 5-point medians
    # has a sigma of ~0.8 point sigmas, so this is ~5 sigmas of the comparison) ...
    k_noise: float = 4.0
    # ... and 10% of the level: a correctly restored run continues within its noise,
    # while lost optimizer state or wrong weights cost tens of percent or more.
    min_jump_rel: float = 0.10
    # Log points after the resume searched for a return to the pre-resume level.
    recover_window: int = 200


@rule(
    "resume-loss-jump",
    family="resume",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss", "fact:resume_steps"),
    explained_by=("schedule-restarted", "resume-step-mismatch"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """The loss jumps up at a resume point: wrong weights or optimizer state restored.

    **What it does.** At each known resume step (fact `resume_steps`) it compares
    the median of the 5 logged losses after it with the median of the 5 before,
    against the loss's own noise just before the resume. A jump above 4 noise
    sigmas and 10% of the level is reported, with how long the loss took to come
    back (if it did) and whether it landed on the uniform floor ln(V).

    **Why it matters.** A correctly restored run continues its curve within the
    noise. A jump means the state that was restored is not the state that was
    saved: weights from another checkpoint (or none: back at ln(V)), a fresh
    optimizer (Adam's moments at zero make the first updates huge), or a
    scheduler restarted at a high LR. Seed A's third suspect: "the resume is
    lying".

    **Known false positives.** A resume onto a different data mixture or a new
    curriculum stage raises the loss legitimately; so does resuming with a
    deliberately changed learning rate.

    **What to do.** Check what was loaded: resume_from_checkpoint pointing at the
    right directory, optimizer.pt / scheduler.pt present and loaded (a fresh
    optimizer shows as a jump that recovers within tens of steps), the model
    weights matching the checkpoint (a jump to ln(V) means they were not loaded).
    """
    loss = run.get("loss")
    assert loss is not None
    f = loss.finite()
    x, steps = f.values, f.steps
    floor = run.floor
    for r in sorted({int(v) for v in run.fact("resume_steps") or ()}):
        i = int(np.searchsorted(steps, r, side="right"))
        before, after = x[max(0, i - p.side_points) : i], x[i : i + p.side_points]
        if before.size < p.min_side_points or after.size < p.min_side_points:
            continue
        b, a = float(np.median(before)), float(np.median(after))
        ref = x[max(0, i - p.noise_points) : i]
        sigma = mad(np.diff(ref)) / math.sqrt(2) if ref.size >= 4 else mad(before)
        sigma = sigma if math.isfinite(sigma) else 0.0
        jump = a - b
        rel = jump / abs(b) if b else math.inf
        if jump < p.k_noise * sigma or rel < p.min_jump_rel:
            continue
        seg = x[i : i + p.recover_window]
        smooth = rolling_median(seg, p.side_points)
        back = np.flatnonzero(smooth <= b + max(p.k_noise * sigma, 0.5 * p.min_jump_rel * abs(b)))
        recovered_at = int(f.steps[i + back[0]]) if back.size else None
        at_floor = floor is not None and abs(a - floor) <= 0.05 * floor
        evidence = {
            "resume_step": r,
            "loss_before": b,
            "loss_after": a,
            "jump_rel": rel,
            "noise_sigma": sigma,
            "recovered_at_step": recovered_at,
        }
        why = [
            f"Just before the resume at step {r} the loss was {fmt(b)}; right after it is "
            f"{fmt(a)} ({rel:+.0%}), far outside its noise ({fmt(sigma)}). A correctly "
            "restored run continues its curve."
        ]
        if at_floor:
            evidence["floor"] = floor
            why.append(
                f"It restarts at the uniform floor ln(V) = {fmt(floor or 0)}: the weights were "
                "not loaded (the model restarted from scratch)."
            )
        elif recovered_at is not None:
            why.append(
                f"It came back to the earlier level by step {recovered_at}: typical of a fresh "
                "optimizer state (Adam moments reset) or a restarted LR warmup, not of wrong "
                "weights."
            )
        else:
            why.append(
                "It never came back to the earlier level in the logged window: suspect the "
                "weights (another or an older checkpoint)."
            )
        yield Hit(
            title=f"Loss jumps {rel:+.0%} at the resume at step {r}: {fmt(b)} -> {fmt(a)}",
            step=r,
            end_step=recovered_at,
            evidence=evidence,
            explanation=" ".join(why),
            prescription=(
                "Check what the resume loaded: resume_from_checkpoint pointing at the latest "
                "checkpoint directory, optimizer.pt and scheduler.pt present and restored, model "
                "weights matching the checkpoint. Re-run the resume and compare the first loss "
                "with the last one before it."
            ),
        )
