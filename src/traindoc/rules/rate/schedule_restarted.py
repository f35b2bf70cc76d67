"""schedule-restarted: the LR schedule jumps back mid-run (scheduler state not restored)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.schedule import lr_values
from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # A valley counts when the LR falls and then climbs back by >= 25% of its peak on
    # both sides: far above float jitter, and no monotone schedule (warmup then
    # linear / cosine / step / inverse-sqrt decay) ever climbs back at all.
    min_depth: float = 0.25
    # A restore bug changes the LR between two logged points; deliberate cycles
    # (triangular, SGDR) move smoothly. A jump of 25% of peak is the first.
    min_jump: float = 0.25
    # Three or more evenly spaced valleys (spacing CV < 0.25) are a cyclic schedule.
    cyclic_min: int = 3
    cyclic_cv: float = 0.25
    # A valley starting within the first point after the log's first one has no
    # schedule before it to restart.
    head_points: int = 1
    # At a known resume, a decay that fell at each of the 3+ logs before it (by steps
    # within 2x of each other: linear, cosine, inverse-sqrt) and does not fall at the
    # first log after it went back: the scheduler resumed behind the global step
    # (HF #34053: 7e-06 at step 5, 7e-06 again at the resumed step 6).
    lag_points: int = 3
    lag_regular: float = 2.0


@rule(
    "schedule-restarted",
    minimum="4 logged LRs",
    family="rate",
    severity=Severity.ERROR,
    params=Params(),
    requires=("lr",),
    # a scheduler restored behind the global step makes the LR go back at the resume
    explained_by=("resume-step-mismatch",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """The LR schedule jumps back mid-run: the scheduler state was not restored on resume.

    **What it does.** Scans the logged LR for valleys: the LR drops and climbs back
    by at least 25% of its peak on both sides, with a jump of >= 25% of the peak
    between two logged points (warmup restarting from ~0, or the LR jumping back
    up to the peak). Skips schedules configured to restart (`lr_scheduler`
    containing "restart" or "cycl") and three or more evenly spaced valleys.
    Reports the step of the jump and the nearest `resume_steps` entry. An error when
    a resume is known at the jump (within one logged interval); without one a warning
    (a deliberate second stage, appended logs, an unnamed restart schedule).

    **Why it matters.** A resumed run should continue the LR schedule where it
    stopped. A schedule that restarts its warmup (or jumps back to the peak)
    after a resume means the scheduler (and usually the optimizer) state was not
    restored: the model gets peak-LR updates again on already-trained weights,
    which typically shows up as a loss jump at the resume (the exploded-head run's third
    suspect: "the resume is lying").

    At a known resume, a decaying LR (lower at each of the 3+ logs before it, by
    steps within 2x of each other) that is not lower at the first log after it has
    gone back as well, by one logged step or more: the scheduler resumed behind the
    global step (warning: a small shift, but the schedule and the step disagree).

    **Known false positives.** A user who deliberately raised the LR at a resume;
    a loop that logs the optimizer's base LR at its first point, before the
    scheduler's warmup applies (a drop right after the first logged point, with
    no schedule seen before it, is not counted unless a resume is known there);
    warm restarts configured outside the scheduler name (pass `lr_scheduler`).

    **What to do.** Resume with the scheduler and optimizer state
    (`trainer.train(resume_from_checkpoint=...)`, which needs `scheduler.pt` and
    `optimizer.pt` in the checkpoint), or rebuild the scheduler with
    `last_epoch=<resumed step>` so it continues where it stopped.
    """
    sched = str(run.fact("lr_scheduler") or "").lower()
    if "restart" in sched or "cycl" in sched:
        return
    lr = lr_values(run)
    if lr is None or lr[1].size < 4:
        return
    st, v = lr
    peak = float(v.max())
    if peak <= 0:
        return
    # Valley depth: how far each point sits below the lower of its left and right highs.
    depth = np.minimum(np.maximum.accumulate(v), np.maximum.accumulate(v[::-1])[::-1]) - v
    deep = depth >= p.min_depth * peak
    resumes = sorted(int(s) for s in (run.fact("resume_steps") or ()))
    if not deep.any():
        if (hit := _lag_at_resume(st, v, resumes, p)) is not None:
            yield hit
        return
    edges = np.diff(np.r_[0, deep.astype(np.int8), 0])
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)  # [start, end)
    jumps = []
    for a, b in zip(starts, ends, strict=True):  # one iteration per valley, not per point
        lo, hi = max(a - 1, 0), min(b + 1, v.size)
        if a <= p.head_points and not any(st[0] <= r <= st[min(b, v.size - 1)] for r in resumes):
            # The high before the drop is the log's first point: no schedule was seen
            # before it (a loop that logs the optimizer's base LR once, then its warmup).
            continue
        d = np.abs(np.diff(v[lo:hi]))
        k = int(np.argmax(d)) if d.size else 0
        if d.size and d[k] >= p.min_jump * peak:
            jumps.append((lo + k, lo + k + 1))
        elif resumes and any(st[lo] <= r <= st[hi - 1] for r in resumes):
            k = int(np.argmin(v[a:b])) + a
            jumps.append((max(k - 1, 0), k))
    if not jumps:
        if (hit := _lag_at_resume(st, v, resumes, p)) is not None:
            yield hit
        return
    if len(starts) >= p.cyclic_min:
        gaps = np.diff(st[starts])
        if gaps.size and np.std(gaps) <= p.cyclic_cv * np.mean(gaps):
            return  # regular cycles: a cyclic schedule, not a restore bug
    before, after = jumps[0]
    step = int(st[after])
    evidence = {
        "restart_step": step,
        "lr_before": float(v[before]),
        "lr_after": float(v[after]),
        "peak_lr": peak,
        "n_restarts": len(jumps),
        "scheduler": sched or "unknown",
    }
    # The rule names a scheduler not restored at a resume: an error needs the resume known
    # at the jump (within a logged interval of it). Without one the jump is as often a
    # deliberate second stage, two runs' logs appended, or a restart schedule the config
    # does not name: a warning.
    gap = float(np.median(np.diff(st))) if st.size > 1 else 0.0
    at_resume = any(st[before] - gap <= r <= st[after] + gap for r in resumes)
    evidence["at_known_resume"] = at_resume
    if resumes:
        near = min(resumes, key=lambda r: abs(r - step))
        evidence["resume_step"] = near
    kind = "restarted its warmup" if v[after] < v[before] else "jumped back up"
    yield Hit(
        title=(
            f"LR schedule {kind} at step {step}: {fmt(float(v[before]))} -> "
            f"{fmt(float(v[after]))} (peak {fmt(peak)})"
        ),
        step=step,
        end_step=int(st[jumps[-1][1]]),
        evidence=evidence,
        explanation=(
            "A resumed run should continue the LR schedule where it stopped. Here the LR "
            "went back to an earlier point of its schedule, which means the scheduler state was "
            "not restored (often the optimizer state neither): already-trained weights get "
            "warmup/peak-size updates again, and the loss usually jumps at that step."
        ),
        prescription=(
            "Resume with the full checkpoint state (resume_from_checkpoint=..., with "
            "scheduler.pt and optimizer.pt present), or construct the scheduler with "
            "last_epoch set to the resumed step; compare the LR at the resume step with the "
            "LR logged just before it."
        ),
        severity=Severity.ERROR if at_resume else Severity.WARNING,
    )


def _lag_at_resume(st: np.ndarray, v: np.ndarray, resumes: list[int], p: Params) -> Hit | None:
    """A steady decay that does not continue at a known resume: the schedule went back."""
    for r in resumes:
        i = int(np.searchsorted(st, r))
        if i < p.lag_points or i >= v.size:
            continue
        d = np.diff(v[i - p.lag_points : i])
        if not (d.size and bool(np.all(d < 0))):
            continue
        if float(d.min()) < p.lag_regular * float(d.max()):  # (negative: min is the largest fall)
            continue  # irregular falls: a step decay or a noisy LR, no schedule to extrapolate
        if v[i] < v[i - 1]:
            continue  # it went on falling: the schedule continued
        step_fall = float(-d.mean())
        expected = float(v[i - 1]) - step_fall
        behind = (float(v[i]) - expected) / step_fall
        return Hit(
            title=(
                f"LR schedule went back at the resume (step {int(st[i])}): {fmt(float(v[i]))} "
                f"after {fmt(float(v[i - 1]))}, where the decay logged before it leads to "
                f"{fmt(expected)}: {behind:.0f} logged step(s) behind"
            ),
            step=int(st[i]),
            end_step=int(st[i]),
            evidence={
                "restart_step": int(st[i]),
                "resume_step": r,
                "lr_before": float(v[i - 1]),
                "lr_after": float(v[i]),
                "lr_expected": expected,
                "steps_behind": behind,
            },
            explanation=(
                f"The LR fell by about {fmt(step_fall)} at each of the {p.lag_points} logs before "
                "the resume and did not fall at the first log after it: the restored scheduler "
                "is behind the global step (its own step counter was saved or restored off by "
                "some steps), so the rest of the run follows a shifted schedule."
            ),
            prescription=(
                "Resume with the scheduler state saved at the same step as the model "
                "(scheduler.pt beside optimizer.pt), or rebuild it with last_epoch = the "
                "resumed step; compare the LR at the resume with an uninterrupted run's."
            ),
            severity=Severity.WARNING,
        )
    return None
