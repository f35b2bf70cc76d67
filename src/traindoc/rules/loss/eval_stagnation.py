"""eval-stagnation: eval loss flat for a long window while the train loss is flat too."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._evalcurve import level_at, metric_trends, noise, smooth, train_change


@dataclass(frozen=True)
class Params:
    # A flat stretch needs enough eval points to be a stretch, not two evals.
    min_window_points: int = 5
    # Flat = the smoothed eval stays inside a band of +-0.5% of its level (the LoRA-plateau run:
    # "validation did not improve"; a slowly improving eval gains more than that) ...
    band_rel: float = 0.005
    # ... widened to +-3 noise sigmas when the eval set itself is noisy.
    k_noise: float = 3.0
    # The LoRA-plateau run's horizon: 300 steps of no eval progress is a signal ...
    min_steps: int = 300
    # ... and it must be a large share of the run (40%): every healthy run ends on
    # a flattening tail, but not one that spans almost half of training.
    min_frac: float = 0.40
    # Any run (shorter than min_steps too) stagnates when eval is flat over most of it.
    short_run_frac: float = 0.75
    # Train counts as still learning (so not stagnation) with a significant
    # Mann-Kendall downward trend and a 1% drop over the window. Overfitting needs
    # 3%: runs in between (train creeping down 1-3%) are left to neither rule.
    train_drop_min: float = 0.01
    train_z: float = -2.58
    # A train loss halved over the window is learning whatever a trend test on a few
    # points says (no batch noise halves a level): with eval flat, overfitting's case.
    train_halved: float = 0.5
    # Under 10 points Mann-Kendall cannot reach that z (n=5: at most 2.2).
    trend_min_points: int = 10
    # A task metric logged with the evals (accuracy, F1, WER) that still improves over
    # the window by 0.5% (relative) and 2 of its noise sigmas is progress the loss does
    # not show: a tuning hint (info), as overfitting reads the same metric.
    metric_gain_rel: float = 0.005
    # Severity by impact: a window that opens with the LR already at a fifth of its peak
    # or less (after a step decay: 0.1 -> 0.01) lies in the annealed tail of the
    # schedule, where flat curves are what convergence looks like - the compute is
    # wasted, the run is not broken: info ("stop earlier"). A cosine or linear decay is
    # still at a third or more of its peak 60% into the run, so a 40%+ window there
    # keeps its warning (the LoRA-plateau run's band at its full LR).
    annealed_lr_frac: float = 0.2
    # ... and only once the eval has learned: its level in the window 10%+ below its
    # first eval (a run flat at where it started never converged).
    annealed_learned: float = 0.10
    # ... and a task metric on a [0, 1] scale (accuracy, F1; WER, CER) within 5% of
    # perfect over the window has converged: the errors left are at the scale of the
    # label errors of common benchmark sets (~3% on average, Northcutt et al. 2021),
    # which no schedule removes - the run has nothing visible left to learn (info).
    saturated_gap: float = 0.05


@rule(
    "eval-stagnation",
    minimum="5 evals and a train loss; the flat stretch must span 300 steps and 40% of the run (75% of a shorter one)",
    family="loss",
    severity=Severity.WARNING,
    params=Params(),
    requires=("eval_loss", "loss"),
    explained_by=(
        # the eval stopped improving because the model now fits the train set only
        "overfitting",
        "uniform-plateau",
        "no-learning",
        "oscillating-plateau",
        "no-trainable-parameters",
        "lr-too-low",
        "schedule-not-applied",
        "rl-no-signal",
        # a model that is getting worse stops improving on held-out data as well
        "divergence",
        # the data: answers that contradict each other cap what eval can reach
        "label-conflicts",
        "train-eval-leakage",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Eval loss flat for a long window while the train loss is flat too: no progress at all.

    **What it does.** Finds the longest final stretch where the (lightly
    smoothed) eval loss stays inside a +-0.5% band (or +-3 noise sigmas), and
    checks the train loss over the same stretch. If the stretch covers 300+
    steps and 40%+ of the run (counted from step 0: a resumed log or an excerpt that
    opens at step 14,000 shows the end of a longer run, not all of it), no eval in its second half is 0.5% better than
    the best of its first half (no new best), the evals across it do not trend down
    (Mann-Kendall z > -2.58: an eval lower at eval after eval is slow progress, however
    narrow its band - a converging LoRA creeping 0.3111 -> 0.3062) nor up (z < 2.58, and
    under 10 evals not higher at each, by more than the 1% the band spans: a held-out
    loss that worsens at every eval is overfitting's or divergence's), and the train loss is not clearly falling
    either (a significant trend; under 10 points, every point lower than the
    last; at any length, a level halved) nor clearly rising (that is `divergence`; at
    any length, a level up by half or more), nothing is being learnt.

    **Why it matters.** The LoRA-plateau run: after the early drop the loss oscillated in a
    band for ~1,000 steps "and validation on a 5% hold-out did not improve".
    Both curves flat means the compute of that stretch bought nothing; usually a
    rate/schedule problem (the LoRA-plateau run's LR 2e-4 linear -> 5e-5 cosine fixed it) or
    a data problem (heterogeneous mix, duplicates, wrong labels). When the train
    loss is still falling while eval is flat, that is `overfitting` instead.

    **Known false positives.** A run that converged early and was simply kept
    training (a small task learnt in the first half) looks the same: then the fix
    is just to stop earlier. When a task metric logged with the evals (accuracy,
    F1, WER) still improves over the window, the run is still making progress the
    loss does not show: the finding is info. A stretch that opens with the LR already at
    a fifth of its peak or less (after a step decay), in a run whose eval had fallen 10%+
    before it, is the annealed tail of the schedule:
    flat curves there are convergence, the cost is compute, not the run - info too.
    So is a stretch where a task metric on a [0, 1] scale, climbed to from its first
    eval, holds within 5% of perfect (accuracy 0.98, WER 0.03): a metric saturating
    near its ceiling is convergence, its remaining errors at the scale of a data
    set's label errors, not stagnation (one pinned there from the first eval can be a
    majority-class share, and keeps its warning).

    **What to do.** Check the data first (duplicates, label conflicts, mixed
    domains); then tune schedule, effective batch and validation share together:
    cosine decay, 2-5% warmup, a lower peak LR (the LoRA-plateau run: 2e-4 -> 5e-5). If the run
    had simply converged, stop it earlier (early stopping on eval loss).
    """
    ev, tr = run.get("eval_loss"), run.get("loss")
    assert ev is not None and tr is not None
    ev = ev.finite()
    if len(ev) < p.min_window_points:
        return
    e, st = ev.values, ev.steps
    es = smooth(e)
    level = float(np.median(es))
    tol = max(p.band_rel * abs(level), p.k_noise * noise(e))
    # Range of every suffix; the first index whose suffix fits the band starts the window.
    hi = np.maximum.accumulate(es[::-1])[::-1]
    lo = np.minimum.accumulate(es[::-1])[::-1]
    fits = np.flatnonzero(hi - lo <= 2 * tol)
    i0 = int(fits[0])
    points = e.size - i0
    start, end = int(st[i0]), int(st[-1])
    # A run starts at step 0: a log that opens later (resumed, or an excerpt of a long run)
    # shows its end, and every healthy run ends on a flattening tail. The share of the run
    # is of the run, not of the part that was logged. A log that opens within one eval
    # interval (a first eval at step 500 of an every-500 schedule) is the whole run.
    opened = int(min(tr.steps[0], st[0]))
    gap = float(np.median(np.diff(st))) if e.size > 1 else 0.0
    first = opened if 0 <= opened <= gap else min(0, opened)
    span_total = max(run.last_step or end, end) - first
    window = end - start
    # 300 steps and 40% of the run; or, whatever the length, 75% of it (a 300-step run
    # flat from step 30 has stagnated as much as a 3,000-step one flat from step 300).
    need = min(max(p.min_steps, p.min_frac * span_total), p.short_run_frac * span_total)
    if points < p.min_window_points or window < need:
        return
    # Still setting new bests: the second half of the window holds an eval 0.5% better
    # than any in its first half (early stopping would not fire): slow progress.
    mid = i0 + points // 2
    best_before = float(e[i0:mid].min())
    gain = (best_before - float(e[mid:].min())) / abs(best_before) if best_before else 0.0
    if gain >= p.band_rel:
        return
    # Still creeping down: the window's evals trend down significantly (Mann-Kendall):
    # slow progress the band hides (a LoRA eval 0.3111 -> 0.3062 over 13 evals, lower
    # at most of them), not a run that learns nothing. A flat eval has no such trend.
    if trend(st[i0:], e[i0:]).z <= p.train_z:
        return
    # Climbing: the window's evals trend up significantly, or, too few for the test to
    # reach it, each is higher than the one before (a BERT fine-tune's eval loss 0.346 ->
    # 0.436 at 5 evals, inside a band widened by its own steps), and the climb is wider
    # than the +-0.5% band a flat eval keeps to (13.4085 -> 13.4107 in its last digits is
    # flat). A held-out loss that worsens that much is moving - overfitting's or
    # divergence's - not stagnating.
    w = e[i0:]
    climbs = trend(st[i0:], w).z >= -p.train_z or (
        w.size < p.trend_min_points and bool(np.all(np.diff(w) > 0))
    )
    if climbs and float(w[-1] - w[0]) > 2 * p.band_rel * abs(level):
        return
    t_on, t_end, t_drop, t_z = train_change(tr, start)
    if not np.isfinite(t_on):
        return
    # Train still learning (overfitting's case when eval is flat): a significant
    # downward trend, or, over too few points for a trend test to reach
    # significance, a drop with every logged point lower than the one before.
    t = tr.finite()
    t_win = t.values[t.steps >= start]
    few_all_down = t_win.size < p.trend_min_points and bool(np.all(np.diff(t_win) < 0))
    if t_drop >= p.train_halved or (
        t_drop >= p.train_drop_min and (t_z <= p.train_z or few_all_down)
    ):
        return
    few_all_up = t_win.size < p.trend_min_points and bool(np.all(np.diff(t_win) > 0))
    # ... and, as a halved level is learning whatever the test says, a level up by half
    # or more is climbing (a frozen ConvNeXt at LR 0.1: train 0.30 -> 0.58, a step then
    # a shelf that a 10-point trend test does not call significant)
    if t_drop <= -p.train_halved or (
        t_drop <= -p.train_drop_min and (t_z >= -p.train_z or few_all_up)
    ):
        return  # train climbing: divergence's, not a stall
    e_level = float(np.median(e[i0:]))
    # Flat from the first eval, which came within one eval interval of the start: at
    # any eval interval that is the whole run (a sparser one only starts it later).
    interval = float(np.median(np.diff(st))) if st.size > 1 else 0.0
    from_start = i0 == 0 and st[0] - first <= interval
    gaining = [
        m
        for m in metric_trends(run, start, p.metric_gain_rel, inside=True)
        if m.verdict == "improving"
    ]
    saturated = _saturated(run, start, p)
    lr_peak, lr_start = _lr_at(run, start)
    # (only after the eval had learned: a run flat at its first level never converged,
    # whatever its LR did)
    learned = i0 > 0 and float(e[0]) - e_level >= p.annealed_learned * abs(float(e[0]))
    annealed = learned and lr_peak > 0 and lr_start <= p.annealed_lr_frac * lr_peak
    yield Hit(
        title=(
            f"No progress for {window} steps ({window / max(span_total, 1):.0%} of the run): eval "
            f"loss flat at {fmt(e_level)}, train loss {fmt(t_on)} -> {fmt(t_end)}"
        ),
        step=start,
        end_step=end,
        evidence={
            "window_steps": window,
            "window_frac": window / max(span_total, 1),
            "from_first_eval": bool(from_start),
            "eval_points": points,
            "eval_level": e_level,
            "eval_band": float(hi[i0] - lo[i0]),
            "train_start": t_on,
            "train_end": t_end,
            "train_drop_rel": t_drop,
            **{f"{m.name}_at_start": m.at for m in gaining},
            **{f"{m.name}_last": m.end for m in gaining},
            **({"lr_peak": lr_peak, "lr_at_start": lr_start} if annealed else {}),
            **{f"{name}_saturated": level for name, level in saturated},
        },
        explanation=(
            "Neither the held-out loss nor the training loss has moved beyond its noise for "
            "this stretch: the run is not learning anything more. A train loss in a band "
            "with validation flat is usually fixed by the LR schedule, not by more steps."
            + "".join(
                f" {m.name} still improved ({fmt(m.at)} -> {fmt(m.end)}): the task gains a "
                "little, the loss does not show it."
                for m in gaining
            )
            + (
                f" The stretch opens with the LR at {fmt(lr_start)}, {lr_start / lr_peak:.0%} "
                f"of its peak {fmt(lr_peak)}: the annealed tail of the schedule, where flat "
                "curves mean the run has converged - the steps are wasted, not the run."
                if annealed
                else ""
            )
            + "".join(
                f" {name} holds at {fmt(level)}, within {p.saturated_gap:.0%} of perfect: "
                "the run has converged near the task's ceiling - stop earlier."
                for name, level in saturated
            )
        ),
        severity=Severity.INFO if gaining or annealed or saturated else None,
        prescription=(
            "Check the data (duplicates, label conflicts, mixed domains), then tune together: "
            + advice.join(advice.schedule(run), advice.lower_lr(run, 3, 4), advice.batch(run))
            + ". If the run had simply converged, stop earlier (early stopping)."
        ),
    )


