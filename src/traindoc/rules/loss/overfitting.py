"""overfitting: eval loss rises (or stalls) while the train loss keeps falling."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.metrics import headline_metrics
from traindoc.measure.stats import fmt, rolling_median, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._evalcurve import (
    MetricTrend,
    level_at,
    metric_trends,
    noise,
    smooth,
    tail_level,
    train_change,
    train_metrics,
)


@dataclass(frozen=True)
class Params:
    # Fewer eval points than this cannot show a minimum followed by a rise.
    min_eval_points: int = 3
    # Evals within 0.2% (or 2 noise sigmas) of the minimum count as "reached it":
    # the stall starts at the first of them, not at the noise-picked lowest point.
    settle_rel: float = 0.002
    # Eval points after the minimum needed before calling a rise or a stall ...
    min_after_points: int = 3
    # ... or 2, when both sit >= 10% above it (a rise no eval noise explains). With the task
    # metrics only holding, a rise under this is calibration drift (info); it is read from the
    # smoothed minimum and from the best raw eval, the larger deciding: a rolling median lifts
    # a sharp minimum (0.5207 -> 0.5322), and the cost of going on is against the checkpoint
    # kept (tail 0.581 is 9% over the smoothed minimum, 12% over the best eval).
    clear_rise_rel: float = 0.10
    # A rise must clear 2% of the minimum: eval sets are fixed, so their loss is
    # smooth and small wiggles (<1%) are common on healthy runs ...
    min_rise_rel: float = 0.02
    # ... and 3 eval-noise sigmas (point-to-point MAD), so a noisy eval set cannot fake it.
    k_noise: float = 3.0
    # The LoRA-plateau run: "eval loss stalled for 300 steps while train loss keeps falling" is
    # incipient overfitting ...
    stall_steps: int = 300
    # ... but in a long run 300 steps is nothing: also require 10% of the run.
    stall_frac: float = 0.10
    # "Train keeps falling": at least 3% lower at the end than at the onset, and a
    # significant Mann-Kendall trend (the oscillating plateau of the LoRA-plateau run is flat).
    train_drop_min: float = 0.03
    train_z: float = -2.58
    # ... or simply halved (medians at the onset and at the end): no noise halves a loss.
    train_halved: float = 0.5
    # A task metric counts as still improving (or as getting worse) when its tail
    # beats (trails) its onset value by 0.5% (relative) and 2 of its noise sigmas.
    metric_gain_rel: float = 0.005
    # Without a train loss, only a U-shaped eval counts: it fell >= 10% to its
    # minimum (it learned), then every later eval is higher than the one before.
    eval_only_learned: float = 0.10
    # ... or, with 8+ evals since the minimum, they trend up (z >= 2.58) in all.
    eval_only_trend_points: int = 8
    # Mann-Kendall's normal z cannot reach 2.58 on 5-8 points; a train loss lower at each
    # of 5+ logs is the exact test's answer (p = 1/5! < 0.01 under no trend).
    falls_each_points: int = 5
    # Without any eval: a fine-tune whose train loss sits under 0.05 nats (and 5% of
    # where it started) for the last 2+ of 3+ epochs has memorised its training set;
    # nothing measures what that did to held-out quality. That is info, not a warning:
    # overfitting is a claim about held-out quality, and a healthy fine-tune of a small or
    # easy set reaches the same near-0 train loss (healthy runs with their eval curve
    # dropped read so) - the log cannot tell the two apart, so it says "evaluate".
    memorised_loss: float = 0.05
    memorised_rel: float = 0.05
    memorised_epochs: float = 2.0
    memorised_min_epochs: float = 3.0
    # Overfitting fits the train set better: a train loss that ends 20%+ above its best
    # before the onset (a rise in both curves, then a partial fall) is a run made worse
    # on its own data too, divergence's or the LR's, not a generalisation gap.
    train_worse: float = 1.2
    # A rise of 20%+ from the minimum is harm even while a task metric edges up within its
    # noise or plateaus: it stays a warning - but not while every metric is still at its best
    # at the end after gaining in a trend (the separator, below: overconfidence, info).
    large_rise_rel: float = 0.20
    # A task metric that improves clearly outweighs a large rise: when most task metrics
    # improved after the onset and their error (1 - accuracy, the WER itself; a [0, 100]
    # metric read as a percentage) shrank, at the median, by more than the eval loss rose
    # (relative both), the task got better by more than the loss got worse - calibration
    # (accuracy 0.917 -> 0.942 = error down 30% while the loss rose 25%). An F1 5 points up
    # while the loss rose 66% (error down 14%) gains "a little" and stays a warning.
    # The rise from the best checkpoint: with one eval an epoch a 3-point rolling median
    # lifts a sharp V minimum to its neighbours' level (0.161, 0.131, 0.151 -> 0.151), so
    # the smoothed curve reads "stalled" where the checkpoint a user keeps is 31% below the
    # end. A tail 20%+ (large_rise_rel) and 3 noise sigmas above the lowest raw eval, 3+
    # evals after it, with the smoothed curve risen too (so no lone lucky eval decides), is
    # a rise from that checkpoint.
    # Sparse evals (one per epoch, 3-5 in all): 2 evals after the minimum are enough when
    # the gap opened at each of them - every eval above the one before (>= 2% in all)
    # and the train loss lower at each of its 3+ logs since - the run's whole evidence.
    sparse_train_points: int = 3
    # The gap, read by a task metric: with the eval loss flat, the task metric's fall from
    # its best (beyond its noise) while the train loss halves and the eval loss gains under
    # a fifth of what the train loss gained (relative) is the model memorising.
    gap_eval_share: float = 0.2
    # A smooth turn: an eval curve that bottomed out and then rose at each of its 3+
    # evals since (what Keras EarlyStopping(patience=3) stops on) by 10+ noise sigmas
    # (second differences: a smooth curve's sigma is tiny) while the train loss fell at
    # each of its 3+ logs since, has turned, however small the rise: the 2% floor is
    # for wiggles, and a monotone, noise-free climb under a falling train loss is none.
    turn_k_noise: float = 10.0
    # A noisy rise: 8+ evals after the minimum (eval_only_trend_points) that trend up
    # (Mann-Kendall z >= 2.58 on those evals, the minimum itself left out: it is lower
    # than all of them by choice) with their tail 10%+ above it (clear_rise_rel, the
    # effect size) is a rise, however far single evals swing: the 3-sigma gate is for one
    # eval against the minimum, the trend weighs them all.
    # A large rise outweighs a task metric that keeps improving only when the evals confirm
    # it: the evals from the minimum on trend up (Mann-Kendall z >= 1.96, p < 0.05). A rise
    # carried by one or two high evals among noisy ones (0.0675 -> 0.076, 0.080, 0.072,
    # 0.074, 0.085, 0.083 while accuracy sets new bests) is the eval set's noise.
    confirm_z: float = 1.96
    # The task stopped improving long before the end: the last of the task metrics to peak
    # (smoothed) did so with 3+ evals and a quarter of the evals since the onset still to
    # come, none of the metrics improved after that peak (beyond 0.5% and 2 noise sigmas),
    # and over that stretch the eval loss rose (2% and 3 noise sigmas) while the train loss
    # fell (3%): the second half of the run bought only memorisation (accuracy 0.794 at
    # epoch 19, 0.791 at 30, while the eval loss rose 5% more and train loss fell 14%).
    flat_min_points: int = 3
    flat_min_share: float = 0.25
    # A rise is a level the evals stay at. With 8+ evals after the minimum
    # (eval_only_trend_points) that trend down (Mann-Kendall z <= -1.96 on them, the
    # minimum left out), the eval loss is coming back down: the minimum was the lowest
    # draw of a noisy eval set (a tiny val set whose loss swings 1.8 <-> 3.4 from one epoch
    # to the next) and the "rise" the distance from that draw to the typical level, not a
    # gap that opens as training goes on. Memorisation widens the gap at every eval.
    falling_back_z: float = -1.96
    # The task still improving when the run stopped: every task metric logged with the
    # evals improved after the onset in a trend (Mann-Kendall z >= 1.96 over its 3+ evals
    # from the onset on, or better at each of them: 3-4 evals cannot reach z 1.96), ended
    # at a new best (the last eval, or the median of the last
    # fifth of the evals, beats every eval before them), and its error shrank by at least
    # half as much as the eval loss rose (relative both). Then the last checkpoint is the
    # best on the task and the rise is mostly calibration: info. The 20% rule keeps its
    # warning where the metric gains a little: an F1 error down 14% while the loss rose 66%,
    # a WER 0.30 -> 0.26 while the loss rose by half; and where it only ties an earlier best
    # (a handful of eval examples: 0.25 / 0.5) or gains a hair (0.883 -> 0.886).
    best_at_end_z: float = 1.96
    best_at_end_share: float = 0.5
    best_at_end_tail: float = 0.2
    # A memorisation gap, read from a few evals whatever their trend (a paste of the last
    # epochs): the train accuracy at 99%+ while the held-out accuracy trails it by 20+
    # points and the held-out loss is 10x+ the train loss, at each of the last 3 evals (2+).
    # A healthy fine-tune shows a gap too (train 0.02 vs eval 0.3 nats, accuracy 0.99 vs
    # 0.93): the accuracy gap is what tells them apart, and 20 points is no eval noise -
    # the glaucoma CNN: loss 0.002, accuracy 1.0 against val_loss 1.08, val_accuracy 0.68.
    gap_train_acc: float = 0.99
    gap_acc_points: float = 0.20
    gap_loss_ratio: float = 10.0
    gap_evals: int = 3
    gap_min_evals: int = 2
    # Where the task metric's best is decides what a rising eval loss means (how an engineer
    # reads the curves). A metric whose tail (median of its last fifth, 2+ evals) trails its
    # best eval by more than 0.5% (metric_gain_rel) and 2 of its eval-to-eval noise sigmas has
    # fallen from its best: the task got worse. One whose tail is within that of its best,
    # having improved since the eval-loss minimum, is still at its best at the end: the eval
    # loss rises because the model grows overconfident on the examples it gets wrong, and the
    # checkpoint to keep is the last (the best-metric one), so a rise of any size is info there
    # (accuracy 0.889 -> 0.908 at the last of 8 evals while the loss rose 44%; top-1 86.3 ->
    # 87.4 while it rose 57%). A metric that only held since the minimum says nothing either
    # way: the size of the loss rise decides, as without a metric.
    # With most task metrics fallen from their best, a train loss that falls in a trend at
    # p < 0.05 (Mann-Kendall z <= -1.96) is enough: the held-out side already shows the harm
    # (accuracy 0.725 -> 0.63 while the eval loss rose 28% and the train loss 0.44 -> 0.32).
    fell_train_z: float = -1.96
    # The one exception to "still at its best at the end": a run that memorised its training
    # set - the train loss under 2% of the eval loss (a 50x gap no fine-tune that still
    # generalises shows: 0.0002 against 0.92) while the eval loss rose by half or more.
    memorised_gap: float = 0.02
    memorised_rise: float = 0.5
    # The gap widening: after the held-out accuracy's peak (3-point median), 5+ evals
    # (falls_each_points: where "higher at each" is the exact test's p < 0.01) over which the
    # train accuracy climbs in a trend (Mann-Kendall z >= 2.58, or higher at each eval) while
    # the held-out one stays at or under its peak, ending 20+ points (gap_acc_points) behind
    # it: the extra epochs fit only the training set (train 91% -> 98.6% while val stays
    # 57-59%). Healthy runs that plateau on a hard task show a gap, but a flat train accuracy
    # (a 26-point GCN gap at 98.6% for the last epochs) or one under 20 points.
    widen_train_z: float = 2.58
    # A detector's loss is a sum of terms (box, obj/cls, dfl) that can part ways: one val term
    # that climbs to 1.5x+ its (3-point median) minimum over 8+ evals since it
    # (eval_only_trend_points), in a trend (Mann-Kendall z >= 2.58) while the same train term
    # falls in one (z <= -2.58), with most task metrics fallen from their best, is that head
    # overfitting, however the sum moved (val cls_loss 0.0014 -> 0.0096 while recall fell
    # 0.82 -> 0.58). A healthy YOLO run's val terms creep up too (obj 15-20% over hundreds of
    # epochs; one doubled on a run whose mAP held): 1.5x and the metrics' fall separate them.
    term_rise: float = 0.5
    # Logged values carry a fixed number of digits: a rise of one printed digit (0.0016 ->
    # 0.0017, a 6% "rise") is rounding, not a curve. A rise must span 2+ units of the last
    # digit the values share.
    min_quanta: float = 2.0


@rule(
    "overfitting",
    minimum="3 evals and a train loss (or a U-shaped eval curve alone); 3 evals after the minimum, 2 when both are 10% above it or each rises while train falls; 2 evals for a train/held-out accuracy and loss gap; 5 from the held-out accuracy's peak for a widening gap; 8 after a detector val term's minimum",
    family="loss",
    severity=Severity.WARNING,
    params=Params(),
    requires=("eval_loss|loss",),
    uses=("loss", "epoch"),
    explained_by=("dataset-too-small", "duplicate-samples", "train-eval-leakage"),
    # a train loss whose fall is no fit of the data (a component pinned at 0: no box ever
    # matched) cannot show memorisation: read here, overfitting is then info
    reads=("degenerate-loss",),
)
def check(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """Eval loss rises (or stalls for 300+ steps) while the train loss keeps falling.

    **What it does.** Finds the minimum of the (lightly smoothed) eval loss and flags a rise
    after it, or a stall of 300+ steps, while the train loss over the same span is still
    clearly falling. A rise (or a task metric fallen from its best) is a warning; a stall,
    or a rise beside a task metric that keeps improving, is info. The onset is the eval
    minimum; the checkpoint to keep is the lowest eval logged (what load_best_model_at_end
    keeps), and the report says what going on cost: the last checkpoint's eval loss
    against it.

    **Why it matters.** From the onset on, training memorises the training set and
    generalises worse: compute spent making the model worse. The LoRA-plateau run:
    "evaluating every 50 steps, if eval loss has stalled for 300 steps while train loss
    keeps falling, that is incipient overfitting: stop, or lower the LR now".

    **Readings.** All need the train loss falling over the span unless stated. A top-k
    accuracy (k 2+) beside its top-1 is skipped by every metric reading (a top-5 over 7
    classes slipping 0.999 -> 0.986 while top-1 climbs 0.78 -> 0.83). A rise must span 2+
    units of the values' last shared digit (0.0016 -> 0.0017 is rounding).

    The eval loss:

    - *Rise*: 2%+ and 3 noise sigmas above the minimum (warning).
    - *Stall*: no improvement for 300+ steps and 10% of the run (info unless a task metric
      fell; a last eval below every one before is an improvement). Its onset is the first
      eval within noise of the minimum by its raw value too (a LoRA's eval loss 1.879 ->
      1.90 over its second epoch).
    - *3 evals*: two after the minimum both 10%+ above it; or each above the one before
      (2%+ in all) with the train loss lower at each of its 3+ logs since, or halved.
    - *Smooth turn under 2%*: each of 3+ evals since the minimum above the one before, by 10+
      noise sigmas in all (sigma from second differences of 5+ evals), the train loss
      falling at each of its 3+ logs (Keras EarlyStopping patience 3: val_loss 26.17 ->
      26.18 -> 26.23 -> 26.32, train 48.8 -> 42.7).
    - *Noisy eval set*: 8+ evals after the minimum in an upward trend (Mann-Kendall z >=
      2.58, minimum left out) with their tail 10%+ above it (a ViT swinging 2x between evals
      while its level climbs 0.3 -> 0.6-0.8).
    - *Climb at every eval*: 3+ evals since the lowest, each above the one before, the last
      10%+ above it, whatever the curve-wide sigma (a 9-epoch Keras run: val_loss 1.060 ->
      1.065 -> 1.073 -> 1.214, train 0.82 -> 0.52). Not when every task metric sets its best
      at the last eval (accuracy 0.984 -> 0.989 at the last of 5 epochs, eval loss +14%).
    - *Sharp V at one eval an epoch*: the tail of the 3+ evals after the lowest raw eval 20%+
      and 3 sigmas above it (and the smoothed tail above the smoothed minimum): read from
      that checkpoint.
    - *No train loss*: a U-shaped eval curve, falling 10%+ to its minimum, then 2%+ up with
      every later eval above the one before; task metrics judge it as below.
    - *No eval*: a fine-tune whose train loss sat near 0 for 2+ of 3+ epochs (info).
    - *Detector head*: one val term (`val/cls_loss`) climbing to 1.5x+ its minimum over 8+
      evals in a trend (z >= 2.58) while the same train term falls in one, most task metrics
      fallen from their best (warning; val cls_loss 0.0014 -> 0.0096, recall 0.82 -> 0.58).
      Healthy YOLO val terms creep 15-20% with metrics holding.

    Task metrics (eval_accuracy, eval_f1, eval_wer, val_iou, abs_rel / delta_1, any
    metric-named series at the eval steps). *Fallen from its best*: the median of its last
    fifth (2+ evals) trails its best by more than 0.5% and 2 noise sigmas.

    - *Metric fell while the loss did not show it*: beyond 0.5% and its noise, the train
      loss halved, the eval loss gaining under a fifth of what the train loss gained
      (warning; Keras: train loss 0.10 -> 5e-4, val_loss 0.138 -> 0.13, val_acc 0.973 ->
      0.96). With most metrics fallen, a train loss falling at Mann-Kendall z <= -1.96 is
      enough (accuracy 0.725 -> 0.63, eval loss +28%, train 0.44 -> 0.32 with a wobble).
    - *Still improving*: every metric within that of its best at the end, one having gained
      as much since the minimum in a trend (z >= 1.96, or better at each of 3-4 evals): info
      whatever the rise (accuracy 0.889 -> 0.908 at the last of 8 evals, loss +44%; top-1
      86.3 -> 87.4, +57%; accuracy 0.830 -> 0.835 -> 0.837, +33%; F1 0.617 -> 0.655, +66%;
      WER 0.240 -> 0.190, +33%; MCC 0.464 -> 0.560 -> 0.596, +35%). A gain under 0.5%
      (0.9094 -> 0.9125) or a tie keeps the warning. Exception, a warning: a memorised
      train set, train loss under 2% of the eval loss with the eval loss up 50%+, confirmed
      (val_accuracy 95.5 -> 97.2, eval loss +64%, train loss 0.0012).
    - *Calibration*: a metric still improving after the onset with the eval loss up under
      20%, or fewer than half the metrics worse (the rest within 0.5% and noise: YOLO's
      mAP50 -2% while mAP50-95, precision, recall hold) with the eval loss up under 10%
      (from the smoothed minimum and the best raw eval) or only stalled: info. A 20%+ rise
      keeps the warning beside an improving metric only when confirmed (each eval above the
      one before, all 10%+ up, or z >= 1.96); an unconfirmed one is info (0.0675 -> 0.076,
      0.080, 0.072, 0.074, 0.085, 0.083 while accuracy 0.9786 -> 0.9811).
    - *Stopped half-way*: the last metric to peak did so with 3+ evals and a quarter of
      those since the onset still to come, none improving after, the eval loss up a further
      2% and 3 sigmas while the train loss fell (warning; accuracy 0.794 at epoch 19, 0.791
      at 30, eval loss +5% more).
    - *Memorisation gap*, when the curves show none of this (a 2-3 epoch paste): at each of
      the last 3 evals (2+) train accuracy 99%+, the same-named held-out accuracy 20+ points
      lower, the eval loss 10x+ the train loss (warning; the glaucoma CNN: loss 0.002,
      accuracy 1.0, val_loss 1.08, val_accuracy 0.68). Healthy fine-tunes: 0.02 vs 0.3,
      0.99 vs 0.93.
    - *Accuracy gap widening*, when the losses show at most info: from the held-out peak
      (3-point median), 5+ evals over which train accuracy climbs (z >= 2.58, or higher at
      each) and held-out stays at or under its peak, the gap ending 20+ points and wider
      (warning; a ResNet on FER2013: train 91% -> 98.6% over 37 epochs, val at 58%). Not
      while the eval loss sets a new best at the last eval, nor if it was never finite.

    **Known false positives.**

    - 8+ evals after the minimum trending down (z <= -1.96) are the loss coming back: the
      minimum was a lucky draw (a tiny val set swinging 1.8 <-> 3.4); no rise is read.
    - A train loss ending 20%+ above its best before the onset (by 5%+ of what it learned):
      both curves got worse, not reported.
    - A last eval equal to every digit to the best is that checkpoint re-scored
      (load_best_model_at_end): left out.
    - A rise right after the first epoch of fine-tuning (the title says so); ASR whose WER
      improves while the eval loss rises (the calibration reading above).
    - Info, not a warning: a stall in pre-training within its first epoch; a train metric
      at the eval steps (`train_acc_epoch`) is no evidence; DPO / RL (fact task = rl);
      beside a `degenerate-loss` warning (a component at exactly 0 or masked out).

    **What to do.** Keep the checkpoint nearest the onset step (load_best_model_at_end
    with metric_for_best_model) - or, when a task metric kept improving after the
    onset, select by that metric, whose best checkpoint is later - stop earlier or add
    early stopping; lower the LR, add regularisation (weight decay, dropout, LoRA
    dropout), or get more / less duplicated data. Check for train/eval leakage and
    duplicates.
    """
    out = list(_curve(run, p))
    if not any(isinstance(o, Hit) for o in out) and (gap := _memorised_gap(run, p)) is not None:
        yield gap  # a gap no trend of a few evals shows: memorised, whatever the curve did
        return
    # only info (a stall, a mild rise) or nothing from the loss curves: the accuracies can
    # still show the gap widening epoch after epoch (no eval loss needed)
    hits = [o for o in out if isinstance(o, Hit)]
    # (or a detector's val loss term parts from the rest: its head overfits)
    if all(h.severity is not None and h.severity <= Severity.INFO for h in hits) and (
        wide := _gap_widens(run, p) or _term_rises(run, p)
    ):
        yield wide
        return
    yield from out


def _curve(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """The eval curve against the train loss (the `check` docstring, less the gap)."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None:
        if tr is not None:
            yield from _memorised(run, tr, p)
        return
    ev = _without_rescore(ev.finite())
    if len(ev) < p.min_eval_points:
        yield too_few("eval_loss", len(ev), p.min_eval_points)
        return
    e, st = ev.values, ev.steps
    es = smooth(e)
    i_min = int(np.argmin(es))
    after = e.size - 1 - i_min
    if tr is None:
        yield from _eval_only(run, p, st, e)
        return
    low = float(es[i_min])
    clear = after >= 2 and bool(np.all(e[i_min + 1 :] >= (1 + p.clear_rise_rel) * low))
    steady = (
        after >= 2 and bool(np.all(np.diff(e[i_min:]) > 0)) and e[-1] >= (1 + p.min_rise_rel) * low
    )
    if after < p.min_after_points and not (clear or steady):
        return
    sigma = noise(e)
    last = tail_level(e[i_min + 1 :])
    rise = last - low
    rel_rise = rise / abs(low) if low else 0.0
    rising = rise >= max(p.min_rise_rel * abs(low), p.k_noise * sigma)
    if not rising and _turned(e, i_min, rise, sigma, tr, int(st[i_min]), p):
        rising = True
    if not rising and _trends_up(st, e, i_min, rel_rise, p):
        rising = True
    if not rising and _climbs(e, p) and not _task_best_at_last(run):
        # every eval since the best one above the one before, the last 10%+ above it: on a
        # monotone climb the last eval is the level (a tail median would reach back into it)
        i_min = int(np.argmin(e))
        low, last = float(e[i_min]), float(e[-1])
        rise = last - low
        rel_rise = rise / abs(low)
        after = e.size - 1 - i_min
        rising = True
    if not rising and (v := _risen_from_best(e, es, i_min, sigma, p)) is not None:
        # the smoothed minimum hid a sharp V: the rise is read from the best checkpoint
        i_min, low, last = v
        rise = last - low
        rel_rise = rise / abs(low) if low else 0.0
        after = e.size - 1 - i_min
        rising = True
    if rising and _falls_back(st, e, i_min, p):
        rising = False  # the evals since the minimum trend down: a lucky low draw, no rise
    if rising and rise < p.min_quanta * _quantum(e):
        rising = False  # one printed digit (0.0016 -> 0.0017) is rounding, not a rise
    # Onset of a stall: the first eval already within noise of the minimum (the step
    # after which the eval loss stopped improving); of a rise: the minimum itself.
    near = low + max(p.settle_rel * abs(low), 2 * sigma)
    # (the raw eval too: a rolling median's edge can lift a far-off first eval to its
    # neighbour's level, and the onset is a checkpoint someone may keep)
    within = (es[: i_min + 1] <= near) & (e[: i_min + 1] <= near)
    i_on = i_min if rising or not within.any() else int(np.flatnonzero(within)[0])
    onset = int(st[i_on])
    span_total = float(max(run.last_step or st[-1], st[-1]) - min(tr.steps[0], st[0]))
    stalled_for = int(st[-1]) - onset
    stalled = (
        not rising
        and stalled_for >= max(p.stall_steps, p.stall_frac * span_total)
        and not trend(st[i_on:], e[i_on:]).falling
        # the last eval a new best (below every raw eval before it): still improving
        and not e[-1] < float(e[:-1].min())
    )
    if not (rising or stalled):
        yield from _metric_gap(run, ev, tr, p)
        return
    t_on, t_end, t_drop, t_z = train_change(tr, onset)
    # A train loss halved since the onset has fallen whatever a test on a few logs
    # says (a model card repeats its last logged value at each eval: ties, no trend).
    falls = t_z <= p.train_z or _falls_each(tr, onset, p) or t_drop >= p.train_halved
    # most task metrics fell from their best: the held-out harm is shown, a train loss that
    # falls at p < 0.05 is enough
    reads = _metric_reads(run, onset, p)
    fallen = bool(reads) and 2 * sum(r.fell for r in reads) > len(reads)
    falls = falls or (fallen and bool(rising) and t_z <= p.fell_train_z)
    if not (t_drop >= p.train_drop_min and falls):
        # 3-5 train logs since the onset (one per epoch): lower at each is its trend
        t_on, t_end, t_drop, falls = _sparse_fall(tr, onset, p)
        # ... and a few per-step logs that halved it have fallen, however they wobble
        falls = falls or t_drop >= p.train_halved
        if not (t_drop >= p.train_drop_min and falls):
            return
    if _train_worse_than_before(tr, onset, t_end, p):
        return  # both losses rose: the model got worse on its own data too, not overfitting
    severity = None
    notes = []
    # The checkpoint to keep: the lowest eval logged (what load_best_model_at_end keeps),
    # and what going on to the end cost, measured against it.
    i_best = int(np.argmin(e))
    best_step, e_best = int(st[i_best]), float(e[i_best])
    last_vs_best = (float(e[-1]) - e_best) / abs(e_best) if e_best else 0.0
    evidence = {
        "onset_step": onset,
        "eval_min": low,
        "eval_last": last,
        "eval_rise_rel": rel_rise,
        "eval_points_after": after,
        "stalled_steps": stalled_for,
        "train_at_onset": t_on,
        "train_last": t_end,
        "train_drop_rel": t_drop,
        "mode": "rising" if rising else "stalled",
        "best_step": best_step,
        "eval_best": e_best,
        "eval_last_vs_best": last_vs_best,
    }
    verdicts = []
    improving: list[str] = []  # task metrics still improving after the onset
    for mt in metric_trends(run, onset, p.metric_gain_rel):
        name, at, end, verdict = mt.name, mt.at, mt.end, mt.verdict
        verdicts.append(verdict)
        if verdict == "improving":
            improving.append(name)
        evidence[f"{name}_at_onset"] = at
        evidence[f"{name}_last"] = end
        if verdict == "improving":
            notes.append(
                f"{name} kept improving ({fmt(at)} -> {fmt(end)}) after the onset, so the "
                "model is still getting better at the task: the eval loss is probably "
                "measuring confidence/calibration, not quality."
            )
        elif verdict == "held":
            notes.append(
                f"{name} held its level after the onset ({fmt(at)} -> {fmt(end)}): the "
                "extra steps bought nothing, but the task quality did not suffer."
            )
        else:
            notes.append(f"{name} got worse after the onset ({fmt(at)} -> {fmt(end)}).")
    # Info when the task still improves, or holds while the eval loss moved little:
    # the loss measures calibration there. A large rise is harm even at a flat
    # accuracy (an overconfident model, a best checkpoint far back).
    # ... the rise read from the best checkpoint too: what going on cost against the lowest
    # eval a user keeps, which a rolling median's lifted minimum understates
    cost = _cost_from_best(e, i_best)
    mild = rising is False or max(rel_rise, cost) < p.clear_rise_rel
    large = bool(rising) and rel_rise >= p.large_rise_rel
    # (mild: the task metrics mostly held; one of four a little worse is their noise)
    mostly_held = bool(verdicts) and 2 * verdicts.count("worse") < len(verdicts)
    # A large rise stays a warning unless the task metrics improved by more than it, or
    # the evals do not confirm it (noisy evals, a metric setting new bests).
    confirmed = large and _confirmed(st, e, p)
    clearly = large and _improved_more(run, onset, rel_rise, p)
    best_at_end = bool(rising) and _best_at_end(run, onset, rel_rise, p)
    # The separator: every task metric still at its best at the end (none fell from its best
    # beyond its noise) after improving since the minimum - the rise is overconfidence
    # in a trend since the minimum; not when the model memorised its training set (train loss
    # under 2% of the eval loss) while the eval loss rose by half: the metric's creep is then
    # the tail of what it learned, and the gap is what it learns now
    memorised = (
        t_end <= p.memorised_gap * float(e[-1]) and max(rel_rise, last_vs_best) >= p.memorised_rise
    )
    still_best = (
        bool(reads)
        and not any(r.fell for r in reads)
        and any(r.gained and r.trending for r in reads)
        and not memorised
    )
    fell_names = [r for r in reads if r.fell]
    if still_best:
        evidence["task_still_best_at_end"] = True
        names = ", ".join(r.name for r in reads if r.gained and r.trending)
        notes.append(
            f"The eval loss rises (overconfidence) while {names} still improves to its best "
            "at the end: the model gets more examples right and is surer of the ones it gets "
            "wrong. Keep the best-metric checkpoint (here the last), not the lowest-loss one."
        )
    elif fell_names:
        r0 = fell_names[0]
        evidence["task_best_step"] = r0.best_step
        notes.append(
            f"{r0.name} fell from its best ({fmt(r0.best)} at step {r0.best_step}) to "
            f"{fmt(r0.end)}, beyond its eval-to-eval noise: the task got worse, not only the "
            "loss."
        )
    if large and not confirmed and "improving" in verdicts and not clearly:
        notes.append(
            f"The {rel_rise:.0%} rise is not confirmed by the evals since the minimum (no "
            "significant upward trend: single noisy evals), while the task metric improved."
        )
    if clearly:
        notes.append(
            "Most task metrics improved after the onset, their error shrinking by more than "
            f"the eval loss rose ({rel_rise:.0%}): the loss measures calibration here."
        )
    if best_at_end:
        evidence["task_best_at_end"] = True
        notes.append(
            "Every task metric kept improving to a new best at the end (a significant trend, "
            f"its error down by at least half the eval loss's {rel_rise:.0%} rise): the last "
            "checkpoint is the one to keep, and the rise is calibration, not lost quality."
        )
    if (
        ("improving" in verdicts and not (large and confirmed))
        or (mostly_held and mild)
        or clearly
        or best_at_end
        or still_best
        # a large rise no trend confirms, with no task metric worse: the eval set's noise
        or (large and not confirmed and bool(verdicts) and "worse" not in verdicts)
    ):
        severity = Severity.INFO
        # ... unless the metrics that improved after the loss minimum stopped improving
        # long before the end while the eval loss kept rising: judged from their own peak,
        # not from the loss minimum (metrics that only held since the minimum are the
        # calibration case above and stay info).
        flat = (
            _stopped_improving(run, st, e, tr, onset, sigma, p)
            if "improving" in verdicts and not best_at_end
            else None
        )
        if flat is not None:
            severity = None
            peak, n_flat, flat_rise = flat
            evidence["metric_peak_step"] = peak
            evidence["eval_rise_since_metric_peak"] = flat_rise
            notes.append(
                f"But the task metrics peaked at step {peak} and did not improve over the "
                f"{n_flat} evals since, while the eval loss rose {flat_rise:.0%} more and the "
                "train loss kept falling: that stretch only memorised the training set."
            )
    elif "improving" in verdicts and not clearly:
        notes.append(
            f"The eval loss rose {rel_rise:.0%} all the same: a model this overconfident on "
            "held-out data is past its best checkpoint, whatever the metric's last digits say."
        )
    if severity is Severity.INFO and memorised and rising and _confirmed(st, e, p):
        # memorised: whatever the metric's creep, the gap is what the run learns now
        severity = None
        evidence["memorised"] = True
        notes.append(
            f"But the train loss ({fmt(t_end)}) is under {p.memorised_gap:.0%} of the eval "
            f"loss ({fmt(float(e[-1]))}), which rose {rel_rise:.0%} at evals that confirm it: "
            "the model has memorised its training set, and the gap is what it learns now."
        )
    if severity is None and not rising and not fallen:
        # a stall is a plateau: the held-out loss stopped improving, it did not get worse,
        # and no task metric fell from its best - further steps buy nothing, harm nothing yet
        severity = Severity.INFO
        notes.append(
            "The eval loss only stopped improving (no rise beyond its noise) and no task "
            "metric fell from its best: the extra steps bought nothing, but held-out quality "
            "did not get worse."
        )
    if severity is None and (deg := run.symptom("degenerate-loss")) is not None:
        # Overfitting is the train loss fitting the training data better while held-out
        # quality pays: a train loss that falls with a component pinned at 0 (no target
        # ever matched) or masked out is not fitting the data, so its gap is no memorising.
        severity = Severity.INFO
        notes.append(
            f"The train loss is degenerate ({deg.title}): its fall is not the model fitting "
            "its training data, so the gap says nothing about memorisation - fix that first."
        )
    if run.fact("task") == "rl":
        severity = Severity.INFO
        notes.append("For DPO / RL trainers the eval loss is not the target; judge by rewards.")
    ep = run.get("epoch")
    if not rising and run.regime == "pretraining" and not _past_one_epoch(run, ep):
        # one pass over fresh text: no sample is seen twice, so nothing is memorised; a
        # flat eval there is a plateau of capacity or schedule, not overfitting
        severity = Severity.INFO
        notes.append(
            "This is pre-training that has not finished an epoch: it never sees a sample "
            "twice, so a flat eval loss is a plateau (model size, LR schedule), not memorisation."
        )
    near_epoch = ""
    if ep is not None:
        e_on = level_at(ep, onset, k=1)
        if np.isfinite(e_on):
            evidence["epoch_at_onset"] = e_on
            if run.regime in ("full-finetune", "lora") and e_on <= 1.5:
                near_epoch = f" (epoch {e_on:.2f})"
                notes.append(
                    "The onset is around the first epoch of a fine-tune, where a rising eval "
                    "loss is common and not always harmful: check a task metric or samples."
                )
    # The title names the checkpoint to keep (the lowest eval, raw) and the last one
    # against it; the thresholds above read the smoothed level (onset, rel_rise).
    if rising:
        title = (
            f"Eval loss rose {rel_rise:.0%}"
            if rel_rise >= 0.01
            else f"Eval loss rose {rel_rise:.1%}"
        ) + (
            f" from its minimum at step {onset}{near_epoch} while train loss fell "
            f"{t_drop:.0%}; best checkpoint: step {best_step} (eval loss {fmt(e_best)}, "
            f"last {fmt(float(e[-1]))})"
        )
    else:
        title = (
            f"Eval loss has not improved beyond its noise for {stalled_for} steps (since step {onset}"
            f"{near_epoch}) while train loss fell {t_drop:.0%}; best checkpoint: step "
            f"{best_step} (eval loss {fmt(e_best)}, last {fmt(float(e[-1]))})"
        )
    yield Hit(
        title=title,
        step=onset,
        end_step=int(st[-1]),
        evidence=evidence,
        explanation=" ".join(
            [
                "The train loss keeps falling while the held-out loss "
                + ("rises" if rising else "stopped improving")
                + ": the model is fitting the training set rather than the task "
                "(stop, or lower the LR, as soon as eval stalls while train falls).",
                f"The best checkpoint by eval loss is step {best_step} ({fmt(e_best)}); the "
                f"last one's eval loss is {last_vs_best:.0%} above it.",
                *notes,
            ]
        ),
        prescription=(
            (
                f"Keep the checkpoint of step {fell_names[0].best_step}, the best by "
                f"{fell_names[0].name} ({fmt(fell_names[0].best)}; load_best_model_at_end="
                "True with metric_for_best_model set to it); "
                if fell_names and not still_best
                else f"Select the checkpoint by {improving[0]}, not by the eval loss "
                "(load_best_model_at_end=True with metric_for_best_model set to it): it kept "
                f"improving after step {onset}; "
                if improving
                else f"Keep the checkpoint of step {best_step} (eval loss {fmt(e_best)}, the "
                f"lowest logged; the last one's is {last_vs_best:.0%} above it) - "
                "load_best_model_at_end=True with metric_for_best_model does that - "
            )
            + "add early stopping, or lower the LR; add regularisation "
            "(weight decay, dropout) or more / deduplicated data, and check train/eval leakage."
        ),
        severity=severity,
    )


