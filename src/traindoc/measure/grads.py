"""Gradient-norm spikes and whether the loss followed them: one detector for the
grads rules (grad-spike) and the numerics rules (fp16-instability,
precision-suboptimal), so they agree on what a spike is.

Gradient norms are multiplicative quantities (a spike is "20x", not "+19"), so
everything here works on log grad norm. That is already noise relative to the level
(the local-noise statement of `measure.noise`): a norm that falls 3.0 -> 1.0 keeps
one log spread, so the whole log's sigma is each point's. A rolling local sigma of
101 points was tried and made borderline 4.5-5x spikes come and go with its own
sampling noise (the corpus grad-spike run lost its followed spike; two runs gained
grad-spike findings): the log's one sigma is kept. Long logs are reduced with block
medians, so a million points cost a few reshapes, never a Python loop.
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from traindoc.measure.stats import mad, rolling_median
from traindoc.model import Series

T = TypeVar("T")

# Results per Series object, so the several rules that ask for the same spikes
# of the same grad norm compute them once. Keyed weakly: it dies with the Run.
_memo: weakref.WeakKeyDictionary[Series, dict] = weakref.WeakKeyDictionary()


def _cached(s: Series, key: tuple, make: Callable[[], T]) -> T:
    slot = _memo.setdefault(s, {})
    if key not in slot:
        slot[key] = make()
    return slot[key]


def positive(gn: Series) -> Series:
    """Finite, strictly positive grad norms: the ones a log can be taken of."""
    f = gn.finite()
    ok = f.values > 0
    if ok.all():
        return f
    return Series(f.name, f.steps[ok], f.values[ok], None, f.source)


@dataclass(frozen=True)
class Spikes:
    steps: np.ndarray  # step of each spike
    values: np.ndarray  # grad norm at the spike
    ratio: np.ndarray  # grad norm / local median
    n_points: int  # points that were eligible to spike
    sigma: float  # robust sigma of log grad norm around its local median


def grad_spikes(
    gn: Series, window: int = 25, k: float = 6.0, min_ratio: float = 5.0, head: int = 3
) -> Spikes:
    """Points whose log grad norm is k robust sigmas AND min_ratio x above the local median.

    The first `head` points (at least 1% of the log) are never candidates: the
    grad norm at initialisation is routinely several times its later level.
    """
    key = ("spikes", window, k, min_ratio, head)
    return _cached(gn, key, lambda: _grad_spikes(gn, window, k, min_ratio, head))


def _grad_spikes(gn: Series, window: int, k: float, min_ratio: float, head: int) -> Spikes:
    g = positive(gn)
    empty = Spikes(np.empty(0, np.int64), np.empty(0), np.empty(0), 0, math.nan)
    if len(g) < SHORT_POINTS:
        return _short_spikes(g, empty)
    resid = np.log(g.values)
    base = rolling_median(resid, window)
    resid -= base  # y - base, in the log's own array: one series-long array, not three
    del base
    skip = max(head, g.values.size // 100)
    sigma = mad(resid[skip:])
    if not math.isfinite(sigma):
        sigma = 0.0
    thr = max(k * sigma, math.log(min_ratio))
    hit = np.flatnonzero(resid > thr)
    hit = hit[hit >= skip]
    return Spikes(g.steps[hit], g.values[hit], np.exp(resid[hit]), g.values.size - skip, sigma)


# In a paste too short for a rolling baseline (3-11 points), only a norm 100x the
# median of the others is a spike: no healthy log varies that much step to step.
SHORT_RATIO = 100.0
# Fewer norms than this have no rolling baseline: the short-paste test judges them.
SHORT_POINTS = 12


def _short_spikes(g: Series, empty: Spikes) -> Spikes:
    """Spikes of a 3-11 point log: norms >= 100x the median of the other points."""
    v = g.values
    if v.size < 3:
        return empty
    others = np.array([np.median(np.delete(v, i)) for i in range(v.size)])
    ratio = v / others
    hit = np.flatnonzero(ratio >= SHORT_RATIO)
    sigma = float(np.std(np.log(v)))
    return Spikes(g.steps[hit], v[hit], ratio[hit], v.size, sigma)


def _noise(loss: Series) -> float:
    """Robust sigma of the loss around its local median (its step-to-step noise).

    Whole-log, not `measure.noise`'s local sigma: near a loss solved to ~0 the local
    sigma is next to nothing, and a 0.001 -> 0.004 wobble would "follow" a spike (on
    a ViT fine-tune every late grad-norm spike did); the whole log's noise is the
    absolute floor a followed rise must clear."""
    f = loss.finite()
    # the local level follows the curve: 25 logs, or a fifth of a log under 50 (5 at
    # least), where 25 is half of it or more: a 30-line paste still falling steeply has
    # no flat stretch of 25, and a 25-log median over most of its descent would count
    # the descent itself as noise
    window = 25 if len(f) >= 50 else max(5, len(f) // 5)
    noise = mad(f.values - rolling_median(f.values, window)) if len(f) >= 8 else 0.0
    return noise if math.isfinite(noise) else 0.0


@dataclass(frozen=True)
class LossResponse:
    followed: np.ndarray  # bool per queried step: the loss rose (or went non-finite) right after
    before: np.ndarray  # trailing median loss just before each step (NaN if unknown)
    after: np.ndarray  # highest loss logged at/just after each step
    settled: np.ndarray  # median loss a little later (did it come back?)


def loss_response(
    loss: Series, steps: np.ndarray, ahead: int = 3, back: int = 10, k: float = 4.0
) -> LossResponse:
    """Did the loss follow an event at each of `steps`? Vectorised over the steps.

    "Followed" means: within the next `ahead` logged losses (the one at the step
    included, since a logged loss averages the steps up to it) the loss is
    non-finite or rises above the median of the `back` losses before it (a fifth of a
    log shorter than 5 * `back`, 3 at least) by more than k robust sigmas of the loss's
    own noise and 3% of its level.
    """
    n = len(loss)
    q = steps.size
    nan = np.full(q, np.nan)
    if n < 4 or q == 0:
        return LossResponse(np.zeros(q, bool), nan, nan, nan)
    v = loss.values
    fin = np.isfinite(v)
    vf = np.where(fin, v, np.nan)
    noise = _cached(loss, ("noise",), lambda: _noise(loss))
    # the level before is local, as the noise's is: a fifth of a short log at most (3
    # logs at least); 10 logs of a 12-line paste still falling steeply sit far above
    # where the loss was when the event came
    back = min(back, max(3, n // 5))
    i = np.searchsorted(loss.steps, steps, side="left")
    # Trailing window [i - back, i) and leading window [i, i + ahead).
    bidx = np.clip(i[:, None] - back + np.arange(back)[None, :], -1, n - 1)
    bvals = np.where(bidx >= 0, vf[np.maximum(bidx, 0)], np.nan)
    bvals = np.where(bidx < i[:, None], bvals, np.nan)
    aidx = i[:, None] + np.arange(ahead)[None, :]
    inside = aidx < n
    aidx = np.minimum(aidx, n - 1)
    avals = np.where(inside, v[aidx], np.nan)
    bad = (inside & ~np.isfinite(avals)).any(axis=1)
    sidx = np.minimum(i[:, None] + ahead + np.arange(back)[None, :], n - 1)
    svals = np.where(i[:, None] + ahead + np.arange(back)[None, :] < n, vf[sidx], np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows mean "unknown"
        before = np.nanmedian(bvals, axis=1)
        after = np.nanmax(np.where(np.isfinite(avals), avals, np.nan), axis=1)
        settled = np.nanmedian(svals, axis=1)
    rise = after - before
    thr = np.maximum(k * noise, 0.03 * np.abs(before))
    followed = bad | (np.isfinite(rise) & (rise > thr))
    return LossResponse(followed, before, after, settled)
