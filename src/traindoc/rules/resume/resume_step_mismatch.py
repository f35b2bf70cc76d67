"""resume-step-mismatch: the resumed step does not fit the accumulation / logging / save counters."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule

INTERVALS = ("logging_steps", "eval_steps", "save_steps")


@dataclass(frozen=True)
class Params:
    # How far ahead the counter simulation looks, in optimizer steps: a condition
    # that has not fired within 100 of its own intervals never will (the counter
    # arithmetic is periodic, so a longer horizon changes nothing).
    horizon_intervals: int = 100


def next_fire(start: int, stride: int, every: int, horizon: int) -> int | None:
    """Iterations k >= 1 until counter start + k*stride is a multiple of `every`, or None.

    The closed form: a solution exists iff gcd(stride, every) divides start; the
    loop is the same arithmetic spelled out, bounded by `horizon` iterations.
    """
    if every <= 0:
        return None
    if start % math.gcd(stride, every):
        return None
    for k in range(1, horizon + 1):
        if (start + k * stride) % every == 0:
            return k
    return None


def simulate(step: int, accum: int, intervals: dict[str, int], horizon: int) -> dict[str, Any]:
    """Each step condition after a resume at optimizer step `step`, two ways.

    `correct`: the loop restores its micro-batch counter as step x accum and adds
    1 per micro-batch; a condition `every N optimizer steps` is `counter %
    (N x accum) == 0`. `as_restored`: the loop restores the counter from the
    checkpoint's step as is (optimizer steps) but keeps adding accum per
    optimizer step: the exploded-head run's bug. The result is the optimizer step at which each
    condition first fires again, or None for never.
    """
    out: dict[str, Any] = {}
    for name, every in intervals.items():
        period = every * accum
        k_ok = next_fire(step * accum, accum, period, horizon * every)
        k_bad = next_fire(step, accum, period, horizon * every)
        out[name] = {
            "every": every,
            "next_correct": step + k_ok if k_ok is not None else None,
            "next_as_restored": step + k_bad if k_bad is not None else None,
        }
    return out


@rule(
    "resume-step-mismatch",
    minimum="a resume step (from --resume, a checkpoint name or the log) and the accumulation or the planned total",
    family="resume",
    severity=Severity.ERROR,
    params=Params(),
    requires=("fact:resume_step|fact:resume_steps",),
    uses=("fact:max_steps", "fact:grad_accum"),
    reads=("schedule-restarted",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Resumed step inconsistent with gradient accumulation, logging/eval/save multiples or saved state.

    **What it does.** Takes the step a run resumes from (`--resume CKPT`: its
    `trainer_state.json` global step, else the `checkpoint-N` name) and
    simulates the counters the config implies: a micro-batch counter that must
    restart at step x accumulation, and each step condition (logging, eval,
    save: `counter % (N x accumulation) == 0`). A loop whose counter is restored
    from the optimizer step but advances by the accumulation never meets a
    multiple again when the step is not itself a multiple of the accumulation:
    that is an error when the loop is known to count micro-batches, a warning
    for a custom loop of unknown counting (HF Trainer, Axolotl, LLaMA-Factory and
    Lightning count optimizer steps and are not suspected). It also compares the
    saved state with the step: the scheduler's `last_epoch` and the optimizer's
    step count must equal it (step x accumulation = stepped every micro-batch;
    0 = a fresh state), the `checkpoint-N` name must match the trainer state,
    the accumulation must be the one the checkpoint was trained with, and
    optimizer, scheduler and RNG state must be present.

    **Why it matters.** The exploded-head run: resumed at step 300 with gradient accumulation
    16, a step condition in the resume logic waited for a multiple that the
    counter (300 + 16k) never hit: GPU at 0%, log frozen, no error. Fixed by
    counting with the real accumulator (restoring 300 x 16 micro-batches). A
    scheduler or optimizer state that does not match the step restarts warmup or
    zeroes Adam's moments: a loss jump at the resume (resume-loss-jump,
    schedule-restarted).

    **Known false positives.** A custom loop that counts optimizer steps is
    fine at any step: the warning for unknown loops says "if". Checkpoints
    written by an end-of-epoch or on-crash save are legitimately off the save
    multiples (reported only as evidence). fp16 runs skip optimizer steps on
    overflow, so their Adam step count may be a little below the global step.

    **What to do.** Restore the micro-batch counter as step x accumulation (or
    count optimizer steps and test `step % N == 0` only when an optimizer step
    happened); resume with the accumulation the checkpoint was trained with;
    resume from a checkpoint that has optimizer.pt, scheduler.pt and rng_state.

    From the log alone (no checkpoint to open) it checks the resume against the
    plan: a resume step past `max_steps`, or skip lines that run past the planned
    last epoch (kohya sd-scripts' "skipping epoch 49 because initial_step" of 30:
    error, nothing is trained), and the LR the log shows at the resume: a steady decay
    that stops falling there (`schedule-restarted`'s lag) is a scheduler restored
    behind the global step (warning; the log-side view of a scheduler state that does
    not match the step).
    """
    if run.fact("resume_step") is None:  # only the log's resumes: the plan is what we can check
        step = max(int(r) for r in run.fact("resume_steps"))
        hit = _skips_past_plan(run, step) or _beyond_plan(run, step) or _scheduler_behind(run)
        if hit is not None:
            yield hit
        return
    step = int(run.fact("resume_step"))
    accum = int(run.fact("grad_accum") or 1)
    counter = run.fact("resume_counter")
    state: dict[str, Any] = dict(run.fact("resume_state") or {})
    intervals = {k: int(run.fact(k)) for k in INTERVALS if run.fact(k)}
    sim = simulate(step, accum, {"accumulation boundary": 1, **intervals}, p.horizon_intervals)
    # (severity, kind for the evidence, the title's plain words, the explanation's sentence)
    problems: list[tuple[Severity, str, str, str]] = []

    never = [n for n, s in sim.items() if s["next_as_restored"] is None]
    if counter != "optimizer" and accum > 1 and never:
        sev = Severity.ERROR if counter == "micro" else Severity.WARNING
        shown = ", ".join(never)
        problems.append(
            (
                sev,
                "never-fires",
                f"{shown} never fire again (the counter is off the accumulation grid)",
                f"a counter restored to {step} and advanced by {accum} per optimizer step is "
                f"{step % accum} mod {accum} forever, so `counter % (N x {accum}) == 0` never "
                f"fires again ({shown})"
                + ("" if counter == "micro" else ", if the loop counts micro-batches"),
            )
        )
    named = state.get("name_step")
    if named is not None and int(named) != step:
        micro = accum > 1 and int(named) == step * accum
        problems.append(
            (
                Severity.ERROR if micro else Severity.WARNING,
                "name-mismatch",
                f"the checkpoint is named step {named} but holds step {step}",
                f"the checkpoint is named for step {named} but its state says {step}"
                + (
                    f" ({named} = {step} x {accum}: the name counts micro-batches)" if micro else ""
                ),
            )
        )
    for key, what in (("scheduler_step", "scheduler"), ("optimizer_step", "optimizer")):
        got = state.get(key)
        if got is None or step == 0:
            continue
        got = int(got)
        if got == step or (key == "optimizer_step" and step - 50 <= got < step):
            continue  # fp16 loss scaling skips a few optimizer steps
        if accum > 1 and got == step * accum:
            why = f"stepped every micro-batch ({got} = {step} x {accum})"
            if key == "scheduler_step":
                why += f": the LR schedule runs {accum}x too fast"
            problems.append(
                (
                    Severity.ERROR,
                    f"{what}-per-micro-batch",
                    f"the {what} stepped every micro-batch ({got} steps, not {step})",
                    f"{what} {why}",
                )
            )
        elif got == 0:
            problems.append(
                (
                    Severity.ERROR,
                    f"{what}-fresh",
                    f"the {what} restarted from step 0",
                    f"{what} state is at step 0",
                )
            )
        else:
            problems.append(
                (
                    Severity.WARNING,
                    f"{what}-mismatch",
                    f"the {what} is at step {got}, not {step}",
                    f"{what} state is at step {got}, not {step}",
                )
            )
    saved = state.get("saved_grad_accum")
    if saved is not None and int(saved) != accum:
        problems.append(
            (
                Severity.WARNING,
                "accumulation-changed",
                f"gradient accumulation changed from {saved} to {accum}",
                f"the checkpoint was trained with accumulation {saved}, the resume uses {accum}: "
                f"the data position (step x accumulation batches skipped) and the schedule shift",
            )
        )
    if (beyond := _beyond_plan(run, step)) is not None:
        problems.append(
            (Severity.ERROR, "beyond-plan", "past the planned steps", beyond.explanation)
        )
    missing = [k for k in ("optimizer", "scheduler", "rng") if state.get(k) is False]
    if missing:
        problems.append(
            (
                Severity.WARNING,
                "state-missing",
                _not_restored(missing),
                f"no {', '.join(missing)} state in the checkpoint: "
                + "; ".join(_MISSING[k] for k in missing),
            )
        )
    if not problems:
        return
    severity = max(s for s, _, _, _ in problems)
    kinds = [k for _, k, _, _ in problems]
    said = "; ".join(t for _, _, t, _ in problems)
    yield Hit(
        title=f"Resumed at step {step} (accumulation {accum}): {said}",
        step=step,
        evidence={
            "resume_step": step,
            "grad_accum": accum,
            "counter": counter or "unknown",
            "problems": kinds,
            "conditions": sim,
            "off_save_schedule": bool(intervals.get("save_steps"))
            and step % intervals["save_steps"] != 0,
            **{k: v for k, v in state.items() if v is not None},
        },
        explanation=" ".join(d[0].upper() + d[1:] + "." for _, _, _, d in problems)
        + " A step condition that never fires again leaves the GPU at 0% and the log "
        "frozen, with no error.",
        prescription=(
            "Restore the micro-batch counter as step x accumulation (or count optimizer steps and "
            "test `step % N == 0` right after an optimizer step); resume with the accumulation "
            "the checkpoint was trained with, from a checkpoint holding optimizer, scheduler and "
            "RNG state."
        ),
        severity=severity,
    )


