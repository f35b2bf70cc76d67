"""Helpers shared by the loss-curve rules (private: not loaded as a rule)."""

from __future__ import annotations

import numpy as np

from traindoc.measure.stats import rolling_median
from traindoc.model import Series


def baseline(values: np.ndarray, window: int = 25) -> np.ndarray:
    """Local level of a curve: centred rolling median, or block medians for huge series.

    The rolling median costs n * window; past 20k points, medians of consecutive
    blocks interpolated back onto every point give the same level in O(n).
    """
    n = values.size
    if n <= 20_000:
        return rolling_median(values, window)
    m = n // window
    blocks = np.median(values[: m * window].reshape(m, window), axis=1)
    centres = np.arange(m) * window + window / 2.0
    return np.interp(np.arange(n), centres, blocks)


def starts_mid_run(loss: Series) -> bool:
    """True when the log is a late window of a longer run (resumed, truncated head)."""
    first, last = int(loss.steps[0]), int(loss.steps[-1])
    return first > 50 and first > 0.25 * max(last - first, 1)
