"""The tests overfitting's curve reading applies to an eval curve after its minimum and to
the train loss over the same span: a confirmed rise, a climb, a smooth turn, an upward
trend, a fall back, a sparse train fall, and the small value helpers they need (the
printed quantum, a rescored eval dropped, the end of the first epoch)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import rolling_median, trend
from traindoc.model import Run, Series
from traindoc.rules.loss._evalcurve import noise, tail_level

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


def _quantum(values: np.ndarray) -> float:
    """The last printed digit the logged values share (0.0016, 0.0017 -> 0.0001); 0 when they
    carry full float precision (12+ decimals) or are not finite."""
    v = values[np.isfinite(values)]
    if not v.size:
        return 0.0
    for digits in range(13):
        q = 10.0**-digits
        if bool(np.all(np.abs(v / q - np.round(v / q)) < 1e-6)):
            return q
    return 0.0


def _without_rescore(ev: Series) -> Series:
    """The evals less a last one that jumps back to, to every digit, the best of the
    evals before it, after a worse one: the best checkpoint scored again at the end
    (load_best_model_at_end, a final test of the saved model), not a point of the curve."""
    v = ev.values
    if v.size < 4:
        return ev
    best = int(np.argmin(v[:-1]))
    if v[-1] != v[best] or not v[-2] > v[best]:  # (a stall repeats its value at each eval)
        return ev
    return Series(ev.name, ev.steps[:-1], v[:-1], None, ev.source)


def _train_worse_than_before(tr: Series, onset: int, t_end: float, p: Params) -> bool:
    """The train loss ends `train_worse` x above its best (5-point median) up to the onset,
    by 5%+ of what it had learned (a loss near 0 wobbles by large ratios of nothing)."""
    f = tr.finite()
    before = f.values[f.steps <= onset]
    if before.size < 5 or not math.isfinite(t_end):
        return False
    best = float(rolling_median(before, 5).min())
    learned = float(np.median(before[:3])) - best
    return best > 0 and t_end >= p.train_worse * best and t_end - best >= 0.05 * learned


def _sparse_fall(tr: Series, onset: int, p: Params) -> tuple[float, float, float, bool]:
    """(level at onset, at the end, relative drop, fell at each) of a train loss with a few
    logs since the onset (one per epoch): lower at each of them is its whole trend. A value
    repeated to every digit one step later is one measurement printed twice (Keras's
    progress line at step N-1, then its epoch line at N), counted once; a value a card
    repeats at each eval (a stale log) is not, so it is no fall."""
    f = tr.finite().after(onset)
    y = f.values
    if y.size:
        y = y[np.r_[True, (np.diff(y) != 0) | (np.diff(f.steps) > 1)]]
    if y.size < p.sparse_train_points:
        return math.nan, math.nan, math.nan, False
    a, b = float(y[0]), float(y[-1])
    return a, b, (a - b) / abs(a) if a else 0.0, bool(np.all(np.diff(y) < 0))


def _past_one_epoch(run: Run, ep: Series | None) -> bool:
    """The run went over its data more than once: a logged epoch past 1, or a planned
    number of epochs above 1."""
    if ep is not None and len(ep.finite()) and float(np.nanmax(ep.finite().values)) > 1.0:
        return True
    planned = run.fact("num_train_epochs")
    return isinstance(planned, (int, float)) and planned > 1


def _turned(
    e: np.ndarray, i_min: int, rise: float, sigma: float, tr: Series, onset: int, p: Params
) -> bool:
    """The eval curve turned at its minimum: every eval since is above the one before
    (3+), the rise is >= 10 noise sigmas, and the train loss fell at each of its 3+
    logs since the onset (the gap opened at every point)."""
    after = e[i_min:]
    if after.size - 1 < p.min_after_points or sigma <= 0:
        return False
    if not bool(np.all(np.diff(after) > 0)):
        return False
    if rise < p.turn_k_noise * sigma:
        return False
    y = tr.finite().after(onset).values
    return y.size >= p.sparse_train_points and bool(np.all(np.diff(y) < 0))


def _cost_from_best(e: np.ndarray, i_best: int) -> float:
    """How far the tail of the evals after the best one (the lowest raw eval, the
    checkpoint load_best_model_at_end keeps) sits above it, relative; 0 when the best is
    the last eval."""
    best = float(e[i_best])
    if i_best >= e.size - 1 or not best:
        return 0.0
    return (tail_level(e[i_best + 1 :]) - best) / abs(best)


def _confirmed(st: np.ndarray, e: np.ndarray, p: Params) -> bool:
    """The evals from the lowest one (the best checkpoint, raw) on confirm a rise: each
    above the one before, all of them `clear_rise_rel` above it, or an upward trend
    (Mann-Kendall z >= `confirm_z`, the lowest eval included)."""
    i_min = int(np.argmin(e))
    low = float(e[i_min])
    after = e[i_min + 1 :]
    if not after.size:
        return False
    if bool(np.all(np.diff(e[i_min:]) > 0)):
        return True
    if low > 0 and bool(np.all(after >= (1 + p.clear_rise_rel) * low)):
        return True
    return trend(st[i_min:], e[i_min:]).z >= p.confirm_z


def _risen_from_best(
    e: np.ndarray, es: np.ndarray, i_min: int, sigma: float, p: Params
) -> tuple[int, float, float] | None:
    """(index, value, tail level) of the lowest raw eval when the tail of the evals after it
    sits `large_rise_rel` and `k_noise` sigmas (of the evals from it on) above it, over
    3+ evals, and the smoothed
    tail is above the smoothed minimum by `min_rise_rel` too: a rise from the best
    checkpoint that a rolling median's lifted minimum hid."""
    i_best = int(np.argmin(e))
    best = float(e[i_best])
    if e.size - 1 - i_best < p.min_after_points or best <= 0:
        return None
    tail = tail_level(e[i_best + 1 :])
    # the noise of the stretch judged (5+ evals from the best on), not of the learning
    # drop before it, whose steep bends inflate second differences
    if e.size - i_best >= 5:
        sigma = noise(e[i_best:])
    if tail - best < max(p.large_rise_rel * best, p.k_noise * sigma):
        return None
    if tail_level(es[i_min + 1 :]) < (1 + p.min_rise_rel) * float(es[i_min]):
        return None
    return i_best, best, tail


