"""no-learning's evidence from a task metric at chance or at its worst: a top-5 under
guessing, a ROC AUC at 0.5, an overlap metric at 0, an error rate at its ceiling."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.metrics import is_running_best
from traindoc.measure.schedule import warmup
from traindoc.measure.stats import diff_mad, fmt, part_medians, printed_decimals
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import is_eval, kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import direction, task_metrics, train_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


_TOP5 = re.compile(r"top[-_ ]?5|acc(?:uracy)?[-_@]?5\b|top_k_categorical")


def _top5_at_chance(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-5 accuracy under 5% at every one of 3+ logs from epoch 10 on, with a loss
    that falls under `frozen_max_drop` over the log (warning). Percent or fraction: a log
    printing a value above 1 is in percent; otherwise values are read as fractions (the
    conservative reading: 0.5 is 50%, not 0.5%)."""
    ep = run.get("epoch")
    if ep is None or not len(ep.finite()):
        return None
    # no single loss (a GAN's two players, a metrics-only log): the metric alone
    y = loss.values if loss is not None else np.empty(0)
    if loss is not None and (
        y.size < 2 or not y[0] > 0 or (y[0] - y[-1]) / y[0] >= p.frozen_max_drop
    ):
        return None
    e = ep.finite()
    for m in run.series.values():
        if kind(m.name) != "task" or not _TOP5.search(m.name.lower()):
            continue
        mf = m.finite()
        v = mf.values
        if v.size < p.topk_points:
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if float(at.min()) < p.topk_late_epoch:
            continue
        scale = 100.0 if float(v.max()) > 1.0 else 1.0
        top = float(v.max()) / scale
        if top >= p.topk_chance:
            continue
        return Hit(
            title=(
                f"{m.name} stays under {p.topk_chance:.0%} (at most {top:.2%}) at all {v.size} logs "
                f"from epoch {int(at.min())} on"
                + (
                    f", while the loss moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}"
                    if loss is not None
                    else ""
                )
                + ": the classifier is guessing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "max_top5": top,
                "logs": int(v.size),
                "first_epoch": float(at.min()),
                **(
                    {"start_loss": float(y[0]), "end_loss": float(y[-1])}
                    if loss is not None
                    else {}
                ),
            },
            explanation=(
                f"A top-5 accuracy of {p.topk_chance:.0%} is what guessing scores over 100 classes, "
                "and less than guessing over fewer. After 10 or more passes over the data a "
                "classifier that has learned anything puts the true class in its top 5 far more "
                "often; this one still does not, and no loss it logs is falling either."
            ),
            prescription=(
                "Check that the labels match the inputs (and the class count of the head), the "
                "LR (0, or far too low / high), that the parameters being trained are the ones "
                "used for prediction, and that the loss is computed from the model's logits."
            ),
            severity=Severity.WARNING,
        )
    return None


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


_OVERLAP = ("dice", "iou", "miou", "map", "f1")
# The same scores as the frameworks name them: Ultralytics' `metrics/mAP50(B)`, detectron2's
# `bbox/AP50` and `segm/AP`, mmseg's `mDice`, Keras' `val_mean_io_u`, `mAP@0.5`.
_OVERLAP_TOKENS = frozenset({*_OVERLAP, "ap", "mdice", "fscore", "f1score"})
_OVERLAP_SPLIT = re.compile(r"[_/\-. @():,\[\]]+")


def _overlap_name(name: str) -> bool:
    """Whether `name` is an overlap score (Dice, IoU, mAP / AP, F1) in any framework's
    spelling: a token of it, its digits (a cutoff: mAP50, AP75, f1) dropped or not."""
    low = name.lower().replace("io_u", "iou")
    if "loss" in low:
        return False
    toks = [t for t in _OVERLAP_SPLIT.split(low) if t]
    return any(t in _OVERLAP_TOKENS or re.sub(r"\d+$", "", t) in _OVERLAP_TOKENS for t in toks)


def _scores_above_floor(o: Series, steps: np.ndarray, p: Params) -> bool:
    """Overlap score `o` above `recall_floor` of its scale at some log within `steps`' span."""
    f = o.finite()
    v = f.values[(f.steps >= steps[0]) & (f.steps <= steps[-1])]
    return bool(v.size) and float(v.max()) > p.recall_floor * (100 if float(v.max()) > 1 else 1)


def _overlap_metrics(run: Run) -> list[Series]:
    """The run's eval overlap scores: task metrics named as one (higher is better), and
    series no signal table knows but whose name is one (detectron2's `bbox/AP`: an overlap
    score is higher-is-better whatever its spelling)."""
    out = [m for m, higher in task_metrics(run) if higher and _overlap_name(m.name)]
    seen = {m.name for m in out}
    for name, m in run.series.items():
        if name not in seen and direction(name) is None and _overlap_name(name):
            out.append(m)
    return out


def _floor_span_late(at: np.ndarray, p: Params) -> bool:
    """Logs at a metric's floor (their epochs `at`; the caller has every log of the metric
    at the floor) that say the model is stuck there: 2+ of them from epoch
    `zero_min_epoch` (3: two full passes) on, the last from epoch `topk_late_epoch` (10)
    on. A model may sit at the floor for its first epochs; one still there at every log
    from epoch 3 to epoch 10+ has not left it in 7+ passes, and floors at the logs before
    epoch 3 are no excuse for the later ones (mAP 0 at every eval from epoch 1 to 12)."""
    late = at[at >= p.zero_min_epoch]
    return late.size >= p.overlap_points and float(at.max()) >= p.topk_late_epoch