def _skips_past_plan(run: Run, step: int) -> Hit | None:
    """A resume that skips epochs past the planned last one (kohya's "skipping epoch 49
    because initial_step" of 30): it skipped more than the whole run, so the loop
    ends without one optimizer step. The usual arithmetic: the resumed optimizer
    step multiplied by the accumulation and then skipped again as if it were steps."""
    epochs = run.fact("num_train_epochs")
    skipped = [e for e in run.events if e.kind == "resume-skip-epoch" and e.value is not None]
    if not skipped or not isinstance(epochs, (int, float)) or epochs <= 0:
        return None
    last = max(int(e.value) for e in skipped)
    if last <= epochs:
        return None
    accum = run.fact("grad_accum")
    line = max(skipped, key=lambda e: int(e.value))
    return Hit(
        title=(
            f"The resume from step {step} skips epoch {last} of the {epochs:g} planned: it skips "
            "past the end of the run, and nothing is trained"
        ),
        step=step,
        evidence={
            "resume_step": step,
            "skipped_to_epoch": last,
            "planned_epochs": epochs,
            "grad_accum": accum,
            "line": line.line,
        },
        explanation=(
            f"Resuming at optimizer step {step} must skip the batches already trained; here the "
            f"skip runs on to epoch {last}, beyond the {epochs:g} epochs planned, so the loop "
            "exits without a single optimizer step (no error, no loss line)."
            + (
                f" With gradient accumulation {accum} the step count was turned into batches "
                "and then skipped again as if it were steps: accumulation-times too far."
                if isinstance(accum, int) and accum > 1
                else ""
            )
        ),
        prescription=(
            "Skip step x accumulation batches in all, once (not epochs computed from the already "
            "multiplied count); until the trainer is fixed, resume without skip_until_initial_step "
            "or with gradient_accumulation_steps 1."
        ),
        severity=Severity.ERROR,
    )


