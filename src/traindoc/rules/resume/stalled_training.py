"""stalled-training: the log stopped advancing for many times the usual step interval."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Event, Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.resume._timing import intervals, timed_series


@dataclass(frozen=True)
class Params:
    # A stall is a gap of at least 20 usual log intervals: evaluation, checkpoint
    # saving and dataloader restarts at epoch ends routinely cost a few intervals,
    # and the exploded-head run's hang left the log frozen indefinitely.
    ratio: float = 20.0
    # ... and 3x any other pause in the run, so a periodic eval/save that is slow
    # every time (20x a step, but the same each time) is not a stall.
    periodic_ratio: float = 3.0
    # Absolute floor in seconds: below it a pause is OS / GC / filesystem-flush
    # jitter whatever the ratio. The decision is relative (20x the usual interval,
    # 3x any other pause); the floor only keeps sub-second hiccups of runs that
    # log every few milliseconds quiet. 1 s, not more: a plain loop logging every
    # 0.09 s that goes silent for 3 s (38x) has stalled, whatever the scale.
    min_gap_s: float = 1.0
    # Log points at normal pace needed after the gap to call the run recovered
    # (or as many usual intervals of time logged after it); fewer and the run
    # effectively ended in the stall.
    recovered_points: int = 3
    # Intervals needed for a "usual" interval to mean anything.
    min_points: int = 8


@rule(
    "stalled-training",
    minimum="8 timed log intervals, a live clock, an NCCL timeout line, or a console bar that ran on after the last step",
    family="resume",
    severity=Severity.ERROR,
    params=Params(),
    uses=(
        "loss",
        "fact:resume_steps",
        "fact:now",
        "fact:ended",
        "fact:max_steps",
        "fact:num_train_epochs",
        "fact:progress_after_last_step",
    ),
    explained_by=("resume-data-skip",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Steps stopped advancing: a gap in the log many times the usual step interval.

    **What it does.** From the wall-clock times of the logged points (the train
    loss, else any timed series) it takes the usual interval between logs (the
    median) and looks for a silence of 20x that and 3x any other pause in the
    run; an absolute floor of 1 s keeps sub-second jitter of very fast logs quiet.
    In live mode (fact `now`, the clock of a watcher), the silence since the
    last line counts too, unless the log says training ended (fact `ended`:
    HF's train_runtime summary, W&B's exit record) or reached the planned end
    (`max_steps`, or `num_train_epochs` on the epoch series); offline it cannot, since a
    finished log also ends in silence (and a copy resets file times). It
    reports the last step before the silence, the gap and the usual interval.

    A console beside the log adds the other sign, which needs no clock: its
    training progress bar (tqdm over micro-batches) going on for 20x its usual
    distance between two logged steps after the last one (fact
    `progress_after_last_step`, readers/logs/progress.py). The loop is alive and
    consuming data, but no step comes: the exploded-head run's resume bug, seen after the fact.

    **Why it matters.** The exploded-head run's resume bug left the GPU at 0%, the log frozen
    and no error: a step condition that never became true after resuming at
    step 300 with gradient accumulation 16. A hung job burns its whole
    allocation. Error when the log ends in the silence, info when it resumed (the job
    was not hung, and a pause costs time, not learning):
    went on at normal pace for 3 usual intervals after coming back, counted in log
    points or in time (a log of episode windows logs few points for the same time).

    **Known false positives.** "Hangs" right after a resume are often not hangs:
    resuming can skip hundreds of thousands of already-seen batches with no
    output for hours (HF Trainer without `ignore_data_skip`); the finding says so
    when a resume is known at that step, and a silence across a resume the run
    came back from (the job was down, then restarted) is only info. A one-off
    slow checkpoint save or evaluation the run came back from is excused when
    it falls on a save_steps / eval_steps multiple; a silence at the very end
    of a log that says training ended (fact `ended`) was a slow final eval or
    save, since the process went on to finish.

    A console line of NCCL's watchdog ("Watchdog caught collective operation
    timeout", event `nccl-timeout`) is a real hang by itself: a rank waited on a
    collective until the timeout. It is reported even without timestamps, and a
    resume near it does not soften the finding. A resume-skip message near the
    gap ("Will skip the first N batches") links the finding to resume-data-skip.

    **What to do.** Look at the last log line and the process: GPU at 0% with the
    process alive is a hang (py-spy dump the stack). After a resume, check the
    step/accumulation arithmetic (the exploded-head run) and whether data skipping explains the
    wait (`ignore_data_skip=True`, or a resumable sampler). Gradient accumulation
    with uneven batches across ranks is the other usual real hang.
    """
    nccl = next((e for e in run.events if e.kind == "nccl-timeout"), None)
    bar = run.fact("progress_after_last_step")
    if isinstance(bar, dict):
        yield _stranded(run, bar)
        return
    s = timed_series(run)
    if s is None:
        if nccl is not None:
            yield _nccl_only(run, nccl)
        return
    steps, times, dt = intervals(s)
    pos = dt[dt > 0]
    if pos.size < p.min_points:
        if nccl is not None:
            yield _nccl_only(run, nccl)
        return
    usual = float(np.median(pos))
    skips = [e.step for e in run.events if e.kind == "resume-skip-batches" and e.step is not None]
    resumes = sorted({int(r) for r in (run.fact("resume_steps") or ())} | set(skips))
    now = run.fact("now")
    last_t = float(times[-1])
    # A final silence, known only in live mode (the watcher's clock); a run that
    # reached its planned end is finished, not stalled.
    live = now is not None and (float(now) > 1e9) == (last_t > 1e9) and float(now) > last_t
    if live and not _finished(run, int(steps[-1])):
        gap = float(now) - last_t
        if gap >= max(p.ratio * usual, p.min_gap_s, p.periodic_ratio * float(pos.max())):
            hit = _hit(run, s.name, int(steps[-1]), gap, usual, 0, resumes, True)
            yield _with_nccl(hit, nccl) if nccl is not None else hit
            return
    # the clock across a cut in a pasted excerpt (a gap marker, the user's prose) is the
    # lines left out, not a silence of the run
    cuts = np.asarray(run.fact("paste_cuts") or (), dtype=np.float64)
    if cuts.size and dt.size:
        lo, hi = steps[:-1], steps[1:]
        across = ((cuts[None, :] >= lo[:, None]) & (cuts[None, :] < hi[:, None])).any(axis=1)
        dt = np.where(across, 0.0, dt)
        pos = dt[dt > 0]
        if pos.size < p.min_points:
            return
        usual = float(np.median(pos))
    j = int(np.argmax(dt))
    gap = float(dt[j])
    others = np.delete(pos, np.argmax(pos))
    second = float(others.max()) if others.size else 0.0
    if gap < max(p.ratio * usual, p.min_gap_s, p.periodic_ratio * second):
        if nccl is not None:
            yield _nccl_only(run, nccl)
        return
    after = steps.size - 1 - (j + 1)  # points logged after the first one back
    # recovered = went on at normal pace for `recovered_points` usual intervals after
    # coming back, counted in log points or in time (a windowed log, such as episodes
    # averaged per window, logs few points for the same time)
    ran_on = float(times[-1] - times[j + 1])
    ended = after < p.recovered_points and ran_on < p.recovered_points * usual
    if ended and run.fact("ended"):
        return  # the process went on to finish: a slow final eval or save, not a hang
    stall_step = int(steps[j])
    if not ended:
        # A one-off slow checkpoint save / eval that the run came back from.
        for every in (run.fact("save_steps"), run.fact("eval_steps")):
            if every and int(every) > 0 and _near_multiple(stall_step, int(every), steps, j):
                return
    hit = _hit(run, s.name, stall_step, gap, usual, after + 1, resumes, ended, int(steps[j + 1]))
    yield _with_nccl(hit, nccl) if nccl is not None else hit


