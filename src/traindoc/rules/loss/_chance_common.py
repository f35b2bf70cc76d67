"""The small measurements that several of no-learning's chance readings share: whether
the loss falls, where the first pass over the data ends, a plain accuracy's series and its
scale, a named class count, and whether another metric moves. It owns no reading itself."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.schedule import warmup
from traindoc.model import Run, Series
from traindoc.model.signals import is_eval, kind
from traindoc.rules.loss._evalcurve import direction

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _floor_span_late(at: np.ndarray, p: Params) -> bool:
    """Logs at a metric's floor (their epochs `at`; the caller has every log of the metric
    at the floor) that say the model is stuck there: 2+ of them from epoch
    `zero_min_epoch` (3: two full passes) on, the last from epoch `topk_late_epoch` (10)
    on. A model may sit at the floor for its first epochs; one still there at every log
    from epoch 3 to epoch 10+ has not left it in 7+ passes, and floors at the logs before
    epoch 3 are no excuse for the later ones (mAP 0 at every eval from epoch 1 to 12)."""
    late = at[at >= p.zero_min_epoch]
    return late.size >= p.overlap_points and float(at.max()) >= p.topk_late_epoch


_REGRESSION = ("mae", "mse", "rmse", "mape", "msle")


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


def _loss_falls(loss: Series, lo: float, hi: float, p: Params) -> bool:
    """The loss over [lo, hi] (or its last two logs) falls `frozen_max_drop` or more."""
    f = loss.finite()
    inside = (f.steps >= min(lo, hi)) & (f.steps <= max(lo, hi))
    w = f.values[inside] if inside.sum() >= 2 else f.values[-2:]
    return w.size >= 2 and bool(w[0] > 0) and (w[0] - w[-1]) / w[0] >= p.frozen_max_drop


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