def _memorised_gap(run: Run, p: Params) -> Hit | None:
    """The train accuracy at `gap_train_acc`+ while the held-out accuracy trails it by
    `gap_acc_points`+ and the eval loss is `gap_loss_ratio`x+ the train loss, at each of the
    last `gap_evals` evals (`gap_min_evals`+): memorised, whatever the curves' trend."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None or tr is None or run.is_rl:
        return None
    ev = ev.finite()
    if len(ev) < p.gap_min_evals:
        return None
    evals = {_base(m.name): m for m, higher in headline_metrics(run) if higher}
    for t, higher in train_metrics(run):
        name = _base(t.name)
        v = evals.get(name)
        if not higher or v is None or not _ACCURACY.match(name):
            continue
        ts, vs = _unit_scale(t.finite().values), _unit_scale(v.finite().values)
        if ts is None or vs is None:
            continue
        rows = []
        for step, e in zip(ev.steps[-p.gap_evals :], ev.values[-p.gap_evals :], strict=True):
            ta = level_at(t, step, k=1) / ts
            va = level_at(v, step, k=1) / vs
            tl = level_at(tr, step, k=1)
            if not (ta >= p.gap_train_acc and ta - va >= p.gap_acc_points):
                return None
            if not (tl >= 0 and e >= p.gap_loss_ratio * tl):
                return None
            rows.append((int(step), ta, va, tl, float(e)))
        step, ta, va, tl, e = rows[-1]
        ratio = e / tl if tl > 0 else math.inf
        return Hit(
            title=(
                f"Train {t.name} {ta:.0%} (loss {fmt(tl)}) against {v.name} {va:.0%} and eval "
                f"loss {fmt(e)} ({ratio:.0f}x) at each of the last {len(rows)} evals: the model "
                "has memorised its training set"
            ),
            step=rows[0][0],
            end_step=step,
            evidence={
                "onset_step": rows[0][0],
                "train_acc_last": ta,
                "eval_acc_last": va,
                "train_last": tl,
                "eval_last": e,
                "eval_train_loss_ratio": ratio,
                "evals_judged": len(rows),
                "mode": "gap",
            },
            explanation=(
                f"The model gets {ta:.0%} of its training samples right with a loss of "
                f"{fmt(tl)}, but only {va:.0%} of the held-out ones, whose loss is {ratio:.0f}x "
                "the train loss, at every one of the last evals: it has memorised its training "
                "set rather than learned the task. A gap this size is no eval noise and no "
                "calibration drift, whatever the few evals' trend."
            ),
            prescription=(
                "Train fewer epochs or add early stopping on the held-out metric; add "
                "augmentation and regularisation (dropout, weight decay) or more data; check "
                "that train and held-out sets come from the same distribution."
            ),
        )
    return None


_ACCURACY = re.compile(r"^(?:(?:sparse_)?categorical_|binary_)?acc(?:uracy)?$")
_SPLIT_PREFIX = re.compile(r"^(?:train(?:ing)?|eval|val|valid|validation|test)[_/ ]")


def _gap_widens(run: Run, p: Params) -> Hit | None:
    """After the held-out accuracy's peak, the train accuracy climbs at `falls_each_points`+
    evals (a trend, or higher at each) while the held-out one does not, and ends
    `gap_acc_points`+ behind it: the gap widens at every epoch, whatever the eval loss did."""
    ev = run.get("eval_loss")
    if run.is_rl or (ev is not None and len(ev) and not len(ev.finite())):
        return None  # a held-out loss never finite: the eval is broken, not a gap
    if ev is not None and len(f := ev.finite()) and f.values[-1] <= f.values.min():
        return None  # the eval loss still sets new bests: the held-out side improves
    evals = {_base(m.name): m for m, higher in headline_metrics(run) if higher}
    for t, higher in train_metrics(run):
        v = evals.get(name := _base(t.name))
        if not higher or v is None or not _ACCURACY.match(name):
            continue
        vf = v.finite()
        ts, vs = _unit_scale(t.finite().values), _unit_scale(vf.values)
        if ts is None or vs is None or len(vf) < p.falls_each_points:
            continue
        st, va = vf.steps, vf.values / vs
        i_pk = int(np.argmax(smooth(va)))
        if st.size - i_pk < p.falls_each_points:
            continue
        ta = np.array([level_at(t, s, k=1) for s in st[i_pk:]]) / ts
        climbs = trend(st[i_pk:], ta).z >= p.widen_train_z or bool(np.all(np.diff(ta) > 0))
        gap_pk, gap = float(ta[0] - va[i_pk]), float(np.median(ta[-3:] - va[-3:]))
        if not (climbs and gap >= p.gap_acc_points and gap > gap_pk):
            continue
        onset, end = int(st[i_pk]), int(st[-1])
        return Hit(
            title=(
                f"{t.name} climbed {ta[0]:.0%} -> {ta[-1]:.0%} over the {st.size - i_pk} "
                f"evals since {v.name} peaked at step {onset} ({va[i_pk]:.0%}), which ends at "
                f"{va[-1]:.0%}: the train/held-out gap widened {gap_pk:.0%} -> {gap:.0%}"
            ),
            step=onset,
            end_step=end,
            evidence={
                "onset_step": onset,
                "best_step": onset,
                "train_acc_at_onset": float(ta[0]),
                "train_acc_last": float(ta[-1]),
                "eval_acc_best": float(va[i_pk]),
                "eval_acc_last": float(va[-1]),
                "gap_at_onset": gap_pk,
                "gap_last": gap,
                "eval_points_after": int(st.size - 1 - i_pk),
                "mode": "gap_widens",
            },
            explanation=(
                f"Since step {onset} every epoch fit the training set better ({t.name} "
                f"{ta[0]:.0%} -> {ta[-1]:.0%}) while {v.name} did not improve, and the gap "
                f"is now {gap:.0%} of the samples: the model memorises the training set "
                "instead of learning the task. A gap that widens at each eval is no eval noise."
            ),
            prescription=(
                f"Keep the checkpoint of step {onset} (the best {v.name}) and stop there or add "
                "early stopping on it; add augmentation and regularisation (dropout, weight "
                "decay) or more data; check that train and held-out sets match."
            ),
        )
    return None


_VAL_TERM = re.compile(r"^(?:val|valid|validation)[/_](\w+_loss)$")


def _term_rises(run: Run, p: Params) -> Hit | None:
    """A detector's val loss term climbs `term_rise`+ above its minimum in a trend while the
    same train term falls in one and most task metrics fell from their best."""
    if run.fact("task") != "detection" or run.symptom("degenerate-loss") is not None:
        return None  # (a term pinned at 0: the train loss's fall is no fit of the data)
    found = None
    for name, s in run.series.items():
        tr = run.get(f"train/{m.group(1)}") if (m := _VAL_TERM.match(name)) else None
        if tr is None or not len(s) or not bool(np.all(np.isfinite(s.values))):
            continue  # (a val term gone inf is nonfinite-loss's finding)
        e, st = s.values, s.steps
        es = smooth(e)
        i = int(np.argmin(es))
        low = float(es[i])
        if e.size - 1 - i < p.eval_only_trend_points or low <= 0:
            continue
        rise = tail_level(e[i + 1 :]) / low - 1
        if rise < p.term_rise or trend(st[i + 1 :], e[i + 1 :]).z < p.widen_train_z:
            continue
        tf = tr.finite()
        since = tf.steps >= st[i]
        if trend(tf.steps[since], tf.values[since]).z > p.train_z:
            continue
        reads = _metric_reads(run, int(st[i]), p)
        fell = [r for r in reads if r.fell]
        if 2 * len(fell) <= len(reads) or (found is not None and rise <= found[1]):
            continue
        found = (name, rise, int(st[i]), low, float(e[-1]), tr.name, fell[0])
    if found is None:
        return None
    name, rise, onset, low, last, tname, r0 = found
    return Hit(
        title=(
            f"{name} rose {rise:.0%} from its minimum at step {onset} ({fmt(low)} -> "
            f"{fmt(last)}) while {tname} kept falling, and {r0.name} fell from its best "
            f"({fmt(r0.best)} at step {r0.best_step} -> {fmt(r0.end)})"
        ),
        step=onset,
        end_step=int(run.series[name].steps[-1]),
        evidence={
            "onset_step": onset,
            "term": name,
            "eval_min": low,
            "eval_last": last,
            "eval_rise_rel": rise,
            "task_best_step": r0.best_step,
            "mode": "term",
        },
        explanation=(
            f"A detector's loss is a sum of terms; {name} climbed in a trend since step "
            f"{onset} while the same term on the training set kept falling, and the task "
            "metrics fell from their best: that head fits the training images, not the task, "
            "whatever the summed loss shows."
        ),
        prescription=(
            f"Keep the checkpoint of step {r0.best_step} (the best {r0.name}; YOLO's best.pt "
            "by fitness); train fewer epochs or set patience; add augmentation or more "
            "images, and check that train and val labels follow the same rules."
        ),
    )


def _base(name: str) -> str:
    """A metric's name less its split prefix (`val_accuracy`, `train_acc` -> accuracy, acc)."""
    return _SPLIT_PREFIX.sub("", name.lower())