def _saturated(run: Run, start: int, p: Params) -> list[tuple[str, float]]:
    """Task metrics on a [0, 1] scale whose level over the window (from `start`) is
    within `saturated_gap` of perfect (1 for accuracy-like, 0 for error rates) and
    was climbed to: better than the first eval by 2+ noise sigmas. An accuracy pinned
    at 0.998 from its first eval can be the majority class's share of an imbalanced
    set (a model that predicts one class), no ceiling reached by learning."""
    out = []
    for m, higher in task_metrics(run):
        f = m.finite()
        v = f.values[f.steps >= start]
        if v.size == 0 or f.values.min() < 0 or f.values.max() > 1:
            continue  # not a [0, 1] scale (percent, BLEU, perplexity)
        level = float(np.median(v))
        climbed = (level - float(f.values[0])) * (1 if higher else -1)
        if climbed <= 2 * noise(f.values):
            continue
        if (1.0 - level if higher else level) <= p.saturated_gap:
            out.append((m.name, level))
    return out


def _lr_at(run: Run, step: int) -> tuple[float, float]:
    """(peak, value at `step`) of the logged LR; (0, 0) without 3+ finite LR logs."""
    lr = run.get("lr")
    f = lr.finite() if lr is not None else None
    if f is None or len(f) < 3:
        return 0.0, 0.0
    return float(np.max(f.values)), level_at(f, step, k=1)
