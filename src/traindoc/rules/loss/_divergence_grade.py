"""How sure divergence may be of a rise, judged by the task metrics beside the loss: a
held-out metric that improved or held its best through the rise lowers a hit, as does a
short log's eval loss that kept falling; a train metric that improved at every log says
the model kept getting better on the very batches whose loss rose."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import direction, noise, tail_level, task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _heldout_metrics(run: Run, p: Params, f: Series) -> list[tuple[Series, bool]]:
    """Task metrics measured on held-out data: `task_metrics`, or, with no eval loss
    to anchor them, a series named like a task metric (recall@1, mAP, top1) that is
    not a train one and is logged at most `heldout_sparse` as often as the train loss
    (at the evals, not at every log line: Keras' per-epoch `acc` next to a per-epoch
    loss is a train metric and is not this)."""
    out = list(task_metrics(run))
    if out or run.get("eval_loss") is not None:
        return out
    for name, s in run.series.items():
        if "loss" in name or name.lower().startswith("train") or not len(s.finite()):
            continue
        higher = direction(name)
        if higher is not None and len(s.finite()) <= p.heldout_sparse * len(f):
            out.append((s, higher))
    return out


def _heldout_improved(run: Run, p: Params, f: Series, onset: int) -> str | None:
    """The name of a held-out task metric that improved through the rise, or None.

    The metric's last eval at or before the onset (its first eval, if none is) is the
    baseline; it needs `heldout_min_evals` evals after the onset, the median of the
    last three of them `heldout_gain` (relative) better than the baseline, and its
    final eval within that margin of its best: a model that keeps getting better on
    unseen data is not being made worse by its updates."""
    for m, higher in _heldout_metrics(run, p, f):
        e = m.finite()
        after = e.steps > onset
        if int(after.sum()) < p.heldout_min_evals:
            continue
        before = np.flatnonzero(~after)
        base = float(e.values[before[-1]] if before.size else e.values[0])
        vals = e.values[after] if before.size else e.values[1:]
        if vals.size < p.heldout_min_evals or base == 0:
            continue
        sign = 1.0 if higher else -1.0
        end = float(np.median(vals[-3:]))
        gain = sign * (end - base) / abs(base)
        best = float(vals.max() if higher else vals.min())
        last = float(vals[-1])
        if gain >= p.heldout_gain and sign * (best - last) <= p.heldout_gain * abs(base):
            return m.name
    return None


def _heldout_held(run: Run, p: Params, f: Series, onset: int) -> bool:
    """A held-out metric that never left its best level through the rise: 2+ evals
    before the onset, `heldout_min_evals`+ after it, each within `heldout_hold`
    (relative) of the best eval before. With the loss still under `fitted_loss` this
    is a fitted model's wobble (a fine-tune's train loss going 5e-5 -> 1.4e-4 at a
    validation AUC of 1.0), not updates wrecking it: those cost the held-out metric."""
    for m, higher in _heldout_metrics(run, p, f):
        e = m.finite()
        after = e.steps > onset
        pre, post = e.values[~after], e.values[after]
        if pre.size < 2 or post.size < p.heldout_min_evals:
            continue
        sign = 1.0 if higher else -1.0
        best = float(pre.max() if higher else pre.min())
        if best != 0 and bool(np.all(sign * (post - best) >= -p.heldout_hold * abs(best))):
            return True
    return False


def _eval_kept_falling(run: Run, hit: Hit, f: Series) -> Hit:
    """A short log's error, lowered to a warning when the eval loss is lower at each of
    its 2+ evals from the onset on than at the one before (the last eval before the
    onset the first of them): a model its updates wreck gets worse on unseen data, and
    this one got better through the rise (an mT5 card at LR 1e-3: train loss 0.87 -> 1.87
    -> 3.54 while the eval loss went 0.59 -> 0.57 -> 0.54). A few lines cannot tell a
    spike the next logs absorb from a blow-up, so the rise stays a warning."""
    ev = run.get("eval_loss")
    if ev is None or (hit.severity is not None and hit.severity < Severity.ERROR):
        return hit
    e = ev.finite()
    onset = int(hit.evidence.get("onset_step", hit.step) or f.steps[0])
    before, after = e.values[e.steps < onset], e.values[e.steps >= onset]
    if not before.size or after.size < 2:
        return hit
    y = np.concatenate([before[-1:], after])
    if not bool(np.all(np.diff(y) < 0)):
        return hit
    return replace(
        hit,
        severity=Severity.WARNING,
        explanation=hit.explanation
        + f" But the eval loss fell at each eval through the rise ({fmt(float(y[0]))} -> "
        f"{fmt(float(y[-1]))}): the model got better on unseen data, so this may be a "
        "spike the next logs absorb; log further before restarting.",
    )


def _graded_by_heldout(run: Run, p: Params, hit: Hit, onset: int) -> Hit:
    """The trend / blow-up hit, lowered to info when every held-out task metric evaluated
    3+ times after the onset ends no worse than the best it reached before the onset
    (within `heldout_held_rel` and 2 of its noise sigmas): divergence is updates making
    the model worse, and the unseen data says they did not; the rise is the train loss's
    own (a near-0 fit wobbling, an excerpt's noise), not a harm the log shows. Against its
    best, not its level at the onset: a metric that collapsed before the train loss
    climbed (val top-1 at chance from epoch 7) does not "hold" at chance."""
    held = []
    for m, higher in task_metrics(run):
        e = m.finite()
        after, before = e.values[e.steps > onset], e.values[e.steps <= onset]
        if after.size < p.heldout_min_evals or before.size == 0:
            continue  # too few evals since, or none before, to compare
        sign = 1.0 if higher else -1.0
        peak = float(before.max() if higher else before.min())
        end = tail_level(after)
        if sign * (peak - end) > max(p.heldout_held_rel * abs(peak), 2 * noise(e.values)):
            return hit  # worse on unseen data than it was: the climb is harm
        held.append(f"{m.name} {fmt(peak)} -> {fmt(end)}")
    if not held:
        return hit
    return replace(
        hit,
        severity=Severity.INFO,
        explanation=hit.explanation
        + f" But the held-out task metrics end no worse than their best before the rise "
        f"({', '.join(held)}): the model did not get worse on unseen data, so the rise is "
        "no harm the log shows.",
    )


def _train_improved(
    p: Params, f: Series, onset: int, metrics: list[tuple[Series, bool]]
) -> str | None:
    """The name of a train task metric that improved at every log through the rise, or None.

    The metric is logged with the loss (at half its logs or more: the same batches),
    has `heldout_min_evals`+ values after the onset, none of them worse than its last
    value at or before the onset, and ends better than that value: the model kept
    getting better at the task on the very data the rising loss is computed on."""
    for m, higher in metrics:
        e = m.finite()
        if len(e) < 0.5 * len(f):
            continue
        after = e.steps > onset
        before = np.flatnonzero(~after)
        vals = e.values[after]
        if before.size == 0 or vals.size < p.heldout_min_evals:
            continue
        base = float(e.values[before[-1]])
        sign = 1.0 if higher else -1.0
        if bool(np.all(sign * (vals - base) >= 0)) and sign * (float(vals[-1]) - base) > 0:
            return m.name
    return None
