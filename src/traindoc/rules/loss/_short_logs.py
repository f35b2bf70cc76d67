"""no-learning's verdicts on logs too short for its trend test (under 10 losses): a
loss that does not move from the start, epoch means that do not fall (4+ flat, or 2-3
none below the first with the eval loss not falling either), losses whole epochs apart
that agree to 0.1%, a whole-run eval stagnation, an LR at 0 at every log."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.schedule import warmup
from traindoc.measure.stats import fmt
from traindoc.model import Finding, Run, Series, Severity
from traindoc.model.signals import kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import direction, task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _evals_from_start(run: Run, f: Series) -> bool:
    """The eval loss is logged from the run's first interval on and the first train loss
    comes by the second eval: the log covers the run from its start and the train loss
    was only logged less often (HF's logging_steps=500 beside per-epoch evals of 268
    steps: a model card's first rows read "No log"), not a late window of a longer run."""
    ev = run.get("eval_loss")
    if ev is None or len(e := ev.finite()) < 2 or not len(f):
        return False
    return bool(e.steps[0] <= np.median(np.diff(e.steps)) and f.steps[0] <= e.steps[1])


def _flat_from_start(run: Run, f: Series, p: Params) -> Hit | None:
    """4-9 losses from the start of a run, all within `flat_spread` of their median,
    past the warmup: the loss has not moved at all (warning)."""
    y = f.values
    if y.size < p.flat_points:
        return None
    w = warmup(run)
    if w is not None and not w.complete:
        return None  # the LR is still ramping up: too early to expect a move
    level, spread = _around_median(y)
    if spread > p.flat_spread:
        return None
    return Hit(
        title=(
            f"Loss does not move: {y.size} logs from the start all within {spread:.2%} of "
            f"{fmt(level)} ({fmt(float(y[0]))} -> {fmt(float(y[-1]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=_flat_evidence(y, level, spread),
        explanation=(
            f"Every logged loss lies within {spread:.2%} of the same level. Batches alone move "
            "a loss by more than that, and a model whose weights change moves its mean: the "
            "updates are not reaching the model, or are too small to matter."
        ),
        prescription=(
            "Check the logged LR (0, or far too low for the regime), the trainable-parameter "
            "count and the gradient norm (0?), that optimizer.step() runs and that the loss is "
            "computed from the model's outputs (not detached), and the labels."
        ),
        severity=Severity.WARNING,
    )


def _flat_evals_from_start(run: Run, f: Series, p: Params) -> Hit | None:
    """Under 4 train losses, logged less often than the evals (a model card's "No log"
    rows, then one training loss carried over several epochs), but 4+ eval losses from
    the run's first interval on, all within `flat_spread` of their median with the train
    losses inside the same band, and no task metric gaining 2% of its scale: the
    held-out loss, measured more often, shows the same unmoving curve (warning)."""
    ev = run.get("eval_loss")
    if ev is None or f.values.size >= p.flat_points or not _evals_from_start(run, f):
        return None
    e = ev.finite()
    if len(e) < p.flat_points:
        return None
    level, spread = _around_median(e.values)
    if spread > p.flat_spread or np.max(np.abs(f.values - level)) > p.flat_spread * abs(level):
        return None
    for m, higher in task_metrics(run):
        v = m.finite().values
        if v.size < 2:
            continue
        gain = float(v.max() - v[0]) if higher else float(v[0] - v.min())
        if gain > 0.02 * (100.0 if float(np.abs(v).max()) > 1.5 else 1.0):
            return None  # the predictions improve: a converged model still refining
    return Hit(
        title=(
            f"Loss does not move: {len(e)} eval losses from the first epoch all within "
            f"{spread:.2%} of {fmt(level)} ({fmt(float(e.values[0]))} -> "
            f"{fmt(float(e.values[-1]))}), the {f.values.size} train losses in the same band"
        ),
        step=int(e.steps[0]),
        end_step=int(e.steps[-1]),
        evidence=_flat_evidence(e.values, level, spread, series="eval_loss"),
        explanation=(
            f"Every eval loss lies within {spread:.2%} of the same level from the first eval "
            "on, and so does the training loss: a model whose weights change moves its "
            "held-out loss by more than that. The updates are not reaching the model, or "
            "are too small to matter."
        ),
        prescription=(
            "Check the logged LR (0, or far too low for the regime), the trainable-parameter "
            "count and the gradient norm (0?), that optimizer.step() runs, and the labels."
        ),
        severity=Severity.WARNING,
    )


def _around_median(y: np.ndarray) -> tuple[float, float]:
    """(median, the farthest any value lies from it relative to it): how flat a log is."""
    level = float(np.median(y))
    return level, float(np.max(np.abs(y - level))) / abs(level) if level else float("inf")


def _flat_evidence(y: np.ndarray, level: float, spread: float, **extra: object) -> dict:
    return {
        "points": int(y.size),
        "level": level,
        "spread_rel": spread,
        "start_loss": float(y[0]),
        "end_loss": float(y[-1]),
        **extra,
    }


def _spread(y: np.ndarray) -> float:
    """(max - min) / |median|: how far apart the values lie, relative to their level."""
    level = float(np.median(y))
    return float(y.max() - y.min()) / abs(level) if level else float("inf")


def _short_verdict(run: Run, f: Series, p: Params) -> Hit | None:
    """What a short log (under 10 losses) from the start shows, most specific first."""
    for sign in (
        _flat_from_start,
        _flat_evals_from_start,
        _flat_after_first,
        _same_epochs_after_first,
        _flat_epochs,
        _no_fall_epochs,
    ):
        if (hit := sign(run, f, p)) is not None:
            return hit
    return None


def _epoch_means(run: Run, f: Series) -> np.ndarray | None:
    """The epoch of each loss when every loss is one epoch's (consecutive whole epochs
    from the first: 1, 2, 3 or 0, 1, 2), else None."""
    ep = run.get("epoch")
    if ep is None or len(ep.finite()) < 2:
        return None
    e = ep.finite()
    at = np.interp(f.steps, e.steps, e.values)
    whole = np.round(at)
    if not (np.allclose(at, whole, atol=0.02) and whole[0] <= 1):
        return None
    return whole if bool(np.all(np.diff(whole) == 1)) else None


def _flat_epochs(run: Run, f: Series, p: Params) -> Hit | None:
    """4-9 epoch-mean losses from the first epoch, all within 2% of their median, and no
    task metric in the log says the model already fits its data (warning)."""
    y = f.values
    if y.size < p.epoch_points or _epoch_means(run, f) is None:
        return None
    level, spread = _around_median(y)
    if spread > p.epoch_spread or _fits(run, p):
        return None
    return Hit(
        title=(
            f"Loss does not move from epoch to epoch: {y.size} epoch means from the first "
            f"all within {spread:.1%} of {fmt(level)} ({fmt(float(y[0]))} -> {fmt(float(y[-1]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=_flat_evidence(y, level, spread, epoch_means=True),
        explanation=(
            "Each logged loss is the mean over one epoch, the first one included. The first "
            "epoch's mean holds the loss of the untrained model: a model that learns "
            "anything in it has a first mean clearly above the later ones, and keeps "
            f"lowering them. Here all {y.size} lie within {spread:.1%}: the updates do not "
            "change what the model predicts."
        ),
        prescription=(
            "Check the predictions' class distribution (one class for every input?), the LR "
            "(0, or far too low / high for the optimizer), the labels and that the loss is "
            "computed from the model's outputs; then that the trained parameters are the "
            "ones the optimizer holds."
        ),
        severity=Severity.WARNING,
    )


def _no_fall_epochs(run: Run, f: Series, p: Params) -> Hit | None:
    """2-9 epoch-mean losses from the first epoch none of which lies `epoch_spread` (2%)
    below the first (nor `epoch_rise` above it: a loss that climbs is divergence's), no
    task metric in the log at fit, not RL: the first epoch's mean holds the untrained
    model's loss, so a model that learned anything has a later epoch's mean below it
    (warning). With 2-3 means the eval loss at 2+ evals must not fall either (none 2%
    below its first): two measures agreeing; 4+ means are that many passes agreeing."""
    y = f.values
    if run.is_rl or not 2 <= y.size < p.min_points or _epoch_means(run, f) is None:
        return None
    first = float(y[0])
    if first <= 0 or float(np.min(y[1:])) < first * (1 - p.epoch_spread):
        return None
    if float(np.max(y[1:])) > first * (1 + p.epoch_rise):
        return None
    ev = run.get("eval_loss")
    e = ev.finite().values if ev is not None else np.empty(0)
    eval_falls = (
        e.size < 2 or e[0] <= 0 or float(np.min(e[1:])) < float(e[0]) * (1 - p.epoch_spread)
    )
    if (y.size < p.epoch_points and eval_falls) or _fits(run, p):
        return None
    held = (
        f", eval loss {fmt(float(e[0]))} -> {fmt(float(e[-1]))} at {e.size} evals"
        if not eval_falls
        else ""
    )
    return Hit(
        title=(
            f"Loss does not fall after the first epoch: {y.size} epoch means "
            f"{fmt(first)} -> {fmt(float(y[-1]))}, none {p.epoch_spread:.0%} below the first" + held
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "points": int(y.size),
            "epoch_means": True,
            "start_loss": first,
            "end_loss": float(y[-1]),
            **(
                {"eval_points": int(e.size), "eval_start": float(e[0]), "eval_end": float(e[-1])}
                if not eval_falls
                else {}
            ),
        },
        explanation=(
            "Each logged loss is the mean over one epoch, the first one included, and the "
            "first epoch's mean holds the loss of the untrained model: a model that learns "
            "anything has a later epoch's mean clearly below it. Here no later mean is"
            + (", and the held-out loss did not fall either" if not eval_falls else "")
            + ": the epochs did not change what the model predicts."
        ),
        prescription=(
            "Check the LR (0, or far too low / high for the optimizer), the gradient norm, "
            "the labels and the input pipeline (the inputs the model sees match the labels?), "
            "and that the loss is computed from the model's outputs; then overfit a single "
            "batch to confirm the model can learn at all."
        ),
        severity=Severity.WARNING,
    )


def _fits(run: Run, p: Params) -> bool:
    """A higher-is-better task metric in the log reaches `epoch_fitted` (90%, or 90 on a
    0-100 scale): a model that already fits (or learned) its task, whose loss may well
    sit still."""
    for m in run.series.values():
        if kind(m.name) != "task" or direction(m.name) is not True or not len(m.finite()):
            continue
        top = float(np.max(m.finite().values))
        if top >= (100 * p.epoch_fitted if top > 1.0 else p.epoch_fitted):
            return True
    return False


def _negated_score_fits(level: float, p: Params) -> bool:
    """A loss in [-1, 0) at -`epoch_fitted` or lower is a negated overlap score (a dice,
    IoU or cosine-similarity loss: -dice) of 0.9+: the model fits its task, as `_fits`
    reads a task metric, and a loss that close to its bound -1 has almost no room to
    move - 0.1% of its level is a quarter of the distance left at -0.995."""
    return -1.0 <= level <= -p.epoch_fitted


def _printed_step(v: float) -> float:
    """The place of the last digit `v` was printed with (15.2876482 -> 1e-7, 2.3026 ->
    1e-4, 16771.0 -> 0.1); inf for an exponent form, whose digits we cannot see."""
    r = repr(float(v))
    if "e" in r or "inf" in r or "nan" in r:
        return float("inf")
    return 10.0 ** -len(r.split(".")[1]) if "." in r else 1.0


def _epochs_at(run: Run, f: Series) -> np.ndarray | None:
    """The logged epoch at each loss's step, None when no epoch is logged."""
    ep = run.get("epoch")
    if ep is None or len(e := ep.finite()) < 2:
        return None
    return np.interp(f.steps, e.steps, e.values)


def _still_across_epochs(run: Run, f: Series, p: Params) -> Hit | None:
    """2-9 losses whose first and last lie a whole epoch or more apart, all within
    `still_spread` (0.1%) of their median, printed with digits fine enough to show a
    0.1% change, not at the uniform floor, and no task metric at 90% (nor a negated
    overlap score, a dice loss of -0.9 or lower, at 90%): over a pass through the data the
    loss did not move (warning), wherever in the run the window lies."""
    y = f.values
    if not 2 <= y.size < p.min_points:
        return None
    at = _epochs_at(run, f)
    if at is None or float(at[-1] - at[0]) < p.still_epochs:
        return None
    level, spread = _around_median(y)
    if spread > p.still_spread:
        return None
    if max(_printed_step(float(v)) for v in y) > p.still_spread * abs(level):
        return None  # 0.0266 printed to 4 decimals cannot show a 0.1% move
    floor = fl.at_floor(run, "loss")
    if (floor is not None and floor.to_end) or _fits(run, p) or _negated_score_fits(level, p):
        return None
    span = float(at[-1] - at[0])
    return Hit(
        title=(
            f"Loss does not move over {span:g} epoch(s): {y.size} logs from epoch "
            f"{fmt(float(at[0]))} to {fmt(float(at[-1]))} all within {spread:.3%} of "
            f"{fmt(level)} ({fmt(float(y[0]))} -> {fmt(float(y[-1]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=_flat_evidence(y, level, spread, epochs=span, from_epoch=float(at[0])),
        explanation=(
            f"These losses lie {span:g} epoch(s) apart, so between them the model took a whole "
            "pass of updates over its data, yet they agree to "
            f"{spread:.3%}. A model whose weights change moves its loss by more than 0.1% "
            "over a pass, late in training too (the batches averaged change, the LR moves "
            "the weights): the updates no longer change what the model predicts."
        ),
        prescription=(
            "Check the logged LR (decayed or scheduled to 0?), the gradient norm (0?), the "
            "predictions' class distribution (one class for all inputs?), and that the "
            "loss is computed from the model's outputs and the labels reach it."
        ),
        severity=Severity.WARNING,
    )


def _no_step_taken(run: Run, f: Series, p: Params) -> Hit | None:
    """A short log (2-9 losses) whose every logged LR is 0, as `schedule-not-applied`
    found it (a print that resolves an LR, early in the run's plan or at full float
    precision), with the loss not falling over the log (neither the last loss nor the
    median after the first `min_drop_unknown` below the first): two measures agree that no update reaches the
    weights (warning). Wherever the log starts: the LR says what the run does now."""
    y = f.values
    if not 2 <= y.size < p.min_points:
        return None
    sna = run.symptom("schedule-not-applied")
    if sna is None:
        return None
    ev = sna.evidence
    full = run.fact("lr_print_decimals") is None  # a float print: 0 is 0, not 4e-7
    every = "first_zero_progress" in ev or (full and ev.get("zero_frac") == 1.0 and "peak_lr" in ev)
    if not every:
        return None  # some LR above 0, or "0.000000" late in a plan (a decay's last 4e-7)
    first, last = float(y[0]), float(y[-1])
    if first <= 0 or min(last, float(np.median(y[1:]))) < first * (1 - p.min_drop_unknown):
        return None  # the loss falls: the LR logged is not the one that trains
    return Hit(
        title=(
            f"No update reaches the weights: the LR is 0 at every log and the loss "
            f"{fmt(first)} -> {fmt(last)} over {y.size} logs does not fall"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "points": int(y.size),
            "start_loss": first,
            "end_loss": last,
            "lr_zero_logs": int(ev.get("points", 0)),
        },
        explanation=(
            "An optimizer step moves each weight by the LR times its update: at an LR of 0 no "
            "weight changes, and the loss, which does not fall across the logs, agrees. "
            "Whatever the run trains for, it learns nothing until the LR is above 0."
        ),
        prescription=(
            "Check the scheduler (stepped once per optimizer step? its warmup and decay "
            "horizons in steps, not epochs?) and the configured learning_rate; print the "
            "optimizer's param_groups LRs for the first steps."
        ),
        severity=Severity.WARNING,
    )


def _flat_after_first(run: Run, f: Series, p: Params) -> Hit | None:
    """A short log from the start whose train losses after the first (3+) and whose
    evals (3+) each lie within 1%: after the first log nothing moves (warning)."""
    y = f.values[1:]
    ev = run.get("eval_loss")
    e = ev.finite().values if ev is not None else np.empty(0)
    if y.size < p.after_first_points or e.size < p.after_first_evals:
        return None
    w = warmup(run)
    if w is not None and not w.complete:
        return None
    ty, te = _spread(y), _spread(e)
    if ty > p.after_first_spread or te > p.after_first_spread:
        return None
    return Hit(
        title=(
            f"Nothing moves after the first log: train loss {fmt(float(y[0]))} -> "
            f"{fmt(float(y[-1]))} within {ty:.2%} over {y.size} logs, eval loss within "
            f"{te:.2%} of {fmt(float(np.median(e)))} at {e.size} evals"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "points": int(f.values.size),
            "first_loss": float(f.values[0]),
            "start_loss": float(y[0]),
            "end_loss": float(y[-1]),
            "train_spread_rel": ty,
            "eval_points": int(e.size),
            "eval_level": float(np.median(e)),
            "eval_spread_rel": te,
        },
        explanation=(
            "Only the first log is higher (it averages the first steps); after it the train "
            f"loss stays within {ty:.2%} and the held-out loss within {te:.2%}. A model that "
            "learns lowers its train loss by more than that from one log to the next, and a "
            "fine-tune keeps fitting its train set: the updates stopped changing the model "
            "after the first steps (an LR far too high or too low, a collapsed output, labels "
            "it cannot fit)."
        ),
        prescription=(
            "Check the predictions' class distribution on a few batches (one class for all?), "
            "then the LR (a full fine-tune of a pretrained encoder wants ~1e-5-5e-5), the "
            "labels and that the loss is computed from the model's outputs."
        ),
        severity=Severity.WARNING,
    )


def _same_epochs_after_first(run: Run, f: Series, p: Params) -> Hit | None:
    """Epoch-mean losses from the first epoch whose means after the first (3+) are one
    value as printed, the print resolving `same_resolution` (0.5%) of it, and no task
    metric at 90% (warning): from the second pass on the mean does not move by one digit."""
    y = f.values[1:]
    if y.size < p.same_points or _epoch_means(run, f) is None:
        return None
    level = float(y[0])
    if level <= 0 or not bool(np.all(y == level)):
        return None
    step = max(_printed_step(float(v)) for v in f.values)
    if step > p.same_resolution * level or _fits(run, p):
        return None
    return Hit(
        title=(
            f"Loss does not move after the first epoch: the epoch mean prints {fmt(level)} "
            f"at each of the {y.size} epochs after it (first epoch {fmt(float(f.values[0]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "points": int(f.values.size),
            "first_loss": float(f.values[0]),
            "repeated_loss": level,
            "repeats": int(y.size),
            "print_resolution_rel": step / level,
        },
        explanation=(
            "Each logged loss is the mean over one whole pass. In its first epochs a model "
            "that learns lowers that mean from one pass to the next by far more than the "
            f"log's last digit ({step:g}, {step / level:.2%} of the level); here the mean "
            f"prints {fmt(level)} at {y.size} passes in a row after the first: whatever the "
            "first pass did, the updates since have not changed what the model predicts."
        ),
        prescription=(
            "Print the predictions on a few batches (one output for every input?), check the "
            "LR and the gradient norm of the trained parameters, and rerun with another seed "
            "or initialisation: a model frozen from its second epoch is stuck, not slow."
        ),
        severity=Severity.WARNING,
    )


def _never_progressed(f: Series, stalled: Finding) -> Hit:
    ev = stalled.evidence
    return Hit(
        title=(
            f"No progress over the whole run: eval loss flat at {fmt(ev['eval_level'])} at "
            f"{ev['eval_points']} evals, train loss {fmt(ev['train_start'])} -> "
            f"{fmt(ev['train_end'])}"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "eval_level": ev["eval_level"],
            "eval_points": ev["eval_points"],
            "start_loss": ev["train_start"],
            "end_loss": ev["train_end"],
            "window_frac": ev["window_frac"],
            "from_first_eval": ev.get("from_first_eval", False),
        },
        explanation=(
            "From the first eval to the last neither the held-out loss nor the training loss "
            "moved beyond its noise: whatever the run learned, it learned none of it after the "
            "first logged point. The optimizer is not moving the model usefully."
        ),
        prescription=(
            "Check the logged LR (0? never warmed up? far too low for the regime?), the "
            "trainable-parameter count and the gradient norm; for a fine-tune, check that the "
            "data is not what the model already predicts (eval loss flat from the start)."
        ),
        severity=Severity.WARNING,
    )


def _mostly_down(y: np.ndarray) -> bool:
    """At least two thirds of the consecutive changes are decreases."""
    d = np.diff(y)
    return d.size > 0 and float((d < 0).mean()) >= 2 / 3
