"""no-learning's reading of a task metric that logs zero (or one lone hit at most) late in
the run while the loss stays flat, unless another metric shows the model scoring."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.metrics import is_running_best
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _REGRESSION
from traindoc.rules.loss._evalcurve import direction

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


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
