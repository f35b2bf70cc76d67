"""overfitting's reading when no train loss is logged: a U-shaped eval curve, read on the raw
evals, and the severity the task metrics logged with it allow."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import metric_trends
from traindoc.rules.loss._overfit_metrics import _best_at_end, _improved_more
from traindoc.rules.loss._overfit_rise import _confirmed

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


def _eval_only(run: Run, p: Params, st: np.ndarray, e: np.ndarray) -> Iterator[Hit]:
    """No train loss logged: a U-shaped eval curve, read on the raw evals (a rolling
    median would flatten the last rise): it fell >= 10% to its minimum, then rose at
    each of >= 3 evals since (or, over 8+, trends up significantly), by >= 2% in all.

    The task metrics logged with the evals judge it as they judge a rise beside a train
    loss (`_eval_only_severity`): with no train curve to show the gap opening, an eval loss
    that rises while the task still improves is calibration, not lost quality."""
    i_min = int(np.argmin(e))
    low = float(e[i_min])
    learned = (float(e[0]) - low) / abs(float(e[0])) if e[0] else 0.0
    rel_rise = (float(e[-1]) - low) / abs(low) if low else 0.0
    n_after = e.size - 1 - i_min
    steady = n_after >= p.min_after_points and bool(np.all(np.diff(e[i_min:]) > 0))
    # Noisy evals do not rise at every one: over 8+ since the minimum a significant
    # upward trend (Mann-Kendall) says the same.
    if not steady and n_after >= p.eval_only_trend_points:
        steady = trend(st[i_min:], e[i_min:]).z >= -p.train_z
    if not (steady and rel_rise >= p.min_rise_rel and learned >= p.eval_only_learned):
        return
    onset = int(st[i_min])
    severity, notes = _eval_only_severity(run, st, e, onset, rel_rise, p)
    yield Hit(
        title=(
            f"Eval loss fell {learned:.0%} to {fmt(low)} at step {onset}, then rose "
            f"over the {n_after} evals since ({rel_rise:+.0%})"
        ),
        severity=severity,
        step=onset,
        end_step=int(st[-1]),
        evidence={
            "onset_step": onset,
            "eval_min": low,
            "eval_last": float(e[-1]),
            "eval_rise_rel": rel_rise,
            "eval_drop_to_min": learned,
            "eval_points_after": int(e.size - 1 - i_min),
            "mode": "rising",
            "train_loss": "not logged",
        },
        explanation=" ".join(
            [
                "The held-out loss went down as the model learned, reached its minimum, and "
                "has gone up at every evaluation since: the classic U of a model that has "
                "started to memorise its training set. The train loss is not in the log, so "
                "this rests on the eval curve alone (a run that diverges raises both).",
                *notes,
            ]
        ),
        prescription=(
            f"Keep the checkpoint nearest step {onset}; stop there or add early stopping; "
            "add regularisation (dropout, weight decay) or more data; log the train loss too."
        ),
    )


def _eval_only_severity(
    run: Run, st: np.ndarray, e: np.ndarray, onset: int, rel_rise: float, p: Params
) -> tuple[Severity | None, list[str]]:
    """Info when the task metrics logged with the evals say the task did not suffer, as
    beside a train loss: one kept improving after the minimum while the rise stayed under
    `large_rise_rel` (or the evals do not confirm a larger one), most improved by more than
    the loss rose, or they mostly held while the loss rose under `clear_rise_rel`."""
    verdicts = [t.verdict for t in metric_trends(run, onset, p.metric_gain_rel)]
    if not verdicts:
        return None, []
    large = rel_rise >= p.large_rise_rel
    mostly_held = 2 * verdicts.count("worse") < len(verdicts)
    if (
        ("improving" in verdicts and not (large and _confirmed(st, e, p)))
        or _improved_more(run, onset, rel_rise, p)
        or _best_at_end(run, onset, rel_rise, p)
        or (mostly_held and rel_rise < p.clear_rise_rel)
    ):
        return Severity.INFO, [
            "The task metrics logged with the evals did not get worse after the minimum "
            f"({', '.join(verdicts)}): the eval loss measures calibration here, not quality."
        ]
    return None, []
