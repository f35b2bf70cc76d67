"""Robust statistics shared by the rules.

Training curves are noisy, long (up to millions of points) and sometimes hold
NaN. Everything here is vectorised numpy, tolerates short series, and prefers
medians and MAD over means and standard deviations so one spike cannot move a
decision. Long series are first reduced to per-bin medians, so a rule costs
O(n) once and then works on a few hundred numbers.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Series

MAD_TO_SIGMA = 1.4826  # MAD * this = sigma for Gaussian noise


def median(x: np.ndarray) -> float:
    return float(np.median(x)) if x.size else math.nan


def part_medians(x: np.ndarray, parts: int = 3) -> list[float]:
    """The medians of `parts` consecutive, near-equal parts of x (first third vs last)."""
    return [float(np.median(part)) for part in np.array_split(x, parts)]


def mad(x: np.ndarray) -> float:
    """Median absolute deviation, scaled to a Gaussian sigma (subsampled when long)."""
    if x.size == 0:
        return math.nan
    if x.size > _SCALE_SAMPLE:
        x = x[:: -(-x.size // _SCALE_SAMPLE)]
    return float(MAD_TO_SIGMA * np.median(np.abs(x - np.median(x))))


def diff_mad(x: np.ndarray) -> float:
    """mad(np.diff(x)) without the n-long array of differences: `mad` looks at a strided
    subsample of a long input, so only those differences are taken."""
    m = x.size - 1
    if m <= _SCALE_SAMPLE:
        return mad(np.diff(x))
    i = np.arange(0, m, -(-m // _SCALE_SAMPLE))
    return mad(x[i + 1] - x[i])


# Doubling the lag grows the spread of a smoothed curve's second differences by ~1.41
# (a running mean over W steps: until the lag reaches W) and that of independent points
# by ~1.0: under this ratio the points at that lag are as independent as they get.
_LAG_GROWTH = 1.2
# Two doublings in a row must grow the spread before a curve is read as smoothed.
_MIN_SMOOTH_LAG = 4
# The lag is searched up to this share of the points (a curve keeps 10+ independent
# stretches, so its noise is still measured on the curve, not on its trend).
_LAG_SHARE = 0.1


def level_noise(x: np.ndarray) -> tuple[float, int]:
    """(noise sigma of one point, lag at which points are independent) of a curve.

    Batch-to-batch differences measure the noise of a per-step loss. A running mean
    (kohya's `avr_loss` over the last epoch's steps, an EMA, a `loss_avg`) moves by
    1/W of a batch's noise per step, so its differences are tiny while its level
    wanders by the noise of a W-step mean: read from differences, a healthy average's
    wander looks like a real move. The spread of second differences at lag L
    (x[t+L] - 2x[t] + x[t-L]: a local linear trend cancels) is sigma x sqrt(6) for
    independent points at any L, and grows with L for a smoothed curve until L reaches
    its window. The lag is the first power of two where doubling it grows that spread
    by under 20% (1.41 for a smoothed curve, 1.0 for independent points), searched up
    to a tenth of the curve; it must have grown over two doublings in a row (lag 4+:
    one doubling's growth is within a short curve's sampling noise), and the spread
    must hold at twice and four times that lag: a periodic oscillation's (a saw-tooth
    band's) falls back at its period, and is read as independent points. The noise is the spread there / sqrt(6). At lag 1 (a raw
    curve) it is diff_mad / sqrt(2), the estimate the rules always used."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = x.size

    def spread(lag: int) -> float:
        return mad(x[2 * lag :] - 2 * x[lag:-lag] + x[: -2 * lag]) / math.sqrt(6)

    lag = 1
    while 2 * lag <= _LAG_SHARE * n:
        now, doubled = spread(lag), spread(2 * lag)
        if not (now > 0 and doubled >= _LAG_GROWTH * now):
            break
        lag *= 2
    # one doubling's growth is within the sampling noise of a short curve's spread (and
    # a raw curve's curvature): smoothing is read from two or more in a row (lag >= 4)
    if lag < _MIN_SMOOTH_LAG:
        lag = 1
    # a smoothed curve's spread stays at its level past the window; a periodic
    # oscillation's (a saw-tooth band) falls back at its period: that is no smoothing
    if lag > 1 and any(
        4 * k * lag <= n and spread(k * lag) * _LAG_GROWTH < spread(lag) for k in (2, 4)
    ):
        lag = 1
    if lag == 1:
        return (diff_mad(x) / math.sqrt(2) if n >= 2 else math.nan), 1
    return spread(lag), lag


