"""no-learning's reading of a loss pinned at a label-blind level: the squared (absolute)
error an output of 0.5 scores on every 0/1 target alike (measure/floor.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import fmt, printed_decimals
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._short_logs import _fits

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _pinned_label_blind(run: Run, f: Series, p: Params) -> Hit | None:
    """The last `pinned_share` of the train losses (else of the eval losses), `pinned_points`+,
    all within `pinned_tol` of a label-blind level (0.25, 0.5), printed finely enough to
    show that tolerance, no task metric at 90% (warning): the model outputs 0.5 whatever
    its input."""
    if _fits(run, p):
        return None  # a task metric at 90%: whatever this loss is, the model fits its task
    ev = run.get("eval_loss")
    for name, s in (("loss", f), ("eval_loss", ev.finite() if ev is not None else None)):
        if s is not None and (hit := _pinned(name, s, p)) is not None:
            return hit
    return None


def _pinned(name: str, f: Series, p: Params) -> Hit | None:
    y = f.values
    k = max(p.pinned_points, int(np.ceil(p.pinned_share * y.size)))
    if y.size < k:
        return None
    tail = y[-k:]
    got = fl.label_blind(tail, p.pinned_tol)
    if got is None:
        return None
    level, what = got
    d = printed_decimals(y, 8)
    if d is not None and 10.0**-d > p.pinned_tol * level:
        return None  # "0.25" printed to 2 decimals repeats for any loss from 0.245 to 0.255
    out = np.flatnonzero(np.abs(y - level) > p.pinned_tol * level)
    first = int(out[-1]) + 1 if out.size else 0  # where the pinned stretch begins
    k = y.size - first
    dev = float(np.abs(y[first:] - level).max()) / level
    onset = int(f.steps[first])
    return Hit(
        title=(
            f"{name} pinned at {fmt(level)}, the {what.split(' (')[0]}: the last {k} of "
            f"{y.size} logs (from step {onset}) all within {dev:.3%} of it"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence={
            "signal": name,
            "level": level,
            "pinned_points": int(k),
            "points": int(y.size),
            "max_rel_deviation": dev,
            "start_loss": float(y[0]),
            "end_loss": float(y[-1]),
        },
        explanation=(
            f"{fmt(level)} is the {what}: at that output every sample costs the same "
            "whatever its label, so every batch scores exactly this value and the "
            "batch-to-batch scatter that any other output shows vanishes. A model that "
            f"weighs its input scatters around its level, or keeps moving; {name} sits "
            f"on {fmt(level)} to its 4th digit for the last {k} logs. The model outputs the "
            "mean of its targets for every input (a stuck saddle, dead units, a "
            "saturated head): it has learned nothing that tells the samples apart."
        ),
        prescription=(
            "Print the model's outputs for a few different inputs (all 0.5?); check the "
            "output activation (a sigmoid / tanh saturated at init, a ReLU before the "
            "output), the initialisation scale and the LR; rerun with another seed."
        ),
        severity=Severity.WARNING,
    )
