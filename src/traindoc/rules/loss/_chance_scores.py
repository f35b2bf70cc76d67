"""no-learning's readings of a score with a fixed chance value: a ROC AUC at 0.5, an
agreement score (kappa, MCC) at 0, an R² at 0 (the mean predictor). It owns the name
patterns that recognise those scores and the finding they share."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _past_first_pass
from traindoc.rules.loss._evalcurve import task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


# A ROC AUC's name: "auc" as a word of it (auc, eval_auc, val_roc_auc, group_auc, auc_3)
# or AUROC; a partial AUC ("pauc") or a precision-recall AUC is not at 0.5 by chance.
_AUC = re.compile(r"(?:^|[_/.\- ])(?:roc_?)?auc(?:roc)?(?=$|[_/.\- \d])|auroc")


_NOT_ROC_AUC = ("pauc", "pr_auc", "prauc", "auprc", "aupr", "ap_auc")


# pose estimation logs an AUC of its PCK curve beside PCK / EPE / NME: not a ranking AUC
_POSE = re.compile(r"(?:^|[_/.])(?:pck|epe|nme)")


def _auc_at_chance(run: Run, p: Params) -> Hit | None:
    """Every ROC AUC value in the log (2+ of them) within `auc_band` of 0.5 (warning):
    the model's scores carry no information about the label."""
    if any(_POSE.search(n.lower()) for n in run.series):
        return None
    found = [
        m
        for m in run.series.values()
        if _AUC.search(m.name.lower())
        and not any(t in m.name.lower() for t in _NOT_ROC_AUC)
        and len(m.finite())
    ]
    if not found:
        return None
    v = np.concatenate([m.finite().values for m in found])
    if v.size < p.auc_points or float(v.max()) <= 0.0:
        return None
    if float(v.max()) > 1.0:  # printed in percent
        v = v / 100.0
    if float(np.abs(v - 0.5).max()) > p.auc_band:
        return None
    return _chance_hit(run, found, v, 0.5, p, _AUC_WORDS)


def _agreement_at_chance(run: Run, p: Params) -> Hit | None:
    """Every chance-corrected agreement score in the log (Cohen's kappa, Matthews'
    correlation; 2+ values) within `auc_band` of 0, beside an eval metric of the same
    evals above 0 (warning): the predictions agree with the labels no more than chance."""
    found = [
        m for m in run.series.values() if _AGREEMENT.search(m.name.lower()) and len(m.finite())
    ]
    if not found:
        return None
    v = np.concatenate([m.finite().values for m in found])
    if v.size < p.auc_points:
        return None
    if float(np.abs(v).max()) > 1.0:  # printed in percent
        v = v / 100.0
    if float(np.abs(v).max()) > p.auc_band or not _eval_scored(run, found):
        return None
    return _chance_hit(run, found, v, 0.0, p, _AGREEMENT_WORDS)


_R2 = re.compile(r"(?:^|[_/.\- ])(?:r2|r_2|r2_score|rsquared|r_squared)(?=$|[_/.\- ])")


def _r2_at_mean(run: Run, p: Params) -> Hit | None:
    """Every coefficient of determination (R^2) in the log, 2+ values, within `auc_band` of
    0, the last from epoch `top1_min_epoch` on (warning): the model predicts no better
    than the mean of its targets."""
    found = [m for m in run.series.values() if _R2.search(m.name.lower()) and len(m.finite())]
    if not found:
        return None
    v = np.concatenate([m.finite().values for m in found])
    if v.size < p.auc_points or float(np.abs(v).max()) > p.auc_band:
        return None
    steps = np.concatenate([m.finite().steps for m in found])
    past = _past_first_pass(run, np.array([steps.max()]), p, p.top1_min_epoch)
    if past is None or not bool(past[0]):
        return None
    return _chance_hit(run, found, v, 0.0, p, _R2_WORDS)


def _eval_scored(run: Run, found: list[Series]) -> bool:
    """Another task metric logged at one of the steps of `found` is above 0: the eval ran
    and scored something, so a 0 beside it is a measured value, not a metric left unset."""
    at = {int(s) for m in found for s in m.finite().steps}
    names = {m.name for m in found}
    return any(
        m.name not in names
        and any(int(s) in at and v > 0 for s, v in zip(m.steps, m.values, strict=True))
        for m, _ in task_metrics(run)
    )


# what a score at its chance value says, per family: (name, explanation, title's tail,
# evidence key)
_AUC_WORDS = (
    "ROC AUC",
    "An AUC of 0.5 is what a scorer gets when it orders positives and negatives at random, "
    "whatever the class balance. Every AUC this log prints sits there: the model's scores say "
    "nothing about the label, so it has learned nothing it can use",
    "the model ranks at random",
    "auc",
)


_R2_WORDS = (
    "coefficient of determination (R^2)",
    "R^2 is 1 minus the model's squared error over that of predicting the targets' mean, so "
    "0 is what a model that outputs the mean for every input scores, whatever the targets' "
    "scale. Every R^2 this log prints sits there: the predictions explain none of the "
    "targets' variance, so the model has learned nothing about its input",
    "the model predicts the targets' mean",
    "r2",
)


_AGREEMENT_WORDS = (
    "chance-corrected agreement (kappa / MCC)",
    "Cohen's kappa and Matthews' correlation subtract the agreement that chance alone gives, "
    "so 0 is chance whatever the class balance, and exactly 0 is what a model that predicts "
    "one class for every input scores. Every such score this log prints sits there: the "
    "predictions carry nothing about the label, so the model has learned nothing it can use",
    "the predictions agree with the labels no more than chance",
    "agreement",
)


def _chance_hit(
    run: Run,
    found: list[Series],
    v: np.ndarray,
    chance: float,
    p: Params,
    words: tuple[str, str, str, str],
) -> Hit | None:
    """The finding for scores `v` (of the series `found`) all at their `chance` value; none
    when every one was scored before the first train loss (an untrained model's evals)."""
    steps = np.concatenate([m.finite().steps for m in found])
    loss = run.get("loss")
    if loss is not None and len(lf := loss.finite()) and float(steps.max()) < float(lf.steps[0]):
        return None  # every score was taken before the first train step: an untrained model
    names = ", ".join(dict.fromkeys(m.name for m in found))
    what, why, says, key = words
    return Hit(
        title=(
            f"{what} at chance: {names} within {p.auc_band:g} of {chance:g} at all {v.size} "
            f"values ({float(v.min()):.4g}-{float(v.max()):.4g}): {says}"
        ),
        step=int(steps.min()),
        end_step=int(steps.max()),
        evidence={
            "metrics": [m.name for m in found],
            "values": int(v.size),
            "chance": chance,
            f"min_{key}": float(v.min()),
            f"max_{key}": float(v.max()),
        },
        explanation=(
            why + " (typically constant predictions: a dead or saturated output, features or "
            "labels that do not reach the model, an LR that is 0 or far too high)."
        ),
        prescription=(
            "Check that the labels are joined to the right rows and the features reach the "
            "model (no all-zero or constant inputs), that the output is not saturated (a "
            "sigmoid fed huge logits predicts the same score for all), and the LR; confirm "
            "the train loss falls and the predicted scores vary across samples."
        ),
        severity=Severity.WARNING,
    )


# Cohen's kappa, Matthews' correlation coefficient (HF GLUE CoLA: matthews_correlation)
_AGREEMENT = re.compile(r"kappa|matthews|(?:^|[_/.\- ])mcc(?=$|[_/.\- \d])")
