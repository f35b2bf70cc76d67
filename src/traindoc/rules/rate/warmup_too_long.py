"""warmup-too-long: warmup takes well above the 2-5% of total steps that works."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.measure.schedule import in_last_planned_epoch, planned_steps, warmup
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import curve


@dataclass(frozen=True)
class Params:
    # The LoRA-plateau run: 2-5% of total steps is the recommendation; its 10% warmup was part of
    # the oscillating plateau. 8% leaves room above 5% for rounding of ratio configs.
    warn_frac: float = 0.08
    # A quarter of the run spent warming up is a large share of the budget: stronger words.
    strong_frac: float = 0.25
    # Half or more: most of the planned budget never trains at the peak LR.
    most_frac: float = 0.5
    # A handful of warmup steps costs nothing whatever their share (tiny test runs).
    min_steps: int = 10
    # A log too short for a curve (under 12 points) still falls cleanly when its last
    # point is its lowest, within this share of its level, past 3+ points.
    short_points: int = 3
    short_at_min: float = 0.01
    # The LoRA-plateau run's plateau: an early drop of >= 1.2x, then a band >= 3% wide
    # with no trend.
    plateau_min_drop: float = 1.2
    plateau_min_band: float = 0.03
    # ... a saw-tooth that survives a 5-point rolling median (white batch noise on a
    # converged loss scores ~0.55; the LoRA-plateau run's band 0.8+), as lr-too-high reads it.
    min_persistence: float = 0.7


@rule(
    "warmup-too-long",
    minimum="the warmup (logged LR or config) and the planned steps",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
    requires=("lr|fact:warmup_steps|fact:warmup_ratio",),
    uses=("lr",),
    reads=("lr-too-high",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Warmup well above the 2-5% of total steps that works for most runs.

    **What it does.** Measures warmup from the logged LR (steps until it first
    reaches 98% of its peak), else from `warmup_steps` / `warmup_ratio` x
    `max_steps` (judged on the least it can be at the log's resolution: the last
    step logged below the peak), and divides by the planned steps (`max_steps`, else the
    configured epochs at the steps per epoch the log shows (HF's fractional epoch, or
    whole-epoch rows at global steps that keep one steps-per-epoch: a model card cut at
    epoch 8 of 30 is 8/30 of its plan, not all of it), else the last logged step; a configured warmup is not set against lines that print no step, nor
    against lines that print only an epoch number: mmdet's warmup_iters=500 counts
    iterations, and a log of 100 'Epoch(val) [e]' lines counts epochs, so 500 of 100
    is no share at all). An LR still rising on the last record of a run that ended (a
    final summary, an ETA at 0 or under one logging interval, an epoch index at the last
    configured epoch: "Epoch 002"
    of `max_epoch=3`) was warming up the whole run. The warmup is the first ramp: an LR
    that turns down 10% below its running top ended its warmup there, whatever a later
    phase climbs to (mmpose's ramp to 4.2e-4, a decay, then a climb to 6.6e-4 is a warmup
    of 117 steps, not a run that never peaked). From 8% it is reported: a warning
    when the curve shows the harm (an early drop then a band with no downward trend, the
    LoRA-plateau run's plateau; the eval loss when no train loss is logged) or when no
    loss at all is logged to say otherwise; otherwise info, a tuning hint. A run that
    was warmup to its last log never trained at its planned LR: a warning unless the
    loss was solved (100x below its start) or the LR was found too high (a longer ramp
    only kept that LR low for longer). So is a warmup of half the run or more when the
    log reaches the run's known end (it says it ended, or gets to `max_steps` or the
    configured epochs), even while the loss still falls there: most of the budget never saw
    the peak LR, and a descent cut off by the end of the run is what that cost
    (detectron2's default WARMUP_ITERS 1000 in a 1500-iteration run: 65% of it
    ramping). A log with no known end (an excerpt of epochs 1-9 of a Noam recipe) gives
    the share of the log, not of the run: info. A quarter to a half of the run ramping, then a loss that does
    not fall, is info as well: the rest of the run was at the peak LR, so the stall is
    not the ramp's.

    **Why it matters.** The LoRA-plateau run used 10% warmup (with LR 2e-4, linear decay) and got
    an oscillating plateau; the fix used 3%. A long warmup spends the steps where
    the model learns fastest at a low LR, slows convergence and gives a false look
    of stability; with linear decay it also leaves less of the run at the peak.

    **Known false positives.** 10% is a classic BERT-era default and harmless on
    short fine-tunes that converge; very large batches or very deep models
    sometimes need long warmups. Below 25% of the run it is a tuning hint (info)
    unless the curve also plateaus: a run that converges or settles is fine. A band
    counts as a saw-tooth only when its persistence beats what white batch noise of as
    many points reaches 19 times in 20 (a 60-step batch-2 demo's last 30 losses score
    0.76 by chance one time in eight).

    **What to do.** Set warmup to 2-5% of total steps (e.g. `warmup_ratio=0.03`),
    and tune it together with peak LR and effective batch.
    """
    w = warmup(run)
    total = planned_steps(run, whole_epochs=True)
    if w is None or not total or w.steps < p.min_steps:
        return
    if not w.complete and not (
        run.fact("max_steps") or run.fact("ended") or in_last_planned_epoch(run)
    ):
        return  # still warming up and no planned length: the share is unknown
    # warmup_steps=20 against the 9 lines of a paste that prints no step: the lines are
    # not the trainer's steps, so the share is unknown; nor are epoch numbers
    # (warmup_iters=500 against a log of 100 epochs)
    unitless = run.fact("steps_ordinal") or run.fact("steps_epochs")
    if w.source == "config" and not run.fact("max_steps") and unitless:
        return
    frac = w.steps / float(total)
    # Judged on the least the warmup can be: a log every 1000 steps that sees the LR
    # below its peak at 0 and at it at 1000 cannot tell a 10-step warmup from 1000.
    if w.lower / float(total) < p.warn_frac:
        return
    strong = w.lower / float(total) >= p.strong_frac  # the least it can be, as above
    # Below a quarter of the run, a long warmup on a curve that keeps falling is a
    # tuning hint (info): the docstring's "unless the curve also plateaus".
    # a run that logs only its evals (a model card) shows harm, or none, there
    loss = run.get("loss") or run.get("eval_loss")
    c = curve(loss) if loss is not None else None
    # Below a quarter of the run it is a tuning hint (info) unless the curve shows
    # the harm: a band with no downward trend after the early drop (the LoRA-plateau run's
    # plateau), not a run that falls or settles.
    # a log too short for a curve (a model card's 5-11 rows) still shows a clean descent
    converging = c.converging if c is not None else loss is not None and _short_falling(loss, p)
    harmed = loss is None or (
        c is not None
        and not converging
        and c.oscillating_plateau(p.plateau_min_drop, p.plateau_min_band)
        and c.sawtooth(p.min_persistence)
    )
    # A long warmup costs learning speed, so a quarter or more of the run spent in it
    # is a warning unless the curve says it cost nothing: the task was solved (the
    # loss 100x down), or the LR was too high anyway (a longer ramp only kept it low
    # for longer; the level, not the ramp, hurt that run).
    too_high = run.symptom("lr-too-high") is not None
    # A run that was warmup to its end never trained at its planned LR: harm unless it
    # solved its task anyway.
    # (the LR still rising where the log ends counts only when the log reaches the
    # planned end: a run cut by a NaN at 11% of its plan says nothing of its warmup)
    reached_end = _reached_plan(run)
    never_peaked = frac >= 0.98 or (not w.complete and reached_end)
    solved = c is not None and c.converged
    # Half the run or more in warmup: most of the budget never saw the peak LR, and a
    # descent that goes on to the end is what that costs (the run was cut short at a
    # low LR), not evidence that it cost nothing. Only against the planned length: the
    # share of a log that stops at epoch 9 of a 100-epoch Noam recipe is no share of
    # the run.
    most = frac >= p.most_frac and reached_end
    # A quarter to a half spent ramping, then a loss that does not fall over the rest,
    # at the peak LR: that stall is not the ramp's doing (it had half the run or more
    # at its peak), so the share stays a hint.
    costly = never_peaked or most
    costly = costly and not solved and not too_high
    severity = Severity.WARNING if costly or harmed else Severity.INFO
    yield Hit(
        title=(
            f"The LR was still warming up when the run ended at step {total}: the whole run "
            "was warmup (2-5% of the steps is typical)"
            if not w.complete and frac >= 0.98
            else f"Warmup of {w.steps:.0f} steps is {100 * frac:.0f}% of the {total} total "
            "steps (2-5% is typical)"
        ),
        step=0,
        end_step=int(w.steps),
        evidence={
            "warmup_steps": w.steps,
            "total_steps": total,
            "warmup_frac": frac,
            "warmup_at_least": w.lower,
            "source": w.source,
            "complete": w.complete,
            "loss_converging": converging,
            "loss_plateaued": loss is not None and harmed,
        },
        explanation=(
            ("A quarter or more of the run" if strong else "A large share of the run")
            + " is spent ramping the LR up, where the model would learn fastest. A long warmup "
            "slows convergence and gives a false look of stability (2-5% of the steps is "
            "the usual share)."
            + (" At this length most of the budget never sees the peak LR." if strong else "")
        ),
        prescription=(
            f"Shorten warmup to 2-5% of total steps (~{max(1, round(0.03 * total))} steps, "
            "warmup_ratio=0.03) and re-tune peak LR with it."
        ),
        severity=severity,
    )


def _short_falling(loss: Series, p: Params) -> bool:
    """A log too short for a curve (3-11 points) whose last point is its lowest (within
    1%) and below its first: it was still descending when the run ended, so the long
    ramp left the run nothing to show (HF's wav2vec2 TIMIT recipe: 1000 of 3500 steps
    of warmup, the train loss 3.39 -> 0.045 and falling at each of its 7 rows)."""
    v = loss.finite().values
    if v.size < p.short_points:
        return False
    low = float(v.min())
    return float(v[-1]) <= low + p.short_at_min * abs(low) and float(v[-1]) < float(v[0])


def _reached_plan(run: Run) -> bool:
    """The log reaches the run's planned end, and that end is known: the run says it
    ended, or the log gets to 95% of `max_steps` / of the configured epochs. A log with
    no plan at all has only its last step for a total, which every log 'reaches'."""
    if run.fact("ended") or in_last_planned_epoch(run):
        return True
    last = run.last_step or 0
    ms = run.fact("max_steps")
    if ms:
        return last >= 0.95 * float(ms)
    epochs, e = run.fact("num_train_epochs"), run.get("epoch")
    if epochs and e is not None and len(e.finite()):
        return float(e.finite().values[-1]) >= 0.95 * float(epochs)
    return False