def robust_z(x: np.ndarray, center: np.ndarray | float, scale: np.ndarray | float) -> np.ndarray:
    scale = np.maximum(scale, 1e-12)
    return (x - center) / scale


_bins_memo: weakref.WeakKeyDictionary[Series, dict[int, tuple]] = weakref.WeakKeyDictionary()


def bins(s: Series, n_bins: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Like _bins, computed once per series and bin count (many rules ask)."""
    slot = _bins_memo.setdefault(s, {})
    if n_bins not in slot:
        slot[n_bins] = _bins(s, n_bins)
    st, vals = slot[n_bins]
    return st.copy(), vals.copy()


def _bins(s: Series, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(step, median value) per bin of consecutive points; the raw series if short.

    Uses finite points only. Bins are equal in point count, not in steps, so a
    log that changes its logging interval is still weighted fairly.
    """
    f = s.finite()
    n = len(f)
    if n <= n_bins:
        return f.steps.astype(np.float64), f.values.copy()
    # Equal-count bins spread like linspace edges: sizes differ by at most one,
    # so each of the (at most two) sizes is one gathered matrix and one median.
    edges = np.linspace(0, n, n_bins + 1).astype(np.int64)
    sizes = np.diff(edges)
    vals = np.empty(n_bins)
    for size in np.unique(sizes):
        rows = np.flatnonzero(sizes == size)
        # gathered a few rows at a time: the whole matrix (and its index) is 2n numbers
        per = max(1, _GATHER // int(size))
        for r in range(0, rows.size, per):
            rr = rows[r : r + per]
            vals[rr] = np.median(f.values[edges[rr, None] + np.arange(size)], axis=1)
    st = f.steps[(edges[:-1] + edges[1:]) // 2].astype(np.float64)
    return st, vals


# Above this many points an exact centred rolling median (n x window) is
# replaced by block medians interpolated back to every point: as robust, O(n).
_EXACT_MAX = 20_000
# Robust scales of long series are estimated on a strided subsample this big.
_SCALE_SAMPLE = 100_000
# Points gathered (or interpolated) per numpy call over a long series: bounds the
# temporaries to a few MB where a whole-series call would hold several copies of it.
_GATHER = 1 << 17


def rolling_median(x: np.ndarray, window: int) -> np.ndarray:
    """Centred rolling median (edges use a reflected window); block medians when long."""
    if x.size == 0 or window <= 1:
        return x.copy()
    window = min(window | 1, x.size if x.size % 2 else x.size - 1)
    if window <= 1:
        return x.copy()
    if x.size > _EXACT_MAX:
        return _block_median(x, window)
    half = window // 2
    padded = np.pad(x, half, mode="reflect") if x.size > half else np.pad(x, half, mode="edge")
    view = np.lib.stride_tricks.sliding_window_view(padded, window)
    return np.median(view, axis=1)[: x.size]


def _block_median(x: np.ndarray, window: int) -> np.ndarray:
    n = x.size
    m = n // window
    rows, per = x[: m * window].reshape(m, window), max(1, _GATHER // window)
    blocks = np.empty(m)  # each part's partition is a copy of it: a part at a time
    for a in range(0, m, per):
        blocks[a : a + per] = np.partition(rows[a : a + per], window // 2, axis=1)[:, window // 2]
    centres = np.arange(m) * window + (window - 1) / 2.0
    if n > m * window:
        blocks = np.r_[blocks, np.median(x[m * window :])]
        centres = np.r_[centres, (m * window + n - 1) / 2.0]
    out = np.empty(n)
    for a in range(0, n, _GATHER):
        b = min(n, a + _GATHER)
        out[a:b] = np.interp(np.arange(a, b, dtype=np.float64), centres, blocks)
    return out


@dataclass(frozen=True)
class Trend:
    slope: float  # Theil–Sen slope, value units per step
    z: float  # Mann–Kendall z statistic (>0 rising, <0 falling)
    n: int

    @property
    def rising(self) -> bool:
        return self.z > 2.58  # ~p < 0.01 two-sided

    @property
    def falling(self) -> bool:
        return self.z < -2.58

    @property
    def flat(self) -> bool:
        return abs(self.z) < 1.96


def trend(steps: np.ndarray, values: np.ndarray, max_points: int = 200) -> Trend:
    """Theil–Sen slope and Mann–Kendall z on at most `max_points` (binned) points.

    Mann–Kendall needs no noise model and ignores outliers' magnitudes, which is
    what a saw-tooth loss band needs: "is there any monotone drift at all?".
    """
    steps = np.asarray(steps)
    ok = np.isfinite(values)
    n_ok = int(ok.sum())
    if n_ok > max_points and steps.dtype == np.int64:  # long: binned, without float copies
        every = n_ok == ok.size
        s = Series.from_arrays("t", steps if every else steps[ok], values if every else values[ok])
        x, y = bins(s, max_points)
    else:
        x, y = np.asarray(steps, np.float64)[ok], np.asarray(values, np.float64)[ok]
        if x.size > max_points:
            s = Series.from_arrays("t", x.astype(np.int64), y)
            x, y = bins(s, max_points)
    n = x.size
    if n < 4:
        return Trend(0.0, 0.0, n)
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    iu = np.triu_indices(n, 1)
    dxu, dyu = dx[iu], dy[iu]
    good = dxu != 0
    slope = float(np.median(dyu[good] / dxu[good])) if good.any() else 0.0
    s = float(np.sign(dyu).sum())
    var = n * (n - 1) * (2 * n + 5) / 18.0
    z = 0.0 if s == 0 else (s - math.copysign(1, s)) / math.sqrt(var)
    return Trend(slope, z, n)


def quantum(value: float, dtype: str = "bf16") -> float:
    """Spacing of representable numbers near `value` in the given float dtype.

    bf16 keeps 8 significant bits: between 8 and 16 the step is 0.0625, which is
    why ln(50257) = 10.8249 is logged as 10.8125.
    """
    bits = {"bf16": 8, "fp16": 11, "fp32": 24}[dtype]
    if value == 0 or not math.isfinite(value):
        return 0.0
    return 2.0 ** (math.floor(math.log2(abs(value))) - (bits - 1))


def head(values: np.ndarray, frac: float = 0.1, min_n: int = 3) -> np.ndarray:
    n = max(min_n, int(values.size * frac))
    return values[:n]


def tail(values: np.ndarray, frac: float = 0.1, min_n: int = 3) -> np.ndarray:
    n = max(min_n, int(values.size * frac))
    return values[-n:]


def printed_decimals(y: np.ndarray, most: int) -> int | None:
    """The fewest decimals (0..`most`) that print every finite value of `y` exactly: the
    precision its logger prints (Lightning's progress bar formats 3, HF's dicts round to
    4 and drop trailing zeros, so a series of them shows 4 somewhere); None when finer."""
    v = y[np.isfinite(y)]
    if not v.size:
        return None
    v = np.unique(v)
    for d in range(most + 1):
        scaled = v * 10.0**d
        if bool(
            np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled)))
        ):
            return d
    return None


def fmt(x: float, digits: int = 4) -> str:
    """Numbers for titles: 4 significant digits, scientific when tiny or huge.

    Here, at the bottom, rather than in report/: rules write numbers into their
    titles and rules sit below report/, so both import it from measure/ and a
    number reads the same in a finding's title and in a rendered table.
    """
    if x is None or not math.isfinite(x):
        return str(x)
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        return f"{x:.{max(digits - 2, 1)}e}"
    return f"{x:.{digits}g}"


def lr_fraction(run: Run, start: float, end: float) -> float | None:
    """Median logged LR over [start, end] as a fraction of the peak LR; None if unknown."""
    lr = run.get("lr")
    if lr is None:
        return None
    f = lr.finite()
    if len(f) == 0:
        return None
    peak = float(np.max(f.values))
    if peak <= 0:
        return 0.0
    sel = f.values[(f.steps >= start) & (f.steps <= end)]
    if sel.size == 0:
        # No LR logged in the window: the latest value before it, if any.
        before = f.values[f.steps <= end]
        if before.size == 0:
            return None
        sel = before[-1:]
    return float(np.median(sel)) / peak