def _stranded(run: Run, bar: dict) -> Hit:
    """The console's training bar went on after the last logged step: the loop runs
    (batches are read, forward/backward happen) but no step is taken or logged."""
    last, units, usual = int(bar["last_step"]), float(bar["units"]), float(bar["usual"])
    resumed = last in {int(r) for r in (run.fact("resume_steps") or ())}
    skip = max((e.value or 0 for e in run.events if e.kind == "resume-skip-batches"), default=0.0)
    notes = []
    if resumed:
        notes.append(
            f"The run resumed at step {last} and never logged another step: a step "
            "condition that only works when counting from step 0 (a micro-batch counter "
            "restored as the optimizer step never reaches the multiple the condition waits for)."
        )
    severity = None
    if skip >= units:
        severity = Severity.WARNING
        notes.append(
            f"The log also says {skip:g} already-seen batches are skipped at the resume; if "
            "the bar counts those, this is data skipping that has not finished yet."
        )
    ratio = units / usual
    return Hit(
        title=(
            f"Steps stopped at {last} while the loop ran on: the progress bar moved {units:g} "
            f"more ({ratio:.0f}x the {usual:g} between two logged steps) with no step logged"
        ),
        step=last,
        evidence={
            "stalled_after_step": last,
            "bar_units_after": units,
            "usual_units_between_steps": usual,
            "ratio": ratio,
            "last_bar": bar.get("bar", ""),
            "ended_in_stall": True,
            **({"resume_step": last} if resumed else {}),
        },
        explanation=" ".join(
            [
                "Batches were still read and pushed through the model, but the optimizer "
                "step that follows them (and its log line) never came: the GPU stays busy, "
                "so utilisation does not reveal it.",
                *notes,
            ]
        ),
        prescription=(
            f"Print the accumulation counter and the step condition after step {last}; "
            "count micro-batches with the real accumulator (micro-batches since start = "
            "global_step x accumulation) after a resume, and restore it from the checkpoint."
        ),
        severity=severity,
    )


