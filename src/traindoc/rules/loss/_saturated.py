"""no-learning's reading of a loss that is a clamp times the error rate
(measure/saturation.py): every output saturated, however short the log."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.saturation import Saturated, saturated_tail
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _as_fraction, _plain_accuracies

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _paired(loss: Series, acc: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The steps where both the loss and the accuracy are logged, the loss and the
    accuracy (as a fraction) at them."""
    lf, af = loss.finite(), acc.finite()
    steps, li, ai = np.intersect1d(lf.steps, af.steps, return_indices=True)
    if not steps.size:
        return steps, np.empty(0), np.empty(0)
    return steps, lf.values[li], _as_fraction(af.values)[ai]


def _saturated_outputs(run: Run, p: Params) -> Hit | None:
    """The train loss beside a train accuracy (or the eval loss beside a held-out one)
    equal to a framework's clamp times the error rate, loss = K (1 - accuracy), at each of
    the last `saturated_points` (2+) logs where both are printed (warning)."""
    train, held = _plain_accuracies(run)
    for name, accs in (("loss", train), ("eval_loss", held)):
        loss = run.get(name)
        if loss is None:
            continue
        for acc in accs:
            steps, lv, av = _paired(loss, acc)
            sat = saturated_tail(lv, av, p.saturated_tol)
            if sat is not None and sat.points >= p.saturated_points:
                return _saturated_hit(loss, acc, steps, lv, av, sat)
    return None


def _saturated_hit(
    loss: Series, acc: Series, steps: np.ndarray, lv: np.ndarray, av: np.ndarray, sat: Saturated
) -> Hit:
    last_l, last_a = float(lv[-1]), float(av[-1])
    return Hit(
        title=(
            f"{loss.name} = {sat.cost:.4f} x (1 - {acc.name}) at the last {sat.points} logs "
            f"({fmt(last_l)} at {acc.name} {fmt(last_a)}): every output is saturated at the "
            f"{sat.clamp} clip"
        ),
        step=int(steps[-sat.points]),
        end_step=int(steps[-1]),
        evidence={
            "signal": loss.name,
            "metric": acc.name,
            "clamp": sat.clamp,
            "cost_per_error": sat.cost,
            "points": sat.points,
            "loss": last_l,
            "accuracy": last_a,
        },
        explanation=(
            f"{sat.cost:.4f} is what one confidently wrong sample costs at the {sat.clamp} "
            "clip, and a right one at the other end of the clip costs 0. A loss that equals "
            f"{sat.cost:.4f} times the error rate, to the printed digit, at {sat.points} logs "
            "is a model whose every output is pinned at 0 or 1: it no longer weighs its "
            "input (it names one class, or flips on a threshold), and a clipped output passes "
            "no gradient back, so the updates cannot move it out."
        ),
        prescription=(
            "Check the output layer (a ReLU or linear unit where a sigmoid / softmax "
            "belongs, a softmax applied twice, from_logits wrong), scale the inputs "
            "(unnormalised features saturate the first layers), lower the LR that blew the "
            "logits up, and check the labels match the loss (binary vs categorical)."
        ),
        severity=Severity.WARNING,
    )
