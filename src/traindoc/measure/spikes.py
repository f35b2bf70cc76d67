"""The spike detectors, in one place: `loss_spikes` (what loss-spike reports and
warmup-too-short counts as an unstable start) and `spike_events` (the starts of
spiky runs that lr-too-high and warmup-too-short count), so the rules agree on what
a spike is. Gradient-norm spikes are measure.grads'.

A spike is a short excursion (at most `max_len` logged points) at least `k_sigma`
robust sigmas and `min_rel` above the local level (a centred rolling median) that
comes back. The sigma is the noise AROUND the point (`measure.noise.local_scale`: the
rolling MAD of the residuals over 2% of the run, 101 points at least), not one figure
for the whole curve: a point is a spike when it stands apart from the noise of its
own neighbourhood, and the same curve shape gives the same verdict at 300, 3,000 or
100,000 points. A per-batch loss's noise scales with its level: against the whole
curve's noise the ordinary batches of a high, noisy start were "spikes" (52 of them
on a 100k-point 10 -> 1 curve with 10% batch noise), and a late spike on the quiet
end was measured against the start's noise. A spike must also clear the median of
the `side` points on *both* sides, so a step change, an epoch staircase or a jump
that stays is not one.

Short is relative to the run when `return_share` is given: the excursion, up and back
down, may then span up to that share of the logged points (at least `max_len`, at most
half the rolling window, so the local level still sees it as an excursion). A loss
that jumps and decays back over a few logs (a bad step at a high LR, then a few
hundred steps to repair it) is measured against the `side` points from where its
tail is back within `k_sigma` of the local level, not the very next points (which
are still on the way down). A lone point whose next log is already back is judged
exactly as without it.

More candidate points than `max_share` of the curve (+1) are the top of a heavy-tailed
noise, not spikes, unless they are few (`few`, 3) and each rises `few_apart` (2x) as far
above the local level as any other point past the warmup: a share of 2% cannot be
estimated under 100 points, where it would take any 2-3 clear spikes for a heavy tail.

Each spike also carries how far it stands apart from the log's own noise tail (`apart`:
its rise above the local level over the largest rise of any ordinary point past the
warmup), so a rule can tell an outlier from the top of a continuous heavy tail.

`confirmed_excursions` is the sparse-log test (a per-epoch table, a model card's eval
rows: at most 100 points), where the rolling level's heavy-tail guard (2% of the points
+ 1) drops any episode longer than one row: 2+ consecutive points each 2x the level
before them and 6 point-to-point noise sigmas above it, kept only when a second signal
(eval loss, held-out task metric, grad norm) is as clearly worse at the same points.
`loss-spike` reports the ones that come back. An excursion that lasts to the end of the
log is not reported as `divergence` yet: on the real runs that added no recall and one
unexpected finding on a faulty run (helper div8), so it is left for a later look.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.noise import local_scale
from traindoc.measure.stats import diff_mad, rolling_median
from traindoc.model import Run, Series

# Past this many points the local level is block medians interpolated back (O(n)).
_ROLLING_MAX = 20_000
# Points per numpy call on a long curve: its temporaries stay a few MB.
_PART = 1 << 17


@dataclass(frozen=True)
class Spike:
    index: int  # the peak's position in the finite series
    step: int
    peak: float
    ref: float  # the level it rose from and came back to (the higher side median)
    rel: float  # (peak - ref) / ref
    length: int  # logged points above the level
    # its rise (peak - ref) as a share of what the run learned (first level minus lowest)
    learned: float = math.inf
    # its rise above the local level over the largest rise of any ordinary point (past
    # the warmup, not a candidate, not beside one): how far it stands apart from the
    # log's own noise tail (inf when no ordinary point rises above the level)
    apart: float = math.inf

    def lone(self, big: float = 4.0, share: float = 0.25) -> bool:
        """One logged point, under `big` x the level above it, or rising under `share`
        of what the run learned: a bad batch, gone at the next log (per-batch losses of
        small or variable batches do that; near 0, one misclassified sample in a batch
        makes 0.008 -> 0.25, 30x, a tenth of what an MNIST run learned)."""
        return self.length == 1 and (self.rel < big or self.learned < share)


def baseline(values: np.ndarray, window: int = 25) -> np.ndarray:
    """Local level of a curve: centred rolling median, or block medians for huge series.

    The rolling median costs n * window; past 20k points, medians of consecutive
    blocks interpolated back onto every point give the same level in O(n).
    """
    n = values.size
    if n <= _ROLLING_MAX:
        return rolling_median(values, window)
    m = n // window
    rows = values[: m * window].reshape(m, window)
    per = max(1, _PART // window)  # a part at a time: np.median copies what it is given
    blocks = np.concatenate(
        [np.median(rows[a : a + per], axis=1) for a in range(0, m, per)] or [np.empty(0)]
    )
    centres = np.arange(m) * window + window / 2.0
    out = np.empty(n)
    for a in range(0, n, _PART):
        out[a : a + _PART] = np.interp(np.arange(a, min(n, a + _PART)), centres, blocks)
    return out


def loss_spikes(
    f: Series,
    *,
    window: int = 25,
    k_sigma: float = 6.0,
    min_rel: float = 0.25,
    side: int = 5,
    max_len: int = 5,
    min_learned: float = 0.05,
    skip_until: float | None = None,
    max_share: float = 0.02,
    max_events: int = 500,
    return_share: float = 0.0,
    huge: float = 0.0,
    huge_count: int = 2,
    few: int = 3,
    few_apart: float = 2.0,
) -> list[Spike] | None:
    """The spikes of a finite loss series, largest first; None when there are more
    spike points than `max_share` of the curve (heavy-tailed noise, not spikes).

    With `huge` > 0, a curve over that share still keeps its candidates at `huge` x
    the local level or more when there are at most `huge_count` of them: one or two
    batches 10x above the level are events, not the tail of the batch noise (on a
    22-point TF log, 11.8 and 3417 among 0.1-0.8 are two spike points, past the 2%
    share of so short a log); a loss whose batches routinely swing 10x (a CRF
    likelihood summed over sentences of any length: 5-16 such points in 200) stays
    heavy-tailed noise. Relative blips near a loss solved to ~0 still fall to the
    `min_learned` floor.

    A spike must also be `min_learned` of what the run learned (first level minus
    its lowest): relative blips on a loss solved to ~0 are noise. Points at or before
    `skip_until` (the warmup) are not candidates. With `return_share` > 0 an excursion
    may take up to that share of the points (see the module docstring) to rise and
    come back: the level after it is the median of the `side` points from where its
    tail is back within `k_sigma` of the local level (if that is within the span).
    """
    y = f.values
    n = y.size
    base = baseline(y, window)
    resid = y - base
    scale = local_scale(resid, base)  # the noise around each point (measure.noise)
    head = max(float(np.median(y[:3])), float(np.median(y[: max(3, n // 20)])))
    learned = max(head - float(base.min()), 0.0)
    min_abs = min_learned * learned
    cand = np.empty(n, bool)  # a part at a time: min_rel * |base| is a series-long float
    for a in range(0, n, _PART):
        r, b, sc = resid[a : a + _PART], base[a : a + _PART], scale[a : a + _PART]
        cand[a : a + _PART] = (r > k_sigma * sc) & (r > min_rel * np.abs(b)) & (r > min_abs)
    if skip_until is not None:
        cand &= f.steps > skip_until
    idx = np.flatnonzero(cand)
    later = f.steps > skip_until if skip_until is not None else None
    if idx.size > max_share * n + 1 and not _few_apart(resid, cand, later, side, few, few_apart):
        if huge <= 0:
            return None
        cand &= y >= huge * np.abs(base)
        idx = np.flatnonzero(cand)
        if idx.size == 0 or idx.size > huge_count:
            return None  # none, or a loss whose batches routinely swing 10x
    if idx.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)  # consecutive candidates are one event
    first = np.r_[idx[0], idx[breaks + 1]]
    last = np.r_[idx[breaks], idx[-1]]
    # points an excursion may span, up and back (max_len unless relative to the run)
    span = max(max_len, min(window // 2, round(return_share * n))) if return_share > 0 else max_len
    tail = _ordinary_tail(resid, cand, first, last, side, later)
    out = []
    for e in np.argsort(-resid[first])[:max_events]:
        a, b = int(first[e]), int(last[e])
        if b - a + 1 > span or a < side or b + side >= n:
            continue
        peak = float(y[a : b + 1].max())
        # the level it came back to: the next `side` points, or (relative span) the
        # `side` points from where its tail is back within k_sigma of the local level,
        # if that is within what is left of the span (a decaying return)
        extra = min(span - (b - a + 1), n - side - (b + 1)) if return_share > 0 else 0
        back = b + 1
        while back < b + 1 + extra and resid[back] > k_sigma * scale[back]:
            back += 1
        after = float(np.median(y[back : back + side]))
        ref = max(float(np.median(y[a - side : a])), after)
        rel = (peak - ref) / max(abs(ref), 1e-12)
        if rel >= min_rel and peak - ref >= max(k_sigma * scale[a], min_abs):
            i = a + int(np.argmax(y[a : b + 1]))
            share = (peak - ref) / learned if learned > 0 else math.inf
            apart = float(resid[i]) / tail if tail > 0 else math.inf
            out.append(Spike(i, int(f.steps[i]), peak, ref, rel, b - a + 1, share, apart))
    return sorted(out, key=lambda s: -s.rel)


def recurring(
    steps: np.ndarray,
    interval: float,
    *,
    min_count: int = 4,
    min_points: int = 10,
    tol_points: float = 1.5,
    tol_share: float = 0.03,
    min_hit_share: float = 0.5,
) -> float | None:
    """The period (in steps) at which these spike steps recur, or None when they do not
    keep one timetable.

    They recur when there are `min_count`+ of them, every gap between consecutive ones
    is a whole multiple of the median gap (within `tol_points` logging intervals or
    `tol_share` of it, whichever is larger), that period spans `min_points`+ logged
    points (an epoch, not a noisy stretch), and the spikes fill at least `min_hit_share`
    of the periods between the first and the last (3 spikes a few periods apart by
    chance are not a timetable). Optimizer overshoots happen when a bad step happens;
    spikes on a clock are the log's epoch structure (the first batches of each epoch,
    a running mean that restarts, the same hard samples at the same place in an
    unshuffled order).
    """
    s = np.unique(np.asarray(steps, dtype=np.float64))
    if s.size < min_count or not interval > 0:
        return None
    gaps = np.diff(s)
    period = float(np.median(gaps))
    if period < min_points * interval:
        return None
    tol = max(tol_points * interval, tol_share * period)
    k = np.maximum(np.round(gaps / period), 1.0)
    if np.any(np.abs(gaps - k * period) > tol):
        return None
    if (s.size - 1) < min_hit_share * float(k.sum()):
        return None
    return period


def _few_apart(
    resid: np.ndarray,
    cand: np.ndarray,
    past_warmup: np.ndarray | None,
    side: int,
    few: int,
    factor: float,
) -> bool:
    """At most `few` candidate points past the first `side` (before them a falling head
    sits above a rolling level as wide as a short log, and no spike is judged there),
    each rising `factor`x or more above the highest ordinary point past the warmup:
    outliers standing clear of the log, not the top of a continuous heavy tail. The share
    guard cannot tell the two apart under 100 points (2% of a 30-point log is 0.6 of a
    point, so any 2-3 real spikes exceed it); this can."""
    idx = np.flatnonzero(cand)
    idx = idx[idx >= side]
    keep = ~cand if past_warmup is None else past_warmup & ~cand
    if not 0 < idx.size <= few or not keep.any():
        return False
    top = max(float(resid[keep].max()), 0.0)
    return bool((resid[idx] >= factor * top).all())


def _ordinary_tail(
    resid: np.ndarray,
    cand: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    side: int,
    past_warmup: np.ndarray | None,
) -> float:
    """The largest rise above the local level of an ordinary point: past the warmup,
    not a spike candidate and not within `side` points of a candidate stretch (a
    spike's own run-up and decay are not the log's noise)."""
    keep = ~cand if past_warmup is None else past_warmup & ~cand
    edge = np.zeros(resid.size + 1, np.int64)  # +1 / -1 marks around each stretch
    np.add.at(edge, np.maximum(first - side, 0), 1)
    np.add.at(edge, np.minimum(last + side + 1, resid.size), -1)
    keep &= np.cumsum(edge[:-1]) == 0
    return float(resid[keep].max()) if keep.any() else 0.0


def highest_ordinary(
    y: np.ndarray,
    level: np.ndarray | float,
    peaks: np.ndarray | list[int],
    *,
    factor: float = 3.0,
    few: int = 2,
) -> np.ndarray:
    """For each index in `peaks`, the highest point of `y` other than that one which
    belongs to the log's own noise: what the lone-point tail test sets a spike against
    (a lone point under 2x it is the top of the log's batch noise, not an event).

    A point `factor` x its level (`level`: the log's robust level, one figure or one
    per point) or more is spike-sized. When the log has at most `few` of them, the
    point judged included, they are events, not a tail, and another spike does not
    make this one ordinary: a paste logging 2.7e10 and 6.9e9 between losses of 2-5
    has two overshoots, and under 2x the 2.7e10 the 6.9e9 would pass for noise. With
    more, spike-sized points are the top of the log's heavy tail (the per-step
    batches of a solved classifier reaching 0.1-0.15 among 0.01s) and count like any
    other point. 0 where no other point is left.
    """
    lv = np.broadcast_to(np.asarray(level, dtype=np.float64), y.shape)
    sized = (lv > 0) & (y >= factor * lv)
    pool = np.flatnonzero(~sized) if int(sized.sum()) <= few else np.arange(y.size)
    idx = np.asarray(peaks, dtype=np.int64)
    if pool.size == 0:
        return np.zeros(idx.size)
    # the highest of the pool, and for a peak that is that point itself the next
    # highest (one pass over the log however many peaks are asked about)
    vals = y[pool]
    k = int(np.argmax(vals))
    second = float(np.delete(vals, k).max()) if vals.size > 1 else 0.0
    return np.where(idx == pool[k], second, float(vals[k]))


def spike_events(
    values: np.ndarray, k: float = 6.0, min_rel: float = 0.25, min_abs: float = 0.0
) -> np.ndarray:
    """Indices where a run of spiky points starts (values must be finite): what the
    cause rules (lr-too-high, warmup-too-short) count as instability.

    A spike is k robust sigmas, `min_rel` of the local median and `min_abs` above it;
    unlike `loss_spikes` it need not come back (a run of them counts once).
    """
    n = values.size
    if n < 8:
        return np.empty(0, np.int64)
    if n <= _ROLLING_MAX:
        base = rolling_median(values, 25)
        x = values
    else:
        b = -(-n // _ROLLING_MAX)
        m = n // b
        x = values[: m * b]
        # Baseline from <= 8 points per block: a rolling median over 25 blocks of
        # those is as robust, at a fraction of a full per-block median.
        cols = x.reshape(m, b)[:, :: max(1, b // 8)]
        base = np.repeat(rolling_median(np.median(cols, axis=1), 25), b)
    resid = x - base
    scale = local_scale(resid, base)  # the noise around each point (measure.noise)
    hit = np.empty(resid.size, bool)  # a part at a time: min_rel * |base| is series-long
    for a in range(0, resid.size, _PART):
        r, bs, sc = resid[a : a + _PART], base[a : a + _PART], scale[a : a + _PART]
        hit[a : a + _PART] = (r > k * sc) & (r > min_rel * np.abs(bs)) & (r > min_abs)
    idx = np.flatnonzero(hit)
    if idx.size == 0:
        return idx
    return idx[np.r_[True, np.diff(idx) > 1]]


@dataclass(frozen=True)
class Excursion:
    """A stretch of 2+ consecutive logged points far above the loss's level before it,
    with a second signal worse at the same points (see `confirmed_excursions`)."""

    start: int  # index of its first point in the finite series
    end: int  # index of its last point
    step: int
    end_step: int
    level: float  # the median of the `before` points ahead of it
    peak: float
    recovered: bool  # a later point is back under the excursion's threshold
    confirmed_by: str  # the series that was worse at the same points
    confirm_ref: float  # that series' level before the excursion ...
    confirm_value: float  # ... and its worst value inside it


def confirmers(run: Run) -> list[tuple[Series, bool]]:
    """The second signals an excursion of the train loss can be confirmed by, with their
    direction (True: higher is better): the eval loss, the held-out task metrics
    (accuracy, F1, WER, ...) and the grad norm."""
    out: list[tuple[Series, bool]] = []
    if (ev := run.get("eval_loss")) is not None:
        out.append((ev, False))
    out.extend(task_metrics(run))
    if (gn := run.get("grad_norm")) is not None:
        out.append((gn, False))
    return out


def confirmed_excursions(
    f: Series,
    confirm: list[tuple[Series, bool]],
    *,
    factor: float = 2.0,
    k_sigma: float = 6.0,
    before: int = 3,
    min_len: int = 2,
    max_points: int = 100,
) -> list[Excursion]:
    """Multi-point excursions of a sparse loss (at most `max_points` logged points: a
    per-epoch table, a model card's eval rows) that a second signal confirms.

    Each point of an excursion is at least `factor` x the level before it (the median
    of the `before` points ahead of its first point) and `k_sigma` point-to-point noise
    sigmas above it (`diff_mad` / sqrt 2 of the whole curve); it lasts `min_len`+
    consecutive points. It is kept only when another series at the same steps (the
    first to the last point of it) is as clearly worse against its own level before
    it: a lower-is-better one (eval loss, grad norm, WER) `factor` x its level and
    `k_sigma` of its own noise above it, a higher-is-better one (accuracy, F1) under
    1/`factor` of its level and `k_sigma` below it. A sparse log's point-to-point noise
    makes the rolling-level test's heavy-tail guard drop a 3-point episode; two curves
    leaving their levels together at the same points is not noise.
    """
    y = f.values
    n = y.size
    if n < before + min_len or n > max_points:
        return []
    s = diff_mad(y) / math.sqrt(2.0)
    s = s if math.isfinite(s) else 0.0
    out: list[Excursion] = []
    i = before
    while i < n:
        level = float(np.median(y[i - before : i]))
        if not _above(y[i], level, factor, k_sigma * s):
            i += 1
            continue
        j = i
        while j + 1 < n and _above(y[j + 1], level, factor, k_sigma * s):
            j += 1
        if j - i + 1 >= min_len:
            lo, hi = f.steps[i], f.steps[j]
            for c, higher in confirm:
                got = _confirms(c.finite(), lo, hi, higher, factor, k_sigma, before)
                if got is not None:
                    out.append(
                        Excursion(
                            i,
                            j,
                            int(lo),
                            int(hi),
                            level,
                            float(y[i : j + 1].max()),
                            j + 1 < n,
                            c.name,
                            *got,
                        )
                    )
                    break
        i = j + 1
    return out


def _above(v: float, level: float, factor: float, margin: float) -> bool:
    return level > 0 and v >= factor * level and v - level >= margin


def _confirms(
    c: Series, lo: float, hi: float, higher: bool, factor: float, k_sigma: float, before: int
) -> tuple[float, float] | None:
    """(its level before, its worst inside) when series `c` is clearly worse at the
    steps lo..hi than the median of its `before` points ahead of lo, else None."""
    inside = (c.steps >= lo) & (c.steps <= hi)
    prior = c.values[c.steps < lo]
    if not inside.any() or prior.size < before:
        return None
    ref = float(np.median(prior[-before:]))
    sc = diff_mad(prior) / math.sqrt(2.0) if prior.size > 2 else 0.0
    sc = sc if math.isfinite(sc) else 0.0
    vals = c.values[inside]
    if higher:
        worst = float(vals.min())
        ok = ref > 0 and worst <= ref / factor and ref - worst >= k_sigma * sc
    else:
        worst = float(vals.max())
        ok = _above(worst, ref, factor, k_sigma * sc)
    return (ref, worst) if ok else None