def _finished(run: Run, last_step: int) -> bool:
    """The log says training ended, or reached the planned max_steps or epochs."""
    if run.fact("ended"):
        return True
    max_steps, epochs, epoch = run.fact("max_steps"), run.fact("num_train_epochs"), run.get("epoch")
    if isinstance(max_steps, int) and max_steps > 0:
        return last_step >= max_steps
    if epochs and epoch is not None and len(epoch.finite()):
        return float(epoch.finite().values[-1]) >= float(epochs) - 1e-3
    return False


def _nccl_only(run: Run, e: Event) -> Hit:
    return Hit(
        title=f"A rank hung: NCCL watchdog timeout (line {e.line})"
        + (f" after step {e.step}" if e.step is not None else ""),
        step=e.step,
        evidence={"nccl_timeout": e.text, "line": e.line, "last_step": run.last_step},
        explanation=(
            "NCCL's watchdog aborted a collective (all-reduce, barrier, ...) that did not "
            "complete within its timeout: one rank stopped (a hang, a crash, uneven batches or "
            "a step condition only some ranks take) while the others waited for it."
        ),
        prescription=_NCCL_FIX,
    )


def _with_nccl(hit: Hit, e: Event) -> Hit:
    """A silence with an NCCL timeout in the log is a real hang, resume or not."""
    return replace(
        hit,
        evidence={**hit.evidence, "nccl_timeout": e.text, "nccl_line": e.line},
        explanation=hit.explanation
        + f" The log has an NCCL watchdog timeout (line {e.line}): a rank really hung.",
        prescription=_NCCL_FIX + " " + hit.prescription,
        severity=None if hit.evidence.get("ended_in_stall") else Severity.WARNING,
    )


_NCCL_FIX = (
    "Find the rank that stopped first (the earliest error in its log; TORCH_NCCL_DUMP_ON_TIMEOUT "
    "/ py-spy dump on each rank); look for code only some ranks run (rank-0-only eval or save "
    "inside a collective) and uneven batch counts across ranks."
)


def _near_multiple(step: int, every: int, steps: np.ndarray, j: int) -> bool:
    """Whether a multiple of `every` lies in (steps[j-1], steps[j+1]]: the event ran in the gap."""
    lo = int(steps[j - 1]) if j > 0 else step - 1
    hi = int(steps[j + 1])
    return (hi // every) * every > lo


def _hit(
    run: Run,
    name: str,
    step: int,
    gap: float,
    usual: float,
    after: int,
    resumes: list[int],
    ended: bool,
    back_step: int | None = None,
) -> Hit:
    at_resume = next((r for r in resumes if step <= r <= (back_step or step)), None)
    # A pause the run came back from, going on at its usual pace, cost wall time but
    # left the run going: no hang to act on, and no cause of a run that does not learn
    # (an SB3 monitor.csv silent 31 minutes at 5.01M of 5.03M steps, then episodes
    # every few seconds again). Info; a log that ends in the silence is the error.
    severity = None if ended else Severity.INFO
    notes = []
    if at_resume is not None:
        notes.append(
            f"The run was resumed at step {at_resume}: resuming can skip all the "
            "already-seen batches with no output for a long time (resume-data-skip), so this "
            "silence may be data skipping rather than a hang"
            + ("." if ended else "; it came back, so the gap also spans the restart itself.")
        )
    if not ended:
        notes.append(f"The log came back at step {back_step} and logged {after} more point(s).")
    last = run.last_step
    ratio = gap / usual if usual > 0 else float("inf")
    evidence = {
        "stalled_after_step": step,
        "gap_s": gap,
        "usual_interval_s": usual,
        "ratio": ratio,
        "last_step": last,
        "series": name,
        "ended_in_stall": ended,
    }
    if back_step is not None:
        evidence["resumed_logging_at_step"] = back_step
    if at_resume is not None:
        evidence["resume_step"] = at_resume
    return Hit(
        title=(
            f"Training {'stalled' if ended else 'paused'} after step {step}: no log for "
            f"{_dur(gap)} ({ratio:.0f}x the usual {_dur(usual)} between logs)"
        ),
        step=step,
        end_step=back_step,
        evidence=evidence,
        explanation=" ".join(
            [
                "The log stopped advancing for far longer than any normal pause in this run: "
                "a hung process, a step condition that never becomes true after a resume, or "
                "a rank waiting on the others (GPU at 0%, log frozen, no error).",
                *notes,
            ]
        ),
        prescription=(
            f"Check the process after step {step}: GPU at 0% with the process alive is a hang "
            "(dump the stack with py-spy). After a resume, check the step arithmetic against "
            "gradient accumulation and whether batch skipping explains the wait "
            "(ignore_data_skip=True, or a resumable sampler); with several ranks, look for "
            "uneven batches."
        ),
        severity=severity,
    )


def _dur(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{fmt(seconds, 3)} s"
