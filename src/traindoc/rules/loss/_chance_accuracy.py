"""no-learning's readings of a plain accuracy at chance: at the class prior late in the run,
at 1/C for a named class count, at chance throughout, and a train accuracy no better late
than early. It owns the chance level a loss or class count implies."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import diff_mad, fmt, part_medians
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import (
    _REGRESSION,
    _as_fraction,
    _loss_falls,
    _past_first_pass,
    _plain_accuracies,
    known_classes,
)

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _accuracies_at_prior_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A train and a held-out accuracy that both sit at 1/C for one small C (2-20: the
    median of each within `chance_agree` of 1/C), their logs all from epoch
    `topk_late_epoch` (10) on, 3+ logs in all, with no loss falling `frozen_max_drop`
    over them (warning)."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()) or run.fact("task") == "gan":
        return None
    train, held = _plain_accuracies(run)
    for tr in train:
        for he in held:
            a, b = tr.finite(), he.finite()
            if len(a) + len(b) < p.topk_points:
                continue
            at = np.interp(np.r_[a.steps, b.steps], e.steps, e.values)
            if float(at.min()) < p.topk_late_epoch:
                continue
            va, vb = _as_fraction(a.values), _as_fraction(b.values)
            ma, mb = float(np.median(va)), float(np.median(vb))
            c = round(1.0 / ma) if ma > 0 else 0
            if not 2 <= c <= fl.MAX_SMALL_CLASSES:
                continue
            if abs(ma - 1.0 / c) > p.chance_agree or abs(mb - 1.0 / c) > p.chance_agree:
                continue
            if loss is not None and _loss_falls(loss, a.steps[0], b.steps[-1], p):
                continue
            return _prior_hit(tr, he, c, float(at.min()), ma, mb)
    return None


def _prior_hit(tr: Series, he: Series, c: int, first_epoch: float, ma: float, mb: float) -> Hit:
    steps = np.r_[tr.finite().steps, he.finite().steps]
    return Hit(
        title=(
            f"{tr.name} ({ma:.4g}) and {he.name} ({mb:.4g}) both sit at 1/{c} at every log from "
            f"epoch {int(first_epoch)} on: the model predicts the class prior"
        ),
        step=int(steps.min()),
        end_step=int(steps.max()),
        evidence={
            "metrics": [tr.name, he.name],
            "classes": c,
            "train_median": ma,
            "heldout_median": mb,
            "logs": int(len(tr.finite()) + len(he.finite())),
            "first_epoch": first_epoch,
        },
        explanation=(
            f"An accuracy of 1/{c} is what a model scores when it ignores its input and "
            f"guesses among {c} balanced classes (or always names one of them). Here the "
            "accuracy on the training batches and on the held-out set agree on that same "
            "level, after 10 or more passes over the data: a model that learned anything "
            "would be above chance on the data it trains on, at least."
        ),
        prescription=(
            "Look at the predicted classes on a few samples (one class for all?); check that "
            "the labels match the inputs and the head's class count, the LR (0, or far too "
            "high: a collapsed output), that the parameters being trained are the ones used "
            "for prediction, and for a multi-GPU run the gradient aggregation."
        ),
        severity=Severity.WARNING,
    )


def _accuracy_at_named_chance(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-1 accuracy at 1/C for the run's known C (`known_classes`) at 3+ logs from
    epoch 3 on (no epoch logged: from update 1000), median within min(0.01, 0.5/C) of 1/C,
    the last third of them no higher, with no loss falling `frozen_max_drop` (warning)."""
    if (known := known_classes(run)) is None or run.fact("task") == "gan":
        return None
    c, source = known
    tol = min(p.chance_agree, 0.5 / c)
    ep = run.get("epoch")
    e = ep.finite() if ep is not None else None
    train, held = _plain_accuracies(run)
    for m in (*held, *train):
        f = m.finite()
        if e is not None and len(e):
            late = np.interp(f.steps, e.steps, e.values) >= p.named_chance_epoch
        else:
            late = f.steps >= p.named_chance_step
        if int(late.sum()) < p.named_chance_points:
            continue
        steps, v = f.steps[late], _as_fraction(f.values)[late]
        med, last = float(np.median(v)), float(np.median(v[-max(1, v.size // 3) :]))
        if abs(med - 1.0 / c) > tol or last > 1.0 / c + tol:
            continue
        if loss is not None and _loss_falls(loss, steps[0], steps[-1], p):
            continue
        return _named_chance_hit(m, c, source, steps, med)
    return None


def _named_chance_hit(m: Series, c: int, source: str, steps: np.ndarray, med: float) -> Hit:
    return Hit(
        title=(
            f"{m.name} sits at 1/{c} ({fmt(med)}) at {steps.size} logs from step "
            f"{int(steps[0])} on: chance for the run's {c} classes"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={"metric": m.name, "classes": c, "classes_from": source, "median": med},
        explanation=(
            f"An accuracy of 1/{c} is what a model scores when it ignores its input and "
            f"guesses among {c} classes (or always names one of a balanced set). The class "
            f"count comes from {source}. After passes over the data a model that learned "
            "anything is above that level, and this one is not."
        ),
        prescription=(
            "Look at the predicted classes on a few samples (one class for all?); check that "
            "the labels match the inputs and the head's class count, the LR (0, or far too "
            "high: a collapsed output), and that the parameters being trained are the ones "
            "used for prediction."
        ),
        severity=Severity.WARNING,
    )


def _chance_level(
    run: Run, late: list[tuple[Series, np.ndarray]], held: set[str], p: Params
) -> tuple[int, str] | None:
    """(C, where it comes from) for accuracies whose logs past the first pass are `late`:
    the run's known class count, else 1/C for one small C (2-20) that the median of those
    logs names when a second measure agrees: a train and a held-out accuracy both among
    them (two sets of data), or a loss at ln C (the cross-entropy of the same uniform
    guess). None when nothing gives one."""
    if (known := known_classes(run)) is not None:
        return known
    med = float(np.median(np.concatenate([v for _, v in late])))
    c = round(1.0 / med) if med > 0 else 0
    if not 2 <= c <= fl.MAX_SMALL_CLASSES:
        return None
    if {m.name in held for m, _ in late} == {True, False}:
        return c, "the level the train and the held-out accuracy agree on"
    if (loss := _loss_at_log_of(run, c, p)) is not None:
        return c, f"the {loss} at ln {c}, the cross-entropy of a uniform guess"
    return None


def _loss_at_log_of(run: Run, c: int, p: Params) -> str | None:
    """The loss (eval loss first) whose logs from epoch `chance_min_epoch` on have their
    median in ln(C)'s band (`floor.band`): a second measure naming the same C. None when
    no loss does."""
    lo, hi = fl.band(run, fl.log_of(run, c))
    for name in ("eval_loss", "loss"):
        s = run.get(name)
        if s is None or not len(f := s.finite()):
            continue
        mask = _past_first_pass(run, f.steps, p, p.chance_min_epoch)
        if mask is not None and mask.any() and lo <= float(np.median(f.values[mask])) <= hi:
            return s.name
    return None


def _accuracy_at_chance_throughout(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """Every top-1 accuracy log from epoch `chance_min_epoch` (2: a full pass behind it
    whether epochs count from 0 or 1; `_past_first_pass`), 3+ in all, within
    min(`chance_agree`, 0.5/C) of 1/C (`_chance_level`), with no loss falling
    `frozen_max_drop` over them (warning): not one log after a full pass over the data is
    above a guess."""
    if run.fact("task") == "gan":
        return None
    if any(part in _REGRESSION for n in run.series for part in re.split(r"[_/\-. ]", n.lower())):
        return None  # Keras' accuracy of a regression means nothing
    train, held = _plain_accuracies(run)
    late: list[tuple[Series, np.ndarray]] = []
    for m in (*train, *held):
        f = m.finite()
        mask = _past_first_pass(run, f.steps, p, p.chance_min_epoch)
        if mask is None:
            return None
        if mask.any():
            late.append(
                (Series(m.name, f.steps[mask], f.values[mask]), _as_fraction(f.values)[mask])
            )
    if sum(v.size for _, v in late) < p.named_chance_points:
        return None
    if (level := _chance_level(run, late, {m.name for m in held}, p)) is None:
        return None
    c, source = level
    tol = min(p.chance_agree, 0.5 / c)
    if not all(_stays_at(v, 1.0 / c, tol, p) for _, v in late):
        return None
    steps = np.concatenate([s.steps for s, _ in late])
    if loss is not None and _loss_falls(loss, float(steps.min()), float(steps.max()), p):
        return None
    return _throughout_hit(late, c, source, steps)


def _stays_at(v: np.ndarray, level: float, tol: float, p: Params) -> bool:
    """An accuracy's logs all at `level`: each within `tol` of it; or, with
    `chance_long_points` (6) or more, the median of each third within `tol` (no third above
    a guess: a model that starts to learn lifts the later ones) and no log further out than
    `chance_z` (5) times the logs' own point-to-point scatter, nor than half of 1/C. An
    accuracy over a finite eval set scatters by sqrt(p (1 - p) / N) (0.016 at 0.5 over 1000
    samples), so a long log of a guess has a few logs past a 0.01 band however still it is."""
    dev = np.abs(v - level)
    if float(dev.max()) <= tol:
        return True
    if v.size < p.chance_long_points:
        return False
    if any(abs(m - level) > tol for m in part_medians(v, 3)):
        return False
    noise = diff_mad(v) / math.sqrt(2)
    return float(dev.max()) <= min(p.chance_z * noise, 0.5 * level)


def _throughout_hit(
    late: list[tuple[Series, np.ndarray]], c: int, source: str, steps: np.ndarray
) -> Hit:
    vals = np.concatenate([v for _, v in late])
    names = ", ".join(s.name for s, _ in late)
    return Hit(
        title=(
            f"{names} within {fmt(float(np.abs(vals - 1.0 / c).max()))} of 1/{c} at every one of "
            f"{vals.size} logs past the first pass ({fmt(float(vals.min()))}-"
            f"{fmt(float(vals.max()))}): the model guesses among {c} classes"
        ),
        step=int(steps.min()),
        end_step=int(steps.max()),
        evidence={
            "metrics": [s.name for s, _ in late],
            "classes": c,
            "classes_from": source,
            "logs": int(vals.size),
            "min": float(vals.min()),
            "max": float(vals.max()),
        },
        explanation=(
            f"An accuracy of 1/{c} is what a model scores when it ignores its input and guesses "
            f"among {c} balanced classes (or names one of them for every input); C comes from "
            f"{source}. A fresh model starts there, but after a full pass over the data a model "
            "that learned anything is above it at some log, and this one is not at any."
        ),
        prescription=(
            "Look at the predicted classes on a few samples (one class for all?); check that "
            "the labels match the inputs and the head's class count, the input normalisation, "
            "the LR (0, or far too high: a collapsed output), and for a multi-GPU run that the "
            "gradients are aggregated and the same weights are evaluated."
        ),
        severity=Severity.WARNING,
    )


def _epoch_of(run: Run, steps: np.ndarray) -> np.ndarray | None:
    """The epoch at each of `steps`: the logged epoch, or the steps when they count epochs."""
    ep = run.get("epoch")
    if ep is not None and len(e := ep.finite()):
        return np.interp(steps, e.steps, e.values)
    return steps.astype(np.float64) if run.fact("steps_epochs") else None


def _train_no_better_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-1 train accuracy no higher than a held-out one (+`fit_margin`) and both
    under `fit_ceiling`, medians of their last 3 logs, all from epoch `fit_epochs` (50)
    on, with no loss falling `frozen_max_drop` over them (warning): after fifty passes a
    model that learned anything fits the samples it trains on better than unseen ones; one
    that scores both alike, and low, has learned the class prior at most."""
    if run.fact("task") == "gan":
        return None
    train, held = _plain_accuracies(run)
    for tr in train:
        for he in held:
            a, b = tr.finite(), he.finite()
            if len(a) < p.fit_points or len(b) < p.fit_points:
                continue
            ea, eb = (
                _epoch_of(run, a.steps[-p.fit_points :]),
                _epoch_of(run, b.steps[-p.fit_points :]),
            )
            if ea is None or eb is None or min(float(ea.min()), float(eb.min())) < p.fit_epochs:
                continue
            va = _as_fraction(a.values[-p.fit_points :])
            vb = _as_fraction(b.values[-p.fit_points :])
            ma, mb = float(np.median(va)), float(np.median(vb))
            if not (ma <= mb + p.fit_margin and max(ma, mb) < p.fit_ceiling):
                continue
            lo = float(min(a.steps[-p.fit_points], b.steps[-p.fit_points]))
            hi = float(max(a.steps[-1], b.steps[-1]))
            if loss is not None and _loss_falls(loss, lo, hi, p):
                continue
            return Hit(
                title=(
                    f"{tr.name} {fmt(ma)} is no higher than {he.name} {fmt(mb)} at epoch "
                    f"{int(min(ea.min(), eb.min()))}+: the model does not fit its own training data"
                ),
                step=int(lo),
                end_step=int(hi),
                evidence={
                    "metric": he.name,
                    "train_metric": tr.name,
                    "train": ma,
                    "held_out": mb,
                    "epoch": float(min(ea.min(), eb.min())),
                },
                explanation=(
                    f"After {int(min(ea.min(), eb.min()))} passes over the data a model that "
                    "learned anything scores the samples it was trained on higher than unseen "
                    f"ones; here both sit at the same low level ({fmt(ma)} and {fmt(mb)}), which "
                    "is what predicting the class prior (the majority class) gives on any split "
                    "drawn from the same data."
                ),
                prescription=(
                    "Look at the predicted class distribution (one class for all?); check that "
                    "the labels reach the loss and match the inputs (the masks or indices of "
                    "the training nodes / samples), the LR, and that the trained parameters "
                    "are the ones used for prediction."
                ),
                severity=Severity.WARNING,
            )
    return None
