"""overfitting's metric-separator readings: what the task metrics logged with the evals say
about an eval-loss rise. A metric that kept improving (or set its best at the last eval)
marks calibration, not overfitting; a metric that fell from its best while the train loss
halved marks a gap the loss alone did not show."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.metrics import headline_metrics
from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Series
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import (
    MetricTrend,
    level_at,
    metric_trends,
    noise,
    smooth,
    tail_level,
    train_change,
)
from traindoc.rules.loss._overfit_rise import _sparse_fall

if TYPE_CHECKING:
    from traindoc.rules.loss.overfitting import Params


def _metric_gap(run: Run, ev: Series, tr: Series, p: Params) -> Iterator[Hit]:
    """The eval loss neither rose nor stalled by its own measure, yet a task metric fell
    from its best while the train loss halved and the eval loss gained under a fifth of
    what the train loss did (relative): the train/eval gap opened and the task got worse."""
    for m, higher in headline_metrics(run):
        mv = m.finite()
        if len(mv) < 4:
            continue
        sm = smooth(mv.values)
        i_best = int(np.argmax(sm) if higher else np.argmin(sm))
        if mv.values.size - 1 - i_best < 2:
            continue
        onset = int(mv.steps[i_best])
        verdict = next(
            (t for t in metric_trends(run, onset, p.metric_gain_rel) if t.name == m.name), None
        )
        if verdict is None or verdict.verdict != "worse":
            continue
        t_on, t_end, t_drop, _ = train_change(tr, onset)
        if not t_drop >= p.train_halved:
            continue
        e_on = level_at(ev, onset, k=1)
        e_end = tail_level(ev.after(onset + 1).values)
        e_gain = (e_on - e_end) / abs(e_on) if e_on else 0.0
        if not e_gain <= p.gap_eval_share * t_drop:
            continue
        yield Hit(
            title=(
                f"{m.name} fell from its best {fmt(verdict.at)} at step {onset} to "
                f"{fmt(verdict.end)} while train loss fell {fmt(t_on)} -> {fmt(t_end)} and "
                f"eval loss only {fmt(e_on)} -> {fmt(e_end)}"
            ),
            step=onset,
            end_step=int(ev.steps[-1]),
            evidence={
                "onset_step": onset,
                "metric": m.name,
                f"{m.name}_at_onset": verdict.at,
                f"{m.name}_last": verdict.end,
                "eval_at_onset": e_on,
                "eval_last": e_end,
                "train_at_onset": t_on,
                "train_last": t_end,
                "train_drop_rel": t_drop,
                "mode": "gap",
            },
            explanation=(
                f"Since step {onset} the train loss fell {t_drop:.0%} ({fmt(t_on)} -> "
                f"{fmt(t_end)}) while the held-out loss barely moved ({fmt(e_on)} -> "
                f"{fmt(e_end)}) and {m.name} got worse than its best: the gap between train "
                "and eval opened and the task suffered - the model fits its training set, "
                "not the task."
            ),
            prescription=(
                f"Keep the checkpoint nearest step {onset} (metric_for_best_model="
                f"'{m.name}'), add early stopping; add regularisation (dropout, weight "
                "decay) or more data."
            ),
        )
        return


def _improved_more(run: Run, onset: int, rel_rise: float, p: Params) -> bool:
    """Most task metrics improved after `onset`, and their median relative error reduction
    beats the eval loss's relative rise (an unbounded higher-is-better metric has no error
    to shrink and counts as not clearly improved)."""
    metrics = {m.name: (m, h) for m, h in headline_metrics(run)}
    trends = metric_trends(run, onset, p.metric_gain_rel)
    if not trends or 2 * sum(t.verdict == "improving" for t in trends) <= len(trends):
        return False
    cuts = [_error_cut(t, *metrics.get(t.name, (None, True))) for t in trends]
    return float(np.median(cuts)) > rel_rise


def _error_cut(t: MetricTrend, m: Series | None, higher: bool) -> float:
    """Relative reduction of a task metric's error from the onset to the end (1 - accuracy,
    the WER itself; a [0, 100] metric read as a percentage); 0 when it did not improve or
    has no error to shrink (an unbounded higher-is-better metric)."""
    vals = m.finite().values if m is not None else np.array([])
    if t.verdict != "improving" or not vals.size or vals.min() < 0:
        return 0.0
    scale = 1.0 if vals.max() <= 1.0 else 100.0 if vals.max() <= 100.0 else None
    if higher and scale is None:
        return 0.0
    err_at, err_end = (1 - t.at / scale, 1 - t.end / scale) if higher else (t.at, t.end)
    return (err_at - err_end) / err_at if err_at > 0 else 0.0


@dataclass(frozen=True)
class _MetricRead:
    """A task metric's best eval and where its tail ended against it."""

    name: str
    best: float
    best_step: int
    end: float
    fell: bool  # the tail trails the best by more than 0.5% and 2 noise sigmas
    gained: bool  # the best beats the eval at the onset by as much ...
    trending: bool  # ... in a trend since it (Mann-Kendall z >= 1.96, or better at each eval)


