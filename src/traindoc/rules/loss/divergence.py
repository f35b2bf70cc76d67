"""divergence: the loss trends upward or blows up."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.measure.losses import SOLVED_RATIO
from traindoc.measure.stats import bins
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._divergence_best import _above_own_best
from traindoc.rules.loss._divergence_blowup import _astronomical, _early_blowup, _ends_nonfinite
from traindoc.rules.loss._divergence_cut import _cut_short
from traindoc.rules.loss._divergence_end import ends_on_jump
from traindoc.rules.loss._divergence_eval import heldout_gave_back
from traindoc.rules.loss._divergence_grade import (
    _eval_kept_falling,
    _graded_by_heldout,
    _heldout_held,
    _heldout_improved,
    _train_improved,
)
from traindoc.rules.loss._divergence_held import held_then_recovered
from traindoc.rules.loss._divergence_late import _late, _late_rise, _tail_points
from traindoc.rules.loss._divergence_objective import _graded_by_objective
from traindoc.rules.loss._divergence_overflow import _component_blowup, _overflow
from traindoc.rules.loss._divergence_parts import part_astronomical, runs_off_below_zero
from traindoc.rules.loss._divergence_said import said_exploding
from traindoc.rules.loss._divergence_short import (
    _gave_back_hit,
    _short_blowup,
    _two_confirmed,
    _worse_than_uniform,
)
from traindoc.rules.loss._divergence_sparse import _came_back, _rise_clears_noise, _short_trend
from traindoc.rules.loss._evalcurve import (
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
