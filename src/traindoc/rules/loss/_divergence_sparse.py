"""divergence's relative tests on a short or sparse log (10-20 points): the trend test
guarded by a train metric that kept improving, and the two checks that a rise stands
clear of the log's own swings and did not come back down."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import mad
from traindoc.model import Run, Series
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_grade import _train_improved
from traindoc.rules.loss._divergence_short import (
    _climbs_with_eval,
    _climbs_with_lr,
    _last_jump_confirmed,
    _short_blowup,
    _worse_on_eval_too,
    _worse_on_train,
)
from traindoc.rules.loss._evalcurve import train_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _short_trend(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log's relative tests (a blow-up, a confirmed last jump, a climb the evals
    or the LR share), unless a task metric on the training batches improved at every log
    through the rise (from the loss's best before it): as on a long log, a loss that
    climbs while the model keeps getting better on the very data it is computed on
    measures another objective (an adversarial term), however few lines show it."""
    hit = (
        _short_blowup(run, p, f)
        or _last_jump_confirmed(run, p, f)
        or _worse_on_train(run, p, f)
        or _worse_on_eval_too(run, p, f)
        or _climbs_with_eval(run, p, f)
        or _climbs_with_lr(run, p, f)
    )
    if hit is None:
        return None
    start = hit.evidence.get("best_step", hit.step)
    start = int(start) if start is not None else int(f.steps[0])
    return hit if _train_improved(p, f, start, train_metrics(run)) is None else None


def _rise_clears_noise(p: Params, f: Series) -> bool:
    """A sparse log's last third sits (its median) `step_sigmas` noise sigmas of the
    points before it above the level around their lowest (the median of it and its
    neighbours): the paste tests read 10-20 logs only when the rise stands clear of the
    log's own swings. A per-batch loss that swings 10x batch to batch (a CRF summed
    over sentences, a near-0 fit's hard batches) has a lucky low and an unlucky last
    log in any window of it; a log of epoch means does not."""
    y = f.values
    k = max(2, y.size // 3)
    before = y[: y.size - k]
    i = int(np.argmin(before))
    level = float(np.median(before[max(0, i - 1) : i + 2]))
    # second differences: a fall's own slope and its easing are no noise (a 12-log
    # paste that falls 3.0 -> 1.08 changes by -1.0 then by -0.04 per log)
    curv = mad(np.diff(before, 2)) / math.sqrt(6) if before.size >= 4 else math.inf
    sigma = max(curv if math.isfinite(curv) else math.inf, p.step_noise_floor * abs(level))
    return float(np.median(y[-k:])) - level >= p.step_sigmas * sigma


def _came_back(p: Params, f: Series) -> bool:
    """The last two losses of a sparse log both within `min_rise` of the lowest loss
    before them: whatever rose in between came back down (a spike, `loss-spike`'s). In
    a log of 10-20 points the trend tests' tail median spans 3-6 points, and two spiked
    ones among them move it as much as a climb that held."""
    y = f.values
    if y.size < 4:
        return False
    low = float(np.min(y[:-2]))
    return low > 0 and bool(np.all(y[-2:] < (1 + p.min_rise) * low))
