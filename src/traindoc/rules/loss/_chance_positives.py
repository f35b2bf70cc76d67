"""no-learning's readings of the positive class: a precision, recall, F1 or mAP that never
finds a positive, and a recall held at its floor. It owns the names of positive-class scores."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.schedule import warmup
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import is_eval, kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import direction

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


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
