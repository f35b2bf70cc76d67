"""no-learning's reading of an overlap metric (Dice, IoU, mAP, F1) that stays at 0 late
in the run while the loss is still: it owns the overlap-metric names and the test that the
metric never scored above its floor."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _floor_span_late
from traindoc.rules.loss._evalcurve import direction, task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


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
