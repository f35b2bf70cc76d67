"""Helpers shared by the eval-curve rules (overfitting, eval-stagnation).

Eval series are short (tens to hundreds of points) and fairly smooth, so these
work on the raw points after a light rolling median. The task-metric vocabulary
(`task_metrics`, `direction`, `train_metrics`) lives in `measure.metrics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from traindoc.measure.metrics import direction, task_metrics, train_metrics
from traindoc.measure.stats import mad, rolling_median, trend
from traindoc.model import Run, Series

__all__ = [
    "MetricTrend",
    "direction",
    "level_at",
    "metric_trends",
    "noise",
    "smooth",
    "tail_level",
    "task_metrics",
    "train_change",
    "train_metrics",
]


def smooth(values: np.ndarray) -> np.ndarray:
    """A 3-point rolling median once there are enough points: one odd eval cannot decide."""
    return rolling_median(values, 3) if values.size >= 7 else values.copy()


def noise(values: np.ndarray) -> float:
    """Point-to-point noise (sigma) of a short, possibly trending series.

    From second differences: they cancel a local slope, so a steep but clean
    curve does not pass for a noisy one (var of x[i-1] - 2x[i] + x[i+1] is 6 sigma^2).
    """
    if values.size < 5:
        return 0.0
    s = mad(np.diff(values, 2)) / math.sqrt(6)
    return s if math.isfinite(s) else 0.0


def level_at(s: Series, step: float, k: int = 5) -> float:
    """Median of the k finite points of `s` nearest to (at or before, then after) `step`."""
    f = s.finite()
    if not len(f):
        return math.nan
    i = int(np.searchsorted(f.steps, step, side="right"))
    lo = max(0, i - k // 2 - 1)
    hi = min(len(f), max(i + k // 2, lo + 1))  # a step before the first log: the first
    return float(np.median(f.values[lo:hi]))


def tail_level(values: np.ndarray, frac: float = 0.2, min_n: int = 2) -> float:
    n = max(min_n, int(values.size * frac))
    return float(np.median(values[-n:]))


def train_change(
    loss: Series, start_step: float, frac: float = 0.2
) -> tuple[float, float, float, float]:
    """(level at start, level at end, relative drop, Mann-Kendall z) of the train loss after a step.

    Levels are medians of the first / last `frac` of the points (at least 3), so
    the train loss's batch-to-batch noise does not decide.
    """
    f = loss.finite().after(int(start_step))
    if len(f) < 5:
        return math.nan, math.nan, math.nan, 0.0
    n = max(3, int(len(f) * frac))
    # A level is the points of its end of the log, not the points across a gap (an
    # excerpt that jumps from epoch 12 to 95): those within the span n evenly spaced
    # logs would cover.
    reach = (n - 1) * float(np.median(np.diff(f.steps))) * 1.5
    head = f.values[:n][f.steps[:n] <= f.steps[0] + reach]
    tail = f.values[-n:][f.steps[-n:] >= f.steps[-1] - reach]
    a = float(np.median(head))
    b = float(np.median(tail))
    drop = (a - b) / abs(a) if a else 0.0
    return a, b, drop, trend(f.steps, f.values).z


@dataclass(frozen=True)
class MetricTrend:
    """How a task metric moved after a step: improving, held or worse."""

    name: str
    at: float  # its level at the step
    end: float  # its level at the end
    verdict: str  # "improving" | "held" | "worse"


def metric_trends(run: Run, onset: int, gain_rel: float, inside: bool = False) -> list[MetricTrend]:
    """Each eval task metric's move after `onset`: better (worse) when its tail beats
    (trails) its level at the onset by `gain_rel` (relative) and 2 of its noise sigmas.

    `inside`: the onset level from the first points at or after it only (a window's
    own start, not the climb before it)."""
    out = []
    for m, higher in task_metrics(run):
        mf = m.finite()
        after = mf.after(onset)
        if len(after) < 2:
            continue
        at = float(np.median(after.values[:3])) if inside else level_at(mf, onset, k=3)
        end = tail_level(mf.after(onset + 1).values)
        gain = (end - at) if higher else (at - end)
        thr = max(gain_rel * abs(at), 2 * noise(mf.values))
        verdict = "improving" if gain > thr else "worse" if gain < -thr else "held"
        out.append(MetricTrend(m.name, at, end, verdict))
    return out
