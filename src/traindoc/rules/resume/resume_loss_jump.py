"""resume-loss-jump: the loss right after a resume is well above the loss right before it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import fmt, mad, rolling_median
from traindoc.model import Run, Series, Severity
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
    # Without a known resume step, a restart from fresh weights is inferred from the
    # curve alone when the loss jumps, between two logged points, from a learned
    # level (the 5-point median before >= 20% below ln(V); a fresh model is never
    # there) straight back onto ln(V): the first point after within 5% of it and the
    # 5-point median after within +-5% (a fresh init starts 0-2% above ln(V) and
    # sheds a little within 5 logs). A blow-up overshoots far above ln(V) instead.
    restart_learned: float = 0.20
    restart_tol: float = 0.05
    # ... and one more sign that it was a restart, not a collapse: the jump sits on a
    # checkpoint boundary (a multiple of save_steps: error), or the loss then starts
    # descending again like a fresh run, >= 10% below its restart level within
    # recover_window points (warning: a model wrecked into uniform output stays on
    # the floor).
    fresh_descent: float = 0.10
    # The first update of a run started from a checkpoint: a loss that at least
    # triples, by 2+ nats, at an LR of 1e-6 or less (an Adam step moves each weight
    # by ~LR: it cannot do that). The loaded weights or optimizer state are wrong.
    first_jump: float = 3.0
    first_jump_abs: float = 2.0
    first_max_lr: float = 1e-6


@rule(
    "resume-loss-jump",
    minimum="a known resume step with 3 logged losses on each side",
    family="resume",
    qualifier="{resume_step}",  # one finding per resume
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss",),
    uses=("fact:resume_steps", "fact:save_steps", "fact:vocab_size"),
    explained_by=("schedule-restarted", "resume-step-mismatch"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """The loss jumps up at a resume point: wrong weights or optimizer state restored.

    **What it does.** At each known resume step (fact `resume_steps`) it compares
    the median of the 5 logged losses after it with the median of the 5 before,
    against the loss's own noise just before the resume. A jump above 4 noise
    sigmas and 10% of the level is reported, with how long the loss took to come
    back (if it did) and whether it landed on the uniform floor ln(V).

    Without a known resume, a restart from fresh weights is inferred from the curve:
    the loss jumps between two logged points from a learned level (>= 20% below
    ln(V)) straight back onto ln(V) (+-5%) and stays there (5-point median), on a
    checkpoint boundary (a multiple of `save_steps`: error) or followed by a fresh
    descent (>= 10% below the restart level: warning).

    Also at the very first update of a run started from a checkpoint: a sane first
    loss that at least triples (by 2+ nats) on the next step while the LR is 1e-6
    or less, where an optimizer step cannot move the loss.

    **Why it matters.** A correctly restored run continues its curve within the
    noise. A jump means the state that was restored is not the state that was
    saved: weights from another checkpoint (or none: back at ln(V)), a fresh
    optimizer (Adam's moments at zero make the first updates huge), or a
    scheduler restarted at a high LR: the resume is not what it claims.

    **Known false positives.** A resume onto a different data mixture or a new
    curriculum stage raises the loss legitimately; so does resuming with a
    deliberately changed learning rate. RL runs (a reward is logged) are skipped:
    their loss is a surrogate of each batch's advantages and jumps by design.

    **What to do.** Check what was loaded: resume_from_checkpoint pointing at the
    right directory, optimizer.pt / scheduler.pt present and loaded (a fresh
    optimizer shows as a jump that recovers within tens of steps), the model
    weights matching the checkpoint (a jump to ln(V) means they were not loaded).
    """
    loss = run.get("loss")
    assert loss is not None
    if run.is_rl:
        return  # an RL loss is a surrogate of each batch's advantages: it jumps by design
    f = loss.finite()
    x, steps = f.values, f.steps
    floor = run.floor
    known = sorted({int(v) for v in run.fact("resume_steps") or ()})
    if (hit := _first_update(run, p, f)) is not None:
        yield hit
        return
    yield from _inferred_restarts(run, p, f, known)
    for r in known:
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
                f"It restarts at the uniform floor {fl.log_name(run)}(V) = {fmt(floor or 0)}: the weights were "
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


def _inferred_restarts(run: Run, p: Params, f: Series, known: list[int]) -> Iterator[Hit]:
    """Jumps straight back onto ln(V) with no known resume: restarts from fresh weights."""
    floor = run.floor
    x, steps = f.values, f.steps
    k = p.side_points
    if floor is None or x.size < 2 * k + 1:
        return
    learned = (1 - p.restart_learned) * floor
    lo, hi = (1 - p.restart_tol) * floor, (1 + p.restart_tol) * floor
    # Candidate i: x[i-1] learned, x[i] already back on the floor (one log interval),
    # with k points on each side.
    idx = np.arange(k, x.size - k + 1)
    i = idx[(x[idx - 1] < learned) & (x[idx] >= lo) & (x[idx] <= hi)]
    if i.size == 0:
        return
    save = run.fact("save_steps")
    save = int(save) if isinstance(save, (int, float)) and save > 0 else None
    for j in i[:10]:
        j = int(j)
        before, after = x[j - k : j], x[j : j + k]
        b, a = float(np.median(before)), float(np.median(after))
        if not (b < learned and lo <= a <= hi):
            continue
        prev, at = int(steps[j - 1]), int(steps[j])
        if any(prev - k <= r <= at + k for r in known):
            continue  # a known resume: the main check reports it
        # A checkpoint step in [prev, at): the run was resumed from it.
        on_save = save is not None and (prev % save == 0 or prev // save < (at - 1) // save)
        seg = rolling_median(x[j : j + p.recover_window], k)
        descends = seg.size > k and float(np.min(seg[k:])) <= (1 - p.fresh_descent) * a
        if not (on_save or descends):
            continue  # stuck on the floor after a jump: a collapse, not a restart
        ckpt = ((at - 1) // save) * save if save else None
        evidence: dict[str, object] = {
            "resume_step": ckpt if on_save and ckpt else prev,
            "inferred": True,
            "loss_before": b,
            "loss_after": a,
            "jump_rel": (a - b) / abs(b) if b else math.inf,
            "floor": floor,
            "on_checkpoint_boundary": bool(on_save),
            "fresh_descent": bool(descends),
        }
        where = f" (checkpoint step {ckpt}, save_steps {save})" if on_save and ckpt else ""
        yield Hit(
            title=(
                f"Loss jumps from {fmt(b)} straight back to the uniform floor {fl.log_name(run)}(V) = "
                f"{fmt(floor)} at step {at}{where}: a restart from fresh weights"
            ),
            step=prev,
            end_step=at,
            evidence=evidence,
            explanation=(
                f"Between steps {prev} and {at} the loss went from {fmt(b)}, a level a fresh "
                f"model never has, to {fmt(a)}, exactly what a freshly initialised model "
                "scores, in one logging interval"
                + (", on a checkpoint boundary" if on_save else "")
                + (", and then started descending again like a new run" if descends else "")
                + ". No resume is recorded in the logs, but that is the signature of a resume "
                "that loaded fresh (or no) weights: everything learned before was lost. A "
                "blow-up overshoots far above ln(V) instead of landing on it."
            ),
            prescription=(
                "Check the resume: was resume_from_checkpoint pointing at the right "
                "directory, and do its model weights (model.safetensors) hold the trained "
                "model (compare its tensor statistics and first-batch loss with the run "
                "before the stop)? Re-run the resume and compare the first loss with the "
                "last one before it."
            ),
            severity=Severity.ERROR if on_save else Severity.WARNING,
        )


def _first_update(run: Run, p: Params, f: Series) -> Hit | None:
    """The loss jumps at the first update of a run at an LR too small to move it."""
    if len(f) < 2 or f.steps[0] > 2:
        return None
    a, b = float(f.values[0]), float(f.values[1])
    if not (a > 0 and b >= p.first_jump * a and b - a >= p.first_jump_abs):
        return None
    lr = run.get("lr")
    if lr is None or not len(lr.finite()):
        return None
    lf = lr.finite()
    at = lf.values[lf.steps <= f.steps[1]]
    now = float(at.max()) if at.size else float(lf.values[0])
    if now > p.first_max_lr:
        return None  # a real step size: divergence / lr-too-high's question
    step = int(f.steps[1])
    return Hit(
        title=(
            f"Loss jumps from {fmt(a)} to {fmt(b)} on the first update (step {step}) at LR "
            f"{now:.3g}: the loaded weights or optimizer state are wrong"
        ),
        step=step,
        end_step=step,
        evidence={
            "kind": "first-update",
            "loss_before": a,
            "loss_after": b,
            "jump_rel": (b - a) / a,
            "lr_at_update": now,
            "floor": run.floor,
        },
        explanation=(
            f"The first loss, {fmt(a)}, is that of a trained model; one optimizer step at LR "
            f"{now:.3g} changes each weight by about that much and cannot take the loss to "
            f"{fmt(b)}. The update itself is broken: an optimizer state restored from another "
            "model or layout, master weights out of sync with the loaded (bf16) ones, or a "
            "conversion that scrambled tensors the first step then spreads."
        ),
        prescription=(
            "Load the checkpoint without its optimizer state (fresh optimizer) and compare; "
            "check the conversion of the weights (shapes, dtype, tensor-parallel layout) and "
            "that the master weights are initialised from the loaded ones."
        ),
    )
