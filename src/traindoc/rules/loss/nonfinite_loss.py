"""nonfinite-loss: NaN or Inf values in the logged training loss."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.losses import components, nonfinite_loss
from traindoc.measure.schedule import warmup
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._evalcurve import metric_trends, task_metrics


@dataclass(frozen=True)
class Params:
    # One or two non-finite points that the run then leaves behind (finite losses
    # after them, at the same level) look like a skipped overflow batch rather than
    # a dead run: still worth a warning, not an error. Three or more is a pattern.
    max_isolated: int = 2
    # ... and only while they are a tiny share of the log (1%): a run with NaN in
    # every 20th point is broken however many finite points sit between them.
    max_isolated_frac: float = 0.01
    # Finite points needed after the last bad one before calling the run recovered.
    recovered_points: int = 3
    # A first log at or before this step comes before (or with) the first update: a
    # NaN there is the dtype's or the data's, never the LR's. A first log at step 100
    # follows 100 updates, any of which the LR can have broken.
    before_updates: int = 1
    # Only the eval loss non-finite, while a task metric scored on the same evals improves
    # by 0.5% (relative) and 2 of its noise sigmas over 3+ evals from the first bad one:
    # the loss computation breaks, not the model (info).
    metric_gain_rel: float = 0.005
    metric_points: int = 3
    # ... unless the metrics collapse AT a non-finite eval: below half (`collapse_ratio`)
    # of the median of the `collapse_neighbours` nearest finite-loss evals on EACH side
    # (worse by 2x for a lower-is-better metric), on at least half of the task metrics
    # scored there. Broken outputs at that eval: the NaN is real, a warning. One such eval
    # is enough: needing finite-loss evals on both sides makes it a dip, never the first
    # eval or the climb out of a fresh start (where the next eval is always far better),
    # and comparing against finite-loss evals only ties the collapse to the NaN (a run
    # non-finite at every early eval whose metric wobbles there proves nothing). Not inside
    # a warmup the run got past: a dip while the LR still ramps is the start's instability
    # that warmup exists to absorb (a YOLO run's one Inf eval at epoch 2 of 120, mAP 0.13
    # between 0.57 and 0.83, then a clean run). A log that ends still warming up has not
    # shown it absorbed: its dips count.
    collapse_ratio: float = 0.5
    collapse_neighbours: int = 2
    # A loss term non-finite at every log from its first bad one while every other logged
    # term stays finite and one of them falls by 5%+ over 3+ logs from there (a warning,
    # not an error): a NaN gradient reaching the weights makes every term NaN at the next
    # log, so the weights are intact and this term is not in the backward (a mean over an
    # empty mask, a term switched off) - what it was meant to train is lost, not the run.
    sibling_points: int = 3
    sibling_fall: float = 0.05


@rule(
    "nonfinite-loss",
    minimum="one logged loss (or a framework's 'loss is NaN' line)",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    uses=("loss", "eval_loss", "grad_norm", "lr"),
    explained_by=(
        "fp16-instability",
        "grad-explosion",
        "lr-too-high",
        "warmup-too-short",
        "divergence",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """NaN or Inf in the logged training loss: the run is producing garbage.

    **What it does.** Looks for NaN / +Inf / -Inf values in the training loss, else
    in one of its logged components (detectron2's `loss_cls`, YOLO's `box_loss`) or
    the eval loss, and reports the first bad step, how many there are, and whether
    the run ever came back to finite values. A component that goes NaN while the
    logged total is still a smoothed finite number is the same failure, seen earlier.

    **Why it matters.** Once the loss is NaN the weights usually are too: every
    later step is wasted compute. fp16 is by far the most common cause (the LoRA-plateau run:
    "intermittent NaNs or huge gradients under FP16 -> switch to BF16"); a NaN at
    the very first step (0 or 1: before any update) is a dtype or data problem, not a
    learning-rate one; a first log at step 100 that is already NaN follows 100 updates,
    and the LR is as likely as the dtype.

    **Known false positives.** None for the loss itself. Note the opposite trap:
    HF Trainer's `logging_nan_inf_filter` (on by default) replaces NaN/Inf step
    losses by the window average, so a trainer_state.json may show a finite loss
    while `grad_norm` is NaN; that case is reported by `nonfinite-gradients`,
    not here. One or two isolated bad points followed by a normal curve are
    reported as a warning (an fp16 overflow the scaler skipped). An eval loss that is
    non-finite while the train loss is finite at every log and a task metric scored
    on those same evals (mAP, accuracy, WER) keeps improving over 3+ evals from the
    first bad one is info: the metric comes from the same forward passes, and NaN
    weights give degenerate predictions, not better ones - what breaks is the loss
    computed on them (a half-precision overflow in the validation loss, an eval
    sample the loss cannot score such as a CTC transcript longer than its audio).
    The eval loss is then useless for early stopping, which is worth knowing, but
    training is fine (Ultralytics: val/box_loss NaN at all 225 epochs while mAP50-95
    rose 0.001 -> 0.67). Not when the task metrics collapse at a non-finite eval itself
    (under half of the finite-loss evals on both sides of it, on most task metrics):
    those forward passes did produce broken outputs, so the NaN is real even if the
    run's metric trend recovers and improves overall - a warning (Ultralytics under AMP:
    val losses NaN at 5 epochs, mAP50 0.07 at epoch 93 between evals at 0.93).

    A term that is non-finite at every log from its first bad one while every other
    logged term stays finite and keeps
    falling (5%+ over 3+ logs from the first bad one) is a warning, even when the total
    is NaN because it sums that term: a NaN that reached the weights would make every
    term NaN at the next log, so the weights are intact and this term is not in the
    backward - a mean over an empty mask, or a term switched off. What that term trains
    (a box regressor, an RPN, a regulariser) learns nothing, which can be a fault (a
    py-faster-rcnn `loss_bbox` NaN from iteration 0) or by design (DAFormer's ImageNet
    feature distance, NaN early while both segmentation losses fall 2.68 -> 1.61); the
    run itself is not wrecked, so it is not an error.

    **What to do.** Under fp16, switch to bf16 (or fp32): lowering the LR only
    delays the NaN. Otherwise look at the step before the first NaN: a grad-norm
    spike there points at the LR / clipping, a NaN from step 0 at the data (empty
    or fully masked batches give 0/0) or the dtype.
    """
    picked = nonfinite_loss(run)
    if picked is None:
        return
    signal, loss = picked
    bad = ~np.isfinite(loss.values)
    count = int(bad.sum())
    idx = np.flatnonzero(bad)
    first, last = int(idx[0]), int(idx[-1])
    n = len(loss)
    values = loss.values
    n_nan = int(np.isnan(values).sum())
    n_posinf = int(np.isposinf(values).sum())
    n_neginf = int(np.isneginf(values).sum())
    finite_after = n - 1 - last
    recovered = finite_after >= p.recovered_points
    isolated = count <= p.max_isolated and count / n <= p.max_isolated_frac and recovered
    first_step = int(loss.steps[first])
    at_start = first == 0
    # fp16 signature: exact 0.0 losses right after the NaNs (scaler at minimum).
    after = values[last + 1 : last + 1 + 5]
    zeros_after = int((after == 0.0).sum())
    precision = run.fact("precision")
    kinds = ", ".join(
        f"{k} {name}" for k, name in ((n_nan, "NaN"), (n_posinf, "+Inf"), (n_neginf, "-Inf")) if k
    )
    evidence = {
        "signal": signal,
        "first_bad_step": first_step,
        "count": count,
        "fraction": count / n,
        "nan": n_nan,
        "posinf": n_posinf,
        "neginf": n_neginf,
        "last_bad_step": int(loss.steps[last]),
        "recovered": recovered,
        "last_finite_loss": float(values[first - 1]) if first > 0 else None,
    }
    if zeros_after:
        evidence["zero_losses_after"] = zeros_after
    if precision:
        evidence["precision"] = precision
    why = [
        "A non-finite loss means the forward pass overflowed or divided by zero; the "
        "update from that batch (if not skipped) corrupts the weights."
    ]
    ordinal = bool(run.fact("steps_ordinal"))
    # bad before any update could be applied: the LR cannot have caused it
    evidence["lr_ruled_out"] = at_start and first_step <= p.before_updates and not ordinal
    if at_start and (first_step <= p.before_updates or ordinal):
        why.append(
            "It is bad from the first logged step, so no learning rate caused it: suspect "
            "the dtype (fp16 overflow in a model pre-trained in bf16) or the data (empty or "
            "fully masked batches give 0/0)."
            if evidence["lr_ruled_out"]
            else "It is bad from the first logged line: whether updates came before it is not "
            "logged, so the LR, the dtype and the data are all open."
        )
    elif at_start:
        why.append(
            f"It is bad from the first log, at step {first_step}: the run broke within its first "
            f"{first_step} updates. An LR too high for the model (or no warmup) breaks a run that "
            "fast as readily as the dtype or the data does; a NaN at step 0, before any update, "
            "would rule the LR out."
        )
    if precision == "fp16" or zeros_after:
        why.append(
            "fp16 is the most common cause of NaN losses"
            + (" and this run uses fp16." if precision == "fp16" else ".")
            + (
                " Exact 0.0 losses right after the NaNs are the fp16 loss-scaler signature."
                if zeros_after
                else ""
            )
        )
    if isolated:
        why.append(
            f"Only {count} isolated point(s), and the loss is finite again afterwards: "
            "probably an overflow batch that was skipped."
        )
    # The eval loss alone is bad, and a task metric of those evals still improves: the
    # predictions get better, which NaN weights cannot do; the loss computation broke.
    scored = _eval_side(signal) and [
        m.name
        for m in metric_trends(run, first_step, p.metric_gain_rel, inside=True)
        if m.verdict == "improving"
        and len(_metric(run, m.name).after(first_step)) >= p.metric_points
    ]
    # ... unless the metrics collapse at the bad evals themselves: then the NaN is real.
    collapsed = bool(scored) and _collapsed_evals(run, loss, p)
    if collapsed:
        evidence["metric_collapse_steps"] = collapsed
        why.append(
            f"The task metrics collapse at the non-finite eval(s) themselves (step(s) "
            f"{', '.join(str(c) for c in collapsed[:5])}: under half of the finite evals on "
            "both sides): the model's outputs were broken at those evals, so the NaN is "
            "real, not an artefact of the loss computation"
            + ", even though the metric trend over the run improves."
        )
        scored = []
    if scored:
        evidence["metrics_improving"] = scored
        why.append(
            f"But {', '.join(scored)} kept improving over the same evals: those forward "
            "passes make better predictions, which NaN weights cannot, so what breaks is "
            "the loss computed on them (a half-precision overflow in the validation loss, "
            "or eval samples the loss cannot score, such as a CTC transcript longer than "
            "its audio), not the model. The eval loss cannot guide early stopping here; "
            "select checkpoints by the metric."
        )
    # The eval loss alone is bad while the training loss stays finite through it: the
    # weights are finite, so the held-out data or the loss computed on it is what breaks.
    train_fine = not scored and not collapsed and _train_finite_through(run, signal, first_step, p)
    # One term is bad while the others keep learning: the term never reaches the weights.
    inert = (
        None if scored or collapsed or train_fine or isolated else _inert_term(run, first_step, p)
    )
    if inert is not None:
        term, learner, was, now = inert
        evidence["inert_term"] = term
        why = [
            f"Only the term {term} is non-finite; the other terms stay finite and "
            f"{learner} keeps falling ({was:.4g} -> {now:.4g}) over the same logs. A NaN that "
            "reached the weights would make every term NaN at the next log, so the weights "
            "are intact and this term is not in the backward (a mean over an empty mask, or "
            "a term switched off): whatever it was meant to train learns nothing."
        ]
    if train_fine:
        evidence["train_loss_finite"] = True
        why = [  # the update did not break, so what is said above of updates does not apply
            f"{_what(signal)} is non-finite while the training loss stays finite at and after "
            f"step {first_step}, so the weights are finite: what breaks is the held-out data "
            "(NaN/Inf features or targets, a normalisation that divides by a zero spread) or "
            "the loss computed on it. Early stopping and best-checkpoint selection that read "
            "this loss track nothing."
        ]
    prec = advice.precision(run)
    clip = f", {c}" if (c := advice.clipping(run)) else ""
    fix = (
        advice.sentence(prec) + " - lowering the LR only delays the NaN in fp16. " if prec else ""
    ) + (
        f"Inspect the batch and grad_norm at step {first_step}: a grad-norm spike just before "
        f"points at the LR (lower it 3-10x{clip}); a NaN from the start points "
        "at the data (drop empty / fully masked samples) or the dtype."
    )
    yield Hit(
        title=(
            f"{_what(signal)} is non-finite from step {first_step} "
            f"({kinds} in {count} of {n} points)"
        ),
        step=first_step,
        end_step=int(loss.steps[last]),
        evidence=evidence,
        explanation=" ".join(why),
        prescription=(
            "Nothing to fix in training. To get a usable eval loss back, compute it in fp32 "
            "and look for eval samples it cannot score (empty targets, a CTC transcript "
            "longer than its input); meanwhile pick checkpoints by the metric."
            if scored
            else f"Find why {inert[0]} is NaN: an empty mask or target set (no boxes, no "
            "foreground pixels in the batch) gives 0/0; if the term is meant to be inactive at "
            "this stage, nothing to do, otherwise fix its computation - as logged it trains "
            "nothing."
            if inert is not None
            else "Nothing to fix in the update. Check the held-out split for NaN/Inf values and "
            "for a feature with zero spread in its normalisation, and compute the eval loss in "
            "fp32; until it is finite, pick checkpoints by another measure."
            if train_fine
            else fix
        ),
        severity=(
            Severity.INFO
            if scored
            else Severity.WARNING
            if isolated or collapsed or train_fine or inert is not None
            else None
        ),
    )


def _inert_term(run: Run, first_step: int, p: Params) -> tuple[str, str, float, float] | None:
    """(bad term, falling sibling, its value at the first bad step, its last) when some
    train terms are non-finite at every log from their first bad one (never finite again)
    while every other term is finite from
    `first_step` on and one of them falls by `sibling_fall` over `sibling_points`+ logs."""
    names = components(run)
    bad = [n for n in names if not np.isfinite(run.series[n].values).all()]
    # a term that is finite again later does reach the backward at times: not inert
    for n in bad:
        v = run.series[n].values
        if np.isfinite(v[int(np.argmax(~np.isfinite(v))) :]).any():
            return None
    good = [run.series[n] for n in names if n not in bad]
    if not bad or not good:
        return None
    best = None
    for s in good:
        after = s.values[s.steps >= first_step]
        if len(after) < p.sibling_points:
            continue
        if not np.isfinite(after).all():
            return None
        fall = (after[0] - after[-1]) / abs(after[0]) if after[0] else 0.0
        if fall >= p.sibling_fall and (best is None or fall > best[0]):
            best = (fall, s.name, float(after[0]), float(after[-1]))
    return None if best is None else (bad[0], best[1], best[2], best[3])


def _collapsed_evals(run: Run, loss: Series, p: Params) -> list[int]:
    """Steps of non-finite evals past the warmup where most task metrics collapse against
    the finite-loss evals on both sides of them (see Params.collapse_ratio)."""
    good = np.isfinite(loss.values)
    metrics = [(m.finite(), higher) for m, higher in task_metrics(run)]
    w = warmup(run)
    warm = w.steps if w is not None and w.complete else -np.inf  # a warmup the run got past
    out = []
    for step in loss.steps[~good & (loss.steps >= warm)]:
        votes = [
            v for m, higher in metrics if (v := _dip(m, higher, step, loss, good, p)) is not None
        ]
        if votes and 2 * sum(votes) >= len(votes):
            out.append(int(step))
    return out


def _dip(
    m: Series, higher: bool, step: float, loss: Series, good: np.ndarray, p: Params
) -> bool | None:
    """Whether metric `m` at `step` falls below `collapse_ratio` of the median of its
    values at the nearest finite-loss evals on each side; None when it is not scored
    there or a side has no such eval."""
    at = np.flatnonzero(m.steps == step)
    if not at.size:
        return None
    clean = np.isin(m.steps, loss.steps[good])
    k = p.collapse_neighbours
    left = m.values[clean & (m.steps < step)][-k:]
    right = m.values[clean & (m.steps > step)][:k]
    if not left.size or not right.size:
        return None
    v = float(m.values[at[0]])
    sides = (float(np.median(left)), float(np.median(right)))
    if higher:
        return v < p.collapse_ratio * min(sides)
    return v * p.collapse_ratio > max(sides)


def _train_finite_through(run: Run, signal: str, first_step: int, p: Params) -> bool:
    """The held-out loss `signal` is bad while the training loss is finite everywhere,
    logged at or after its first bad step as well (so it saw the same weights), and the
    task metrics of those evals did not collapse with it."""
    train = run.get("loss")
    return (
        _eval_side(signal)
        and train is not None
        and bool(np.isfinite(train.values).all())
        and len(train.after(first_step)) > 0
        and not _metrics_fall(run, first_step, p)
    )


def _metrics_fall(run: Run, first_step: int, p: Params) -> bool:
    """A task metric scored on the evals from `first_step` on sits, at its median there,
    under `collapse_ratio` of its median over the `collapse_neighbours` evals before: the
    model's outputs broke with the loss (BLEU 4.7 -> 0.0 from the first NaN eval)."""
    k = p.collapse_neighbours
    for m, higher in task_metrics(run):
        m = m.finite()
        before, after = m.values[m.steps < first_step][-k:], m.values[m.steps >= first_step]
        if not before.size or not after.size:
            continue
        was, now = float(np.median(before)), float(np.median(after))
        if (now < p.collapse_ratio * was) if higher else (now * p.collapse_ratio > was):
            return True
    return False


def _eval_side(signal: str) -> bool:
    """The eval loss, or a loss component of the eval (`val/box_loss`)."""
    return signal == "eval_loss" or signal.lower().startswith(("eval", "val", "test"))


def _metric(run: Run, name: str) -> Series:
    s = run.get(name)
    assert s is not None
    return s.finite()


def _what(signal: str) -> str:
    if signal == "loss":
        return "Loss"
    if signal == "eval_loss":
        return "Eval loss"
    return f"Loss component {signal}"
