"""overfitting's detection-term reading: a detector's val loss term that climbs above its
minimum in a trend while the same train term falls and most task metrics fell from their
best."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt, trend
from traindoc.model import Run
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import smooth, tail_level
from traindoc.rules.loss._overfit_metrics import _metric_reads

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


_VAL_TERM = re.compile(r"^(?:val|valid|validation)[/_](\w+_loss)$")


def _term_rises(run: Run, p: Params) -> Hit | None:
    """A detector's val loss term climbs `term_rise`+ above its minimum in a trend while the
    same train term falls in one and most task metrics fell from their best."""
    if run.fact("task") != "detection" or run.symptom("degenerate-loss") is not None:
        return None  # (a term pinned at 0: the train loss's fall is no fit of the data)
    found = None
    for name, s in run.series.items():
        tr = run.get(f"train/{m.group(1)}") if (m := _VAL_TERM.match(name)) else None
        if tr is None or not len(s) or not bool(np.all(np.isfinite(s.values))):
            continue  # (a val term gone inf is nonfinite-loss's finding)
        e, st = s.values, s.steps
        es = smooth(e)
        i = int(np.argmin(es))
        low = float(es[i])
        if e.size - 1 - i < p.eval_only_trend_points or low <= 0:
            continue
        rise = tail_level(e[i + 1 :]) / low - 1
        if rise < p.term_rise or trend(st[i + 1 :], e[i + 1 :]).z < p.widen_train_z:
            continue
        tf = tr.finite()
        since = tf.steps >= st[i]
        if trend(tf.steps[since], tf.values[since]).z > p.train_z:
            continue
        reads = _metric_reads(run, int(st[i]), p)
        fell = [r for r in reads if r.fell]
        if 2 * len(fell) <= len(reads) or (found is not None and rise <= found[1]):
            continue
        found = (name, rise, int(st[i]), low, float(e[-1]), tr.name, fell[0])
    if found is None:
        return None
    name, rise, onset, low, last, tname, r0 = found
    return Hit(
        title=(
            f"{name} rose {rise:.0%} from its minimum at step {onset} ({fmt(low)} -> "
            f"{fmt(last)}) while {tname} kept falling, and {r0.name} fell from its best "
            f"({fmt(r0.best)} at step {r0.best_step} -> {fmt(r0.end)})"
        ),
        step=onset,
        end_step=int(run.series[name].steps[-1]),
        evidence={
            "onset_step": onset,
            "term": name,
            "eval_min": low,
            "eval_last": last,
            "eval_rise_rel": rise,
            "task_best_step": r0.best_step,
            "mode": "term",
        },
        explanation=(
            f"A detector's loss is a sum of terms; {name} climbed in a trend since step "
            f"{onset} while the same term on the training set kept falling, and the task "
            "metrics fell from their best: that head fits the training images, not the task, "
            "whatever the summed loss shows."
        ),
        prescription=(
            f"Keep the checkpoint of step {r0.best_step} (the best {r0.name}; YOLO's best.pt "
            "by fitness); train fewer epochs or set patience; add augmentation or more "
            "images, and check that train and val labels follow the same rules."
        ),
    )
