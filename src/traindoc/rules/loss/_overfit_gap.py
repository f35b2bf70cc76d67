"""overfitting's gap-widening readings on accuracies: a train accuracy that climbs while the
held-out one does not, and a memorised gap (train accuracy near the top, held-out far behind,
eval loss a multiple of the train loss) at each of the last evals. It owns the pairing of a
train and a held-out accuracy by name and scale."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.metrics import headline_metrics
from traindoc.measure.stats import fmt, trend
from traindoc.model import Run
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import level_at, smooth, train_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


def _memorised_gap(run: Run, p: Params) -> Hit | None:
    """The train accuracy at `gap_train_acc`+ while the held-out accuracy trails it by
    `gap_acc_points`+ and the eval loss is `gap_loss_ratio`x+ the train loss, at each of the
    last `gap_evals` evals (`gap_min_evals`+): memorised, whatever the curves' trend."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None or tr is None or run.is_rl:
        return None
    ev = ev.finite()
    if len(ev) < p.gap_min_evals:
        return None
    evals = {_base(m.name): m for m, higher in headline_metrics(run) if higher}
    for t, higher in train_metrics(run):
        name = _base(t.name)
        v = evals.get(name)
        if not higher or v is None or not _ACCURACY.match(name):
            continue
        ts, vs = _unit_scale(t.finite().values), _unit_scale(v.finite().values)
        if ts is None or vs is None:
            continue
        rows = []
        for step, e in zip(ev.steps[-p.gap_evals :], ev.values[-p.gap_evals :], strict=True):
            ta = level_at(t, step, k=1) / ts
            va = level_at(v, step, k=1) / vs
            tl = level_at(tr, step, k=1)
            if not (ta >= p.gap_train_acc and ta - va >= p.gap_acc_points):
                return None
            if not (tl >= 0 and e >= p.gap_loss_ratio * tl):
                return None
            rows.append((int(step), ta, va, tl, float(e)))
        step, ta, va, tl, e = rows[-1]
        ratio = e / tl if tl > 0 else math.inf
        return Hit(
            title=(
                f"Train {t.name} {ta:.0%} (loss {fmt(tl)}) against {v.name} {va:.0%} and eval "
                f"loss {fmt(e)} ({ratio:.0f}x) at each of the last {len(rows)} evals: the model "
                "has memorised its training set"
            ),
            step=rows[0][0],
            end_step=step,
            evidence={
                "onset_step": rows[0][0],
                "train_acc_last": ta,
                "eval_acc_last": va,
                "train_last": tl,
                "eval_last": e,
                "eval_train_loss_ratio": ratio,
                "evals_judged": len(rows),
                "mode": "gap",
            },
            explanation=(
                f"The model gets {ta:.0%} of its training samples right with a loss of "
                f"{fmt(tl)}, but only {va:.0%} of the held-out ones, whose loss is {ratio:.0f}x "
                "the train loss, at every one of the last evals: it has memorised its training "
                "set rather than learned the task. A gap this size is no eval noise and no "
                "calibration drift, whatever the few evals' trend."
            ),
            prescription=(
                "Train fewer epochs or add early stopping on the held-out metric; add "
                "augmentation and regularisation (dropout, weight decay) or more data; check "
                "that train and held-out sets come from the same distribution."
            ),
        )
    return None


_ACCURACY = re.compile(r"^(?:(?:sparse_)?categorical_|binary_)?acc(?:uracy)?$")


_SPLIT_PREFIX = re.compile(r"^(?:train(?:ing)?|eval|val|valid|validation|test)[_/ ]")


def _gap_widens(run: Run, p: Params) -> Hit | None:
    """After the held-out accuracy's peak, the train accuracy climbs at `falls_each_points`+
    evals (a trend, or higher at each) while the held-out one does not, and ends
    `gap_acc_points`+ behind it: the gap widens at every epoch, whatever the eval loss did."""
    ev = run.get("eval_loss")
    if run.is_rl or (ev is not None and len(ev) and not len(ev.finite())):
        return None  # a held-out loss never finite: the eval is broken, not a gap
    if ev is not None and len(f := ev.finite()) and f.values[-1] <= f.values.min():
        return None  # the eval loss still sets new bests: the held-out side improves
    evals = {_base(m.name): m for m, higher in headline_metrics(run) if higher}
    for t, higher in train_metrics(run):
        v = evals.get(name := _base(t.name))
        if not higher or v is None or not _ACCURACY.match(name):
            continue
        vf = v.finite()
        ts, vs = _unit_scale(t.finite().values), _unit_scale(vf.values)
        if ts is None or vs is None or len(vf) < p.falls_each_points:
            continue
        st, va = vf.steps, vf.values / vs
        i_pk = int(np.argmax(smooth(va)))
        if st.size - i_pk < p.falls_each_points:
            continue
        ta = np.array([level_at(t, s, k=1) for s in st[i_pk:]]) / ts
        climbs = trend(st[i_pk:], ta).z >= p.widen_train_z or bool(np.all(np.diff(ta) > 0))
        gap_pk, gap = float(ta[0] - va[i_pk]), float(np.median(ta[-3:] - va[-3:]))
        if not (climbs and gap >= p.gap_acc_points and gap > gap_pk):
            continue
        onset, end = int(st[i_pk]), int(st[-1])
        return Hit(
            title=(
                f"{t.name} climbed {ta[0]:.0%} -> {ta[-1]:.0%} over the {st.size - i_pk} "
                f"evals since {v.name} peaked at step {onset} ({va[i_pk]:.0%}), which ends at "
                f"{va[-1]:.0%}: the train/held-out gap widened {gap_pk:.0%} -> {gap:.0%}"
            ),
            step=onset,
            end_step=end,
            evidence={
                "onset_step": onset,
                "best_step": onset,
                "train_acc_at_onset": float(ta[0]),
                "train_acc_last": float(ta[-1]),
                "eval_acc_best": float(va[i_pk]),
                "eval_acc_last": float(va[-1]),
                "gap_at_onset": gap_pk,
                "gap_last": gap,
                "eval_points_after": int(st.size - 1 - i_pk),
                "mode": "gap_widens",
            },
            explanation=(
                f"Since step {onset} every epoch fit the training set better ({t.name} "
                f"{ta[0]:.0%} -> {ta[-1]:.0%}) while {v.name} did not improve, and the gap "
                f"is now {gap:.0%} of the samples: the model memorises the training set "
                "instead of learning the task. A gap that widens at each eval is no eval noise."
            ),
            prescription=(
                f"Keep the checkpoint of step {onset} (the best {v.name}) and stop there or add "
                "early stopping on it; add augmentation and regularisation (dropout, weight "
                "decay) or more data; check that train and held-out sets match."
            ),
        )
    return None


def _base(name: str) -> str:
    """A metric's name less its split prefix (`val_accuracy`, `train_acc` -> accuracy, acc)."""
    return _SPLIT_PREFIX.sub("", name.lower())


def _unit_scale(values: np.ndarray) -> float | None:
    """1 for an accuracy in [0, 1], 100 for a percentage; None for neither."""
    if not values.size or values.min() < 0:
        return None
    return 1.0 if values.max() <= 1.0 else 100.0 if values.max() <= 100.0 else None