def _metric_reads(run: Run, onset: int, p: Params) -> list[_MetricRead]:
    """Each task metric (3+ evals): its best eval, its tail (median of the last fifth, 2+
    evals), whether that tail fell from the best by more than `metric_gain_rel` (relative)
    and 2 of its eval-to-eval noise sigmas - a best inside the tail is the end's own - and
    whether the best beats the metric's eval at `onset` by as much (it improved since)."""
    out = []
    for m, higher in headline_metrics(run):
        mf = m.finite()
        if len(mf) < p.min_eval_points:
            continue
        v = mf.values if higher else -mf.values
        i = int(np.argmax(v))
        k = max(2, int(0.2 * v.size))
        end = float(np.median(v[-k:]))
        thr = max(p.metric_gain_rel * abs(float(v[i])), 2 * noise(mf.values))
        fell = i < v.size - k and float(v[i]) - end > thr
        sign = 1.0 if higher else -1.0
        gained = float(v[i]) - sign * level_at(mf, onset, k=1) > thr
        # the evals from the onset on (the one at it included): a trend, or a rise at each
        # (3-4 evals cannot reach z 1.96)
        since = mf.values[mf.steps >= onset] * sign
        z = trend(mf.steps[mf.steps >= onset], since).z if since.size >= 3 else 0.0
        trending = since.size >= 3 and (z >= p.best_at_end_z or bool(np.all(np.diff(since) > 0)))
        best = sign * float(v[i])
        out.append(_MetricRead(m.name, best, int(mf.steps[i]), sign * end, fell, gained, trending))
    return out


def _best_at_end(run: Run, onset: int, rel_rise: float, p: Params) -> bool:
    """Every task metric improved after `onset` in a significant trend (Mann-Kendall z >=
    `best_at_end_z` over its 3+ evals from the onset on, or better at each of them), its error down by at least
    `best_at_end_share` of the eval loss's relative rise, and ended at a new best: the last
    eval, or the median of the last fifth of the evals, better than every eval before it.
    The run was still getting better at the task when it stopped."""
    metrics = {m.name: (m, h) for m, h in headline_metrics(run)}
    trends = metric_trends(run, onset, p.metric_gain_rel)
    if not trends:
        return False
    for t in trends:
        m, higher = metrics[t.name]
        mf = m.finite()
        v = mf.values if higher else -mf.values
        after = mf.after(onset)
        if (
            len(after) < p.min_after_points
            or _error_cut(t, m, higher) < p.best_at_end_share * rel_rise
        ):
            return False
        # a sparse run (3-4 evals) cannot reach a significant trend: a metric better at
        # every eval since the onset is the same evidence an expert reads there
        z = trend(after.steps, after.values).z
        step = np.diff(after.values) if higher else -np.diff(after.values)
        if (z if higher else -z) < p.best_at_end_z and not bool(np.all(step > 0)):
            return False
        k = max(2, round(p.best_at_end_tail * v.size))
        new_best = v[-1] > v[:-1].max()
        tail_best = v.size > k + 1 and float(np.median(v[-k:])) > v[:-k].max()
        if not (new_best or tail_best):
            return False
    return True


def _stopped_improving(
    run: Run, st: np.ndarray, e: np.ndarray, tr: Series, onset: int, sigma: float, p: Params
) -> tuple[int, int, float] | None:
    """(peak step, evals since, eval rise since) when the last task metric to peak after
    `onset` (smoothed) did so with `flat_min_points` and `flat_min_share` of the evals since
    the onset still to come, no metric improved after that peak, the eval loss rose over the
    stretch (2% and 3 noise sigmas) and the train loss fell (3%)."""
    peaks = []
    for m, higher in headline_metrics(run):
        mv = m.finite().after(onset)
        if len(mv) < 4:
            continue
        sm = smooth(mv.values)
        peaks.append(int(mv.steps[int(np.argmax(sm) if higher else np.argmin(sm))]))
    if not peaks:
        return None
    peak = max(peaks)
    n_flat = int(np.sum(st > peak))
    if n_flat < max(p.flat_min_points, p.flat_min_share * int(np.sum(st > onset))):
        return None
    trends = metric_trends(run, peak, p.metric_gain_rel)
    if not trends or any(t.verdict == "improving" for t in trends):
        return None
    es = smooth(e)
    i_peak = max(int(np.searchsorted(st, peak, side="right")) - 1, 0)
    e_at = float(es[i_peak])
    rise = tail_level(e[i_peak + 1 :]) - e_at
    if rise < max(p.min_rise_rel * abs(e_at), p.k_noise * sigma):
        return None
    _, _, t_drop, _ = train_change(tr, peak)
    if not t_drop >= p.train_drop_min:
        # a few logs since the peak (one an epoch): lower at each of them is the fall
        _, _, t_drop, falls = _sparse_fall(tr, peak, p)
        if not (t_drop >= p.train_drop_min and falls):
            return None
    return peak, n_flat, rise / abs(e_at) if e_at else 0.0


def _task_best_at_last(run: Run) -> bool:
    """Every task metric logged with the evals is at its best at the last eval (above every
    eval before it): the model still got better at the task while the loss climbed."""
    metrics = headline_metrics(run)
    for m, higher in metrics:
        v = m.finite().values if higher else -m.finite().values
        if v.size < 2 or not v[-1] > v[:-1].max():
            return False
    return bool(metrics)