def _scheduler_behind(run: Run) -> Hit | None:
    """The logged LR went back at a resume by a few steps of its decay: the scheduler's
    own step is behind the global step it resumed at (schedule-restarted's lag)."""
    sym = run.symptom("schedule-restarted")
    if sym is None or "steps_behind" not in sym.evidence:
        return None
    ev = sym.evidence
    behind, at = float(ev["steps_behind"]), int(ev["restart_step"])
    return Hit(
        title=(
            f"The scheduler resumed {behind:.0f} logged step(s) behind the global step "
            f"(resumed at step {ev['resume_step']}; LR {fmt(ev['lr_after'])} at step {at})"
        ),
        step=at,
        evidence={
            "resume_step": ev["resume_step"],
            "kind": "scheduler-behind",
            "steps_behind": behind,
            "lr_at_resume": ev["lr_after"],
            "lr_expected": ev["lr_expected"],
        },
        explanation=(
            "the LR schedule and the global step disagree after the resume: the scheduler's "
            "step counter was saved or restored off the step the model and the data resumed "
            "at, so every later LR is the one of an earlier step"
        ),
        prescription=(
            "Save and restore the scheduler with the model at the same step (scheduler.pt); "
            "for a custom loop, rebuild it with last_epoch = the resumed step."
        ),
        severity=Severity.WARNING,
    )


def _beyond_plan(run: Run, step: int) -> Hit | None:
    """A resume at a step past the run's planned total: the trainer has nothing left to
    do (HF skips straight to the end; the bar sits at 0/N)."""
    total = run.fact("max_steps")
    if not (isinstance(total, (int, float)) and 0 < total < step):
        return None
    src = run.facts["max_steps"].source
    return Hit(
        title=f"Resumed at step {step}, past the planned {int(total)} steps: nothing left to train",
        step=step,
        evidence={"resume_step": step, "max_steps": int(total), "max_steps_source": src},
        explanation=(
            f"the checkpoint's global step {step} is beyond the {int(total)} optimization steps "
            f"this run plans ({src}): the trainer counts the run as done, skips every batch and "
            "trains nothing (the epochs, dataset or batch size changed since the checkpoint)"
        ),
        prescription=(
            "To continue from the checkpoint, plan more steps than it holds (raise "
            "num_train_epochs or max_steps); to start a new schedule from its weights, load "
            "them as the initial model instead of resuming (no trainer state)."
        ),
    )


_FILES = {"optimizer": "optimizer.pt", "scheduler": "scheduler.pt", "rng": "rng_state.pth"}


def _not_restored(missing: list[str]) -> str:
    """ "scheduler.pt was not restored": the files a user can look for, not internal names."""
    names = [_FILES[k] for k in missing]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{joined} {'was' if len(names) == 1 else 'were'} not restored"


_MISSING = {
    "optimizer": "Adam's moments restart at zero (a loss jump at the resume)",
    "scheduler": "the LR schedule restarts, warmup included",
    "rng": "data order and dropout differ from an uninterrupted run",
}