def _unit_scale(values: np.ndarray) -> float | None:
    """1 for an accuracy in [0, 1], 100 for a percentage; None for neither."""
    if not values.size or values.min() < 0:
        return None
    return 1.0 if values.max() <= 1.0 else 100.0 if values.max() <= 100.0 else None


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


def _memorised(run: Run, loss: Series, p: Params) -> Iterator[Hit]:
    """No eval logged: a fine-tune that drove its train loss to ~0 for epochs on end."""
    ep, f = run.get("epoch"), loss.finite()
    if ep is None or run.is_rl or run.regime not in ("full-finetune", "lora") or len(f) < 3:
        return
    epochs = float(np.nanmax(ep.values))
    if not epochs >= p.memorised_min_epochs:
        return
    start = float(np.max(f.values[:3]))  # the level it started from (a fast first drop)
    low = f.values <= min(p.memorised_loss, p.memorised_rel * start)
    # the epoch each loss was logged at; the stretch of lows that reaches the end
    at = np.interp(f.steps, ep.steps, ep.values)
    if not low[-1]:
        return
    i0 = f.values.size - int(np.argmin(low[::-1])) if not low.all() else 0
    since = float(at[i0])
    if epochs - since < p.memorised_epochs:
        return
    onset = int(f.steps[i0])
    yield Hit(
        title=(
            f"Train loss under {fmt(float(f.values[i0:].max()))} from epoch {since:.1f} to "
            f"{epochs:.1f} with no eval logged: the model has memorised its training set"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence={
            "onset_step": onset,
            "epoch_at_onset": since,
            "epochs": epochs,
            "train_start": start,
            "train_last": float(f.values[-1]),
            "eval_loss": "not logged",
            "mode": "memorised",
        },
        explanation=(
            f"A fine-tune that keeps its train loss near 0 ({fmt(float(f.values[-1]))} at the "
            f"end, from {fmt(start)}) for {epochs - since:.1f} epochs reproduces its training "
            "samples; past that point more epochs usually make held-out quality worse, and no "
            "eval was logged to tell."
        ),
        prescription=(
            f"Evaluate the checkpoint near step {onset} and the last one on held-out data "
            "(eval_strategy='steps', an eval split); train fewer epochs (1-3 for most fine-"
            "tunes), or add data; lower the LR or add regularisation (LoRA dropout, weight decay)."
        ),
        severity=Severity.INFO,
    )


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


def _task_best_at_last(run: Run) -> bool:
    """Every task metric logged with the evals is at its best at the last eval (above every
    eval before it): the model still got better at the task while the loss climbed."""
    metrics = headline_metrics(run)
    for m, higher in metrics:
        v = m.finite().values if higher else -m.finite().values
        if v.size < 2 or not v[-1] > v[:-1].max():
            return False
    return bool(metrics)


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


def _eval_only(run: Run, p: Params, st: np.ndarray, e: np.ndarray) -> Iterator[Hit]:
    """No train loss logged: a U-shaped eval curve, read on the raw evals (a rolling
    median would flatten the last rise): it fell >= 10% to its minimum, then rose at
    each of >= 3 evals since (or, over 8+, trends up significantly), by >= 2% in all.

    The task metrics logged with the evals judge it as they judge a rise beside a train
    loss (`_eval_only_severity`): with no train curve to show the gap opening, an eval loss
    that rises while the task still improves is calibration, not lost quality."""
    i_min = int(np.argmin(e))
    low = float(e[i_min])
    learned = (float(e[0]) - low) / abs(float(e[0])) if e[0] else 0.0
    rel_rise = (float(e[-1]) - low) / abs(low) if low else 0.0
    n_after = e.size - 1 - i_min
    steady = n_after >= p.min_after_points and bool(np.all(np.diff(e[i_min:]) > 0))
    # Noisy evals do not rise at every one: over 8+ since the minimum a significant
    # upward trend (Mann-Kendall) says the same.
    if not steady and n_after >= p.eval_only_trend_points:
        steady = trend(st[i_min:], e[i_min:]).z >= -p.train_z
    if not (steady and rel_rise >= p.min_rise_rel and learned >= p.eval_only_learned):
        return
    onset = int(st[i_min])
    severity, notes = _eval_only_severity(run, st, e, onset, rel_rise, p)
    yield Hit(
        title=(
            f"Eval loss fell {learned:.0%} to {fmt(low)} at step {onset}, then rose "
            f"over the {n_after} evals since ({rel_rise:+.0%})"
        ),
        severity=severity,
        step=onset,
        end_step=int(st[-1]),
        evidence={
            "onset_step": onset,
            "eval_min": low,
            "eval_last": float(e[-1]),
            "eval_rise_rel": rel_rise,
            "eval_drop_to_min": learned,
            "eval_points_after": int(e.size - 1 - i_min),
            "mode": "rising",
            "train_loss": "not logged",
        },
        explanation=" ".join(
            [
                "The held-out loss went down as the model learned, reached its minimum, and "
                "has gone up at every evaluation since: the classic U of a model that has "
                "started to memorise its training set. The train loss is not in the log, so "
                "this rests on the eval curve alone (a run that diverges raises both).",
                *notes,
            ]
        ),
        prescription=(
            f"Keep the checkpoint nearest step {onset}; stop there or add early stopping; "
            "add regularisation (dropout, weight decay) or more data; log the train loss too."
        ),
    )


def _eval_only_severity(
    run: Run, st: np.ndarray, e: np.ndarray, onset: int, rel_rise: float, p: Params
) -> tuple[Severity | None, list[str]]:
    """Info when the task metrics logged with the evals say the task did not suffer, as
    beside a train loss: one kept improving after the minimum while the rise stayed under
    `large_rise_rel` (or the evals do not confirm a larger one), most improved by more than
    the loss rose, or they mostly held while the loss rose under `clear_rise_rel`."""
    verdicts = [t.verdict for t in metric_trends(run, onset, p.metric_gain_rel)]
    if not verdicts:
        return None, []
    large = rel_rise >= p.large_rise_rel
    mostly_held = 2 * verdicts.count("worse") < len(verdicts)
    if (
        ("improving" in verdicts and not (large and _confirmed(st, e, p)))
        or _improved_more(run, onset, rel_rise, p)
        or _best_at_end(run, onset, rel_rise, p)
        or (mostly_held and rel_rise < p.clear_rise_rel)
    ):
        return Severity.INFO, [
            "The task metrics logged with the evals did not get worse after the minimum "
            f"({', '.join(verdicts)}): the eval loss measures calibration here, not quality."
        ]
    return None, []
