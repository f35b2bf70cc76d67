"""resume-data-skip: a long silence after a resume, explained by skipping already-seen batches."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Event, Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.resume._timing import intervals, timed_series


@dataclass(frozen=True)
class Params:
    # A silence worth explaining: 10 usual log intervals (half stalled-training's
    # 20x, so the explanation is there whenever a stall could be claimed) ...
    ratio: float = 10.0
    # ... and a few seconds at least (below that it is jitter, not a wait).
    min_gap_s: float = 5.0
    # Past 30 minutes the skip costs real allocation: warning, with the fix.
    costly_s: float = 1800.0
    # Intervals needed for a "usual" interval to mean anything.
    min_points: int = 5
    # The log ends at the skip message: with this many batches to fast-forward the
    # wait is long at any loader speed (10k batches at 10 ms each: 100 s; 660k: 2 h).
    open_ended_batches: int = 10_000


@rule(
    "resume-data-skip",
    minimum="a resume's data-skip line ('Will skip the first N batches')",
    family="resume",
    qualifier="{resume_step}",  # one finding per resume
    severity=Severity.WARNING,
    params=Params(),
    uses=("loss", "fact:resume_steps"),
    # a resume past the planned total skips every batch: the skip is its consequence
    explained_by=("resume-step-mismatch",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """A long silence after a resume, explained by skipping already-seen batches (not a hang).

    **What it does.** Needs a console line saying the resumed run fast-forwards its
    data (HF v4 "Will skip the first E epochs then the first N batches", v5
    "Fast-forwarding the dataloader past E epochs and N batches": event
    `resume-skip-batches`). It then measures, from the logged wall-clock times,
    the silence between that message (or the last point before the resume step)
    and the first point logged after it, and reports it when it is at least 10x
    the usual log interval and a few seconds. Info; warning past 30 minutes.

    **Why it matters.** A resumed job that prints nothing for an hour looks hung
    (the exploded-head run's trap: a real hang looks the same). Skipping means reading and
    discarding every already-seen batch of the epoch: with an iterable or
    streamed dataset, or heavy on-the-fly tokenisation, that can take as long as
    training on them did. Killing it restarts the wait; waiting is right.

    When the log ends at the message (nothing logged after it: the run "hangs"
    there, GPU at 0%) and it skips 10,000+ batches, that skip is the likely wait:
    a warning that says so, since waiting (or `ignore_data_skip`) is the fix.

    **Known false positives.** The skip message proves a skip happened, not that
    it took all the silence: a real hang right after the skip looks the same until
    the log comes back.

    **What to do.** Let it run; to avoid the wait next time, `ignore_data_skip=True`
    (HF; the run then sees some batches twice) or a resumable sampler / stateful
    dataloader (torchdata StatefulDataLoader) that restores its position instantly.
    """
    skips = [e for e in run.events if e.kind == "resume-skip-batches"]
    if not skips:
        return
    s = timed_series(run)
    if s is None or _nothing_after(run, skips[-1]):
        yield from _open_ended(run, skips[-1], p)
        return
    steps, times, dt = intervals(s)
    pos = dt[dt > 0]
    if pos.size < p.min_points:
        return
    usual = float(np.median(pos))
    for e in skips:
        gap, before, after = _silence(e, steps, times)
        if gap is None or gap < max(p.ratio * usual, p.min_gap_s):
            continue
        costly = gap >= p.costly_s
        batches = int(e.value) if e.value is not None else None
        yield Hit(
            title=(
                f"Silent for {_dur(gap)} after resuming at step {e.step}: skipping "
                + (f"{batches} already-seen batches" if batches is not None else "seen batches")
                + f" ({gap / usual:.0f}x the usual interval), not a hang"
            ),
            step=e.step if e.step is not None else before,
            end_step=after,
            evidence={
                "resume_step": e.step,
                "skipped_batches": batches,
                "gap_s": gap,
                "usual_interval_s": usual,
                "ratio": gap / usual if usual > 0 else None,
                "first_step_after": after,
                "line": e.line,
                "message": e.text,
            },
            explanation=(
                "After resuming, the trainer fast-forwards the dataloader past the batches the "
                "checkpoint already trained on, logging nothing until it is done; the log then "
                f"came back at step {after}. That silence is the skip, not a hang."
            ),
            prescription=(
                "Nothing to fix in this run. To resume instantly next time use a resumable "
                "sampler / StatefulDataLoader, or ignore_data_skip=True (HF) if seeing part of "
                "an epoch twice is acceptable."
            ),
            severity=Severity.WARNING if costly else Severity.INFO,
        )


def _silence(
    e: Event, steps: np.ndarray, times: np.ndarray
) -> tuple[float | None, int | None, int | None]:
    """(gap, last step before, first step after) around the skip message."""
    if e.time is not None and (e.time > 1e9) == (float(times[-1]) > 1e9):
        later = np.flatnonzero(times > e.time)
        if not later.size:
            return None, None, None
        j = int(later[0])
        return float(times[j]) - e.time, int(steps[j - 1]) if j > 0 else None, int(steps[j])
    if e.step is None:
        return None, None, None
    j = int(np.searchsorted(steps, e.step, side="right"))
    if j == 0 or j >= steps.size:
        return None, None, None
    return float(times[j] - times[j - 1]), int(steps[j - 1]), int(steps[j])


def _dur(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.3g} s"


def _nothing_after(run: Run, e: Event) -> bool:
    """No metric is logged after the skip message (by line, else by step)."""
    last = [int(x.steps[-1]) for x in run.series.values() if len(x)]
    if not last:
        return True
    return e.step is not None and max(last) <= e.step


def _open_ended(run: Run, e: Event, p: Params) -> Iterator[Hit]:
    """The log stops at the skip message: the skip is where the run is now."""
    batches = int(e.value) if e.value is not None else None
    if batches is None or batches < p.open_ended_batches:
        return
    yield Hit(
        title=(
            f"The log ends at the resume's data skip (line {e.line}): the trainer is "
            f"fast-forwarding past {batches} already-seen batches, not hung"
        ),
        step=e.step,
        evidence={
            "resume_step": e.step,
            "skipped_batches": batches,
            "line": e.line,
            "message": e.text,
            "points_after": 0,
        },
        explanation=(
            f"On resume the trainer reads and discards the {batches} batches the checkpoint "
            "already trained on before its first new step, printing nothing and leaving the "
            "GPU idle meanwhile. With an iterable dataset or on-the-fly tokenisation that "
            "takes about as long as reading them did the first time: hours, for this many."
        ),
        prescription=(
            "Wait for it (killing the job restarts the skip), or resume with "
            "ignore_data_skip=True (the run then sees the start of the epoch again), or use a "
            "resumable sampler / StatefulDataLoader that restores its position instantly."
        ),
    )
