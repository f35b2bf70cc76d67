"""The noise AROUND a point of a curve, one measure for the spike and rise readings.

A point is a spike, or a stretch is a rise, when it stands apart from the noise of
its own neighbourhood (a robust local scale: the rolling MAD of the residuals about
a rolling median), and the same curve shape gives the same verdict at 300, 3,000 or
100,000 points.

One whole-curve noise figure cannot do that. A per-batch loss is heteroscedastic:
its noise is roughly proportional to its level, large at the start (loss 2.2, a
batch swings +-0.4) and small at the end (loss 1.0, +-0.2). Measured over the whole
curve (or its tail) the noise is the late, small one, and the start's ordinary
batches look like events: an unbroken LoRA fine-tune logged at every one of 100k
steps "rose" at its start while the same curve logged at 300 points did not. Measured
where the point is, a batch is judged by the batches beside it, whatever the level
and however densely the run was logged.

The neighbourhood is a share of the run (`share`, 2%), not a number of points, so
the same shape is judged over the same stretch of it at any density; it holds at
least `min_points` (101) points, enough for a stable median, so a sparse log (a few
hundred points or fewer) is judged over a third of itself or all of it: its local
noise is the whole-curve noise it had before. Long curves cost O(n) and little
memory: the local sigma is kept as one median of |residual| per neighbourhood-long
block, interpolated onto the points a rule asks about (`LocalScale`), never as a
second series-long array beside the curve's own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import MAD_TO_SIGMA, rolling_median

# The neighbourhood of a point: this share of the logged points ...
SHARE = 0.02
# ... and at least this many (a median of fewer is its own noise).
MIN_POINTS = 101
# Where the local spread is 0 (a loss logged at a few decimals that repeats, a stretch
# of exact zeros) the noise is this share of the local level: no finite point "stands
# k sigmas apart" from a zero sigma.
LEVEL_FLOOR = 1e-3
# An exact rolling median costs points x window; past this, block medians (O(n)).
_EXACT_WORK = 1 << 21
# Points per numpy call over a long curve: its temporaries stay a few MB.
_PART = 1 << 17


def neighbourhood(n: int, share: float = SHARE, min_points: int = MIN_POINTS) -> int:
    """Points in a point's noise neighbourhood on an n-point curve (odd)."""
    return int(max(min_points, round(share * n))) | 1


@dataclass(frozen=True)
class LocalScale:
    """The robust sigma around each point of an n-point curve: `values` at positions
    `centres` (every point of a short curve; one per block of a long one), linearly
    interpolated in between and held at the ends. Index it like the array it stands
    for: `scale[i]` (a float) or `scale[a:b]` (an array of b - a)."""

    n: int
    centres: np.ndarray
    values: np.ndarray

    @property
    def size(self) -> int:
        return self.n

    def at(self, idx: np.ndarray) -> np.ndarray:
        return np.interp(np.asarray(idx, dtype=np.float64), self.centres, self.values)

    def __getitem__(self, key: int | slice) -> float | np.ndarray:
        if isinstance(key, slice):
            return self.at(np.arange(*key.indices(self.n)))
        i = int(key) + self.n if int(key) < 0 else int(key)
        if not 0 <= i < self.n:
            raise IndexError(key)
        return float(self.at(np.array([i]))[0])


def local_scale(
    resid: np.ndarray,
    level: np.ndarray | None = None,
    *,
    share: float = SHARE,
    min_points: int = MIN_POINTS,
) -> LocalScale:
    """Robust sigma of the residuals `resid` (a curve minus its rolling median) around
    each point: MAD_TO_SIGMA x the median of |resid| over the point's `neighbourhood`
    (centred; at the ends, the first or last neighbourhood: a reflected window would
    count the start's points twice, and the start is where a rise is judged). A spike
    of a few points moves a median of 101+ not at all.

    Exact per point while points x neighbourhood is under `_EXACT_WORK`; past it, one
    median per neighbourhood-long block (centred on it), interpolated between them:
    O(n), and the |resid| of one part at a time. Where the scale is 0 it is
    `LEVEL_FLOOR` x |level| there (when given), else 1e-12.
    """
    resid = np.asarray(resid, dtype=np.float64)
    n = resid.size
    w = neighbourhood(n, share, min_points)
    if n <= w:
        centres = np.array([(n - 1) / 2.0])
        values = np.array([float(np.median(np.abs(resid)))]) if n else np.array([np.nan])
    elif n * w <= _EXACT_WORK:
        view = np.lib.stride_tricks.sliding_window_view(np.abs(resid), w)
        inner = np.empty(view.shape[0])
        per = max(1, _PART // w)  # np.median copies what it is given: a part at a time
        for a in range(0, inner.size, per):
            inner[a : a + per] = np.median(view[a : a + per], axis=1)
        centres = np.arange(inner.size) + w // 2.0
        values = inner
    else:
        centres, values = _block_medians_abs(resid, w)
    values = values * MAD_TO_SIGMA
    bad = ~(values > 0)  # 0 or NaN
    if bad.any():
        lv = 0.0
        if level is not None:
            pos = np.clip(np.round(centres[bad]).astype(np.int64), 0, max(n - 1, 0))
            lv = LEVEL_FLOOR * np.abs(np.asarray(level, dtype=np.float64)[pos])
        values[bad] = np.maximum(lv, 1e-12)
    return LocalScale(n, centres.astype(np.float64), values)


def _block_medians_abs(x: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(centre, median of |x|) of consecutive w-point blocks (the rest its own block),
    |x| taken a part at a time: no series-long copy."""
    n = x.size
    m = n // w
    rows = x[: m * w].reshape(m, w)
    per = max(1, _PART // w)
    meds = np.empty(m)
    for a in range(0, m, per):
        meds[a : a + per] = np.median(np.abs(rows[a : a + per]), axis=1)
    centres = np.arange(m) * w + (w - 1) / 2.0
    if n > m * w:
        meds = np.r_[meds, np.median(np.abs(x[m * w :]))]
        centres = np.r_[centres, (m * w + n - 1) / 2.0]
    return centres, meds


def local_noise(
    values: np.ndarray, window: int = 25, *, share: float = SHARE, min_points: int = MIN_POINTS
) -> tuple[np.ndarray, LocalScale]:
    """(level, sigma) of a finite curve at each point: its centred rolling median over
    `window` points, and the robust sigma of its residuals about that level around the
    point (`local_scale`).

    The window is at most a quarter of the curve (3 points at least): on a paste of 10
    losses a 25-point median is one level for the whole curve, and the residuals about
    it are the curve's shape (its rise and fall), not its noise."""
    values = np.asarray(values, dtype=np.float64)
    level = rolling_median(values, min(window, max(3, values.size // 4)))
    return level, local_scale(values - level, level, share=share, min_points=min_points)
