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

    **What it does.** Compares the median of the last 10% of the training loss (and of
    no fewer points than the smoothing window, up to a third of the log: the end is a
    level as wide as the best, not two or three late batches of a noisy per-batch log)
    with the best (lowest) level of the median-smoothed curve before it. Flags when the
    late level is >= 10% above the best (and beyond the noise of both levels: 4
    standard errors of the late median, and 3 of the difference of the two medians, since
    the best is a median too and the lowest of many windows, the luckiest draw) with a rising
    Mann-Kendall trend since the best point, or with a rise that held (the loss
    stepped past halfway to the late level and never came back below halfway, for a
    quarter or more of the points after the best, and was not decaying back: the
    start of that stretch is within half the rise of the end; a jump followed by a
    long plateau drifting slightly down has most pairs falling, so the trend test
    alone misses it), or >= 50% above it (blow-up, no trend needed). A blow-up is an
    error only when the rise also gave back a quarter or more of what the log had learned
    before its best (first logged level - best), or landed on ln(V) from 10%+ under it:
    the updates undid the run. A log that learned nothing before its best (its first
    level within 10% of it: a window resumed at its level) shows nothing to undo: an error
    there needs the late level 3x its best. A loss near 0 that doubles (0.1 -> 0.25 after falling from 2.3, an epoch
    boundary, a fine-tune's late wobble) is far better than where it began, and a ratio
    over a small best is weak evidence: a warning. The onset is where the smoothed
    curve first climbs a quarter of the way from the best level to the late one. A blow-up right at the start (too
    early for a "best" level to exist) is caught against the first logged level
    instead: the 5-point median climbs to >= 3x it, and the run either still ends
    >= 50% above its start or has landed on the uniform floor ln(V) (ln(C)): the
    model was wrecked into predicting uniformly ("does the loss return, or land at
    ln(V)?"). A short log (3-9 points, a pasted excerpt) is judged on the rise alone:
    flagged when its last third all sits >= 50% above the lowest earlier point (the
    median of it and its neighbours: one lucky batch is no level) and above every loss
    it logged before its lowest once it was within 50% of that level (a level it already
    swung to is its noise: a diffusion loss at 0.11-0.15 after a 0.17 among 0.06-0.10), or
    its last finite loss does and the loss is NaN/Inf after it to the end, or it
    climbed >= 10x that level and still ends >= 3x it (a CRF loss summed over a batch that
    swings 8.7k-22.7k has a lucky 946; 10x of it is no blow-up), to a new high of the paste
    or held 3x at each late log (a fitted probe's per-batch loss, 0.57, 0.003, ..., 0.002,
    0.03, 0.015, 0.32, returns to a level it already had: its noise); an error is a
    warning when the eval loss fell at each of its 2+ evals from the onset on (the last
    one before the onset the first): the model got better on unseen data through the rise (error when it climbed 10x, went
    NaN/Inf, or its last third undid a quarter or more of what the paste learned from its
    first log; a held 50% rise that stays far under the first log is a warning, and so
    is one in a paste that learned nothing before it (its first log within 10% of the
    level) unless each late log is 3x the level: a noisy per-batch loss holds 50% over
    two logs in any window of it, 0.11 -> 0.21, 0.34 among a segmenter's 0.11-0.34; a NaN
    after such a climb is reported by `nonfinite-loss` too; a loss solved to ~0, 100x under its
    earlier level, must rise by 5% of what it learned: 3.5e-5 -> 0.007 is no blow-up,
    and the late-rise test of a long log asks the same of any loss that fell 10x+: a
    fine-tune memorised from 2.3 to 0.0004 that drifts back to 0.0012 has tripled its
    best by 0.04% of what it learned, a LoRA at constant LR that fell 1.68 -> 0.037 and
    wanders back to 0.069 has risen 86% by 2% of it - a drift at the floor); or, from its minimum on, it rose at
    each of 4+ points by 10%+ in all (warning); or it set a new high of the paste at each
    of its last 3 logs, the last 25%+ above its first log (warning: a paste that does not
    climb ends on 3 records in a row about 1 time in C(n,3)*3!, 1 in 210 at 7 logs; a VLM
    fine-tune at grad norm 1e7, 2.56, 2.70, 2.67, 2.62, 2.81, 2.92, 3.32); or it fell 10%+
    from its first log to a
    low, then rose at each of the 2+ logs since, its last two 10%+ above the low, to end
    above its first log (warning: it gave back all it learned, which batch noise and a
    healthy run do not do; YOLOX 98 -> 49 -> 38 -> 65 -> 130; a low that is a lone dip, both
    its neighbours 10%+ above it, is one lucky batch, so the fall and the rise are then
    measured from its lower neighbour: a flat per-step paste with 10%+ batch noise "gave
    back" from such a dip about one time in twenty; read the same in a sparse log
    of up to 20 losses the trend tests do not flag, where their smoothing is too coarse
    for a climb of the last few logs: an OpenNMT paste, xent 9.5 -> 7.7 -> 9.95 in 12
    logs); or its last third all sits 10%+ and 6
    noise sigmas of the points before it above the level it rose from (warning: a quiet
    log of epoch means or interval averages that steps up and stays); or it rose at each
    of its last 2+ logs to 3x+ its lowest while the logged LR rose at each of them
    (warning: the warmup's ramp breaking the run); or its last loss is 3x the median of
    the 3 before it while every eval curve logged at that step is 5%+ worse than at
    the eval before (warning: the model got worse, not one batch); or its last third
    all sits 25%+ above its best level while a train task metric (Keras' `acc`) is
    10%+ below its own best at each of its last third (warning: worse on its own
    training data by two measures, which overfitting and batch noise do not do); or
    its last third all sits 25%+ above its best while the eval loss, at each of its 2+
    evals in that stretch, sits 25%+ above its own best before it (warning: worse on
    the training and the held-out data at once; five epoch rows of a t5-base fp16
    fine-tune, train 2.05 -> 2.73 -> 3.06 -> 2.94 with eval 1.86 -> 2.61 -> 2.72 -> 2.63,
    rise 40% and hold, which the 50% hold test misses; overfitting keeps the train
    loss falling); or its train loss rose at each of its last 3+ logs, 5%+ in all,
    while the eval loss rose at each of its 3+ evals over that stretch, 5%+ in all
    (warning: worse on both sets at every log, in step; a LightGBM run whose
    double-weighted positive class made the train and valid logloss climb 0.713 ->
    0.771 round after round). Two points suffice when the floor is
    known (vocab_size, the model family, ln(C)): a start under half the floor and a
    next loss above it (error); or, the floor unknown, a second loss 2x the first
    with the evals jumping the same way (eval loss 2x, a task metric halved or a
    WER doubled between their first and last values: error); or, the loss NaN/Inf
    after them to the end of the log, a second loss 3x+ the first: the climb is the
    blow-up and the NaN its end, the run never came back (error; `nonfinite-loss`
    reports the NaN, this the climb into it; 2.0 -> 2.5 -> NaN is a NaN, not a
    blow-up). A sparse log of 10-20 losses is read by these paste tests too when the
    trend tests find nothing: at that length their 9-bin smoothing and a tail median of
    3-6 points are too coarse for a rise of the last third (3.0 -> 1.08 then 1.44, 1.76,
    2.12, 2.55, 3.0 in 12 logs is the blow-up it is in 9), when the median of its last
    third stands 6 noise sigmas (from the second differences of the points before it: a
    fall's slope is no noise) above the level around its lowest earlier point (a per-batch
    loss swinging 10x batch to batch has a lucky low and a high last log in any window of
    10-20), and unless its last two losses are
    both back within 10% of its lowest before them (a spike that came back, loss-spike's;
    two spiked points among a tail median of 4 move it as much as a climb that held).
    At any length, a log that ends on a jump: its last 2+ logs all 2x or more the median
    of the 10 logs before them and above every one of those (clear of their noise), with
    the LR not jumped up 2x+ at the jump (a warm restart), is a divergence the log ends in
    (warning; error at 10x). One log up is a batch the next may be back from; every log
    from the jump to the end up is a level, and the trend tests' tail median (a tenth of
    the log) cannot see it when it is the last 3 of 300 logs or the last 40 of 100k.
    One point is enough for a loss of 1e6 or more past
    the first log (or in a window from mid-run): beyond any cross-entropy (error; a window
    from mid-run that opens there, with no level logged before it, is a warning under 1e9
    unless the loss is NaN/Inf after it to the end: a sum-reduced loss can sit at 1e6 by
    design); and for
    a first log past step 1 at 1e30 or more, within 8 orders of float32's largest, which
    no initialisation gives (unnormalised targets of 1e6 make an MSE of 1e12): the updates
    before it overflowed (CenterMask's loss_maskiou 2.4e34 at iteration 20 beside heads
    at 0.7-1.2, then NaN). At
    any length, not only in a 1-2 line paste: a log of 10 lines at 0.01 whose last line
    is 1.5e6 (a video SR run whose own watchdog printed "Model collapsed") ended in a
    blow-up that the trend tests, which read the median of the last lines, cannot see.
    With lines before it the point must be 10x their level (a loss that always sat near
    1e6 is on that scale), and with lines after it their median must still be 50%
    above that level: a 1e14 window the next log is back from (0.26 -> 3e14 -> 0.25, a
    few corrupt samples) is `loss-spike`'s, however large. A 1-2 line paste from mid-run
    whose every line is 1e6+ is judged by its first line as a one-line paste is
    (YOLACT's total 6.4e35 -> 7.6e35 at iterations 500-510: blown up at both, not a
    1.2x rise over a level).  A loss that goes from finite to +Inf (or to 87.3365 =
    -ln(FLT_MIN), the clamped +Inf of a float32 softmax that Caffe prints) and never
    comes back near its level has overflowed: the end point of a blow-up, at any
    length, read from the eval loss when no train loss is logged (error).
    When the trainer reports its own best eval loss (fairseq's `best`), a last eval
    loss 50%+ above that best with the train loss no lower than it is a divergence at
    any length (error): the model got worse on both sets, which overfitting (train
    falling below eval) does not do. With only evals logged (no train loss), the eval
    loss must also have jumped by half that best between two consecutive evals:
    overfitting creeps up eval after eval, a wrecked model jumps. With only evals logged
    and no best reported, 4+ of them (a model card whose training loss reads "No log"): the
    eval loss jumped by half its best level between two evals and ends 50%+ above that
    best, while a held-out task metric that had gained 10%+ on its first eval sits at or
    below that first eval at each of its last two (warning): overfitting keeps most of what
    the model learned (accuracy sags from its best), a wrecked model gives all of it back
    (val accuracy 0.3 -> 0.82 -> 0.1, a WER 0.9 -> 0.28 -> 1.0).
    A stretch of 10+ logs at one LR that ends with the LR cut 2x or more (step decay,
    ReduceLROnPlateau) is judged on its own: a rise there that leaves the loss 10%+
    above where the stretch began diverged at that LR, even when the cut rescued the
    run's end (warning). So is a stretch that a decaying LR later rescued: after the loss's
    level (the median of a fifth of the run, 10+ logs, which a spike of a few batches
    cannot move) had fallen 10%+ below the run's start, it climbed back 10%+ above that
    start, at an LR above 0, with every held-out curve evaluated in that stretch worse
    than at its best before it (warning: the updates undid all that was learned and more,
    for a fifth of the run or longer; a TinyStories LM at LR 0.3 learned 7.5 -> 4.8, sat
    at 10-90 from step 500 to 3000, and came back to 3.4 only as its cosine LR neared 0).
    A log too sparse for a level a fifth of the run wide (10-49 losses) is read on every
    log instead: after falling 10%+ below its start, 3+ consecutive losses each 50%+
    above that start while the eval loss at each of its 2+ evals there sits 50%+ above its
    best before (warning: one bad batch lifts one log, not two curves on different data at
    every log; a TinyStories LM at peak LR 1.0, train 6.6 -> 92 -> 262 -> 304 -> 105 -> 97
    -> 17 with eval 7.0 -> 74 -> 263 -> 179 -> 133 -> 65 -> 23, back to 5.2 as the LR decayed).

    At any length, a trainer whose own guard aborted the run on its loss ("Aboring, cost
    seems to be exploding" in neuraltalk, "loss seems to be exploding, quitting." in
    neuraltalk2, "loss is exploding, aborting." in char-rnn: each compares the loss with
    its first and stops past 2-20x of it; tacotron's "Loss exploded to 412.3 at step 2140!"
    past 100, NCRF++'s "LOSS EXPLOSION (>1e8)") diverged by its own measurement (error),
    unless the losses it logged up to the message never rose.

    With no total loss logged (a GAN's players, a detector's heads printed apart), each
    term that is never negative is read by the same 1e6 test (error): no healthy term of
    any loss over normalised data sits there (a discriminator loss 1.4e12 -> 4.0e12 beside
    a generator loss of 560 -> 1167). A signed term (a WGAN critic's raw scores, a -Q)
    is not: only differences of such scores are trained, so their offset may drift. A
    GAN's terms are otherwise not judged: its players are opponents, not one curve.
    At any length, a loss whose last 5+ logs (of the last 10) all sit under -1000 and fall
    at each log, the later half of the fall no smaller than the earlier half, runs off
    below zero (warning): a cross-entropy, CTC or transducer loss and a squared error are
    >= 0, so one that reads negative is computed wrong and the optimizer drives the error
    without bound (an RNN-T loss -74,735 -> -78,074 over 6 steps, then NaN); a continuous
    log-likelihood may be negative, but its fit decelerates as it nears its best, and
    -1000 is far past any per-sample likelihood of normalised data.

    **Why it matters.** A training loss that climbs and stays up means the updates
    are making the model worse: the LR is too high for the regime or the warmup too
    short, or the numerics broke (fp16 overflow, exploding gradients). Every step
    after the onset is wasted compute; the best checkpoint is before it.

    **Known false positives.** A short warmup bump is ignored (only a sustained late
    level counts). The late median's noise is that of the curve's independent
    stretches (measure.level_noise): a running average (kohya's `avr_loss`, the mean of
    the last epoch's steps; an EMA) barely changes step to step, yet its level wanders
    by the noise of a window's mean, and a healthy diffusion LoRA's wander would read
    as a 10%+ rise if its step-to-step differences were taken as its noise. Curriculum or data-mixture changes can legitimately raise the
    loss. RL trainers (GRPO/PPO) are not judged by their loss, a surrogate that can
    legitimately rise; their return is (`_rl_collapse`): one that climbed well clear of
    the run's start (or of its env's random play) and then gave back half the climb or
    more over the whole last fifth is a collapsed policy. An off-policy actor-critic's
    losses are the exception, read by name apart from their sum (the actor's -Q hides
    the critic's rise in it): the actor's loss is -Q, the critic's value estimate, and
    the critic's loss is its squared TD error. A value 100x beyond the largest episode
    return (the reward named as one), or 10,000x beyond a reward that may be per step
    (the most a 0.9999 discount allows), after growing 100x from its first fifth, is a
    critic whose bootstrapped targets exploded (error; a TD3 actor at -1.8e6 beside
    episode returns of 2,000).
    The trend and blow-up tests also stand down when a held-out task metric (an
    eval_/val_/test_ accuracy, recall, mAP, WER ...; without an eval loss, a metric so
    named that is logged at most a fifth as often as the train loss) was evaluated 3+
    times after the onset, its last evals sit 10%+ (relative) better than its last
    eval before the onset, and its final eval is within that margin of its best: the
    model kept getting better on unseen data through the whole "rise", so the loss is
    measuring a changed objective (pseudo-labels re-clustered every epoch, a loss
    term switched on mid-run, a curriculum stage), not a model its updates wreck. They
    stand down as well on a loss that ends under 0.01 (a cross-entropy still putting
    99% on the right class) while a held-out metric, evaluated 2+ times before the
    onset and 3+ times after it, stays within 2% of its best before it at every eval:
    a fitted model's train loss wobbling by factors (5e-5 -> 1.4e-4 at a validation
    AUC of 1.0, a resumed window of a fine-tune at 1e-3) is noise on a solved loss,
    and a model its updates wreck loses ground on unseen data. The
    absolute tests (overflow to +Inf, a loss of 1e6, a component that blew up, worse
    than the trainer's own best eval) do not stand down. They stand down too when a
    task metric on the training data, logged with the loss (at half its logs or
    more), is no worse at any of its 3+ logs after the onset than at the onset and
    ends better: a model its updates wreck gets worse at its task on the very batches
    the loss is computed on, so a loss that climbs while that accuracy keeps rising
    measures something else (an adversarial term: an adversarial multi-task
    classifier's total loss 2.2 -> 11.7 over 12 epochs while its train accuracy rose
    0.61 -> 0.92 epoch after epoch, the domain discriminator's loss growing by design).
    A noisy per-batch accuracy is not monotone and does not stand the rule down. A short
    log (under the curve's minimum of points) is read the same way, from the loss's best
    before the rise: the same 12 epochs cut to their first 6 lines are no divergence
    either; only its absolute test (a loss of 1e6+) does not stand down.
    The trend and blow-up tests are info, not a warning or an error, when every held-out
    task metric evaluated 3+ times after the onset ends (median of its last evals) no
    worse than its best eval before the onset, within 0.5% and 2 of its noise sigmas:
    divergence is updates making the model worse, and the unseen data says they did not
    (a fit at ~0 wobbling 6e-5 -> 1.4e-4 while val AUC stays 1.0; a log resumed late whose
    train loss doubles from 5e-4 while val accuracy holds at 99%). A metric that had
    already collapsed before the climb (val top-1 at chance from epoch 7, the train loss
    rising from epoch 11) does not hold: it is judged against its best, not its onset level.
    The relative tests (trend, blow-up, short-log and rescued-stretch ones; not the
    absolute ones) read the loss as a quantity whose rise means a worse model. A GAN's is
    not (fact task = gan): a player's loss rises whenever the other gains on it (info). Nor
    is a total whose objective was re-weighted over the rise: a logged loss-term weight
    (beta, kl_weight, a lambda, `<term>_weight`) that moved 2x or more (from 0: a KL term
    annealed in) between the onset and the end makes the total rise by construction (info).
    A loss that goes negative (a tenth of its logs or more under 0: a log-likelihood, an
    ELBO) has no zero for a relative rise, and may be logged with the sign that is
    maximised: at most a warning.
    A loss jump at a resume is `resume-loss-jump`'s. A blow-up the loss recovers
    from (ending below its start, off the floor) is transient instability and is
    left to `loss-spike` / `warmup-too-short`, unless its level held above the run's
    start for a fifth of the run (the rescued stretch above).

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
