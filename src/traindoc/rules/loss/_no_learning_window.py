"""no-learning on a late window of a longer run (a log that starts mid-run): whether the
window's own loss shows the run learning, why a window that does not is not judged, and
the one verdict a window still supports, a loss sitting at chance throughout."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import fmt, mad, part_medians, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _window_learns(f: Series, p: Params) -> bool:
    """A late window whose own loss falls, significantly and by more than the most
    tolerant bar for a whole run (its last third's median under its first's), shows the
    run learning: there is nothing left for no-learning to judge, so it is not reported
    as not judged (a resumed run's log, or a paste from its middle, still descending)."""
    g = f.finite()
    if len(g) < p.min_points:
        return False
    first, _, last = part_medians(g.values, 3)
    return last <= (1 - p.min_drop_unknown) * first and trend(g.steps, g.values).falling


def _mid_run_reason(f: Series) -> str:
    """Why a late window of a longer run is not judged: its start is not the run's."""
    return (
        f"the log starts at step {int(f.steps[0])}, a window of a longer run: a flat window "
        "there can be a run that converged before it, and how far the loss fell before it "
        "is not in the log"
    )


def _window_at_chance(run: Run, f: Series, p: Params) -> Hit | None:
    """A late window of 10+ losses sitting at ln(C) (ln(V)) of the count the run states,
    throughout (every third's median in the floor's band) and to within 2 standard errors
    of its median: too noisy for uniform-plateau's stretch, still the loss of a model
    that guesses (warning)."""
    y = f.values
    floor = fl.known(run)
    if floor is None or y.size < p.min_points:
        return None
    lo, hi = fl.band(run, floor.value)
    level = float(np.median(y))
    err = p.window_z * 1.2533 * mad(y) / math.sqrt(y.size)
    if not (lo <= level - err and level + err <= hi):
        return None
    parts = part_medians(y, p.window_parts)
    if not all(lo <= m <= hi for m in parts):
        return None
    first, last = int(f.steps[0]), int(f.steps[-1])
    name = fl.log_name(run)
    return Hit(
        title=(
            f"Loss sits at {name}({floor.count}) = {floor.value:.4f} from step {first} to "
            f"{last} (median {fmt(level)}, {y.size} logs): the model guesses"
        ),
        step=first,
        end_step=last,
        evidence={
            "window_start": first,
            "points": int(y.size),
            "median_loss": level,
            "floor": floor.value,
            "vocab_size": floor.count,
            "part_medians": parts,
        },
        explanation=(
            f"The log starts mid-run, so how far the loss fell before it is unknown; but "
            f"{name}({floor.count}) is the loss of a model that gives each of its "
            f"{floor.count} outputs the same probability, and this window sits there from "
            "its first log to its last. Whatever came before, the model is at chance now."
        ),
        prescription=(
            "Look at the log from the run's start: when did the loss reach "
            f"{name}({floor.count}), and did it ever leave it? Check the labels against the "
            "inputs, that the LR is non-zero and not so large it collapsed the output to "
            "uniform, and the trainable-parameter count."
        ),
        severity=Severity.WARNING,
    )
