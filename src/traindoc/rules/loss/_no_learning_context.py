"""What beside the loss tempers no-learning's verdict on a flat curve: how many epochs the
log spans (a short run is held to a looser bar) and whether a held-out task metric
gained over the evals (a small relative fall that is a scale, not a stuck model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _heldout_gained(run: Run, p: Params) -> str | None:
    """A held-out task metric that improved by `heldout_gain` (relative) from its first
    eval to the median of its last third, over 3+ evals: a stuck model does not."""
    for m, higher in task_metrics(run):
        y = m.finite().values
        if y.size < p.heldout_evals or not y[0]:
            continue
        last = float(np.median(y[-max(1, y.size // 3) :]))
        gain = (last - float(y[0])) / abs(float(y[0])) * (1.0 if higher else -1.0)
        if gain >= p.heldout_gain:
            return f"{m.name} improves {fmt(float(y[0]))} -> {fmt(last)} over {y.size} evals"
    return None


def _epochs_covered(run: Run, f: Series) -> float:
    """How many epochs the loss's steps span (the logged epoch at its last step minus
    at its first), 0 when no epoch is logged."""
    ep = run.get("epoch")
    if ep is None or len(e := ep.finite()) < 2 or len(f) < 2:
        return 0.0
    at = np.interp([f.steps[0], f.steps[-1]], e.steps, e.values)
    return float(at[1] - at[0])
