"""divergence: the loss trends upward or blows up."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.losses import SOLVED_RATIO, components, solved
from traindoc.measure.stats import bins, fmt, level_noise, mad, rolling_median, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._divergence_end import ends_on_jump
from traindoc.rules.loss._divergence_eval import heldout_gave_back
from traindoc.rules.loss._divergence_held import held_then_recovered
from traindoc.rules.loss._divergence_parts import part_astronomical, runs_off_below_zero
from traindoc.rules.loss._divergence_said import said_exploding
from traindoc.rules.loss._divergence_short import (
    _climbs_with_eval,
    _climbs_with_lr,
    _gave_back_hit,
    _last_jump_confirmed,
    _lr_at,
    _short_blowup,
    _steadier_from,
    _two_confirmed,
    _undid_learning,
    _worse_on_eval_too,
    _worse_on_train,
    _worse_than_uniform,
)
from traindoc.rules.loss._evalcurve import (
    direction,
    noise,
    tail_level,
    task_metrics,
    train_metrics,
)
from traindoc.rules.loss._rl_collapse import collapse_hit
from traindoc.rules.loss._rl_value_explosion import value_explosion_hit


@dataclass(frozen=True)
class Params:
    # Enough points for "best so far" and "late" to be different stretches.
    min_points: int = 10
    # Smoothing window (in bins) for the best-so-far level, so that the minimum of a
    # noisy curve is not one lucky batch.
    smooth: int = 9
    # "Late" = median of the last 10% of raw points, and of no fewer points than the
    # best level is a median of (`smooth`, up to a third of the log): the end and the
    # best are then levels of the same width, each robust to the curve's own
    # batch-to-batch noise. Two or three late batches of a noisy per-batch log are not
    # a level (a healthy epoch ending 0.71, 0.77, 0.61 among batches of 0.33-0.63).
    tail_fraction: float = 0.1
    # Late median this far above the best smoothed level (relative) is a rise worth
    # a warning; healthy train losses do not climb 10% and stay there.
    min_rise: float = 0.10
    # ... and this far above it (or back at ln(V) after learning) is a blow-up: error,
    # when it also gave back a quarter or more of what the log had learned before its
    # best (start - best): an LM at 4.0 after 10.4 that climbs to 7 has. A loss near 0
    # that doubles after falling from 2.3 (0.006 -> 0.019, an epoch boundary, a
    # fine-tune's wobble) gave back 1% of it: a warning. Errors on healthy runs are the
    # worst outcome, and a ratio over a tiny best is weak evidence.
    blowup_rise: float = 0.5
    blowup_gave_back: float = 0.25
    # Without a rising trend, a rise that holds is one too: the loss stepped past
    # halfway to the late level and never came back below halfway, for at least a
    # quarter of the points after the best, and the start of that stretch is within
    # half the rise of the late level (it is not decaying back: that is a spike).
    held_share: float = 0.25
    held_return: float = 0.5
    # The rise must also beat this many standard errors of the late median ...
    noise_z: float = 4.0
    # ... and this many standard errors of the difference of the late and best medians
    # (each window's own noise: the best is a median too, and the lowest of many).
    diff_z: float = 3.0
    # Blow-up from the start: the loss is judged against its first logged level
    # (median of the first 3 points, so one odd batch cannot set it) ...
    head_points: int = 3
    # ... and must climb to >= 3x that level (smoothed over 5 bins, so 3 of 5
    # consecutive points must be up: a spike of one or two bad batches cannot) ...
    blowup_factor: float = 3.0
    blowup_window: int = 5
    # ... and then either still end >= 50% above its start (blowup_rise) or have
    # landed on the uniform floor ln(V): a blow-up that comes back below its start
    # is transient instability (loss-spike / warmup-too-short), not divergence.
    # Short logs (a pasted excerpt: 3-9 points) cannot give a trend or a noise level:
    # only a rise no noise explains counts. The last third of the points must all sit
    # >= 50% above the lowest earlier point (the rise holds), or the loss must have
    # climbed >= 10x that point and still be >= 3x it at the end.
    short_min_points: int = 3
    short_hold_rise: float = 0.5
    short_orders: float = 10.0
    short_still_up: float = 3.0
    # (Both from the level around the lowest point, the median of it and its neighbours,
    # not from one lucky batch; and a rise holds only above every point since the loss
    # first got within 50% of that level: a level it already swung to is its noise.)
    # ... or it climbed at each of the last 4+ points, 10%+ above its minimum (warning).
    short_climb_points: int = 4
    # ... or it set a new high of the paste at each of its last 3 logs, the last 25%+ above
    # its first log: 3 records in a row at the end are rare in noise (1 in C(n,3)*3!).
    short_record_points: int = 3
    short_record_rise: float = 0.25
    # ... or it gave back all it learned: it fell 10%+ from its first log to a minimum, then
    # rose at each of the 2+ points since, its last two 10%+ above that minimum (a jump
    # at the last log alone is one batch), and ends above where it started (warning); a low
    # both of whose neighbours sit 10%+ above it is one lucky batch, measured from the lower
    # neighbour instead. Batch noise does not climb at every log after
    # the low and past the run's own start; a healthy loss does not end above its first
    # log (one that never fell below its first log - a rise from the start - is not
    # judged here: nothing was learned to give back).
    gave_back_rises: int = 2
    # The same give-back read in a sparse log of up to 20 losses (epochs, a pasted
    # stretch), where the trend tests' smoothing and tail median are too coarse for a
    # climb of the last few logs (an OpenNMT paste: xent 9.5 -> 7.7 -> 9.95 in 12 logs).
    gave_back_max_points: int = 20
    # ... or it rose at each of its last 2+ logs to 3x+ its lowest while the logged LR
    # rose at each of them too: the warmup's ramp breaking the run (warning).
    lr_climb: float = 3.0
    # ... or its last third all sits 10%+ and 6 noise sigmas (of the points before it,
    # at least 0.5% of their level) above the level it rose from (warning).
    step_sigmas: float = 6.0
    step_noise_floor: float = 0.005
    # A log whose best is 100x under its earlier level has solved its loss to ~0: there
    # a rise must be 5% of what it learned (head - best), not of the best (short logs,
    # and the late-rise test of long ones: 0.0004 -> 0.0012 on a loss that fell from 2.3
    # is a memorised fit wobbling).
    solved_ratio: float = SOLVED_RATIO
    solved_rise: float = 0.05
    # The late-rise test asks the same of any loss that fell 10x+ (its best under a tenth
    # of where it started): there its 10% rise (min_rise) is under 1% of what the run
    # learned, a drift at the floor, not updates undoing the fit (a LoRA at constant LR
    # memorised 2.09 -> 0.037 and wanders 0.04-0.09: +86% of its best, 2% of its fall).
    # Real climbs give back far more (a ResNet's 3.85 -> 4.7 after 8.5: 18%).
    floor_ratio: float = 10.0
    # A loss this large is beyond any cross-entropy (-log of the smallest float32 is
    # ~104) and any loss over normalised targets: activations have blown up. One point
    # shows it, except the first of a run that starts there (absurd-initial-loss's).
    astronomical: float = 1e6
    # ... and a first log this large, after updates (past step 1: the first batch's loss,
    # computed before any update, is logged at 0 or 1), is one too: within
    # 8 orders of float32's largest (3.4e38), no initialisation produces it (targets left
    # unnormalised at 1e6 give an MSE of 1e12); the activations have overflowed, whatever
    # step it was first logged at.
    overflowing: float = 1e30
    # A window that opens at 1e6+ (no level logged before it) shows the value's scale only,
    # and a sum-reduced loss can sit at 1e6 by design (a summed MSE over a batch of images).
    # Such a window is an error from 1e9 up, past a sum of unit errors over a batch of
    # 1,000 samples of a million outputs each; under it, a warning.
    unseen_error: float = 1e9
    # Two points are enough when the floor ln(V) (ln(C)) is known: a sane start (under
    # half the floor: a model that already predicts) followed by a loss above the
    # floor is worse than uniform guessing after one logged interval of updates.
    two_sane: float = 0.5
    # Or, with V unknown, when the second loss is 2x the first and the evals say the
    # same (the eval loss 2x as well, or a task metric halved / a WER doubled at the
    # same logs): two curves jumping together is no batch noise.
    two_jump: float = 2.0
    # A short log's last loss 3x the median of the 3 before it, with every eval curve
    # logged at that step worse than at the eval before (by 5%+): the model itself got
    # worse, not one batch (warning: the log ends before it could come back).
    last_jump: float = 3.0
    last_eval_worse: float = 0.05
    # A short log whose last third all sits 25%+ above the lowest earlier level while a
    # train task metric (accuracy on the training data) at each of its last third is
    # 10%+ worse than its best before: the model got worse on the very data it trains
    # on, by two measures at once. Overfitting lowers the train loss and raises the
    # train accuracy; batch noise does not move both the wrong way at every late log.
    worse_rise: float = 0.25
    worse_metric: float = 0.10
    # A short log whose train loss rose at each of its last 3+ logs while the eval loss,
    # logged 3+ times over that stretch, rose at each eval too, both by 5%+: two curves on
    # different data moving the wrong way at every log is no noise (it does not move two
    # curves in step), and not overfitting (which lowers the train loss).
    lockstep_rises: int = 3
    lockstep_evals: int = 3
    lockstep_rise: float = 0.05
    # A log that ends on a jump: its last 2+ logs all 2x or more the median of the 10
    # logs before them and above every one of those (clear of their noise), with nothing
    # after to show it come back (warning; error at 10x). One log up is a batch; every
    # log from the jump to the end up is a level, however long the log before it.
    end_jump: float = 2.0
    end_jump_points: int = 2
    end_level_points: int = 10
    # A stretch at one LR (moves within 2%) that ends with the LR divided by 2x or
    # more (a step decay, ReduceLROnPlateau) is judged on its own: a rise there is a
    # divergence the cut ended, not a run that "recovered".
    lr_level: float = 0.02
    lr_cut: float = 2.0
    # A held-out task metric (recall, accuracy, mAP, WER ...) evaluated 3+ times after
    # the onset whose last evals are 10%+ (relative) better than its last eval before
    # the onset, and whose final eval is its best or within that margin of it: the
    # model got better on unseen data all through the "divergence", so the loss that
    # rose is measuring a changed objective (re-clustered pseudo-labels, a loss term
    # switched on, a curriculum stage), not a worse model.
    heldout_min_evals: int = 3
    heldout_gain: float = 0.10
    # A metric with no eval_/val_/test_ prefix counts as held-out when it is logged at
    # most this share as often as the train loss (once per eval, not per log line).
    heldout_sparse: float = 0.2
    # ... or whose every eval after the onset stays within 2% (relative) of its best
    # eval before it (2+ of them): the model held its best on unseen data all through
    # the rise, so the rise is a fitted model's wobble (a train loss of 1e-4 doubling),
    # not updates wrecking it. A real divergence costs the held-out metric more.
    heldout_hold: float = 0.02
    # ... judged only on a loss that ends under 0.01: a cross-entropy there still puts
    # 99% on the right class, a model that fits its data (a loss of 8 with a flat
    # held-out metric has lost what it learned; the metric may be blind to it).
    fitted_loss: float = 0.01
    # Every held-out task metric with 3+ evals after the onset ending (median of its last
    # fifth) no worse than its best eval before the onset, within 0.5% relative and 2 of
    # its noise sigmas (overfitting's "held"): the updates did not make the model worse on
    # unseen data, so a train loss that rose (a fit at ~0 wobbling 6e-5 -> 1.4e-4 while
    # val AUC stays 1.0) is no certain harm - info, not an error or a warning.
    heldout_held_rel: float = 0.005
    # A stretch that diverged and was brought back later (a decaying LR): the loss's
    # level, the median of a fifth of the run (10+ logs: a spike of a few batches cannot
    # move it), climbs 10%+ (min_rise) above the run's start after having been 10%+
    # below it. Past its start, the updates had undone all that was learned.
    held_level_share: float = 0.2
    held_level_points: int = 10
    # A climb under the blow-up size that starts with the logged LR decayed under a
    # tenth of its peak: each update moves the weights a tenth as far as the run's
    # training steps did, too little to make the model worse by 10%+ within a tail;
    # the per-batch loss there moves with which examples the last batches hold (an
    # SFT's third epoch drifting 0.24 -> 0.31 as its cosine LR nears 0).
    spent_lr_frac: float = 0.1
    # A loss with a tenth or more of its logs under 0 (a log-likelihood, an ELBO) has no
    # zero for its relative tests: their findings are warnings at most.
    signed_share: float = 0.1
    # A logged loss-term weight (beta, kl_weight, a lambda) that moved 2x or more over a
    # rise re-weighted the objective: the total rises with the new weight (info).
    reweight_factor: float = 2.0
    # A loss below zero falling at each of its last 5+ logs (of at most 10 read), every
    # one under -1000, without slowing: no loss bounded below (CE, CTC, transducer, MSE)
    # reads negative, and a continuous log-likelihood's fit decelerates as it nears its
    # best. -1000 is a thousand elements each fit to within a few hundredths of a unit
    # variance (-ln N(0; 0, 0.01^2) is ~3.7 nats): far past any per-sample likelihood of
    # normalised data, where a 5-log straight fall is no noise.
    below_points: int = 5
    below_window: int = 10
    below_scale: float = 1e3


@rule(
    "divergence",
    minimum=(
        "3 logged losses (a rise no noise explains), 2 above a known ln(V), 2 that double "
        "with the evals, 2 that triple and then go NaN/Inf for good, or into +Inf, "
        "1 of 1e6 or more; 10 for the trend tests and a jump the last 2+ logs hold "
        "(10 at one LR for a stretch a cut ended; 50 for a stretch back above the start that came down later); "
        "without a train loss, 2 eval losses into +Inf / 87.3365, or 4 evals of the loss and "
        "of a task metric, or 1 loss term of 1e6 or more; 5 losses under -1000 that run off "
        "below zero; on RL, 20 logged returns, "
        "or 3 logs of an actor's or a critic's loss beside 1 logged return"
    ),
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    # a loss's terms alone (a GAN's players, no total): judged by their magnitude
    requires=("loss|eval_loss|reward|kind:component_loss",),
    uses=("lr",),
    core=True,
    explained_by=(
        "lr-too-high",
        "warmup-too-short",
        "fp16-instability",
        "grad-explosion",
        "nonfinite-gradients",
        "resume-loss-jump",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """Loss trends upward or blows up after having been lower.

    **What it does.** Flags a training loss that climbs and stays up: a late level 10%+
    above the run's best with a rising trend or a rise that held, or 50%+ above it (a
    blow-up). Error when the rise undid the run (or the loss overflowed, or crossed 1e6);
    warning for the weaker or shorter readings; info where held-out metrics say the model
    did not get worse. A rise that recovers is `loss-spike`'s; a jump at a resume is
    `resume-loss-jump`'s.

    **Why it matters.** A training loss that climbs and stays up means the updates
    are making the model worse: the LR is too high for the regime or the warmup too
    short, or the numerics broke (fp16 overflow, exploding gradients). Every step
    after the onset is wasted compute; the best checkpoint is before it.

    **Readings.** The *late level* is the median of the last 10% of the loss (no fewer
    points than the smoothing window, up to a third of the log); the *best* is the lowest
    level of the median-smoothed curve before it; the *onset* is where the smoothed curve
    first climbs a quarter of the way from the best to the late level.

    Long logs (10+ losses):

    - *Trend or held rise*: the late level 10%+ above the best, beyond the noise (4
      standard errors of the late median, 3 of the difference of the two medians), with a
      rising Mann-Kendall trend since the best, or a rise that held (past halfway to the
      late level and never back below halfway for a quarter or more of the points after the
      best, its start within half the rise of the end: a jump then a plateau drifting down)
      (warning; error when it lands on ln(V) from 10%+ under it).
    - *Blow-up*: the late level 50%+ above the best, no trend needed. Error when the rise
      gave back a quarter or more of what the log learned before its best (first level -
      best) or landed on ln(V) from 10%+ under it; a log whose first level is within 10% of
      its best (a window resumed at its level) needs 3x the best for error. Otherwise
      warning (a loss near 0 that doubles, 0.1 -> 0.25 after falling from 2.3). A loss that
      fell 10x+ must rise by 5% of what it learned: a fine-tune memorised 2.3 -> 0.0004 that
      drifts to 0.0012 (0.04% of it), a LoRA at constant LR 1.68 -> 0.037 -> 0.069 (2%), are
      drifts at the floor.
    - *Blow-up at the start* (no best yet): the 5-point median climbs to 3x+ the first
      logged level and the run still ends 50%+ above its start or lands on ln(V) (ln C)
      (error).
    - *Ends on a jump*, at any length: the last 2+ logs all 2x+ the median of the 10 before
      them and above every one of those, clear of their noise, the LR not jumped 2x+ (a warm
      restart) (warning; error at 10x). The tail median cannot see the last 3 of 300 logs.
    - *Stretch ended by an LR cut*: 10+ logs at one LR, ended by a cut of 2x+ (step decay,
      ReduceLROnPlateau), rising to 10%+ above where the stretch began, even if the cut
      rescued the end (warning).
    - *Stretch a decaying LR rescued*: after the level (median of a fifth of the run, 10+
      logs) fell 10%+ below the start, it climbed back 10%+ above the start at an LR above 0
      with every held-out curve in that stretch worse than its best before (warning; a
      TinyStories LM at LR 0.3: 7.5 -> 4.8, 10-90 from step 500 to 3000, back to 3.4 as its
      cosine LR neared 0). Needs 50 losses; with 10-49: after a 10% fall, 3+ consecutive
      losses each 50%+ above the start while the eval loss at its 2+ evals there sits 50%+
      above its best (warning; a TinyStories LM at peak LR 1.0: train 6.6 -> 92 -> 262 ->
      304 -> 105 -> 97 -> 17, eval 7.0 -> 74 -> 263 -> 179 -> 133 -> 65 -> 23).
    - *Sparse log of 10-20 losses* the trend tests miss (their 9-bin smoothing is too
      coarse): read by the short-log tests below, when the median of its last third stands
      6 noise sigmas (from the second differences before it) above the level around its
      lowest earlier point, unless its last two losses are back within 10% of that lowest
      (a spike, `loss-spike`'s) (3.0 -> 1.08 then 1.44, 1.76, 2.12, 2.55, 3.0 in 12 logs).

    Short logs (3-9 losses, a pasted excerpt), judged on the rise alone:

    - *Last third 50%+ above the lowest earlier point* (the median of it and its
      neighbours) and above every loss before the lowest once within 50% of it (a diffusion
      loss at 0.11-0.15 after a 0.17 among 0.06-0.10 is noise). Error when it climbed 10x,
      went NaN / Inf, or undid a quarter or more of what the paste learned from its first
      log; warning when it stays far under the first log or the paste learned nothing
      before (first log within 10% of the level) unless each late log is 3x the level (a
      segmenter's 0.11 -> 0.21, 0.34 among 0.11-0.34 is noise). Any error is a warning when
      the eval loss fell at each of its 2+ evals from the onset on.
    - *Last finite loss 50%+ up, then NaN / Inf to the end* (error; `nonfinite-loss`
      reports the NaN too).
    - *Climbed 10x+ the level and still ends 3x+ it*, to a new high or held 3x at each late
      log (error; a CRF loss summed over a batch at 8.7k-22.7k with a lucky 946 is not, nor
      a probe's 0.57, 0.003, ..., 0.002, 0.32 returning to a level it had).
    - A loss solved to ~0 (100x under its earlier level) must rise by 5% of what it
      learned: 3.5e-5 -> 0.007 is no blow-up.
    - *Rose at each of 4+ points from its minimum*, 10%+ in all (warning).
    - *New high at each of its last 3 logs*, the last 25%+ above the first (warning; by
      chance 1 in C(n,3)*3!, 1 in 210 at 7 logs; a VLM fine-tune at grad norm 1e7: 2.56,
      2.70, 2.67, 2.62, 2.81, 2.92, 3.32).
    - *Gave back all it learned*: fell 10%+ from its first log to a low, rose at each of the
      2+ logs since, the last two 10%+ above the low, ending above the first log (warning;
      YOLOX 98 -> 49 -> 38 -> 65 -> 130; an OpenNMT paste in a sparse log of up to 20: xent
      9.5 -> 7.7 -> 9.95 in 12 logs). A lone dip (both neighbours 10%+ above) is measured
      from its lower neighbour.
    - *Stepped up*: the last third all 10%+ and 6 noise sigmas above the level it rose from
      (warning; epoch means or interval averages that step up and stay).
    - *Rose with the warmup*: up at each of its last 2+ logs to 3x+ its lowest while the
      logged LR rose at each (warning).
    - *Last loss 3x the median of the 3 before* with every eval curve at that step 5%+ worse
      than the eval before (warning).
    - *Worse on its own training data*: last third 25%+ above its best while a train task
      metric (Keras' `acc`) is 10%+ below its best at each log of its last third (warning).
    - *Worse on both sets*: last third 25%+ above its best while the eval loss at its 2+
      evals there sits 25%+ above its own best (warning; a t5-base fp16 fine-tune: train
      2.05 -> 2.73 -> 3.06 -> 2.94, eval 1.86 -> 2.61 -> 2.72 -> 2.63); or the train loss
      rose at each of its last 3+ logs, 5%+ in all, while the eval loss rose at each of its
      3+ evals there, 5%+ in all (warning; LightGBM with a double-weighted positive class:
      train and valid logloss 0.713 -> 0.771).
    - *Two points*: with the floor known (vocab_size, model family, ln C) a start under
      half of it and a next loss above it (error); floor unknown, a second loss 2x the first
      with the evals jumping alike (eval loss 2x, a task metric halved or a WER doubled)
      (error); the loss NaN / Inf after them to the end and the second 3x+ the first
      (error; 2.0 -> 2.5 -> NaN is a NaN, not a blow-up).

    Absolute readings (any length; they never stand down):

    - *A loss of 1e6+* past the first log, from one point (error; a window from mid-run
      opening there with no level before is a warning under 1e9 unless NaN / Inf follows to
      the end: a sum-reduced loss can sit at 1e6). With lines before it the point must be
      10x their level, and the lines after must keep a median 50% above it (0.26 -> 3e14 ->
      0.25 is `loss-spike`'s); a video SR run at 0.01 for 10 lines, then 1.5e6 ("Model
      collapsed"). A 1-2 line paste from mid-run all at 1e6+ is judged by its first line
      (YOLACT's total 6.4e35 -> 7.6e35 at iterations 500-510).
    - *A first log past step 1 at 1e30+* (within 8 orders of float32's largest) (error;
      CenterMask's loss_maskiou 2.4e34 at iteration 20 beside heads at 0.7-1.2, then NaN).
    - *Finite to +Inf* (or to 87.3365 = -ln(FLT_MIN), Caffe's clamped float32 +Inf) never
      back near its level, read from the eval loss when no train loss is logged (error).
    - *Worse than the trainer's own best eval* (fairseq's `best`): the last eval loss 50%+
      above it with the train loss no lower (error); with only evals logged, the eval loss
      must also have jumped by half that best between two consecutive evals.
    - *Only evals, no best reported*: 4+ evals (a model card whose training loss reads "No
      log"), the eval loss jumping by half its best between two evals and ending 50%+ above
      it, while a held-out task metric that gained 10%+ on its first eval sits at or below
      that first eval at each of its last two (warning; val accuracy 0.3 -> 0.82 -> 0.1, a
      WER 0.9 -> 0.28 -> 1.0).
    - *The trainer's own guard aborted on the loss* ("Aboring, cost seems to be exploding"
      in neuraltalk, "loss seems to be exploding, quitting." in neuraltalk2, "loss is
      exploding, aborting." in char-rnn, all past 2-20x the first loss; tacotron's "Loss
      exploded to 412.3 at step 2140!" past 100; NCRF++'s "LOSS EXPLOSION (>1e8)") (error),
      unless the losses logged up to the message never rose.
    - *No total loss* (a GAN's players, a detector's heads): each never-negative term at
      1e6+ (error; a discriminator loss 1.4e12 -> 4.0e12 beside a generator at 560 -> 1167).
      Not a signed term (a WGAN critic's scores, a -Q).
    - *Runs off below zero*: the last 5+ logs (of the last 10) all under -1000 and falling
      at each log, the later half of the fall no smaller than the earlier (warning; an RNN-T
      loss -74,735 -> -78,074 over 6 steps, then NaN).
    - *RL off-policy critic*: the actor's loss (-Q) or the critic's (squared TD error) 100x
      beyond the largest episode return, or 10,000x beyond a per-step reward (the most a
      0.9999 discount allows), after growing 100x from its first fifth (error; a TD3 actor
      at -1.8e6 beside episode returns of 2,000). Other RL losses are not judged; a return
      that climbed well clear of the start (or of random play) then gave back half the climb
      or more over the whole last fifth is a collapsed policy (`_rl_collapse`).

    **Known false positives.** A short warmup bump is ignored (only a sustained late level
    counts). The late median's noise is that of the curve's independent stretches
    (measure.level_noise), so a running average (kohya's `avr_loss`, an EMA) wandering
    like a healthy diffusion LoRA's is not read as a rise. Curriculum or data-mixture
    changes can legitimately raise the loss. The relative tests (not the absolute ones):

    - stand down when a held-out task metric (eval_/val_/test_ accuracy, recall, mAP, WER;
      without an eval loss, one logged at most a fifth as often as the train loss) has 3+
      evals after the onset, its last 10%+ better than its last before the onset, its final
      within that margin of its best (pseudo-labels re-clustered, a term switched on, a
      curriculum stage);
    - stand down on a loss ending under 0.01 while a held-out metric (2+ evals before the
      onset, 3+ after) stays within 2% of its best at every eval (5e-5 -> 1.4e-4 at a
      validation AUC of 1.0; a resumed fine-tune at 1e-3);
    - stand down when a train task metric logged with the loss (at half its logs or more)
      is no worse at any of its 3+ logs after the onset and ends better, also on a short
      log (an adversarial multi-task classifier: total loss 2.2 -> 11.7 over 12 epochs while
      train accuracy rose 0.61 -> 0.92); a noisy per-batch accuracy does not count;
    - are info when every held-out task metric with 3+ evals after the onset ends (median
      of its last evals) within 0.5% and 2 noise sigmas of its best before the onset (a fit
      at ~0 wobbling 6e-5 -> 1.4e-4 at val AUC 1.0; a late resume doubling from 5e-4 at val
      accuracy 99%); a metric already collapsed before the climb (val top-1 at chance from
      epoch 7, loss rising from epoch 11) is judged against its best, not its onset level;
    - are info for a GAN (fact task = gan), and for a total whose logged loss-term weight
      (beta, kl_weight, a lambda, `<term>_weight`) moved 2x+ (or from 0) between the onset
      and the end;
    - are at most a warning for a loss with a tenth of its logs or more under 0 (a
      log-likelihood, an ELBO).

    A blow-up the loss recovers from (ending below its start, off the floor) is left to
    `loss-spike` / `warmup-too-short`, unless its level held above the start for a fifth
    of the run (the rescued stretch above).

    **What to do.** Roll back to a checkpoint before the onset; lower the peak LR
    3-10x and/or lengthen warmup to 2-5% of steps; use bf16 instead of fp16; check
    gradient clipping (max_grad_norm ~1.0).
    """
    loss = run.get("loss")
    if run.is_rl:  # its loss is a surrogate: the return is the curve that diverges ...
        # ... or an actor's -Q beyond any return: the critic's values exploded
        if (hit := collapse_hit(run) or value_explosion_hit(run)) is not None:
            yield hit
        return
    if (hit := said_exploding(run, loss)) is not None:
        yield hit  # the trainer's own guard aborted the run on it
        return
    if loss is None:  # only evals: an eval loss that overflowed says it as well
        ev = run.get("eval_loss")
        if ev is not None and (
            hit := _overflow(p, ev) or _above_own_best(run, p, None) or heldout_gave_back(run, p)
        ):
            yield hit
        elif (hit := part_astronomical(run, p, _astronomical)) is not None:
            yield hit  # no total, but a term of it blew up
        elif ev is None and run.fact("task") == "gan":
            yield NotJudged(
                "a GAN's generator and discriminator losses are opponents, not one learning "
                "curve (judged only for a blow-up); judge it by its samples or a quality "
                "metric (FID, IS)"
            )
        elif ev is None:
            yield NotJudged("no total loss is logged: its terms are judged for a blow-up only")
        return
    f = loss.finite()
    n = len(f)
    if (hit := _overflow(p, loss)) is not None:
        yield hit  # the loss grew past what floats hold: the end point of a blow-up
        return
    if (hit := _component_blowup(run, p)) is not None:
        yield hit  # a part blew up and the run died before the smoothed total showed it
        return
    if (hit := _above_own_best(run, p, f)) is not None:
        yield hit  # the trainer's own record of its best eval says it got worse
        return
    if (hit := runs_off_below_zero(p, f)) is not None:
        yield hit  # below zero and falling without bound: no relative test reads that
        return
    if n < p.min_points:
        if (
            (n == 2 and (hit := _worse_than_uniform(run, p, f)) is not None)
            or (n == 2 and (hit := _two_confirmed(run, p, f)) is not None)
            or (n == 2 and _ends_nonfinite(loss, f) and (hit := _short_blowup(run, p, f)))
        ):
            yield _graded_by_objective(run, p, hit, f)
        elif n < p.short_min_points and (hit := _astronomical(run, p, f)) is not None:
            yield hit  # one line is enough: no learning model has a loss of 1e32
        elif n < p.short_min_points:
            yield too_few("loss", n, p.short_min_points)
        elif (hit := _short_trend(run, p, f)) is not None:
            yield _graded_by_objective(run, p, _eval_kept_falling(run, hit, f), f)
        elif (hit := _astronomical(run, p, f)) is not None:
            yield hit  # 1e6+ the paste never shows come back
        return
    hit = _early_blowup(run, p, f, *bins(f), _late(p, f), _tail_points(p, n))
    if hit is None:
        hit = _late_rise(run, p, f)
    if hit is None:
        hit = _cut_short(run, p, f)
    if hit is None:
        hit = _gave_back_hit(run, p, f)
    if hit is None:
        hit = ends_on_jump(run, p, f)
    if n <= p.gave_back_max_points and _came_back(p, f):
        hit = None  # a sparse log whose last two losses are back at its best: a spike
    elif hit is None and n <= p.gave_back_max_points and _rise_clears_noise(p, f):
        hit = _short_trend(run, p, f)
    onset = int(hit.step or 0) if hit is not None else 0
    if (
        hit is not None
        and _heldout_improved(run, p, f, onset) is None
        and not (_late(p, f) < p.fitted_loss and _heldout_held(run, p, f, onset))
        and _train_improved(p, f, onset, train_metrics(run)) is None
    ):
        yield _graded_by_objective(run, p, _graded_by_heldout(run, p, hit, onset), f)
    elif hit is None and (hit := _astronomical(run, p, f)) is not None:
        yield hit  # 1e6+ the log never shows come back: the trend tests read the tail's median
    elif hit is None and (hit := held_then_recovered(run, p, f)) is not None:
        # a stretch back above the start that a decaying LR later rescued
        yield _graded_by_objective(run, p, hit, f)


def _short_trend(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log's relative tests (a blow-up, a confirmed last jump, a climb the evals
    or the LR share), unless a task metric on the training batches improved at every log
    through the rise (from the loss's best before it): as on a long log, a loss that
    climbs while the model keeps getting better on the very data it is computed on
    measures another objective (an adversarial term), however few lines show it."""
    hit = (
        _short_blowup(run, p, f)
        or _last_jump_confirmed(run, p, f)
        or _worse_on_train(run, p, f)
        or _worse_on_eval_too(run, p, f)
        or _climbs_with_eval(run, p, f)
        or _climbs_with_lr(run, p, f)
    )
    if hit is None:
        return None
    start = hit.evidence.get("best_step", hit.step)
    start = int(start) if start is not None else int(f.steps[0])
    return hit if _train_improved(p, f, start, train_metrics(run)) is None else None


def _rise_clears_noise(p: Params, f: Series) -> bool:
    """A sparse log's last third sits (its median) `step_sigmas` noise sigmas of the
    points before it above the level around their lowest (the median of it and its
    neighbours): the paste tests read 10-20 logs only when the rise stands clear of the
    log's own swings. A per-batch loss that swings 10x batch to batch (a CRF summed
    over sentences, a near-0 fit's hard batches) has a lucky low and an unlucky last
    log in any window of it; a log of epoch means does not."""
    y = f.values
    k = max(2, y.size // 3)
    before = y[: y.size - k]
    i = int(np.argmin(before))
    level = float(np.median(before[max(0, i - 1) : i + 2]))
    # second differences: a fall's own slope and its easing are no noise (a 12-log
    # paste that falls 3.0 -> 1.08 changes by -1.0 then by -0.04 per log)
    curv = mad(np.diff(before, 2)) / math.sqrt(6) if before.size >= 4 else math.inf
    sigma = max(curv if math.isfinite(curv) else math.inf, p.step_noise_floor * abs(level))
    return float(np.median(y[-k:])) - level >= p.step_sigmas * sigma


def _came_back(p: Params, f: Series) -> bool:
    """The last two losses of a sparse log both within `min_rise` of the lowest loss
    before them: whatever rose in between came back down (a spike, `loss-spike`'s). In
    a log of 10-20 points the trend tests' tail median spans 3-6 points, and two spiked
    ones among them move it as much as a climb that held."""
    y = f.values
    if y.size < 4:
        return False
    low = float(np.min(y[:-2]))
    return low > 0 and bool(np.all(y[-2:] < (1 + p.min_rise) * low))


def _ends_nonfinite(loss: Series, f: Series) -> bool:
    """The loss is NaN/Inf after its last finite log (and so to the end of the log)."""
    return bool(len(f)) and bool((~np.isfinite(loss.values[loss.steps > f.steps[-1]])).any())


def _heldout_metrics(run: Run, p: Params, f: Series) -> list[tuple[Series, bool]]:
    """Task metrics measured on held-out data: `task_metrics`, or, with no eval loss
    to anchor them, a series named like a task metric (recall@1, mAP, top1) that is
    not a train one and is logged at most `heldout_sparse` as often as the train loss
    (at the evals, not at every log line: Keras' per-epoch `acc` next to a per-epoch
    loss is a train metric and is not this)."""
    out = list(task_metrics(run))
    if out or run.get("eval_loss") is not None:
        return out
    for name, s in run.series.items():
        if "loss" in name or name.lower().startswith("train") or not len(s.finite()):
            continue
        higher = direction(name)
        if higher is not None and len(s.finite()) <= p.heldout_sparse * len(f):
            out.append((s, higher))
    return out


def _heldout_improved(run: Run, p: Params, f: Series, onset: int) -> str | None:
    """The name of a held-out task metric that improved through the rise, or None.

    The metric's last eval at or before the onset (its first eval, if none is) is the
    baseline; it needs `heldout_min_evals` evals after the onset, the median of the
    last three of them `heldout_gain` (relative) better than the baseline, and its
    final eval within that margin of its best: a model that keeps getting better on
    unseen data is not being made worse by its updates."""
    for m, higher in _heldout_metrics(run, p, f):
        e = m.finite()
        after = e.steps > onset
        if int(after.sum()) < p.heldout_min_evals:
            continue
        before = np.flatnonzero(~after)
        base = float(e.values[before[-1]] if before.size else e.values[0])
        vals = e.values[after] if before.size else e.values[1:]
        if vals.size < p.heldout_min_evals or base == 0:
            continue
        sign = 1.0 if higher else -1.0
        end = float(np.median(vals[-3:]))
        gain = sign * (end - base) / abs(base)
        best = float(vals.max() if higher else vals.min())
        last = float(vals[-1])
        if gain >= p.heldout_gain and sign * (best - last) <= p.heldout_gain * abs(base):
            return m.name
    return None


def _heldout_held(run: Run, p: Params, f: Series, onset: int) -> bool:
    """A held-out metric that never left its best level through the rise: 2+ evals
    before the onset, `heldout_min_evals`+ after it, each within `heldout_hold`
    (relative) of the best eval before. With the loss still under `fitted_loss` this
    is a fitted model's wobble (a fine-tune's train loss going 5e-5 -> 1.4e-4 at a
    validation AUC of 1.0), not updates wrecking it: those cost the held-out metric."""
    for m, higher in _heldout_metrics(run, p, f):
        e = m.finite()
        after = e.steps > onset
        pre, post = e.values[~after], e.values[after]
        if pre.size < 2 or post.size < p.heldout_min_evals:
            continue
        sign = 1.0 if higher else -1.0
        best = float(pre.max() if higher else pre.min())
        if best != 0 and bool(np.all(sign * (post - best) >= -p.heldout_hold * abs(best))):
            return True
    return False


def _eval_kept_falling(run: Run, hit: Hit, f: Series) -> Hit:
    """A short log's error, lowered to a warning when the eval loss is lower at each of
    its 2+ evals from the onset on than at the one before (the last eval before the
    onset the first of them): a model its updates wreck gets worse on unseen data, and
    this one got better through the rise (an mT5 card at LR 1e-3: train loss 0.87 -> 1.87
    -> 3.54 while the eval loss went 0.59 -> 0.57 -> 0.54). A few lines cannot tell a
    spike the next logs absorb from a blow-up, so the rise stays a warning."""
    ev = run.get("eval_loss")
    if ev is None or (hit.severity is not None and hit.severity < Severity.ERROR):
        return hit
    e = ev.finite()
    onset = int(hit.evidence.get("onset_step", hit.step) or f.steps[0])
    before, after = e.values[e.steps < onset], e.values[e.steps >= onset]
    if not before.size or after.size < 2:
        return hit
    y = np.concatenate([before[-1:], after])
    if not bool(np.all(np.diff(y) < 0)):
        return hit
    return replace(
        hit,
        severity=Severity.WARNING,
        explanation=hit.explanation
        + f" But the eval loss fell at each eval through the rise ({fmt(float(y[0]))} -> "
        f"{fmt(float(y[-1]))}): the model got better on unseen data, so this may be a "
        "spike the next logs absorb; log further before restarting.",
    )


def _graded_by_heldout(run: Run, p: Params, hit: Hit, onset: int) -> Hit:
    """The trend / blow-up hit, lowered to info when every held-out task metric evaluated
    3+ times after the onset ends no worse than the best it reached before the onset
    (within `heldout_held_rel` and 2 of its noise sigmas): divergence is updates making
    the model worse, and the unseen data says they did not; the rise is the train loss's
    own (a near-0 fit wobbling, an excerpt's noise), not a harm the log shows. Against its
    best, not its level at the onset: a metric that collapsed before the train loss
    climbed (val top-1 at chance from epoch 7) does not "hold" at chance."""
    held = []
    for m, higher in task_metrics(run):
        e = m.finite()
        after, before = e.values[e.steps > onset], e.values[e.steps <= onset]
        if after.size < p.heldout_min_evals or before.size == 0:
            continue  # too few evals since, or none before, to compare
        sign = 1.0 if higher else -1.0
        peak = float(before.max() if higher else before.min())
        end = tail_level(after)
        if sign * (peak - end) > max(p.heldout_held_rel * abs(peak), 2 * noise(e.values)):
            return hit  # worse on unseen data than it was: the climb is harm
        held.append(f"{m.name} {fmt(peak)} -> {fmt(end)}")
    if not held:
        return hit
    return replace(
        hit,
        severity=Severity.INFO,
        explanation=hit.explanation
        + f" But the held-out task metrics end no worse than their best before the rise "
        f"({', '.join(held)}): the model did not get worse on unseen data, so the rise is "
        "no harm the log shows.",
    )


# A weight of a loss term (a VAE's beta / KL weight, a term's coefficient or lambda):
# logged, it shows the objective being re-weighted. Not weight decay or a weight norm.
_TERM_WEIGHT = re.compile(
    r"(?:^|[_/])(?:beta|kl_?(?:weight|coef|beta|scale)|\w*loss_?(?:weight|coef)|lambda\w*|"
    r"\w+_(?:weight|coef))$",
    re.I,
)
_NOT_TERM_WEIGHT = re.compile(r"decay|norm|ema|param|lr|momentum|beta[12]$", re.I)


def _graded_by_objective(run: Run, p: Params, hit: Hit, f: Series) -> Hit:
    """A relative test's hit, lowered where the logged loss is no quantity whose rise
    means the updates made the model worse: a GAN's (its players' losses rise and fall
    as each gains on the other: info), one whose objective was re-weighted over the rise
    (a logged loss-term weight that moved 2x or more, a VAE's KL annealed in: info), or a
    loss that goes negative (a log-likelihood, an ELBO: a relative rise has no zero to be
    measured from, and the sign may be the one maximised: at most a warning)."""
    onset = int(hit.evidence.get("onset_step", hit.step) or f.steps[0])
    note = _objective_note(run, p, onset, f)
    if note is None or (hit.severity or Severity.ERROR) <= note[1]:
        return hit
    why, severity = note
    return replace(hit, severity=severity, explanation=f"{hit.explanation} {why}".strip())


def _objective_note(run: Run, p: Params, onset: int, f: Series) -> tuple[str, Severity] | None:
    """Why a rise of this loss is weaker evidence than a cross-entropy's, and the most
    severe a relative test may then say; None for a plain loss."""
    if run.fact("task") == "gan":
        why = (
            "This is an adversarial run: a player's loss rises whenever the other gains on "
            "it, by design, so a rising loss alone does not show updates wrecking the model; "
            "judge it by samples or a quality metric (FID)."
        )
        return why, Severity.INFO
    if (w := _reweighted(run, p, onset, int(f.steps[-1]))) is not None:
        why = (
            f"The loss-term weight {w} moved over the rise: the objective itself changed (a "
            "KL or auxiliary term annealed in), so the total's rise is the new term's "
            "weight, not a worse model."
        )
        return why, Severity.INFO
    if float(np.mean(f.values < 0)) >= p.signed_share:
        why = (
            "The loss goes negative (a log-likelihood or an ELBO): it has no zero to measure "
            "a relative rise from, and a quantity that is maximised rises as it learns; "
            "check the sign it is logged with."
        )
        return why, Severity.WARNING
    return None


def _reweighted(run: Run, p: Params, start: int, end: int) -> str | None:
    """A logged loss-term weight whose value moved by `reweight_factor` or more (or from 0)
    between `start` and `end`: '<name> <before> -> <after>'."""
    for name in sorted(run.series):
        if not _TERM_WEIGHT.search(name) or _NOT_TERM_WEIGHT.search(name):
            continue
        s = run.get(name)
        g = s.finite() if s is not None else None
        if g is None or not len(g):
            continue
        at, to = g.values[g.steps <= start], g.values[(g.steps > start) & (g.steps <= end)]
        if not at.size or not to.size:
            continue
        a, b = abs(float(at[-1])), abs(float(to[-1]))
        if max(a, b) > 0 and max(a, b) >= p.reweight_factor * min(a, b):
            return f"{name} {fmt(float(at[-1]))} -> {fmt(float(to[-1]))}"
    return None


def _train_improved(
    p: Params, f: Series, onset: int, metrics: list[tuple[Series, bool]]
) -> str | None:
    """The name of a train task metric that improved at every log through the rise, or None.

    The metric is logged with the loss (at half its logs or more: the same batches),
    has `heldout_min_evals`+ values after the onset, none of them worse than its last
    value at or before the onset, and ends better than that value: the model kept
    getting better at the task on the very data the rising loss is computed on."""
    for m, higher in metrics:
        e = m.finite()
        if len(e) < 0.5 * len(f):
            continue
        after = e.steps > onset
        before = np.flatnonzero(~after)
        vals = e.values[after]
        if before.size == 0 or vals.size < p.heldout_min_evals:
            continue
        base = float(e.values[before[-1]])
        sign = 1.0 if higher else -1.0
        if bool(np.all(sign * (vals - base) >= 0)) and sign * (float(vals[-1]) - base) > 0:
            return m.name
    return None


def _above_own_best(run: Run, p: Params, f: Series | None) -> Hit | None:
    """The last eval loss 50%+ above the best eval loss the trainer itself reports
    (fairseq's `best`), with the train loss at that point no lower than that best:
    the model got worse on both sets, which overfitting (train falling) does not do.
    With no train loss logged (`f` None), the eval loss must instead have jumped by
    half that best between two consecutive evals: overfitting creeps up, eval after
    eval; a jump of half the best level in one eval interval is the model wrecked."""
    ev, best = run.get("eval_loss"), run.get("eval_best_loss")
    if ev is None or best is None or (f is not None and not len(f)):
        return None
    e, b = ev.finite(), best.finite()
    if not len(e) or not len(b):
        return None
    last, lo = float(e.values[-1]), float(b.values.min())
    if not (lo > 0 and last >= (1 + p.blowup_rise) * lo):
        return None
    step = int(e.steps[-1])
    if f is None:
        jumps = np.diff(e.values)
        if not (jumps.size and float(jumps.max()) >= p.blowup_rise * lo):
            return None
        at = int(e.steps[int(np.argmax(jumps)) + 1])
        return Hit(
            title=(
                f"Eval loss {fmt(last)} at step {step} is {last / lo:.1f}x the run's own best "
                f"{fmt(lo)}, after jumping {fmt(float(jumps.max()))} in one eval interval "
                f"(step {at})"
            ),
            step=at,
            end_step=step,
            evidence={
                "eval_loss": last,
                "best_eval_loss": lo,
                "jump": float(jumps.max()),
                "jump_step": at,
            },
            explanation=(
                "The trainer's record of its best eval loss shows the model was once far "
                "better than it is now, and the eval loss did not creep up eval after eval "
                "as overfitting does: it jumped by half the best level between two evals. "
                "The updates wrecked what the model had learned."
            ),
            prescription=_steadier_from(
                run, f"Restart from the best checkpoint (before step {at})"
            ),
            severity=Severity.ERROR,
        )
    train = float(f.values[f.steps <= e.steps[-1]][-1]) if (f.steps <= e.steps[-1]).any() else None
    if not (train is not None and train >= lo):
        return None
    return Hit(
        title=(
            f"Eval loss {fmt(last)} at step {step} is {last / lo:.1f}x the run's own best "
            f"{fmt(lo)}, and the train loss ({fmt(train)}) is above that best too"
        ),
        step=step,
        evidence={"eval_loss": last, "best_eval_loss": lo, "train_loss": train},
        explanation=(
            "The trainer's record of its best eval loss shows the model was once far better "
            "than it is now, on held-out data and on the training data alike: the updates "
            "wrecked what it had learned. Overfitting raises the eval loss while the train "
            "loss keeps falling below it; here both are worse than the best."
        ),
        prescription=_steadier_from(run, "Restart from the best checkpoint"),
        severity=Severity.ERROR,
    )


def _tail_points(p: Params, n: int) -> int:
    """How many of the last points the late level is the median of: 10% of the log,
    3 at least, and as many as the best level's smoothing window (up to a third of
    the log), so that one or two late batches cannot make the end level."""
    return max(3, int(p.tail_fraction * n), min(p.smooth, n // 3))


def _late(p: Params, f: Series) -> float:
    """Median of the last `_tail_points` finite points: where the run ended."""
    return float(np.median(f.values[-_tail_points(p, len(f)) :]))


def _late_rise(run: Run, p: Params, f: Series) -> Hit | None:
    """The late level 10%+ above the best smoothed level, beyond noise, with a rising
    trend since the best (warning), or 50%+ / back on the floor (error)."""
    n = len(f)
    st, vals = bins(f)
    nb = vals.size
    kt = _tail_points(p, n)
    late = float(np.median(f.values[-kt:]))
    tail_start = f.steps[-kt]
    before = st < tail_start
    if before.sum() < 3:
        return None
    # the late median's standard error from the curve's own noise, over the points of
    # the tail that are independent (a running average's are not: measure.level_noise)
    sigma, lag = level_noise(f.values)
    se_late = 1.2533 * sigma / math.sqrt(max(1.0, kt / lag))
    # A rise is the gap between two levels, each a median of a window of the same noisy
    # curve: it must clear the noise of both, not of the late one only. The best is a
    # median over the raw points its smoothing window spans (`smooth` bins) and the lowest
    # of many such windows - the luckiest draw - so the gap must also clear `diff_z`
    # standard errors of a difference of the two medians.
    in_best = min(p.smooth, nb) * n / max(nb, 1)
    se_best = 1.2533 * sigma / math.sqrt(max(1.0, in_best / lag))
    se_diff = math.hypot(se_late, se_best)
    sm = rolling_median(vals, p.smooth)
    i_best = int(np.argmin(np.where(before, sm, np.inf)))
    best = float(sm[i_best])
    scale = max(abs(best), 1e-12)
    rise = (late - best) / scale
    if rise < p.min_rise or late - best < max(p.noise_z * se_late, p.diff_z * se_diff):
        return None
    # a loss that fell 10x+ (`floor_ratio`) wobbles by multiples of its best: there the
    # rise must be `solved_rise` of what the run learned (start - best)
    head = float(np.median(f.values[: p.head_points]))
    if solved(head, best, p.floor_ratio) and late - best < p.solved_rise * (head - best):
        return None
    after = slice(i_best, nb)
    tr = trend(st[after], vals[after])
    floor = run.floor
    back_at_floor = floor is not None and best < 0.9 * floor and late >= 0.97 * floor
    blowup = rise >= p.blowup_rise or back_at_floor
    held = _held(p, sm, i_best, best, late)
    if not blowup and not tr.rising and not held:
        return None
    # An error needs the log to show what the rise undid: all of it (back on ln(V), the
    # untrained model's level, from 10%+ under it), or a quarter or more of what it learned
    # before its best. A log that learned nothing before its best (a window resumed at its
    # level, a head within `min_rise` of it) shows no learning to undo: an error there
    # needs the late level 3x its best.
    learned = head >= (1 + p.min_rise) * best
    severe = back_at_floor or (
        blowup
        and (_undid_learning(head, best, late, p) if learned else late >= p.short_still_up * best)
    )
    mark = best + 0.25 * (late - best)
    above = np.flatnonzero(sm[i_best:] > mark)
    onset = int(st[i_best + above[0]]) if above.size else int(st[i_best])
    if not blowup and _lr_spent(run, p, onset):
        return None
    severity = Severity.ERROR if severe else Severity.WARNING
    evidence: dict[str, object] = {
        "best_loss": best,
        "best_step": int(st[i_best]),
        "late_loss": late,
        "rise": rise,
        "trend_z": tr.z,
        "onset_step": onset,
    }
    if floor is not None:
        evidence["floor"] = floor
    if (lr := _lr_at(run, onset)) is not None:
        evidence["lr_at_onset"] = lr
    if held and not tr.rising:
        evidence["held"] = True
    return Hit(
        title=(
            f"Loss diverges: from a best of {fmt(best)} (step {int(st[i_best])}) it climbs "
            f"to {fmt(late)} ({rise:+.0%}), from step {onset}"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=(
            "The training loss went up after having been lower, and stayed up: updates "
            "are making the model worse. That is the signature of steps too large for "
            "the loss surface (LR too high, warmup too short) or of numerics breaking "
            "down (fp16 overflow, exploding gradients)."
        ),
        prescription=_steadier_from(run, f"Roll back to a checkpoint before step {onset}"),
        severity=severity,
    )


def _lr_spent(run: Run, p: Params, onset: int) -> bool:
    """The logged LR at `onset` has decayed under `spent_lr_frac` of its peak before it:
    updates too small to make the model worse (see Params.spent_lr_frac)."""
    lr = run.get("lr")
    if lr is None:
        return False
    lf = lr.finite()
    before = lf.values[lf.steps <= onset]
    if before.size < 3:
        return False
    peak = float(before.max())
    return peak > 0 and float(before[-1]) < p.spent_lr_frac * peak


def _held(p: Params, sm: np.ndarray, i_best: int, best: float, late: float) -> bool:
    """The loss stepped up and stayed up: from the first smoothed point past halfway
    between the best and the late level, it never came back below halfway, for at
    least `held_share` of the points after the best, and it has not been coming down
    since: the first quarter of that stretch is within `held_return` of the rise
    above the late level. A trend test misses this shape (a jump, then a long plateau
    drifting slightly down: most pairs after the jump fall), yet the run ended far
    above its best. A jump that is decaying back (8 -> 6 after a best of 5) is a spike
    still recovering, not this."""
    half = best + 0.5 * (late - best)
    tail = sm[i_best:]
    up = np.flatnonzero(tail > half)
    if not up.size:
        return False
    stretch = tail[up[0] :]
    if stretch.size < max(3, p.held_share * tail.size) or bool((stretch <= half).any()):
        return False
    head = float(np.median(stretch[: max(1, stretch.size // 4)]))
    return head - late <= p.held_return * (late - best)


def _cut_short(run: Run, p: Params, f: Series) -> Hit | None:
    """A rise at a constant LR that the schedule's cut ended: the loss climbed for a
    whole stretch at one LR and only came down when the LR was divided (a step decay,
    ReduceLROnPlateau, an anneal-on-plateau loop). The run's end looks recovered; the
    stretch before the cut diverged at that LR: it ends 10%+ above where it began."""
    for lo, hi, lr, cut_to in _constant_lr_stretches(run, p):
        keep = (f.steps >= lo) & (f.steps < hi)
        seg = Series(f.name, f.steps[keep], f.values[keep], None, f.source)
        if len(seg) < p.min_points:
            continue
        # The stretch as a whole left the model worse than it found it: it ends 10%+
        # above where it began. (After a step decay a loss often dips fast and creeps
        # back up a little at the new LR, still far below where the stretch began.)
        head = float(np.median(seg.values[: p.head_points]))
        if not _late(p, seg) >= (1 + p.min_rise) * head:
            continue
        hit = _late_rise(run, p, seg)
        if hit is None:
            continue
        ev = dict(hit.evidence) | {"lr": lr, "lr_cut_to": cut_to, "cut_step": hi}
        return Hit(
            title=(
                f"Loss diverges at LR {fmt(lr)}: from a best of {fmt(ev['best_loss'])} it "
                f"climbs to {fmt(ev['late_loss'])} ({ev['rise']:+.0%}) until the LR is cut "
                f"to {fmt(cut_to)} at step {hi}"
            ),
            step=hit.step,
            end_step=hi,
            evidence=ev,
            explanation=(
                f"At a constant LR of {fmt(lr)} the training loss went up and stayed up for "
                "the whole stretch; it came down only when the schedule cut the LR. The "
                "updates at that LR were making the model worse: every step of the stretch "
                "was wasted, and the run restarts from a worse point than its best."
            ),
            prescription=(
                f"Start below {fmt(lr)} (the cut to {fmt(cut_to)} is what worked); "
                + advice.join(*advice.steadier(run, "or lower the peak LR 3-10x"))
                + "."
            ),
            severity=Severity.WARNING,  # the cut rescued the run: not its end state
        )
    return None


def _constant_lr_stretches(run: Run, p: Params) -> Iterator[tuple[int, int, float, float]]:
    """(first step, cut step, LR, LR after) of each stretch logged at one LR (within
    `lr_level`) that ends with the LR divided by `lr_cut` or more. A cosine or
    linear decay changes the LR a little at every log: it has no such stretch."""
    lr = run.get("lr")
    if lr is None or len(lr) < 2 * p.min_points:
        return
    lf = lr.finite()
    v, st = lf.values, lf.steps
    if v.size < 2 or (v <= 0).any():
        return
    # a new level wherever the LR moves by more than `lr_level` of itself
    breaks = np.flatnonzero(np.abs(np.diff(v)) > p.lr_level * v[:-1]) + 1
    starts = np.concatenate(([0], breaks))
    for a, b in zip(starts[:-1], breaks, strict=True):
        if v[b] <= v[b - 1] / p.lr_cut:
            yield int(st[a]), int(st[b]), float(v[b - 1]), float(v[b])


def _early_blowup(
    run: Run,
    p: Params,
    f: Series,
    st: np.ndarray,
    vals: np.ndarray,
    late: float,
    kt: int,
) -> Hit | None:
    """A blow-up measured against the first logged level (no "best" needed)."""
    start = float(np.median(f.values[: p.head_points]))
    if not start > 0:
        return None  # a zero/negative start (degenerate or non-CE loss): no ratio
    sm = rolling_median(vals, p.blowup_window)
    i_peak = int(np.argmax(sm))
    peak = float(sm[i_peak])
    if peak < p.blowup_factor * start:
        return None
    floor = run.floor
    # Noise of the end level from the tail's own batch-to-batch differences (the
    # blow-up itself would inflate a whole-run estimate); the 3-point start is
    # noisier than the tail median, hence the 1/3 term.
    tail = f.values[-kt:]
    sigma = mad(np.diff(tail)) / math.sqrt(2) if tail.size >= 4 else 0.0
    se = 1.2533 * (sigma if math.isfinite(sigma) else 0.0) * math.sqrt(1 / kt + 1 / p.head_points)
    still_up = late >= (1 + p.blowup_rise) * start and late - start >= p.noise_z * se
    on_floor = False
    if floor is not None:
        lo, hi = fl.band(run, floor)
        on_floor = lo <= late <= hi and peak >= p.blowup_factor * floor
    if not (still_up or on_floor):
        return None  # it came back below its start: transient, not divergence
    up = np.flatnonzero(sm[: i_peak + 1] >= (1 + p.blowup_rise) * start)
    onset = int(st[up[0]]) if up.size else int(st[i_peak])
    evidence: dict[str, object] = {
        "start_loss": start,
        "peak_loss": peak,
        "peak_step": int(st[i_peak]),
        "peak_ratio": peak / start,
        "late_loss": late,
        "rise": (late - start) / start,
        "onset_step": onset,
        "ends": "still above its start" if still_up else "on the uniform floor",
    }
    if floor is not None:
        evidence["floor"] = floor
    if (lr := _lr_at(run, onset)) is not None:
        evidence["lr_at_onset"] = lr
    if still_up:
        end = f"is still {fmt(late)} at the end ({(late - start) / start:+.0%} over its start)"
        why = "it never came back to where it started: the updates wrecked the model."
    else:
        end = (
            f"lands on the uniform floor {fl.log_name(run)}({run.vocab_size}) = {fmt(floor or 0.0)} "
            f"({fmt(late)} at the end)"
        )
        why = (
            "it then settled exactly on the uniform floor ln(V): the model was wrecked into "
            "predicting the same distribution for every input (dead units, collapsed "
            "logits), so the flat loss after the blow-up is not convergence."
        )
    return Hit(
        title=(
            f"Loss blows up from {fmt(start)} to {fmt(peak)} ({fmt(peak / start)}x, step "
            f"{int(st[i_peak])}) and {end}"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=(
            f"From step {onset} the training loss climbed to {fmt(peak / start)}x its starting "
            f"level, and {why} That is the signature of steps far too large for the loss "
            "surface (LR too high for the regime, no warmup) or of numerics breaking down."
        ),
        prescription=(
            "Restart from the initial checkpoint (nothing after the blow-up is worth keeping); "
            + advice.join(*advice.steadier(run, "lower the peak LR 3-10x or more"))
            + "."
        ),
        severity=Severity.ERROR,
    )


def _astronomical(run: Run, p: Params, f: Series) -> Hit | None:
    """A finite loss >= `astronomical` after the start (or anywhere in a late window).

    With points before it, it must also be `short_orders` (10x) over their level (the
    median of the last `head_points` before it: a loss that always sat near 1e6 is on
    that scale, not blown up); with points after it, their median must still be
    `blowup_rise` over that level: a 1e14 batch the next log is back from is a spike
    (`loss-spike`'s), however large. The first loss that passes is the blow-up: the
    largest of a run of them (1.7e13, 2.1e13, 2.15e13) stands against its blown-up
    neighbours, not against the level the run blew up from. A run's first log counts
    when it is past step 1 (updates were made before it) and `overflowing` (1e30+, within 8 orders of float32's
    largest): no initialisation gives that, the updates before it overflowed."""
    if not len(f) or run.fact("task") == "regression":
        return None
    if (
        len(f) < p.short_min_points
        and float(f.values.min()) >= p.astronomical
        and starts_mid_run(f)
    ):
        # a 1-2 line paste from mid-run whose every line is 1e6+: judged as a one-line
        # paste is (6e35 -> 7.6e35 is still blown up, not 1.2x over a level); one the
        # next line is back from (3e14 -> 0.25) is a spike
        i = 0
    else:
        i = next(
            (j for j in np.flatnonzero(f.values >= p.astronomical) if _blew_up_at(p, f, int(j))),
            int(np.argmax(f.values)),
        )
    peak = float(f.values[i])
    # a first log past step 1 at float32's edge overflowed after updates: no init's loss
    overflowed = i == 0 and peak >= p.overflowing and int(f.steps[0]) > 1
    if peak < p.astronomical or (i == 0 and not starts_mid_run(f) and not overflowed):
        return None
    if i > 0 and not _blew_up_at(p, f, i):
        return None
    if i == 0 and len(f) > 1 and float(np.median(f.values[1:])) < p.astronomical:
        return None  # a window from mid-run that opens at 3e14 and is back at 0.25: a spike
    step = int(f.steps[i])
    # With no level before it (a window that opens at 1e6+) the value's scale is all the
    # evidence: a summed loss can sit there by design. From `unseen_error` up (or a 10x
    # jump over logged levels) it is an error ...
    # ... or one the loss turns NaN/Inf after, to the end: the blow-up ended the run
    raw = run.get("loss")
    dies = raw is not None and len(raw) > len(f) and _ends_nonfinite(raw, f)
    unseen = i == 0 and not overflowed and peak < p.unseen_error and not dies
    return Hit(
        title=f"Loss reaches {fmt(peak)} at step {step}: the model has blown up",
        step=step,
        end_step=int(f.steps[-1]),
        evidence={"peak_loss": peak, "peak_step": step, "points": len(f)},
        explanation=(
            f"A loss of {fmt(peak)} is beyond any cross-entropy (-log of the smallest float is "
            "~104) and any loss over normalised targets: the weights or activations have grown "
            "without bound, and every update from them is garbage."
        ),
        prescription=_steadier_from(run, f"Restart from a checkpoint before step {step}"),
        severity=Severity.WARNING if unseen else Severity.ERROR,
    )


# -ln(FLT_MIN): the loss of a float32 softmax whose true-class probability underflowed
# and was clamped to the smallest normal float (Caffe's SoftmaxWithLoss prints 87.3365).
# It is +Inf with a floor under it, and Caffe users read it as such.
SATURATED = -math.log(float(np.finfo(np.float32).tiny))


def _blew_up_at(p: Params, f: Series, i: int) -> bool:
    """The loss at `i` (> 0) is `short_orders` over the level before it (the median of its
    last `head_points`) and the points after it stay `blowup_rise` over that level."""
    if i <= 0:
        return False
    level = float(np.median(f.values[max(0, i - p.head_points) : i]))
    if not float(f.values[i]) >= p.short_orders * level:
        return False
    after = f.values[i + 1 :]
    return not (after.size and float(np.median(after)) < (1 + p.blowup_rise) * level)


def _overflowed(v: np.ndarray) -> np.ndarray:
    """+Inf, or the clamped +Inf of a float32 softmax (87.3365 to 4 decimals)."""
    return np.isposinf(v) | (np.abs(v - SATURATED) <= 1e-3)


def _overflow(p: Params, loss: Series) -> Hit | None:
    """The loss goes from finite to +Inf (or its clamped value 87.3365) and no finite
    loss after it is back near its level: it grew past what floats hold. (A NaN alone
    can be a 0/0 in a healthy model; +Inf is the limit of growth.)"""
    v = loss.values
    over = _overflowed(v)
    inf = np.flatnonzero(over)
    if not inf.size or not (np.isfinite(v[: inf[0]]) & ~over[: inf[0]]).any():
        return None
    i = int(inf[0])
    ok = np.isfinite(v) & ~over
    before, after = v[:i][ok[:i]], v[i:][ok[i:]]
    level = float(np.median(before[-p.head_points :]))
    if after.size and float(np.median(after)) < (1 + p.blowup_rise) * level:
        return None  # the loss came back: an overflowing batch, not a blow-up
    step, last = int(loss.steps[i]), int(loss.steps[i - 1])
    what = "Eval loss" if loss.name == "eval_loss" else "Loss"
    clamped = bool(np.isfinite(v[i]))
    to = f"saturates at {float(v[i]):.4f} = -ln(FLT_MIN)" if clamped else "overflows to +Inf"
    return Hit(
        title=(
            f"{what} {to} at step {step} (from {fmt(float(before[-1]))} at step {last}) and "
            "does not come back"
        ),
        step=step,
        end_step=int(loss.steps[-1]),
        evidence={
            "signal": loss.name,
            "last_finite_loss": float(before[-1]),
            "last_finite_step": last,
            "inf_step": step,
            "finite_after": int(after.size),
            **({"saturated_at": float(v[i])} if clamped else {}),
        },
        explanation=(
            (
                f"{float(v[i]):.4f} is -ln of the smallest float32: the softmax gave the true "
                "class a probability that underflowed to 0 and was clamped, on every sample: "
                if clamped
                else "A loss of +Inf is a loss that grew past the largest float: "
            )
            + "the logits or the activations blew up, and the run never returned to its "
            "earlier level. Every update after it is taken on garbage."
        ),
        prescription=(
            f"Restart from a checkpoint before step {last}; lower the peak LR 3-10x, keep "
            "gradient clipping on (max_grad_norm=1.0), and train in bf16 rather than fp16."
        ),
        severity=Severity.ERROR,
    )


def _component_blowup(run: Run, p: Params) -> Hit | None:
    """A loss component's last value >= 10x its earlier median, then NaN somewhere."""
    for name in components(run):
        s = run.get(name)
        f = s.finite() if s is not None else None
        if f is None or len(f) < p.short_min_points:
            continue
        before = float(np.median(f.values[:-1]))
        last, at = float(f.values[-1]), int(f.steps[-1])
        if not (before > 0 and last >= p.short_orders * before):
            continue
        dead = [
            n
            for n in ("loss", *components(run))
            if (x := run.get(n)) is not None and (~np.isfinite(x.values[x.steps >= at])).any()
        ]
        if not dead:
            continue
        lr = run.get("lr")
        evidence: dict[str, object] = {
            "signal": name,
            "before_median": before,
            "last_value": last,
            "ratio": last / before,
            "onset_step": at,
            "nonfinite_in": dead,
        }
        if lr is not None and len(lr.finite()):
            lf = lr.finite()
            evidence["lr_at_onset"] = float(lf.values[lf.steps <= at][-1:].max(initial=0.0))
        return Hit(
            title=(
                f"Loss component {name} blows up from {fmt(before)} to {fmt(last)} "
                f"({fmt(last / before)}x) at step {at}, and {', '.join(dead)} goes NaN"
            ),
            step=at,
            end_step=at,
            evidence=evidence,
            explanation=(
                f"{name} sat near {fmt(before)} and jumped {fmt(last / before)}x in one log, "
                "right where the loss turned NaN: the run diverged. A total that is a median "
                "over the last iterations (detectron2 prints one) still looks normal then."
            ),
            prescription=(
                advice.sentence(
                    "lower the base LR (scale it with the total batch: fewer GPUs than the "
                    "config was written for at the same LR is a hotter run)",
                    advice.warmup(run),
                    advice.clipping(run),
                )
                + "."
            ),
        )
    return None