def _climbs(e: np.ndarray, p: Params) -> bool:
    """Each of the 3+ evals since the lowest one (raw) above the one before, the last
    `clear_rise_rel` above it: the curve turned and climbed at every eval since, by an
    effect no eval noise explains (what EarlyStopping(patience=3) stops on)."""
    i = int(np.argmin(e))
    best = float(e[i])
    if e.size - 1 - i < p.min_after_points or best <= 0:
        return False
    return bool(np.all(np.diff(e[i:]) > 0)) and float(e[-1]) >= (1 + p.clear_rise_rel) * best


def _trends_up(st: np.ndarray, e: np.ndarray, i_min: int, rel_rise: float, p: Params) -> bool:
    """8+ evals after the minimum trend up (Mann-Kendall on them, the minimum left out)
    and their tail sits 10%+ above it: a rise read from all of them, not from one eval
    against the noise of one eval."""
    after = e[i_min + 1 :]
    if after.size < p.eval_only_trend_points or rel_rise < p.clear_rise_rel:
        return False
    return trend(st[i_min + 1 :], after).z >= -p.train_z


def _falls_back(st: np.ndarray, e: np.ndarray, i_min: int, p: Params) -> bool:
    """8+ evals after the minimum trend down (Mann-Kendall on them, the minimum left out):
    the eval loss is returning towards its minimum, not rising away from it."""
    after = e[i_min + 1 :]
    if after.size < p.eval_only_trend_points:
        return False
    return trend(st[i_min + 1 :], after).z <= p.falling_back_z


def _falls_each(loss: Series, onset: int, p: Params) -> bool:
    """The train loss is lower at every log since the onset, over enough logs."""
    y = loss.finite().after(onset).values
    return y.size >= p.falls_each_points and bool(np.all(np.diff(y) < 0))
