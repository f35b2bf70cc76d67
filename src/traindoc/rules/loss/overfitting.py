"""overfitting: eval loss rises (or stalls) while the train loss keeps falling."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, NotJudged, rule
from traindoc.rules.loss._overfit_curve import _curve
from traindoc.rules.loss._overfit_gap import _gap_widens, _memorised_gap
from traindoc.rules.loss._overfit_term import _term_rises


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