def _overlap_zero_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """An eval overlap metric (Dice, IoU, mAP, F1) at its floor, 0 or at most
    `recall_floor` of its scale (0.1%: under one positive in a thousand, whether the digits
    are a fraction or a percent), at every one of 2+ evals, all from epoch 10 on (or 2+
    from epoch 3 on through epoch 10+, whatever the evals before them scored at the floor
    too), with the train loss, or the eval loss beside the metric, moving under
    `frozen_max_drop` of its size (warning)."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    still = _still_loss(run, loss, p)
    if still is None:
        return None
    which, y = still
    overlaps = _overlap_metrics(run)
    for m in overlaps:
        mf = m.finite()
        if len(mf) < p.overlap_points or np.any(mf.values < 0):
            continue
        top = float(mf.values.max())
        if top > p.recall_floor * (100 if top > 1 else 1):
            continue
        if any(_scores_above_floor(o, mf.steps, p) for o in overlaps if o is not m):
            continue  # one class's score at 0 beside an overall one that scores: it finds some
        at = np.interp(mf.steps, e.steps, e.values)
        if not _floor_span_late(at, p):
            continue
        moves = (
            f", while the {which} moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}" if y.size else ""
        )
        level = "0" if top == 0 else f"at most {fmt(top)}"
        return Hit(
            title=(
                f"{m.name} is {level} at every one of {len(mf)} evals from epoch "
                f"{int(at.min())} on{moves}: the model finds none of the foreground / positives"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "value": top,
                "evals": len(mf),
                "first_epoch": float(at.min()),
                **({"start_loss": float(y[0]), "end_loss": float(y[-1])} if y.size else {}),
            },
            explanation=(
                f"{m.name} scores the overlap between what the model marks as positive "
                "(foreground, a detection, an entity) and the truth. After 10 or more passes "
                "over the data a model that has learned anything marks some of it right; "
                "0 (or under 0.1%) at every eval is a model that predicts the background / "
                "negative class for everything, or a few boxes / pixels at random, and its "
                "loss is not falling either."
            ),
            prescription=(
                "Check that the labels reach the loss (mask values, class indices, the number "
                "of classes of the head), the class balance (a foreground of a few % needs a "
                "Dice or weighted loss), the LR and momentum (nnU-Net lowers a 0.99 momentum "
                "when the Dice stays 0), and that the eval uses the trained weights."
            ),
            severity=Severity.WARNING,
        )
    return None


def _still_loss(run: Run, loss: Series | None, p: Params) -> tuple[str, np.ndarray] | None:
    """The loss values a floor reading quotes when one of the run's losses moves under
    `frozen_max_drop` (first to last log): the train loss, else the eval loss (the held-out
    companion of an eval metric; a detector's total holds a class term that falls to the
    class prior while the boxes learn nothing), with its name. An empty array when no loss
    is logged; None when every logged loss moves."""
    logged = [s for s in (loss, run.get("eval_loss")) if s is not None]
    if not logged:
        return "loss", np.empty(0)
    for s in logged:
        y = s.finite().values
        if y.size >= 2 and y[0] and abs(y[0] - y[-1]) / abs(y[0]) < p.frozen_max_drop:
            return ("eval loss" if s.name == "eval_loss" else "loss"), y
    return None


_ERROR_RATE = ("wer", "cer")


def _error_rate_ceiling_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """An eval error rate (WER, CER) exactly at its ceiling, 1.0 (100 when printed in
    percent), at every one of 2+ evals, all from epoch 10 on (or 2+ from epoch 3 on through
    epoch 10+, earlier evals at the ceiling too), with the train loss and the
    eval loss (each when logged) moving under `frozen_max_drop` of their size over those
    evals (warning): the mirror of an overlap metric at 0."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    for m, higher in task_metrics(run):
        parts = re.split(r"[_/\-. ]", m.name.lower())
        if higher or not any(x in _ERROR_RATE for x in parts):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points:
            continue
        if not (np.all(mf.values == 1.0) or np.all(mf.values == 100.0)):
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if not _floor_span_late(at, p):
            continue
        moves: list[str] = []
        evidence: dict[str, object] = {
            "metric": m.name,
            "value": float(mf.values[0]),
            "evals": len(mf),
            "first_epoch": float(at.min()),
        }
        still = True
        for name, s in (("loss", loss), ("eval_loss", run.get("eval_loss"))):
            if s is None or not len(sf := s.finite()):
                continue
            inside = (sf.steps >= mf.steps[0]) & (sf.steps <= mf.steps[-1])
            w = sf.values[inside] if inside.sum() >= 2 else sf.values[-2:]
            if w.size < 2 or not w[0] or abs(w[0] - w[-1]) / abs(w[0]) >= p.frozen_max_drop:
                still = False
                break
            moves.append(f"{name} {fmt(float(w[0]))} -> {fmt(float(w[-1]))}")
            evidence[f"{name}_start"], evidence[f"{name}_end"] = float(w[0]), float(w[-1])
        if not still:
            continue
        beside = f", while {', '.join(moves)}" if moves else ""
        return Hit(
            title=(
                f"{m.name} is {fmt(float(mf.values[0]))} (its ceiling) at every one of "
                f"{len(mf)} evals from epoch {int(at.min())} on{beside}: the model transcribes "
                "nothing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence=evidence,
            explanation=(
                f"{m.name} is the share of words (characters) the model gets wrong; exactly "
                "1.0 is its ceiling for an empty output: a CTC model that emits only the blank "
                "token scores it whatever the audio. Early in training that blank plateau is "
                "normal, but after 10 or more passes over the data a model that learns has left "
                "it, and its loss falls as it does; here neither happened."
            ),
            prescription=_CEILING_FIX,
            severity=Severity.WARNING,
        )
    return None


_CEILING_FIX = (
    "Check the LR and its warmup (a warmup longer than the run never reaches the peak LR), "
    "that the vocabulary / tokenizer matches the labels (no all-<unk> targets), the audio "
    "sampling rate and normalisation, and that the CTC loss's blank index is the one the "
    "head predicts."
)


def _error_rate_ceiling_at_end(run: Run, p: Params) -> Hit | None:
    """An eval error rate (WER, CER) at its ceiling, within `ceiling_below` under and
    `ceiling_above` over 1.0 (100 in percent), at every one of its 2+ evals, the last of
    them the run's last eval: the next, one eval interval on, would fall past the planned
    end (`num_train_epochs`, `max_steps`; the last step of a log that records its end)
    (warning). The run ended with a model that transcribes nothing, whatever its loss did
    on the way (a CTC loss falls a long way on the blank plateau)."""
    for m, higher in task_metrics(run):
        if higher or not _is_error_rate(m.name):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points:
            continue
        v = _as_fraction_of_ceiling(mf.values)
        if not np.all((v >= 1.0 - p.ceiling_below) & (v <= 1.0 + p.ceiling_above)):
            continue
        if _loss_ends_low(run, p):
            return None  # 1% of words wrong in percent, not the ceiling
        end = _last_eval_ends_run(run, mf)
        if end is None:
            continue
        return Hit(
            title=(
                f"{m.name} stays at its ceiling ({fmt(float(mf.values.min()))}-"
                f"{fmt(float(mf.values.max()))}) at every one of {len(mf)} evals up to the "
                f"run's end ({end}): the trained model transcribes nothing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "min_value": float(mf.values.min()),
                "max_value": float(mf.values.max()),
                "evals": len(mf),
                "run_end": end,
            },
            explanation=(
                f"{m.name} is the share of words (characters) the model gets wrong; 1.0 is "
                "what an empty transcript scores (a CTC head emitting only the blank token), "
                "and 1% either side of it is a handful of words. Every eval of this run sits "
                "there, the last one at the run's planned end, so the model it produced "
                "transcribes nothing: the run learned nothing usable. A CTC loss falls a long "
                "way on that blank plateau (the model learns the blank and the letter "
                "frequencies), so a falling loss does not say otherwise."
            ),
            prescription=_CEILING_FIX,
            severity=Severity.WARNING,
        )
    return None


def _loss_ends_low(run: Run, p: Params) -> bool:
    """A train or eval loss whose last value is under ln 2 (`zero_min_loss`): a model that
    gets its words right, so an error rate of ~1 beside it is 1% in percent, not 1.0."""
    for name in ("loss", "eval_loss"):
        s = run.get(name)
        if s is not None and len(f := s.finite()) and float(f.values[-1]) < p.zero_min_loss:
            return True
    return False


def _as_fraction_of_ceiling(v: np.ndarray) -> np.ndarray:
    """Error rates as fractions of their ceiling: a log printing any value above 2 is in
    percent (a fraction-scale WER of 2 is three times the reference's words)."""
    return v / 100.0 if float(np.max(v)) > 2.0 else v


def _last_eval_ends_run(run: Run, m: Series) -> str | None:
    """How the last eval of `m` is known to be the run's last (as words), or None: the next
    eval, one median eval interval after it, would fall past the planned end, counted in
    epochs (`num_train_epochs` against the logged epoch) or in steps (`max_steps`, or the
    last logged step of a log that records its own end)."""
    ep, n_ep = run.get("epoch"), run.fact("num_train_epochs")
    if ep is not None and len(e := ep.finite()) and n_ep:
        at = np.interp(m.steps, e.steps, e.values)
        gap = float(np.median(np.diff(at)))
        if gap > 0 and at[-1] + gap > float(n_ep):
            return f"epoch {fmt(float(at[-1]))} of {fmt(float(n_ep))}"
        return None
    plan = run.fact("max_steps") or (run.last_step if run.fact("ended") else None)
    gap = float(np.median(np.diff(m.steps)))
    if plan and gap > 0 and m.steps[-1] + gap > float(plan):
        return f"step {int(m.steps[-1])} of {int(plan)}"
    return None


def _is_error_rate(name: str) -> bool:
    """A WER / CER by a word of its name (`eval_wer`, `train_cer`, `valid/cer`)."""
    return any(x in _ERROR_RATE for x in re.split(r"[_/\-. ]", name.lower()))


def _error_rate_worse_than_empty(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """No epoch logged (an iteration count only): a train error rate (WER, CER) above 100
    at every one of `ceiling_train_points`+ logs, all from update `ceiling_min_step` on, its
    last third no lower than its first, with every eval error rate at or above 100 at each
    of its 2+ evals in that span and the loss (when logged) falling under `frozen_max_drop`
    there (warning). Percent only: no fraction-scale WER is printed above 100."""
    ep = run.get("epoch")
    if ep is not None and len(ep.finite()):
        return None  # the passes over the data are known: `_error_rate_ceiling_late` judges
    evals = [m for m, higher in task_metrics(run) if not higher and _is_error_rate(m.name)]
    if not evals:
        return None
    for tr, higher in train_metrics(run):
        if higher or not _is_error_rate(tr.name):
            continue
        tf = tr.finite()
        v = tf.values
        if v.size < p.ceiling_train_points or float(tf.steps[0]) < p.ceiling_min_step:
            continue
        k = max(1, v.size // 3)
        if not bool(np.all(v > 100.0)) or float(np.mean(v[-k:])) < float(np.mean(v[:k])):
            continue
        lo, hi = float(tf.steps[0]), float(tf.steps[-1])
        inside = [f.values[(f.steps >= lo) & (f.steps <= hi)] for f in (m.finite() for m in evals)]
        if max(w.size for w in inside) < p.overlap_points:
            continue
        if not all(bool(np.all(w >= 100.0)) for w in inside):
            continue
        if loss is not None and _loss_falls(loss, lo, hi, p):
            continue
        names = [m.name for m in evals]
        return Hit(
            title=(
                f"{tr.name} stays above 100% ({fmt(float(v.min()))}-{fmt(float(v.max()))}, not "
                f"falling) at all {v.size} logs from iteration {int(lo)} on, and "
                f"{', '.join(names)} are at or above 100 at every eval: the model gets "
                "nothing right"
            ),
            step=int(lo),
            end_step=int(hi),
            evidence={
                "metric": tr.name,
                "eval_metrics": names,
                "logs": int(v.size),
                "min_train": float(v.min()),
                "first_step": lo,
            },
            explanation=(
                "An error rate counts the edits from the output to the reference per "
                "reference character (word): an empty output scores 100% exactly, so above "
                "100% the model does worse than emitting nothing. A recogniser emits such "
                "garbage only at its very start and falls back under 100% as it learns; this "
                "one is still above it, and not falling, after a thousand or more updates, "
                "and every eval agrees: it has learned nothing it can read."
            ),
            prescription=(
                "Check the training data (empty or mismatched ground-truth lines, images whose "
                "text is not their transcription), that the character set / unicharset covers "
                "the labels, the LR, and for a model trained from scratch whether there is "
                "enough data (fine-tune a pretrained model instead)."
            ),
            severity=Severity.WARNING,
        )
    return None


_REGRESSION = ("mae", "mse", "rmse", "mape", "msle")


def _zero_while_flat(run: Run, loss: Series, p: Params) -> Hit | None:
    """A higher-is-better task metric exactly 0 at every one of 3+ logs (an accuracy 0 or
    one sample right in a batch of 64+, `_one_hit_at_most`), the last from epoch 3 on (or all from update 5000 on inside a long first epoch, the loss over them
    within `flat_spread` of its median), while the loss over those logs falls under
    `frozen_max_drop` and stays at or above ln 2 (warning)."""
    if any(part in _REGRESSION for n in run.series for part in re.split(r"[_/\-. ]", n.lower())):
        return None  # an accuracy next to a regression error is Keras' meaningless one
    for m in run.series.values():
        if kind(m.name) != "task" or direction(m.name) is not True or is_running_best(m.name):
            continue  # (a running best at 0 only repeats its metric's zeros)
        mf = m.finite()
        if len(mf) < p.overlap_points or (one := _one_hit_at_most(m.name, mf.values, p)) is None:
            continue
        late = _zero_logs_late(run, mf, p)
        if late is None or len(mf) < late[1]:
            continue
        inside = (loss.steps >= mf.steps[0]) & (loss.steps <= mf.steps[-1])
        w = loss.values[inside]
        if w.size < late[1] or not np.all(w >= p.zero_min_loss):
            continue
        if _other_metric_scores(run, m):
            continue  # another measure of the same model scores: one class's 0 (a rare class)
        k = max(1, w.size // 3)
        first, last = float(np.mean(w[:k])), float(np.mean(w[-k:]))
        if (first - last) / first >= p.frozen_max_drop:
            continue  # the loss falls: the metric may still be on its way up
        if late[2] < 0 and float(np.ptp(w)) > p.flat_spread * float(np.median(w)):
            continue  # inside a first epoch: only a loss that sits still says it is stuck
        at_floor = fl.at_floor(run, "loss")
        if at_floor is not None and at_floor.to_end:
            return None  # at ln(V) / ln(C): uniform-plateau's finding
        return Hit(
            title=(
                f"{m.name} is "
                + (f"0 or 1/{one} (one sample right)" if one else "0")
                + f" at every one of {len(mf)} logs from {late[0]} on, "
                f"while the loss moves {fmt(float(w[0]))} -> {fmt(float(w[-1]))}: the model "
                "gets nothing right and is not improving"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "value": 0.0,
                **({"one_right_in": one} if one else {}),
                "logs": len(mf),
                **(
                    {"first_epoch": late[2]} if late[2] >= 0 else {"first_update": int(mf.steps[0])}
                ),
                "start_loss": float(w[0]),
                "end_loss": float(w[-1]),
            },
            explanation=(
                f"After two or more passes over the data (or a thousand updates) {m.name} has not scored a single "
                "sample right at any log, and the loss over the same stretch is not falling "
                "(and is too high for a model that gets its samples right). A model that "
                "learns gets some samples right by then, or at least keeps lowering its loss: "
                "this one is stuck (empty or constant outputs: all blank for a CTC head, no box "
                "for a detector, one token for a decoder)."
            ),
            prescription=(
                "Decode a few predictions and compare with the labels (empty? the same for "
                "every input?); check the label encoding and dictionary (class count, blank "
                "index, character set), the LR (0, or far too high / low) and that the loss is "
                "computed from the model's outputs."
            ),
            severity=Severity.WARNING,
        )
    return None


def _one_hit_at_most(name: str, v: np.ndarray, p: Params) -> int | None:
    """0 when every value is exactly 0; n when an accuracy's values are each 0 or 1/n for
    one n of `one_hit_min_batch` (64) or more, at least one of them 0 (Caffe's per-batch
    accuracy 0, 0.0078125, 0.0078125: one sample of 128 right at most); None otherwise. A
    batch of 64+ with one sample right at most is a model that gets nothing right, whatever
    the class count lets a guess score by luck."""
    if not v.any():
        return 0
    if "acc" not in name.lower() or v.min() != 0:
        return None
    hits = np.unique(v[v > 0])
    top = 100.0 if float(hits.max()) > 1.0 else 1.0
    n = round(top / float(hits[0]))
    if hits.size != 1 or n < p.one_hit_min_batch or abs(top / n - float(hits[0])) > 1e-6 * top:
        return None
    return n


def _zero_logs_late(run: Run, mf: Series, p: Params) -> tuple[str, int, float] | None:
    """Where the logs of `mf` start (as words), how many of them a 0 needs and their first
    epoch (NaN with no epoch logged), when they reach past a fresh model's start: the last
    from epoch 3 on (two passes behind it), three logs in all (two when all are from epoch
    10 on, as for an overlap metric). Zeros at the first epochs before it are no excuse for
    the later ones: they only add that the model never scored, and the loss over all of them
    must still not fall. With no epoch logged, every log from optimizer update
    `ceiling_min_step` (1000) on, three logs (a printed step only: an ordinal or epoch count
    says nothing about updates). Inside a first epoch too long to reach epoch 3, every log
    from update `zero_min_update` (5000) on, three logs; the epoch is then -1 (the caller
    asks a loss that sits still). None when they do not."""
    ep = run.get("epoch")
    counts_updates = not (run.fact("steps_ordinal") or run.fact("steps_epochs"))
    if ep is not None and len(e := ep.finite()):
        at = np.interp(mf.steps, e.steps, e.values)
        if float(at.max()) < p.zero_min_epoch:
            if counts_updates and float(mf.steps[0]) >= p.zero_min_update:
                return f"update {int(mf.steps[0])} of epoch {int(at.min())}", p.zero_points, -1.0
            return None
        need = p.overlap_points if float(at.min()) >= p.topk_late_epoch else p.zero_points
        return f"epoch {int(at.min())}", need, float(at.min())
    if not counts_updates:
        return None
    if float(mf.steps[0]) < p.ceiling_min_step:
        return None
    return f"update {int(mf.steps[0])}", p.zero_points, float("nan")


def _other_metric_scores(run: Run, m: Series) -> bool:
    """Another higher-is-better task metric above 0 at some log within `m`'s span: the
    model gets something right (a rare class's F1 or AP at 0 beside an overall mAP)."""
    lo, hi = m.finite().steps[0], m.finite().steps[-1]
    for s in run.series.values():
        if s is m or kind(s.name) != "task" or direction(s.name) is not True:
            continue
        f = s.finite()
        inside = (f.steps >= lo) & (f.steps <= hi)
        if np.any(f.values[inside] > 0):
            return True
    return False


def _other_metric_moves(
    run: Run, m: Series, since: float | None = None, same_split: bool = False
) -> bool:
    """Another higher-is-better task metric takes 2+ values within `m`'s span (from step
    `since` when given): the model's predictions change (a rare class's F1 stuck at 0
    beside an overall F1 that moves). With `same_split`, only a metric of `m`'s own split
    counts: a train accuracy moves on fresh batches (and dropout) whatever the model
    predicts on the fixed held-out set."""
    lo, hi = m.finite().steps[0], m.finite().steps[-1]
    if since is not None:
        lo = max(lo, since)
    for s in run.series.values():
        if s is m or kind(s.name) != "task" or direction(s.name) is not True:
            continue
        if same_split and is_eval(s.name) != is_eval(m.name):
            continue
        f = s.finite()
        inside = f.values[(f.steps >= lo) & (f.steps <= hi)]
        if inside.size > 1 and np.ptp(inside) > 0:
            return True
    return False


# The top-1 series a top-5 one pairs with: the same name with its cutoff 5 written 1.
_TOP5_TOKEN = re.compile(r"(top[-_ ]?|acc(?:uracy)?[-_@]?|@)5\b")


def _top1_of(run: Run, top5: str) -> Series | None:
    """The top-1 accuracy logged beside `top5` (`accuracy_top-5` -> `accuracy_top-1`,
    `acc5` -> `acc1`, `rec@5` -> `rec@1`), or None."""
    low = top5.lower()
    m = _TOP5_TOKEN.search(low)
    if m is None:
        return None
    want = low[: m.start()] + m.group(1) + "1" + low[m.end() :]
    name = next((n for n in run.series if n.lower() == want), None)
    return run.get(name) if name is not None else None


def _top1_no_better_than_top5(run: Run, p: Params) -> Hit | None:
    """A top-1 accuracy at most a fifth of the top-5 logged at the same evals, at every
    one of 3+ evals from epoch 1 on (warning): the model's first choice is no better than a
    random pick among its five best, which is what a ranking that ignores the input gives
    (1/C and 5/C) whatever the class count."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    for m5 in run.series.values():
        if kind(m5.name) != "task" or not _TOP5.search(m5.name.lower()):
            continue
        m1 = _top1_of(run, m5.name)
        if m1 is None:
            continue
        a1, a5 = m1.finite(), m5.finite()
        steps, i1, i5 = np.intersect1d(a1.steps, a5.steps, return_indices=True)
        if steps.size < p.top1_points:
            continue
        v1, v5 = a1.values[i1], a5.values[i5]
        if (float(v1.max()) > 1.0) != (float(v5.max()) > 1.0):
            continue  # one printed in percent, the other as a fraction: not comparable
        at = np.interp(steps, e.steps, e.values)
        if float(at.min()) < p.top1_min_epoch or not (v5 > 0).all():
            continue
        if not bool(np.all(v1 <= v5 / 5.0 * (1 + 1e-9))):  # (a printed 0.0011 is 0.0055 / 5)
            continue
        return Hit(
            title=(
                f"{m1.name} is at most a fifth of {m5.name} at all {steps.size} evals from epoch "
                f"{int(at.min())} on ({fmt(float(np.median(v1)))} vs {fmt(float(np.median(v5)))}): "
                "the model's first choice is no better than a guess among its top five"
            ),
            step=int(steps[0]),
            end_step=int(steps[-1]),
            evidence={
                "metric": m1.name,
                "top5_metric": m5.name,
                "evals": int(steps.size),
                "median_top1": float(np.median(v1)),
                "median_top5": float(np.median(v5)),
                "first_epoch": float(at.min()),
            },
            explanation=(
                "A ranking that ignores the input puts the true class first 1 time in C and in "
                "its top five 5 times in C: top-1 is a fifth of top-5 whatever the class count. "
                "A classifier that learned anything ranks the true class first far more often "
                "than that; this one does not at any eval after a full pass over the data "
                "(typically a constant first choice: one class predicted for every input)."
            ),
            prescription=(
                "Look at the predicted classes on a few eval samples (one class for all?); check "
                "that the labels match the inputs and the head's class count, the LR (0, or far "
                "too high) and that the loss is computed from the model's outputs."
            ),
            severity=Severity.WARNING,
        )
    return None


# The scores of the positives a model finds (entities, boxes, labels): each is 0 exactly
# when not one true positive was predicted. A plain accuracy is not one of them: it also
# counts the negatives, which a model predicting "O" / background for everything gets right.
_POSITIVE_SCORES = frozenset({"precision", "recall", "f1", "fscore", "fb1", "map", "ap"})
_SCORE_VARIANT = re.compile(r"(?<=^map)\d+$|(?<=^ap)\d+$|(?<=.)@\w+$")


def _positive_score(name: str) -> str | None:
    """The positive-class score a series name is (precision, recall, f1, map, ...), by its
    last such word (`eval_map50_95` -> map, `macro-fscore` -> fscore), or None."""
    found = None
    for part in re.split(r"[_/\-. ()]", name.lower()):
        part = _SCORE_VARIANT.sub("", part)
        if part in _POSITIVE_SCORES:
            found = part
    return found


def _positives_never_found(run: Run, p: Params) -> Hit | None:
    """Two or more positive-class scores (precision, recall, F1, mAP) each exactly 0 at
    every one of the same 3+ logs (2+ when they score both the training and a held-out
    set: two sets of samples agree at each log), all from epoch `top1_min_epoch` on, with
    no positive-class score of the run above 0 at any log (warning), whatever the loss
    does."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    zero: dict[str, Series] = {}
    scoring = False
    for m in run.series.values():
        if kind(m.name) != "task" or direction(m.name) is not True:
            continue
        if _positive_score(m.name) is None:
            continue
        if not len(mf := m.finite()):
            continue
        if mf.values.any():
            scoring = True
            continue
        if len(mf) >= min(p.zero_points, p.positives_both_points):
            zero[m.name] = m
    if scoring or len(zero) < 2:
        return None  # a rare class's 0 beside scores that find positives; or one score only
    kinds = {_positive_score(n) for n in zero}
    if len(kinds) < 2:
        return None  # two spellings of one score (train and eval F1) are not two measures
    common = None
    for m in zero.values():
        s = set(m.finite().steps.tolist())
        common = s if common is None else common & s
    steps = np.array(sorted(common or ()))
    both = len({is_eval(n) for n in zero}) == 2  # train and held-out samples alike
    if steps.size < (p.positives_both_points if both else p.zero_points):
        return None
    at = np.interp(steps, e.steps, e.values)
    if float(at.min()) < p.top1_min_epoch:
        return None  # the first pass can honestly find nothing yet
    names = sorted(zero)
    loss = run.get("loss")
    moves = ""
    if loss is not None and len(lf := loss.finite()) >= 2:
        moves = f", while the loss moves {fmt(float(lf.values[0]))} -> {fmt(float(lf.values[-1]))}"
    return Hit(
        title=(
            f"{', '.join(names)} are all 0 at every one of {steps.size} logs from epoch "
            f"{fmt(float(at.min()))} on{moves}: the model has not predicted a single correct "
            "positive"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={
            "metrics": names,
            "value": 0.0,
            "logs": int(steps.size),
            "first_epoch": float(at.min()),
        },
        explanation=(
            "Precision, recall, F1 and mAP each score the positives a model finds (entities, "
            "boxes, labels), and each is exactly 0 only when not one of its predictions is a "
            "true positive. Here every such score the run logs is 0 at every log after a full "
            "pass over the data: the model predicts the negative class (the 'O' tag, "
            "background, no label) for everything. A falling loss beside it is the model "
            "fitting that majority class, not the task; a plain accuracy beside it counts the "
            "negatives it gets right for free."
        ),
        prescription=(
            "Decode a few predictions (all 'O' / no box / no label?); check that the labels "
            "reach the loss (tag or class ids, the label dictionary, the number of classes of "
            "the head, annotation files found), the class balance (weight the positives or "
            "use a focal / Dice loss), the LR, and that the eval scores the trained weights."
        ),
        severity=Severity.WARNING,
    )


# The positive-class scores bounded by the recall (F1 <= 2 x recall): at their floor only
# when the model finds (almost) no positive, whatever its precision on the few it names.
_RECALL_SCORES = frozenset({"recall", "f1", "fscore", "fb1"})
# A ranking's recall@K (a recommender's, a retrieval's, TF-slim's recall_5): its floor is
# K over the catalog's size, which the log does not give; not a positive-class recall.
_RANKING_RECALL = re.compile(r"@|recall[_\-]?\d")


def _recall_at_floor(run: Run, p: Params) -> Hit | None:
    """Every recall / F1 the run logs at or under `recall_floor` of its scale (0.1%, or 0.1
    when printed in percent) at each of its logs, 2+ evals in all, the first from epoch
    `recall_min_epoch` on and the last a whole epoch after it, with no mAP / AP above that
    floor and the warmup over (warning): a score that is not exactly 0 (a handful of
    lucky positives) but under 1 positive in 1000 after two full passes."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    w = warmup(run)
    if w is not None and not w.complete:
        return None  # the LR is still ramping up: too early to expect positives
    recalls: list[Series] = []
    for m in run.series.values():
        score = _positive_score(m.name)
        if score is None or kind(m.name) != "task" or direction(m.name) is not True:
            continue
        mf = m.finite()
        mf = Series(mf.name, mf.steps[mf.values >= 0], mf.values[mf.values >= 0])
        if score in ("map", "ap"):
            if len(mf) and float(mf.values.max()) > p.recall_floor * (
                100 if mf.values.max() > 1 else 1
            ):
                return None  # a detector whose boxes score: it finds positives
            continue
        if score in _RECALL_SCORES and len(mf) and not _RANKING_RECALL.search(m.name.lower()):
            recalls.append(mf)
    if not recalls:
        return None
    top = max(float(r.values.max()) for r in recalls)
    percent = any(float(r.values.max()) > 1 for r in recalls)
    floor = p.recall_floor * (100 if percent else 1)
    if top > floor:
        return None
    steps = np.unique(np.concatenate([r.steps for r in recalls]))
    at = np.interp(steps, e.steps, e.values)
    if steps.size < 2 or float(at[0]) < p.recall_min_epoch or float(at[-1] - at[0]) < 1:
        return None
    names = sorted(r.name for r in recalls)
    return Hit(
        title=(
            f"{', '.join(names)} at most {fmt(top)} at every one of {steps.size} evals from "
            f"epoch {fmt(float(at[0]))} to {fmt(float(at[-1]))}: the model finds under 1 "
            "positive in 1000"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={
            "metrics": names,
            "max_value": top,
            "floor": floor,
            "evals": int(steps.size),
            "first_epoch": float(at[0]),
            "last_epoch": float(at[-1]),
        },
        explanation=(
            "Recall (and F1, which is at most twice it) is the share of the true positives "
            "(entities, labels, events) the model finds. Here it stays under 0.1% at every "
            f"eval from epoch {fmt(float(at[0]))} to {fmt(float(at[-1]))}: after two full "
            "passes over the data the model still predicts the negative class (the 'O' tag, "
            "no label) for nearly everything, and the few positives it names are luck. A "
            "model that learned anything of the task finds far more of them by then."
        ),
        prescription=(
            "Decode a few predictions (all 'O' / no label?); check that the labels reach the "
            "loss (tag or class ids, the label dictionary, the head's class count), the class "
            "balance (weight the positives or use a focal / Dice loss) and the LR."
        ),
        severity=Severity.WARNING,
    )


# A held-out split's name in a metric's name (val_acc, eval_accuracy, test_acc, dev_acc).
_HELD_OUT = re.compile(r"(?:^|[_/\-. ])(?:val|valid|validation|eval|test|dev)(?:$|[_/\-. ])")
_TOPK = re.compile(r"top[-_ ]?[2-9]|acc(?:uracy)?[-_@]?[2-9]\b|_[2-9]$|@[2-9]")


def _plain_accuracies(run: Run) -> tuple[list[Series], list[Series]]:
    """The top-1 accuracies the run logs, split into (train, held-out) by their names."""
    train: list[Series] = []
    held: list[Series] = []
    for m in run.series.values():
        low = m.name.lower()
        if kind(m.name) != "task" or "acc" not in low or _TOPK.search(low):
            continue
        if any(t in low for t in ("balanced", "top1_err", "error")) or not len(m.finite()):
            continue
        (held if _HELD_OUT.search(low) else train).append(m)
    return train, held


def _as_fraction(v: np.ndarray) -> np.ndarray:
    """Accuracies as fractions (a log printing 10.0 for 10% is in percent)."""
    return v / 100.0 if float(np.median(v)) > 1.5 else v


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


def _loss_falls(loss: Series, lo: float, hi: float, p: Params) -> bool:
    """The loss over [lo, hi] (or its last two logs) falls `frozen_max_drop` or more."""
    f = loss.finite()
    inside = (f.steps >= min(lo, hi)) & (f.steps <= max(lo, hi))
    w = f.values[inside] if inside.sum() >= 2 else f.values[-2:]
    return w.size >= 2 and bool(w[0] > 0) and (w[0] - w[-1]) / w[0] >= p.frozen_max_drop


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


def known_classes(run: Run) -> tuple[int, str] | None:
    """(C, where it comes from): the run's stated class count, else its printed model's
    output width (read only beside a top-1 accuracy: a classifier's head), else the count
    of the standard dataset its data setting names."""
    for key in ("num_classes", "head_outputs", "dataset_classes"):
        f = run.facts.get(key)
        if f is None:
            continue
        v = f.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)  # a count read from a text setting ("num_classes = 10") as a number
        if isinstance(v, int) and not isinstance(v, bool) and v >= 2:
            return v, f.source
    return None


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


# A top-k accuracy's name and its cutoff k: top5 / top-5 / top_k_accuracy_5 /
# top_5_categorical_accuracy / accuracy_top-5 / acc5 / acc@5 / prec@5; a recall@k only
# beside a plain accuracy (TF-slim's eval/recall_5): a retrieval's recall@1 and recall@k
# scale as 1 : k for a perfect ranking of k+ relevant items, so only a classifier's
# accuracy, whose top-1 is one label, pairs with it.
_TOPK_NAME = re.compile(
    r"(?P<tok>top[-_ ]?(?:k[-_ ]?(?:acc(?:uracy)?[-_ ]?)?)?|acc(?:uracy)?[-_@]?|prec@|"
    r"(?P<rec>recall[-_@]?|rec@))(?P<k>\d+)\b"
)


def _topk_cutoff(name: str) -> re.Match[str] | None:
    """The cutoff match of a task metric that is a top-k accuracy with k 2+ (`top5`,
    `acc@5`, `recall_5`); None for anything else, error rates (`err-top5`) included."""
    low = name.lower()
    m = _TOPK_NAME.search(low)
    if m is None or "err" in low or kind(name) != "task" or int(m.group("k")) < 2:
        return None
    return m


def _topk_pairs(run: Run) -> Iterator[tuple[Series, Series, int]]:
    """(top-1, top-k, k) for every top-k accuracy (k 2+) the run logs beside its top-1: the
    same name with its cutoff written 1, or the plain accuracy of the same prefix
    (`validation_top_k_accuracy_5` -> `validation_accuracy`, `eval/recall_5` ->
    `eval/accuracy`). Error rates (`err-top5`) are not accuracies."""
    by_low = {n.lower(): n for n in run.series}
    for name in run.series:
        low = name.lower()
        if (m := _topk_cutoff(name)) is None:
            continue
        head, tail = low[: m.start()], low[m.end() :]
        if head + m.group("tok") + "0" + tail in by_low:
            continue  # acc_0, acc_1, acc_2 ...: per-position accuracies, not cutoffs
        want = [head + w + tail for w in ("accuracy", "acc")]
        if m.group("rec") is None:
            want.insert(0, head + m.group("tok") + "1" + tail)
        top1 = next((by_low[w] for w in want if w in by_low), None)
        if top1 is not None:
            yield run.series[top1], run.series[name], int(m.group("k"))


def _past_first_pass(run: Run, steps: np.ndarray, p: Params, min_epoch: float) -> np.ndarray | None:
    """Which of `steps` lie past a fresh model's start: from epoch `min_epoch` on; no epoch
    logged, from update `named_chance_step` (1000) on (from epoch `min_epoch` when the
    steps count epochs); all of them when the log is an eval printout (no step count and
    no loss: the scores of a saved checkpoint). None when the warmup is still running."""
    w = warmup(run)
    if w is not None and not w.complete:
        return None
    ep = run.get("epoch")
    if ep is not None and len(e := ep.finite()):
        return np.interp(steps, e.steps, e.values) >= min_epoch
    if run.fact("steps_epochs"):
        return steps >= min_epoch
    if run.fact("steps_ordinal"):
        return np.full(steps.shape, run.get("loss") is None)
    return steps >= p.named_chance_step


def _same_evals(run: Run, a: Series, b: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, values of `a`, values of `b`) at the evals both score: their common steps;
    in a printout numbered by line (no step count) where each prints one value, that one
    eval (TF-slim's eval/Accuracy and eval/Recall_5, one line each)."""
    if run.fact("steps_ordinal") and len(a) == 1 and len(b) == 1:
        return a.steps, a.values, b.values
    steps, ia, ib = np.intersect1d(a.steps, b.steps, return_indices=True)
    return steps, a.values[ia], b.values[ib]


def _random_ranking(run: Run, p: Params) -> Hit | None:
    """A top-1 accuracy equal (within `ranking_tol`) to its top-k divided by k at 2+ of the
    (eval, cutoff) pairs the run logs past its first pass, with no pair anywhere in the log
    whose top-1 beats that by more (warning). A cutoff whose top-k is 1.0 counts when the
    top-1 is within the tolerance of 1/k: every label in the top k means C <= k."""
    pairs = list(_topk_pairs(run))
    if not pairs:
        return None
    matches: list[tuple[str, str, int, float, float, int]] = []
    for m1, mk, k in pairs:
        a1, ak = m1.finite(), mk.finite()
        steps, v1, vk = _same_evals(run, a1, ak)
        if not steps.size:
            continue
        scale = 100.0 if max(float(v1.max()), float(vk.max())) > 1.0 else 1.0
        v1, vk = v1 / scale, vk / scale
        late = _past_first_pass(run, steps, p, p.top1_min_epoch)
        if late is None:
            return None
        full = vk >= 0.999
        guess = np.where(full, 1.0 / k, vk / k)  # top-1 of a random ranking
        if np.any(~full & (v1 > (1 + p.ranking_tol) * guess)):
            return None  # the first choice beats a random pick at some eval: it learned
        hit = late & (v1 > 0) & (np.abs(v1 - guess) <= p.ranking_tol * guess)
        matches += [
            (m1.name, mk.name, k, float(v1[i]), float(vk[i]), int(steps[i]))
            for i in np.flatnonzero(hit)
        ]
    if len(matches) < p.ranking_pairs:
        return None
    loss = run.get("loss")
    lo, hi = min(x[5] for x in matches), max(x[5] for x in matches)
    if loss is not None and _loss_falls(loss, lo, hi, p):
        return None  # the loss still falls: the ranking may be on its way up
    return _random_ranking_hit(matches, lo, hi)


def _ranking_at_loss_chance(run: Run, p: Params) -> Hit | None:
    """A top-k accuracy (k 2+) at k/C for the C that the cross-entropy of the same evals
    names (C = e^L, L the eval loss, else the train loss logged since the eval before),
    within `loss_ranking_tol` in C at every eval past the first pass (1+), with the loss
    not falling `frozen_max_drop` over them (warning). A uniform guess over C classes
    scores both ln C and k/C; a model that learned anything has a top-k far above k/C
    long before its loss leaves ln C, so two measures naming the same C at one eval is
    the guess, not a coincidence. Only top-k (k 2+): a top-1 at 1/C is the class prior
    of whichever class the model names, and a small C is `_chance_level`'s."""
    loss = run.get("eval_loss") or run.get("loss")
    if loss is None or not len(lf := loss.finite()):
        return None
    for mk in run.series.values():
        m = _topk_cutoff(mk.name)
        if m is None or m.group("rec") or not len(f := mk.finite()):
            continue
        k = int(m.group("k"))
        v = f.values / (100.0 if float(f.values.max()) > 1.0 else 1.0)
        late = _past_first_pass(run, f.steps, p, p.chance_min_epoch)
        if late is None or not late.any() or float(v.max()) <= 0:
            continue
        at = [_loss_at_eval(lf, f.steps, i) for i in range(f.steps.size)]
        if any(x is None or x <= 0 for x in at):
            continue
        c_loss = np.exp(np.asarray(at, dtype=float) * math.log(run.loss_base))
        ratio = np.where(v > 0, k / np.maximum(v, 1e-12) / c_loss, np.inf)
        if k >= 0.5 * float(c_loss.min()) or np.any(ratio < 1 / (1 + p.loss_ranking_tol)):
            continue  # k near C: every ranking scores near 1; or an eval beats the guess
        hit = late & (ratio <= 1 + p.loss_ranking_tol)
        if not hit[late].all():
            continue
        steps = f.steps[late]
        if _loss_falls(lf, float(steps.min()), float(steps.max()), p):
            continue
        return _loss_chance_hit(loss.name, mk.name, k, float(np.median(c_loss[late])), f, late)
    return None


def _loss_at_eval(loss: Series, steps: np.ndarray, i: int) -> float | None:
    """The loss of eval i: its value at that step, else the median of the train logs
    since the eval before (the epoch the eval closes)."""
    at = np.flatnonzero(loss.steps == steps[i])
    if at.size:
        return float(loss.values[at[-1]])
    lo = steps[i - 1] if i else -np.inf
    w = loss.values[(loss.steps > lo) & (loss.steps <= steps[i])]
    return float(np.median(w)) if w.size else None


def _loss_chance_hit(loss: str, topk: str, k: int, c: float, f: Series, late: np.ndarray) -> Hit:
    steps, vals = f.steps[late], f.values[late]
    pct = "%" if float(f.values.max()) > 1.0 else ""
    return Hit(
        title=(
            f"{topk} is {fmt(float(vals[-1]))}{pct} at step {int(steps[-1])}, {k}/C for the "
            f"C = {c:.0f} classes that {loss} names (e^loss): the model guesses uniformly "
            f"over its classes ({late.sum()} eval(s) past the first pass)"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={
            "metrics": [loss, topk],
            "cutoffs": [k],
            "implied_classes": round(c),
            "evals": int(late.sum()),
        },
        explanation=(
            "A classifier that ignores its input spreads its probability evenly over the C "
            "classes: its cross-entropy is ln C and the true class is among its top k k times "
            "in C. Here the loss and the top-k accuracy name the same C after a full pass "
            "over the data, so the predictions still carry no information about the input."
        ),
        prescription=(
            "Look at the predicted classes on a few samples; check that the labels match the "
            "inputs and the head's class count, the input preprocessing, the LR (0, or so "
            "high the outputs collapsed; clipping the gradients is the usual fix for the "
            "latter) and that the weights evaluated are the trained ones."
        ),
        severity=Severity.WARNING,
    )


def _random_ranking_hit(
    matches: list[tuple[str, str, int, float, float, int]], lo: int, hi: int
) -> Hit:
    shown = "; ".join(
        f"{n1} {fmt(v1)} vs {nk} {fmt(vk)} (k={k})" for n1, nk, k, v1, vk, _ in matches[:4]
    )
    c = round(1.0 / float(np.median([x[3] for x in matches])))
    return Hit(
        title=(
            f"The top-1 accuracy is its top-k divided by k at {len(matches)} (eval, cutoff) "
            f"pairs ({shown}): the model ranks the classes at random (chance for about {c})"
        ),
        step=lo,
        end_step=hi,
        evidence={
            "metrics": sorted({x[0] for x in matches} | {x[1] for x in matches}),
            "pairs": len(matches),
            "cutoffs": sorted({x[2] for x in matches}),
            "median_top1": float(np.median([x[3] for x in matches])),
            "implied_classes": c,
        },
        explanation=(
            "A classifier that ignores its input ranks the C classes at random: the true class "
            "comes first 1 time in C and among the top k k times in C, so its top-k accuracy is "
            "k times its top-1 at every cutoff (and reaches 1.0 at k = C). A model that learned "
            "anything puts the true class first far more often than a k-th of its top-k. Here "
            "the logged accuracies match a random ranking after a full pass over the data."
        ),
        prescription=(
            "Look at the predicted classes on a few samples (one class for all?); check that the "
            "labels match the inputs and the head's class count, the input preprocessing (the "
            "normalisation the model was built for), the LR (0, or far too high for the batch "
            "size: a collapsed output) and that the trained weights are the ones evaluated."
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


_ACCURACY_NAME = re.compile(r"^(.*?)(?:acc|accuracy)$", re.IGNORECASE)


def _at_evals(run: Run, a: Series, name: str) -> np.ndarray:
    """`name`'s values at the steps of `a` as fractions (NaN where it has none)."""
    s = run.get(name)
    if s is None or not len(f := s.finite()):
        return np.full(len(a), np.nan)
    at = dict(zip(f.steps.tolist(), f.values.tolist(), strict=True))
    v = np.array([at.get(st, np.nan) for st in a.steps.tolist()], np.float64)
    return v / 100.0 if float(np.nanmax(f.values)) > 1.0 else v


def _majority_share(
    acc: np.ndarray, prec: np.ndarray, rec: np.ndarray, f1: np.ndarray, p: Params
) -> tuple[int, str] | None:
    """(the eval, how it shows) of the first eval whose scores
    only a model that names one class for every input gets: recall 1 with the precision
    equal to the accuracy, or an F1 of 2a / (1 + a) for the accuracy a (every sample
    called positive: precision and accuracy are both the positives' share), or a recall
    (F1) of 0 beside an accuracy above 0 (no positive found: the accuracy is at most the
    negatives' share). A multi-class average cannot show it: a micro or weighted recall is
    the accuracy, and a macro recall of 1 (0) is an accuracy of 1 (0)."""
    tie = p.majority_tie
    for i, (a, pr, r, f) in enumerate(zip(acc, prec, rec, f1, strict=True)):
        if not tie < a < 1.0 - tie:
            continue
        if abs(r - 1.0) <= tie and abs(pr - a) <= tie:
            return i, "recall 1 and precision = accuracy: every sample called positive"
        if abs(f - 2 * a / (1 + a)) <= tie and not abs(r - 1.0) > tie:
            return i, "F1 = 2a / (1 + a) for the accuracy a: every sample called positive"
        if r <= tie or f <= tie:
            return i, "recall / F1 0: no positive found"
    return None


def _score_rises(v: np.ndarray, i: int, p: Params) -> bool:
    """A positive-class score (F1, recall) above its value at eval `i` by more than
    `majority_margin` at some eval: a rare class being found while the accuracy, bound
    near the majority share, barely moves."""
    return bool(np.isfinite(v[i]) and np.nanmax(v) > v[i] + p.majority_margin)


def _each_one_class_late(run: Run, a: Series, scores: tuple[np.ndarray, ...], p: Params) -> bool:
    """1-2 evals settle it only when each of them is a one-class model's and each is
    logged past epoch `chance_min_epoch` by an epoch the log prints: a fresh head's first
    eval names one class in healthy runs too (NCRF++ at epoch 0: recall 0, accuracy 0.803),
    and a step count or the order of the lines does not say how far the run had got."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return False
    if np.any(np.interp(a.steps, e.steps, e.values) < p.chance_min_epoch):
        return False
    av, pv, rv, fv = scores
    return all(
        _majority_share(av[j : j + 1], pv[j : j + 1], rv[j : j + 1], fv[j : j + 1], p)
        for j in range(len(a))
    )


def _accuracy_at_majority(run: Run, p: Params) -> Hit | None:
    """An accuracy (held-out or train: a model that learns fits its train set first) with
    its precision and recall, or its F1 (one prefix: eval_accuracy, eval_f1, ...), one of whose evals is the one-class signature
    (`_majority_share`), at 3+ evals the last from epoch `chance_min_epoch` on, none above
    that share by more than `majority_margin` (a quarter of the errors left, at most): the
    model never beats naming the majority class (warning)."""
    for acc_s in run.series.values():
        m = _ACCURACY_NAME.match(acc_s.name)
        if m is None or is_running_best(acc_s.name):
            continue
        a = acc_s.finite()
        if not len(a):
            continue
        pre = m.group(1)
        pv, rv = _at_evals(run, a, pre + "precision"), _at_evals(run, a, pre + "recall")
        fv = _at_evals(run, a, pre + "f1")
        av = a.values / 100.0 if float(a.values.max()) > 1.0 else a.values
        got = _majority_share(av, pv, rv, fv, p)
        if got is None:
            continue
        if len(a) < p.majority_points and not _each_one_class_late(run, a, (av, pv, rv, fv), p):
            continue
        i, how = got
        share = float(av[i])
        if _score_rises(fv, i, p) or _score_rises(rv, i, p):
            continue  # the positives' score climbs off the one-class eval's: a model that learns
        past = _past_first_pass(run, a.steps, p, p.chance_min_epoch)
        if past is None or not bool(past[-1]):
            continue
        allv = av
        margin = min(p.majority_margin, 0.25 * (1.0 - share))
        top = float(allv.max())
        if top > share + margin:
            continue
        return Hit(
            title=(
                f"{acc_s.name} never beats the majority class's share {share:.4g}: at most "
                f"{top:.4g} over {allv.size} evals ({how} at one of them)"
            ),
            step=int(a.steps[0]),
            end_step=int(a.steps[-1]),
            evidence={
                "metric": acc_s.name,
                "majority_share": share,
                "max_accuracy": top,
                "evals": int(allv.size),
                "margin": margin,
            },
            explanation=(
                f"At one eval the scores are those of a model that names one class for every "
                f"input ({how}), which puts the majority class's share of the eval set at "
                f"{share:.4g}. Over all {allv.size} evals, the last past "
                f"{p.chance_min_epoch:g} passes over the data, the accuracy never rises more than "
                f"{margin:.3g} above that share: the model has learned the class prior and "
                "little or nothing that tells the classes apart."
            ),
            prescription=(
                "Look at the predicted class distribution; check the labels reach the loss "
                "(and match the inputs), the LR (a full fine-tune wants ~1e-5-5e-5), class "
                "weights or resampling for an imbalanced set, and that the classifier head "
                "is trained (not frozen, not re-initialised after loading)."
            ),
            severity=Severity.WARNING,
        )
    return None


def _hits_shown(v: float, decimals: int) -> int:
    """The fewest right answers an accuracy `v` (a fraction) printed to `decimals` can
    count: 1 when it is 1/n for some n as printed, else 2 (k/n with k >= 2)."""
    n = round(1.0 / v)
    return 1 if n > 0 and abs(1.0 / n - v) <= 0.5 * 10.0**-decimals else 2


def _trailing_zeros_after_hits(s: Series, p: Params) -> tuple[int, float] | None:
    """(the trailing zeros, the last value before them) of an accuracy exactly 0 at its
    last `zero_points`+ logs after a log under 1% that counts 2+ right answers
    (`_hits_shown`): a share that small with two hits behind it is an average over 200+
    samples, not one batch's lucky pick. None otherwise."""
    v = s.finite().values
    top = 100.0 if float(v.max()) > 1.0 else 1.0
    nz = np.flatnonzero(v)
    if not nz.size or v.size - 1 - int(nz[-1]) < p.zero_points:
        return None
    last = float(v[nz[-1]]) / top
    dec = printed_decimals(v, 8)
    if not 0 < last < 0.01 or dec is None or _hits_shown(last, dec - (2 if top > 1 else 0)) < 2:
        return None
    return v.size - 1 - int(nz[-1]), last


def _topk_falls_to_zero(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-1 accuracy and its top-k each exactly 0 at their last 3+ logs after a log
    under 1% with 2+ right answers behind it (`_trailing_zeros_after_hits`), with no
    loss falling `frozen_max_drop` over them (warning). A model guessing among any number
    of classes keeps scoring the share it scored before; a top-k of exactly 0 over
    hundreds of samples is below any guess: outputs that are NaN, or labels outside the
    range the head predicts."""
    for top1, topk, k in _topk_pairs(run):
        a, b = _trailing_zeros_after_hits(top1, p), _trailing_zeros_after_hits(topk, p)
        if a is None or b is None:
            continue
        f = top1.finite()
        since = float(f.steps[-a[0]])
        if loss is not None and _loss_falls(loss, since, float(f.steps[-1]), p):
            continue
        return Hit(
            title=(
                f"{top1.name} and {topk.name} fall from {fmt(a[1])} and {fmt(b[1])} to exactly "
                f"0 at each of their last {min(a[0], b[0])}+ logs: below a guess"
            ),
            step=int(since),
            end_step=int(f.steps[-1]),
            evidence={
                "metric": top1.name,
                "topk_metric": topk.name,
                "k": k,
                "before": a[1],
                "topk_before": b[1],
                "zero_logs": min(a[0], b[0]),
            },
            explanation=(
                f"Before the zeros both accuracies were small but counted several right "
                f"answers over hundreds of samples, what a model that guesses scores. Since then "
                f"not one sample has its label even among the model's top {k}: a model that "
                "guessed at random would still hit some, so its outputs no longer rank the "
                "classes at all (NaN or infinite logits, a head whose classes do not match "
                "the labels)."
            ),
            prescription=(
                "Log the loss; check the outputs for NaN/Inf (a lower LR, gradient clipping, "
                "the input normalisation), that the labels lie in the head's class range, and "
                "for a multi-GPU run that the gradients are aggregated."
            ),
            severity=Severity.WARNING,
        )
    return None


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


# The class counts of widely used benchmark eval sets (GLUE / SuperGLUE dev splits as the
# `datasets` hub ships them): a model that names one class for every sample scores that
# class's count over the set's size, a fraction no learning model lands on to 5+ digits.
_BENCHMARK_CLASSES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("SST-2 dev", (444, 428)),
    ("MRPC dev", (279, 129)),
    ("RTE dev", (146, 131)),
    ("CoLA dev", (721, 322)),
    ("QNLI dev", (2761, 2702)),
    ("QQP dev", (25545, 14885)),
    ("MNLI matched dev", (3479, 3213, 3123)),
    ("MNLI mismatched dev", (3463, 3240, 3129)),
    ("WNLI dev", (40, 31)),
    ("BoolQ dev", (2033, 1237)),
)


def _one_class_share(value: float, decimals: int) -> tuple[str, int, int] | None:
    """The benchmark set and class count whose share `value` is, to its printed decimals
    (`decimals` 5+: one share in 10^5 is no coincidence over some 25 known shares)."""
    for name, counts in _BENCHMARK_CLASSES:
        n = sum(counts)
        for k in counts:
            if abs(value - k / n) <= 0.5 * 10.0**-decimals + 1e-12:
                return name, k, n
    return None


def _accuracy_at_benchmark_share(run: Run, p: Params) -> Hit | None:
    """Every held-out accuracy of the run (1+ evals) equal, to 5+ printed decimals, to one
    class's share of a known benchmark eval set (SST-2 dev: 444 / 872 = 0.5091743): the
    model names that class for every sample (warning)."""
    _train, held = _plain_accuracies(run)
    for m in held:
        v = m.finite().values
        if not v.size or np.any(v != v[0]) or not 0.0 < v[0] < 100.0:
            continue
        value, scale = (float(v[0]) / 100.0, 2) if v[0] > 1.0 else (float(v[0]), 0)
        shown = printed_decimals(v, p.share_decimals + 4)
        decimals = p.share_decimals + 4 if shown is None else shown + scale
        if decimals < p.share_decimals or (got := _one_class_share(value, decimals)) is None:
            continue
        bench, k, n = got
        return Hit(
            title=(
                f"{m.name} is {fmt(float(v[0]))} at "
                + (f"every one of its {v.size} evals" if v.size > 1 else "its eval")
                + f": exactly {k}/{n}, one class's share of the {bench} set, so the model "
                "names that class for every sample"
            ),
            step=int(m.steps[0]),
            end_step=int(m.steps[-1]),
            evidence={
                "metric": m.name,
                "value": float(v[0]),
                "evals": int(v.size),
                "benchmark": bench,
                "class_count": k,
                "eval_size": n,
            },
            explanation=(
                f"An accuracy is the share of the eval samples predicted right. {k} of the "
                f"{n} samples of the {bench} set belong to one class, so a model that "
                "predicts that class for every input scores exactly this, to every printed "
                "digit; a model that weighs its input lands on that fraction by coincidence "
                "almost never. It has learned the prior at most, not the task."
            ),
            prescription=(
                "Check the predictions' class distribution on a few eval batches; then the LR "
                "(a full fine-tune of a large encoder collapses to one class above ~5e-5; try "
                "1e-5-3e-5 with warmup), the seed (large models on small GLUE sets fail on some "
                "seeds: rerun), and that the labels reach the loss."
            ),
            severity=Severity.WARNING,
        )
    return None
