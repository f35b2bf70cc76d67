"""divergence's verdict on a log of evals alone (a model card whose training loss reads
"No log"): the eval loss jumps and a held-out task metric gives back all it gained."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_short import _steadier_from
from traindoc.rules.loss._evalcurve import task_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params

# Evals needed: a first one, a best after it, and two after the best that gave it back.
_MIN_EVALS = 4


def heldout_gave_back(run: Run, p: Params) -> Hit | None:
    """With no train loss: the eval loss jumped by half its best level between two evals
    and ends 50%+ above that best, while a held-out task metric that had gained 10%+ on
    its first eval sits at or below that first eval at each of its last two evals.

    Overfitting cannot be told from a wrecked model by the eval loss alone, but it creeps
    up eval after eval and keeps most of what the model learned: accuracy sags a few
    points from its best. A model whose updates wreck it jumps, and loses all it gained on
    unseen data (val accuracy 0.2 -> 0.85 -> back under 0.2)."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = ev.finite()
    y = e.values
    if y.size < _MIN_EVALS:
        return None
    i_best = int(np.argmin(y))
    best, last = float(y[i_best]), float(y[-1])
    jumps = np.diff(y[i_best:])
    if not (
        best > 0
        and last >= (1 + p.blowup_rise) * best
        and jumps.size
        and float(jumps.max()) >= p.blowup_rise * best
    ):
        return None
    gone = [m for m, higher in task_metrics(run) if _gave_back_all(m.finite().values, higher, p)]
    if not gone:
        return None
    at = int(e.steps[i_best + int(np.argmax(jumps)) + 1])
    shown = ", ".join(
        f"{m.name} {fmt(float(m.finite().values[0]))} -> best "
        f"{fmt(float(_best(m.finite().values, higher)))} -> {fmt(float(m.finite().values[-1]))}"
        for m, higher in task_metrics(run)
        if m in gone
    )
    return Hit(
        title=(
            f"Eval loss jumps from its best {fmt(best)} (step {int(e.steps[i_best])}) to "
            f"{fmt(last)} ({last / best:.1f}x) while {shown}: all it gained given back"
        ),
        step=at,
        end_step=int(e.steps[-1]),
        evidence={
            "best_eval_loss": best,
            "best_step": int(e.steps[i_best]),
            "eval_loss": last,
            "jump": float(jumps.max()),
            "jump_step": at,
            "gave_back": [m.name for m in gone],
        },
        explanation=(
            "Only evaluations are logged. The eval loss did not creep up eval after eval as "
            "overfitting does: it jumped by half its best level in one interval, and the "
            "held-out task metric fell back to or below its first evaluation, so everything "
            "the model had learned is gone, not just its fit to the held-out data. Updates "
            "that wreck the weights do that: steps too large (LR, no warmup) or numerics "
            "breaking down."
        ),
        prescription=_steadier_from(run, f"Keep the checkpoint of step {int(e.steps[i_best])}"),
        severity=Severity.WARNING,
    )


def _best(v: np.ndarray, higher: bool) -> float:
    return float(v.max() if higher else v.min())


def _gave_back_all(v: np.ndarray, higher: bool, p: Params) -> bool:
    """A held-out metric that gained 10%+ on its first eval (`min_rise`) and sits at or
    below that first eval at each of its last two, its best before them."""
    if v.size < _MIN_EVALS or not v[0] > 0:
        return False
    s = v if higher else -v  # higher is better from here on
    i = int(np.argmax(s))
    gained = s[i] >= (1 + p.min_rise) * s[0] if higher else -s[i] <= -s[0] / (1 + p.min_rise)
    return bool(gained and i < v.size - 2 and np.all(s[-2:] <= s[0]))
