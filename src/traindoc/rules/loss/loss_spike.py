"""loss-spike: isolated large spikes in the loss that recover."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.losses import solved
from traindoc.measure.spikes import (
    Excursion,
    Spike,
    baseline,
    confirmed_excursions,
    confirmers,
    highest_ordinary,
    loss_spikes,
    recurring,
)
from traindoc.measure.stats import fmt, mad
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule

# Words of a logged series name that make it no term of the training total: a
# held-out loss (val/cls_loss, logged from the first eval on), or the total itself
# aggregated or scaled (loss_avg, train_loss_epoch, loss_scale).
_NOT_A_TERM = frozenset(
    "eval val valid validation test avg average mean epoch step best scale running "
    "smooth ema lr".split()
)
# Words that name the total itself (train_loss) rather than a component of it.
_TOTAL = frozenset(("loss", "train", "training", "total"))


@dataclass(frozen=True)
class Params:
    # Points needed for a local baseline to exist.
    min_points: int = 20
    # Rolling-median window for the local level (points).
    window: int = 25
    # A spike is this many robust sigmas of the residual noise above the local level ...
    k_sigma: float = 6.0
    # ... and at least this far above it relatively (a 6-sigma blip on a very smooth
    # curve is not worth anyone's time).
    min_rel: float = 0.25
    # Points on each side whose median is the level the spike must rise above and
    # return to (both sides: a step up that stays is a jump, not a spike).
    side: int = 5
    # A spike lasts a few logged points; longer is a regime change ...
    max_len: int = 5
    # ... unless it is short relative to the run: up and back down within 5% of the
    # logged points (at most half the rolling window). A bad step at a high LR can take
    # a few hundred steps to repair, and on a run logged every 200 batches that is
    # 5-10 points that decay back, not one that drops back at the next log.
    return_share: float = 0.05
    # Ignore the start (warmup): the first share of points, or warmup_steps if known.
    skip_fraction: float = 0.05
    # More spike points than this share of the run is heavy-tailed noise, not spikes,
    # unless there are at most 3 (`several`) past the first `side` logs, each rising 2x
    # (`apart_factor`) as far as any other log: under 100 points 2% is under 2 points, and
    # 3 spikes in a 40-log table stood for heavy-tailed noise (measure.spikes._few_apart).
    max_share: float = 0.02
    # Warning when there are several (and at least 1 per 1000 logged points: the
    # share of logged steps that spike estimates the share of all steps, however
    # sparse the logging), or one at least doubles the loss; else info.
    several: int = 3
    several_per_point: float = 1e-3
    # Only spikes that stand apart from the log's own noise count toward either: a rise
    # above the local level at least 2x the largest rise of any ordinary point past the
    # warmup (the same 2x the lone-point tail test asks). Blips that are merely the top
    # of a continuous heavy tail of batch noise (per-step losses of small or variable
    # batches: the biggest ordinary points reach 0.6-0.95 of them) are not events
    # however many there are.
    apart_factor: float = 2.0
    huge_rel: float = 1.0
    # ... or one that undoes half of what the run had learned (its rise is half its
    # first level minus its lowest): a loss with a high floor (word-level LM
    # cross-entropy at 5 nats) cannot double, but 5.2 -> 7.6 after learning 9 -> 5 threw
    # the model halfway back to where it started.
    huge_learned: float = 0.5
    # ... when the run did learn: it fell from its first level by a quarter or more of
    # the level the spike rose from (LM 9 -> 5: 4 nats under a 5.2 level). A run that
    # stayed flat (a fine-tune of a converged model, a late window of a long run, one
    # that never learned) has learned next to nothing, and "half of nothing" would make
    # any bump huge: there the spike must double the loss like anywhere else.
    learned_floor: float = 0.25
    # ... lasting 2+ logged points: a lone logged point that doubles and is gone at the
    # next log is a bad batch (per-batch losses of small or variable batches do that)
    # unless it is 5x the level.
    huge_single_rel: float = 4.0
    # ... and rises 25%+ of what the run learned: near 0 a lone batch's 30x (0.008 ->
    # 0.25 on a solved MNIST) is one misclassified sample, a tenth of what it learned.
    huge_single_learned: float = 0.25
    # ... and rises 2x above the highest other logged point past the warmup: the
    # batch noise of a per-step log has its own tail (0.15 among 0.01s on MNIST).
    huge_single_tail: float = 2.0
    # The highest other point is one of the log's ordinary points: a point 3x its
    # level (the paste's median, a long log's rolling median) or more is spike-sized,
    # and while the log has at most `several` - 1 (two) of them they are events, not
    # its noise tail: two overshoots do not make each other ordinary.
    spike_sized: float = 3.0
    # ... and at least 5% of what the run learned (first level minus its lowest).
    min_learned: float = 0.05
    # Events examined (the largest residuals); bounds the work on pathological logs.
    max_events: int = 500
    # Short logs (a paste of 5-19 points) have no rolling level: a point 3x the
    # median of the log, with the points on both sides of it within 1.5x, is a spike.
    # It warns by size (5x, as a lone point of the long path) or by count only when
    # there are `several` (3+): two 3-4x rows in a per-step paste whose other rows
    # spread 2x (an AVOD detector's 11.7 and 15.5 among 1.9-3.7) are its own tail.
    short_min_points: int = 5
    # ... or, on a paste still coming down (no one level), a point 10x both its
    # neighbours, which agree within 1.5x (the 3-4 line test at every point), rising 5%+
    # of what the run learned from its first 3 points (`head_points`); a warning when
    # two rows do it, or the eval loss at that step is 10%+ above the evals on both
    # sides of it (the held-out loss jumped and came back with it); else info.
    head_points: int = 3
    lone_eval_rise: float = 0.10
    # ... or a smaller row, 25%+ (min_rel) over both its neighbours (which agree within
    # 1.5x) while the eval loss at that log is 25%+ over the evals on both sides too,
    # rising a quarter or more of what the paste learned (warning): train and held-out
    # losses on different data jumping at one log and back at the next are the model
    # thrown off, not one batch (a GPT-2 LoRA card: 6.65 -> 9.58 -> 6.64 with eval
    # 6.74 -> 9.62 -> 6.71, back at its first loss for one eval interval).
    both_learned: float = 0.25
    short_factor: float = 3.0
    short_back: float = 1.5
    # ... or a jump of 2x over the points before it that has fallen at each of the
    # 3+ points since, by 20%+ of the jump: a spike still coming back (warning), or
    # back below where it jumped from by the end: judged like a spike of a long log,
    # a warning when it held 2x for 2+ logged points (the point after the peak still
    # 25%+ above the level), info when the doubled point was alone (a bad batch).
    # A paste of 3-4 points has no median to speak of: only an interior point 10x both
    # its neighbours, which agree with each other within 1.5x, counts (warning).
    tiny_min_points: int = 3
    tiny_factor: float = 10.0
    recovering_factor: float = 2.0
    recovering_points: int = 3
    recovering_share: float = 0.2
    # A paste of 2-19 points: the grad norm jumping 10x from one log to the next, and
    # the loss 1.5x over its level before it at that log or the next one. Either jump
    # alone can be a noisy batch; both together are the optimizer thrown off its path
    # (warning), whether or not the paste lasts long enough to show it come back.
    led_grad_factor: float = 10.0
    # A paste of 5-19 points whose loss rose from one log to the next 25%+ (`min_rel`)
    # and 6 noise bands (`k_sigma`) beyond the paste's own point-to-point changes (their
    # median and MAD, from 4+ other changes), twice as far as any other rise
    # (`apart_factor`), and then took 2+ logs to fall back to where it jumped from: a
    # hump, the model thrown off and repairing it (warning).
    hump_min_changes: int = 4
    # ... and on a log of 20+ points, on the medians of 50 equal stretches of it (2% of
    # the run each): a hump that rises and falls over many logs, which a rolling level
    # follows, is the same event at any logging density.
    hump_bins: int = 50
    # ... each stretch the median of 5+ logs (a log of 250+ points): a stretch of fewer
    # is one bad batch or two, which the rolling level's multi-point test judges.
    hump_bin_points: int = 5
    # The peak and the 2 logs after it all above where it jumped from: a hump held for 3
    # logs. A peak whose next log is most of the way back is a bad batch whose average
    # lingers for a log (Caffe's first batch after a test pass: 2.30 -> 4.32, 2.94, 2.19).
    hump_held: int = 3
    led_loss_factor: float = 1.5
    # A paste of 5-19 points: the train loss 5x the log before it (`huge_single_rel` + 1,
    # the size a lone point warns at) and the eval loss logged at that row 10x the eval
    # before it (`tiny_factor`), both back within 25% (`min_rel`) of where they jumped
    # from within 3 logs (`recovering_points`): two curves on different data blown up at
    # one log is the model thrown off, not a batch, however the neighbours disagree while
    # it repairs (a Keras ResNet50 epoch table: train 0.13 -> 1.42 -> 1.08 -> 0.44 ->
    # 0.11, val 0.09 -> 789 -> 1.0 -> 0.15 -> 0.08). Neither jump alone is enough.
    # Several spikes on a run whose held-out loss was no higher after each of them than
    # before it (within 1% eval noise), over 5+ evals, and ended within 1% of its lowest:
    # the spikes left no mark the model kept (info). One eval between spikes is enough.
    eval_min_points: int = 5
    eval_tol: float = 0.01
    # 4+ spikes on one timetable (every gap a whole multiple of one period of 10+
    # logged points, filling half the periods they span) are the log's epoch
    # structure: info (`measure.spikes.recurring`).
    recur_min: int = 4
    # A spike where the logged LR jumps up this much from the log before (a warm
    # restart, a new stage's schedule) is the schedule's doing, not an overshoot.
    lr_jump: float = 2.0


@rule(
    "loss-spike",
    minimum="3 logged losses (a 10x point between two that agree), 5 (a 3x point that comes back), 2 with grad norms (a 10x grad jump with a 1.5x loss jump); 20 for the rolling-level test",
    family="loss",
    severity=Severity.WARNING,
    params=Params(),
    requires=("loss",),
    uses=("grad_norm",),
    explained_by=(
        "lr-too-high",
        "fp16-instability",
        "oscillating-plateau",
        "absurd-initial-loss",
        # the onset of the same instability: a run that spikes and then climbs or goes
        # NaN has one story, the blow-up, and the spikes are its first sign
        "divergence",
        "nonfinite-loss",
        # a run that never learned has nothing for a spike to undo: the flat loss is
        # the story, its spikes one more sign of the broken setup
        "no-learning",
        "uniform-plateau",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Isolated large loss spikes that recover.

    **What it does.** Flags loss spikes that go up and come back: points far above the
    local level that return to it within a few logs. Several spikes (3+, and 1+ per 1000
    logged points), a spike that doubles the loss, or one that undoes half of what the run
    learned is a warning; a lone bad batch, spikes inside the log's own noise, or spikes
    the held-out loss does not see are info. Reports the count and the largest spike's
    step and size. A jump that stays is `divergence`'s, not a spike.

    **Why it matters.** Spikes that recover are steps where the optimizer briefly
    overshot: a bad batch, an LR at the edge of stability, or fp16 overflow. A few are
    harmless; several, or large ones, precede divergence.

    **Readings.** The warmup (warmup_steps, else the first 5% of points) is ignored
    throughout. "What the run learned" is its first level minus its lowest; every spike
    must rise 5%+ of it (relative spikes on a loss solved to ~0 are noise).

    Long logs (20+ points), the rolling-level test:

    - *Spike*: points 6+ robust sigmas and 25%+ above the rolling median, grouped into
      events that rise 25%+ above the median of the 5 points on both sides (not a step, a
      staircase or a jump that stays), up and back within max(5 points, 5% of the points,
      at most 12, half the rolling window); the level after is the median of the 5 points
      from where the tail is back within 6 sigmas, so a jump repaired over a few logs counts.
    - *Warning* when the spikes stand 2x clear of the largest rise of any ordinary point past
      the warmup and are several (3+, 1+ per 1000 points: 3 in a 5,000-step record run is
      info), or double the loss, or undo half of what the run learned (asked only of a run
      that learned a quarter of its level or more) for 2+ points, or 5x it at one point by
      25%+ of what the run learned. Blips within the noise are info however many (modded-
      nanogpt records and a batch-1 TinyStories run: ordinary points reach 0.6-0.95 of the
      largest; real instabilities rise 10-200x).
    - *Info*: a lone point that doubles and is gone at the next log (a bad batch); one 30x
      off a loss solved to ~0 that rises a tenth of what the run learned; one under 2x the
      highest ordinary point past the warmup (0.25 where other batches reach 0.15).
    - *Heavy tail*: more spike points than 2% of the log (+1) are noise, except up to 3
      points each rising 2x as far as any other (3 clear spikes in a 40-row epoch table).
      A point 3x+ its level is spike-sized; with at most two such points they are events,
      not the noise tail (a faster-rcnn paste under Adam: NaN, 2.7e10, 5.2, 6.9e9, 2.2, 2.1:
      the 6.9e9 is set against 5.2); three or more count as the tail.
    - *Early spike* in a 20+ point log, among the first 5 points past the warmup: 10x both
      neighbours, then falling at each log until back within 25% of the log before it
      (warning; a PaiNN QM9 epoch table: 4.47 -> 1118 -> 11.7, 6.2, 4.9, then 1.33). Not
      under 10x, nor one that stays.
    - *Hump* (a climb over consecutive rising logs, the log's largest): 25%+ over where it
      rose from, 6+ noise bands beyond the log's own log-to-log changes (median = trend, MAD
      x sqrt(climb length) = noise), 2x any other single rise, 5%+ of what the run learned,
      the peak and the 2 logs after it above the start (warning). Logs of 250+ points are
      read on the medians of 50 equal stretches; 20-249 by the rolling test. Not a climb in
      the first 3 logs of a run's start (warmup), at an LR jump of 2x+, a hump of 20%, one
      inside a paste's own +-30% swings, or one back within a log or two (Caffe's first
      batch after a test pass, 2.30 -> 4.32, 2.94, 2.19).

    Short pastes (2-19 points):

    - *5-19 points*: the same heavy tail applies; a lone 5x point must be 2x every other
      ordinary point to warn, and two blips are not several (a detector at 1.9-3.7 with rows
      at 11.7 and 15.5, each back at the next log). A paste of 5-19 points read log by log
      for humps (a Marian NMT paste every 2,000 updates: 5.20 -> 6.60, 6.30, 5.85, 5.25,
      4.57, 15 bands out, back in 4 logs).
    - *Solved paste*: one showing no learning but solved to ~0 (lowest point 100x under its
      median, `measure.losses.solved`): a spike rising less above the median than the
      lowest point dips under it is info (a fine-tuned C3D at iteration 20,000: 0.0085 ->
      0.085 among points down to 3.7e-5).
    - *Jump that came back*: 2x over the points before it, falling at each point since, back
      below where it jumped from: warning when it held for 2+ points (the next still 25%+
      above the level), info when alone; past its return the paste may wobble (2.0 -> 6.0,
      4.0, 2.2, 2.3, 2.1). In a paste still falling, whose highest point is its first: the
      point highest over the median of the 3 before it, still 25%+ above at the next log,
      larger than any other log-to-log rise (3.0 ... 1.8, 1.6, 4.8, 3.0, 1.9, 1.5; not a fit
      near 0 going 3e-5 -> 1.5e-4 -> 3e-5).
    - *Paste still coming down*: a point 10x both neighbours (which agree within 1.5x), 5%+
      of what it learned, anywhere: warning when two rows do it or the eval loss at that row
      is 10%+ above the evals on both sides (an XLS-R MInDS-14 card: train 0.027 -> 0.466 ->
      0.019 at steps 200-240, eval 0.60 -> 0.78 -> 0.57); info when alone.
    - *Train and eval jump together*: a row 25%+ over both neighbours (agreeing within
      1.5x) with the eval loss 25%+ over the evals on both sides, undoing a quarter or more
      of what the paste learned (warning; a GPT-2 LoRA card: train 6.65 -> 9.58 -> 6.64,
      eval 6.74 -> 9.62 -> 6.71). Not either curve alone, nor both up 20%. Also a train loss
      5x the log before with the eval loss 10x the eval before, both back within 25% within
      3 logs, even while the neighbours disagree (warning; a Keras ResNet50 from scratch:
      train 0.13 -> 1.42 -> 1.08 -> 0.44 -> 0.11, val 0.09 -> 789 -> 1.0 -> 0.15 -> 0.08).
      Not with an eval only 5x, nor one not back within 3 logs.
    - *Negative loss* (a flow's NLL, WaveGlow at -4 to -6): one point whose rise over the
      others' median is 10x the range they span, the next back inside it (warning; WaveGlow
      -4.3 -> 4191.7 -> -2.4). A second such point is not part of the range.
    - *3-4 points*: an interior point 10x both neighbours, which agree within 1.5x (warning;
      mmdetection 0.2586, 3.2e14, 0.2525). Not 5.0, 0.4, 0.35 (no interior peak) nor 0.3,
      2.0, 0.9 (under 10x).
    - *Grad norm and loss jump together*, 2-19 points: the grad norm 10x from one log to the
      next while the loss jumps 1.5x over its earlier level at that log or the next, come
      back or not (warning).

    Sparse logs (at most 100 points):

    - *Confirmed excursion* (`measure.spikes.confirmed_excursions`): the loss leaves its
      level for 2+ consecutive points and comes back, each point 2x+ the median of the 3
      before and 6+ noise sigmas above, while the eval loss (or grad norm, or a WER) is 2x+
      its level and 6 sigmas above, or a held-out accuracy / F1 falls under half its level
      (warning; a LayoutLMv2 receipts card at batch 1: train 0.03 -> 0.35, 0.72, 0.71, 0.11
      at epochs 10-13, eval loss 0.19 -> 0.76, every F1 to 0, then 0.03 and F1 0.88). Not a
      per-step table doubling off a lucky low with eval unmoved (ConvNeXt 0.06 -> 0.15,
      0.13), nor an eval dip at the start.

    **Known false positives.**

    - Heavy-tailed per-batch noise (batch size 1, variable lengths) past the 2% share stays
      silent, except a lone point 10x its level whose next log is back, in a log with at
      most two such points (a TF object-detection log of 22 steps: 11.8 and 3417 among
      0.1-0.8). A loss whose batches routinely swing 10x (a CRF likelihood summed over
      sentences: 5-16 such points in 200 logs) stays silent.
    - Spikes the held-out loss does not see are info: 5+ evals, the eval after each spike
      no higher than the one before (1% noise), the last within 1% of the lowest (a
      speedrun record: 100 one-step spikes in 20,344 steps, val loss falling at each of 164
      evals). A spike with no eval after it, or one an eval rose after, keeps the warning.
    - Spikes on a clock (4+, every gap a whole multiple of one period of 10+ points,
      filling half the periods they span: epoch starts, restarting running means, an
      unshuffled order) are info (`measure.spikes.recurring`).
    - Not spikes: epoch-boundary staircases (they step down); a jump where a logged loss
      term (`loss_distill`, `kl_loss`) first turns nonzero; one where the logged LR jumps
      2x+ (a restart, `schedule-restarted`'s); a pre-clip grad-norm spike with no loss spike.
    - In a run that then climbs for good or goes NaN, or never learned, a spike is linked as
      a consequence of `divergence`, `nonfinite-loss`, `no-learning` or `uniform-plateau`.

    **What to do.** If several or large: lower the peak LR 2-3x or lengthen warmup,
    keep clipping on (max_grad_norm ~1.0), use bf16 instead of fp16, and look at the
    batches at the spike steps (corrupt or extreme samples).
    """
    hits = list(_check(run, p))
    if hits or run.is_rl:
        yield from hits
        return
    loss = run.get("loss")
    assert loss is not None
    f = loss.finite()
    for e in confirmed_excursions(f, confirmers(run)):
        if e.recovered:
            yield _sparse_hit(run, e)
            return
    if len(f) < p.min_points:
        if len(f) >= p.short_min_points and (hit := _hump(run, f, p)) is not None:
            yield hit
        return
    # past its heavy-tail share, a lone point 10x its local level is still a spike
    hits = list(_check(run, p, huge=True)) or list(_head(run, f, p))
    if not hits and (hit := _hump(run, f, p)) is not None:
        hits = [hit]  # a slow hump, over many logs
    yield from hits


def _head(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A jump among the first `side` points past the warmup, where the rolling test
    has too few points before it to judge: a point `tiny_factor` (10x) over both its
    neighbours that then falls at each log until back within `min_rel` of the log before
    it (`_recovering`): a spike coming back, however far the head is still falling."""
    y = f.values
    warm = run.fact("warmup_steps")
    skip_until = (
        f.steps[0] + warm if warm else f.steps[min(y.size - 1, int(p.skip_fraction * y.size))]
    )
    head = float(np.median(y[: p.head_points]))
    learned = head - float(y.min())
    for i in range(1, min(p.side, y.size - 1)):
        pre = float(y[i - 1])
        if f.steps[i] <= skip_until or not pre > 0:
            continue
        rise = float(y[i]) - max(pre, float(y[i + 1]))
        if not (
            y[i] >= p.tiny_factor * max(pre, float(y[i + 1])) and rise >= p.min_learned * learned
        ):
            continue
        ok, ret = _recovering(y, i, pre, p)
        if not (ok and ret.size):
            continue
        back = int(f.steps[i + int(ret[0])])
        yield _lone_spike(
            run,
            f,
            i,
            pre,
            f"{fmt(float(y[i]) / pre)}x the log before it, back at {fmt(float(y[i + int(ret[0])]))} "
            f"by step {back}",
            {"largest_rel": float(y[i]) / pre - 1, "back_step": back},
            f"One of the first logged losses is {fmt(float(y[i]) / pre)}x the log before it and "
            "10x the log after it, and the loss then fell at each log until it was back at its "
            "level: beyond any batch noise, the optimizer overshot (a bad batch, an LR at the "
            "edge of stability, fp16 overflow) and the run spent those logs repairing it.",
        )
        return


def _check(run: Run, p: Params, huge: bool = False) -> Iterator[Hit]:
    """The rolling-level, short-paste and grad-led tests (see `check`); with `huge`,
    the rolling level of a curve past its heavy-tail share keeps its lone 10x points
    (one logged point, back at the level at the next log)."""
    loss = run.get("loss")
    assert loss is not None
    if run.is_rl:
        return
    f = loss.finite()
    y = f.values
    n = y.size
    if n < p.min_points:
        if (hit := _grad_led(run, f, p)) is not None:
            yield hit
        elif n >= p.short_min_points:
            yield from _short(run, f, p)
        elif n >= p.tiny_min_points:
            yield from _tiny(run, f, p)
        return
    warm = run.fact("warmup_steps")
    skip_until = f.steps[0] + warm if warm else f.steps[min(n - 1, int(p.skip_fraction * n))]
    events = loss_spikes(
        f,
        window=p.window,
        k_sigma=p.k_sigma,
        min_rel=p.min_rel,
        side=p.side,
        max_len=1 if huge else p.max_len,
        min_learned=p.min_learned,
        skip_until=skip_until,
        max_share=p.max_share,
        max_events=p.max_events,
        return_share=0.0 if huge else p.return_share,
        huge=p.tiny_factor if huge else 0.0,
        few=p.several,
        few_apart=p.apart_factor,
    )
    # a total loss that jumps where a loss term first comes on is the term, and one
    # that jumps where the LR jumps up is the schedule restarting: neither is a spike
    onsets = _term_onsets(run, f)
    lr = run.get("lr")
    lrf = lr.finite() if lr is not None else None
    events = [
        e
        for e in events or ()
        if not _at_onset(e, f, onsets) and not (lrf is not None and _lr_jumped(e, f, lrf, p))
    ]
    if not events:
        return
    top = events[0]
    rel, step, peak, ref = top.rel, top.step, top.peak, top.ref
    count = len(events)
    # only spikes that stand apart from the log's own noise tail make a warning
    apart = [e for e in events if e.apart >= p.apart_factor]
    frequent = len(apart) >= p.several and len(apart) >= p.several_per_point * n
    # a lone point no higher than 2x the highest other logged batch past the warmup
    # is the tail of this log's own batch noise (a per-step loss of small batches)
    big = [
        e
        for e in apart
        if (e.rel >= p.huge_rel or _undoes_learning(e, p))
        and not e.lone(p.huge_single_rel, p.huge_single_learned)
    ]
    huge = any(e.length > 1 for e in big) or not all(
        _in_tail(f, [e.index for e in big if e.length == 1], skip_until, p)
    )
    severity = Severity.WARNING if frequent or huge else Severity.INFO
    steps = sorted(e.step for e in events)
    unseen = severity is Severity.WARNING and _eval_unmarked(run, steps, p)
    # spikes that keep a timetable are the log's epoch structure, not overshoots
    period = recurring(np.asarray(steps), float(np.median(np.diff(f.steps))), min_count=p.recur_min)
    if unseen or period is not None:
        severity = Severity.INFO
    evidence: dict[str, object] = {
        "count": count,
        "largest_step": step,
        "largest_value": peak,
        "largest_baseline": ref,
        "largest_rel": rel,
        "spike_steps": steps[:20],
        "apart": len(apart),
        # the smallest spike's rise over the log's largest ordinary rise (None: no
        # ordinary point rises above the level)
        "least_apart": least if math.isfinite(least := min(e.apart for e in events)) else None,
    }
    if period is not None:
        evidence["period"] = period
    gn = run.get("grad_norm")
    if gn is not None:
        g = gn.finite()
        near = g.values[np.abs(g.steps - step) <= max(1, int(np.median(np.diff(f.steps))))]
        if near.size and len(g) > 4:
            evidence["grad_norm_at_largest"] = float(near.max())
            evidence["grad_norm_median"] = float(np.median(g.values))
    yield Hit(
        title=(
            f"{count} loss spike{'s' if count > 1 else ''} that recovered; largest at step "
            f"{step}: {fmt(ref)} -> {fmt(peak)} ({rel:+.0%})"
        ),
        step=steps[0],
        end_step=steps[-1],
        evidence=evidence,
        explanation=(
            "The loss jumped well above its local level and came back. Each spike is a "
            "step where the optimizer overshot: a bad batch, an LR at the edge of "
            "stability, or fp16 overflow. Repeated or large spikes tend to precede "
            "divergence."
            + (
                " Here the eval loss was no higher after each spike than before it and ended "
                "at its lowest: the spikes left no lasting damage."
                if unseen
                else ""
            )
            + (
                f" Here they recur every {fmt(period)} steps, like clockwork: that is the "
                "log's epoch structure (the first batches of each epoch, a running mean "
                "that restarts, the same hard samples at the same place in an unshuffled "
                "order), not the optimizer overshooting at random."
                if period is not None
                else ""
            )
        ),
        prescription=(
            "If spikes repeat or are large: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=severity,
    )


def _eval_unmarked(run: Run, steps: list[int], p: Params) -> bool:
    """The eval loss never rose across a spike: the eval after each spike is no higher
    (within `eval_tol`) than the eval before it, over `eval_min_points`+ evals, and the
    last eval is within `eval_tol` of the lowest."""
    ev = run.get("eval_loss")
    if ev is None:
        return False
    e = ev.finite()
    if len(e) < p.eval_min_points:
        return False
    es, ey = e.steps, e.values
    low = float(ey.min())
    if float(ey[-1]) > low + p.eval_tol * abs(low):
        return False
    for st in steps:
        i = int(np.searchsorted(es, st, side="right"))  # first eval after the spike
        if i == 0 or i >= es.size:
            return False
        if float(ey[i]) > float(ey[i - 1]) + p.eval_tol * abs(float(ey[i - 1])):
            return False
    return True


def _term_onsets(run: Run, f: Series) -> np.ndarray:
    """Steps where a logged loss term (`loss_cls`, `train/kl_loss`: a component of the
    total, not a held-out loss such as `val/cls_loss` nor the total aggregated, such as
    `loss_avg`) first turns nonzero after the total's first log: an auxiliary,
    distillation or adversarial term switched on at a scheduled step."""
    out = []
    for name, s in run.series.items():
        words = set(re.split(r"[/._\s-]+", name.lower()))
        if "loss" not in words or words & _NOT_A_TERM or not words - _TOTAL:
            continue
        g = s.finite()
        on = g.steps[g.values != 0]
        if on.size and on[0] > f.steps[0]:
            out.append(on[0])
    return np.asarray(out, dtype=np.float64)


def _at_onset(e: Spike, f: Series, onsets: np.ndarray) -> bool:
    """The spike's rise starts where a loss term comes on (from the logged point
    before its first high point to its peak)."""
    lo = f.steps[max(0, e.index - e.length)]
    return bool(np.any((onsets >= lo) & (onsets <= e.step)))


def _lr_jumped(e: Spike, f: Series, lr: Series, p: Params) -> bool:
    """The logged LR rose `lr_jump`x or more within the spike's rise (from the logged
    point before its first high point to its peak) over its last value before it."""
    lo = f.steps[max(0, e.index - e.length)]
    a = int(np.searchsorted(lr.steps, lo, side="left"))
    b = int(np.searchsorted(lr.steps, e.step, side="right"))
    if a == 0 or b <= a or not lr.values[a - 1] > 0:
        return False
    return float(lr.values[a:b].max()) >= p.lr_jump * float(lr.values[a - 1])


def _undoes_learning(e: Spike, p: Params) -> bool:
    """The spike rose half of what the run learned, and the run learned a quarter of
    the level it rose from or more (its rise over that level, `rel`, is then at least
    `learned_floor` x its share of what was learned)."""
    return e.learned >= p.huge_learned and e.learned * p.learned_floor <= e.rel


def _in_tail(f: Series, lone: list[int], skip_until: float, p: Params) -> np.ndarray:
    """For each lone point (its index) of a long log: under `huge_single_tail` (2x) the
    highest ordinary point past the warmup (`measure.spikes.highest_ordinary`, the
    level each point's rolling median), the top of the log's own batch noise."""
    a = int(np.searchsorted(f.steps, skip_until, side="right"))
    idx = np.asarray(lone, dtype=np.int64)
    if idx.size == 0:
        return np.ones(0, bool)
    other = highest_ordinary(
        f.values[a:],
        baseline(f.values, p.window)[a:],
        np.maximum(idx - a, 0),
        factor=p.spike_sized,
        few=p.several - 1,
    )
    # spike candidates start past the warmup; a point before it has no tail to be in
    return np.asarray((idx >= a) & (f.values[idx] < p.huge_single_tail * other))


def _grad_led(run: Run, f: Series, p: Params) -> Hit | None:
    """A short paste whose grad norm jumps 10x between two logs while the loss jumps
    1.5x over its level at that log or the next: a loss spike the gradient led."""
    gn = run.get("grad_norm")
    if gn is None or len(f) < 2:
        return None
    g = gn.finite()
    if len(g) < 2 or not np.isin(f.steps, g.steps).all():
        return None  # the two must be logged at the same steps
    gv = g.values[np.searchsorted(g.steps, f.steps)]
    y, steps = f.values, f.steps
    for i in range(1, y.size):
        if not (gv[i - 1] > 0 and gv[i] >= p.led_grad_factor * gv[i - 1]):
            continue
        level = float(np.median(y[:i]))
        j = next((k for k in (i, i + 1) if k < y.size and y[k] >= p.led_loss_factor * level), None)
        if j is None or not level > 0:
            continue
        peak, came_back = float(y[j]), bool(j + 1 < y.size and y[-1] <= p.short_back * level)
        return Hit(
            title=(
                f"Loss jumped {fmt(level)} -> {fmt(peak)} ({peak / level:.1f}x) at step "
                f"{int(steps[j])}, as the grad norm jumped {fmt(float(gv[i - 1]))} -> "
                f"{fmt(float(gv[i]))} ({gv[i] / gv[i - 1]:.0f}x) at step {int(steps[i])}"
                + ("; it came back" if came_back else "; the paste ends before it comes back")
            ),
            step=int(steps[j]),
            end_step=int(steps[-1]),
            evidence={
                "count": 1,
                "largest_step": int(steps[j]),
                "largest_value": peak,
                "largest_baseline": level,
                "largest_rel": peak / level - 1,
                "grad_norm_before": float(gv[i - 1]),
                "grad_norm_at_largest": float(gv[i]),
                "grad_step": int(steps[i]),
                "came_back": came_back,
                "points": int(y.size),
            },
            explanation=(
                f"Between two logs the gradient grew {gv[i] / gv[i - 1]:.0f}x and the loss "
                f"{peak / level:.1f}x: one update (or a few) large enough to throw the model off "
                "the path it was on. A noisy batch moves one of them, not both."
            ),
            prescription=(
                f"Restart from a checkpoint before step {int(steps[i - 1])} if it does not come "
                "back; "
                + advice.join(
                    *advice.steadier(run, "lower the peak LR 2-3x"),
                    f"inspect the batches at step {int(steps[i])}",
                )
                + "."
            ),
            severity=Severity.WARNING,
        )
    return None


def _tiny(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 3-4 points: an interior point `tiny_factor` over both neighbours,
    which agree with each other within `short_back`: no batch noise does that."""
    y = f.values
    for i in range(1, y.size - 1):
        lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
        if not (lo > 0 and hi <= p.short_back * lo and y[i] >= p.tiny_factor * hi):
            continue
        ref, peak = float(np.sqrt(lo * hi)), float(y[i])
        yield _lone_spike(
            run,
            f,
            i,
            ref,
            f"{fmt(peak / ref)}x in a paste of {y.size} points",
            {"largest_rel": peak / ref - 1},
            f"Only {y.size} losses are logged, but one is {fmt(peak / ref)}x the points on "
            "both sides of it, which agree with each other: beyond any batch noise. The "
            "optimizer overshot at that step (a bad batch, an LR at the edge of stability, "
            "fp16 overflow) and the loss came back.",
        )
        return


def _short(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """Spikes in a pasted excerpt: points far above the log's own level that the next
    point comes back from, or one jump that has been falling ever since."""
    y, steps = f.values, f.steps
    level = float(np.median(y))
    if not level > 0:
        if float(y.min()) <= 0:
            yield from _signed(run, f, p)
        return
    back = [
        i
        for i in range(1, y.size - 1)
        # rises from the point before and comes back at the next: a steep descent
        # (0.9, 0.4, 0.1, ...) has points far above its median but no spike
        if y[i] >= p.short_factor * level and max(y[i - 1], y[i + 1]) <= p.short_back * level
    ]
    peak_i = int(np.argmax(y))
    pre = float(np.median(y[:peak_i])) if peak_i else math.nan
    recovering, ret = _recovering(y, peak_i, pre, p)
    if not (back or recovering) and y.size > p.head_points + p.recovering_points:
        # a paste still falling has its highest point at its start: the jump is the
        # point highest over the `head_points` logs just before it (its own level)
        i = p.head_points
        local = np.array([np.median(y[j - i : j]) for j in range(i, y.size)])
        j = i + int(np.argmax(y[i:] / np.where(local > 0, local, np.inf)))
        peak_i, pre = j, float(local[j - i])
        recovering, ret = _recovering(y, peak_i, pre, p)
        # ... held 25%+ above that level at the next log too: a lone row off a curve
        # still falling is the 3-4 line test's (`_local`), not a jump coming back; and
        # larger than every rise from one log to the next elsewhere in the paste: a jump
        # no larger than its own swings (a fit near 0 that swings 5x batch to batch) is
        # its noise
        recovering = (
            recovering
            and float(y[j + 1]) >= (1 + p.min_rel) * pre
            and float(y[j]) / pre > _largest_rise(y, j, int(ret[0]) if ret.size else y.size)
        )
    after = y[peak_i:]
    recovering = recovering and not back
    if not (back or recovering):
        if (hit := _both_blown(run, f, p)) is not None:
            yield hit
            return
        yield from _local(run, f, p)
        return
    ref = level if back else pre
    largest = max(back, key=lambda i: y[i]) if back else peak_i
    peak = float(y[largest])
    # 5x its level, and (a lone point) 2x the highest ordinary point of the paste: one
    # under that is the tail of the log's own batch noise, as in the long path (another
    # spike is no ordinary point while the paste has at most two)
    tail = float(highest_ordinary(y, level, [largest], factor=p.spike_sized, few=p.several - 1)[0])
    big = peak >= (p.huge_single_rel + 1) * ref and not (
        len(back) == 1 and peak < p.huge_single_tail * tail
    )
    # a jump the loss has fallen back below by the end of the paste is judged by the
    # long path's size test: 2x its level for 2+ logged points (its peak and the point
    # after it still 25%+ above the level) warns, a lone doubled point is a bad batch
    came_back = recovering and (
        float(after[-1]) <= pre
        or (ret.size > 0 and float(np.median(after[int(ret[0]) :])) <= (1 + p.min_rel) * pre)
    )
    still = recovering and not came_back
    held = came_back and float(after[1]) >= (1 + p.min_rel) * pre
    # two blips are not "several" (3+, as in the long path): in a per-step paste two
    # 3-4x rows among rows that spread 2x are the loss's own tail, each a bad batch
    several = len(back) >= p.several
    severity = Severity.WARNING if several or big or still or held else Severity.INFO
    # a paste solved to ~0 (its lowest point 100x under its level) swings by multiples
    # of itself both ways: a spike that rises less far above the level than the paste's
    # own points dip under it is that swing (C3D at 0.008: 3.7e-5 and 0.085 in 8 logs)
    best = float(y.min())
    swing = solved(level, best) and peak / ref < level / best
    if swing:
        severity = Severity.INFO
    where = ", ".join(str(int(steps[i])) for i in back) if back else str(int(steps[peak_i]))
    what = (
        f"{len(back)} loss spike{'s' if len(back) > 1 else ''} in {y.size} logged points "
        f"(steps {where}) that came back at the next point; largest {fmt(ref)} -> {fmt(peak)}"
        if back
        else f"Loss jumped {fmt(pre)} -> {fmt(peak)} at step {where} and has fallen at each "
        f"of the {after.size - 1} points since (now {fmt(float(after[-1]))})"
    )
    yield Hit(
        title=f"{what} ({peak / ref:.1f}x)",
        step=int(steps[largest]),
        end_step=int(steps[-1]),
        evidence={
            "count": max(len(back), 1),
            "largest_step": int(steps[largest]),
            "largest_value": peak,
            "largest_baseline": ref,
            "largest_rel": peak / ref - 1,
            "spike_steps": [int(steps[i]) for i in back] or [int(steps[peak_i])],
            "recovering": bool(recovering),
            "points": int(y.size),
            "solved_swing": bool(swing),
        },
        explanation=(
            f"Only {y.size} losses are logged, but a jump of {peak / ref:.1f}x over the "
            "log's own level is beyond any batch noise: the optimizer overshot (a bad batch, "
            "an LR at the edge of stability, fp16 overflow) and the loss "
            + ("came back." if back else "is coming back, slowly.")
        ),
        prescription=(
            "Log more points around the spike (every step) to see how often it happens; if "
            "it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {int(steps[largest])}",
            )
            + "."
        ),
        severity=severity,
    )


def _hump(run: Run, f: Series, p: Params) -> Hit | None:
    """A paste's largest rise from one log to the next, `min_rel` over the log it rose
    from and `k_sigma` noise bands beyond the paste's own point-to-point changes (their
    median and MAD: a curve falling smoothly has a narrow band, a noisy per-batch paste
    a wide one), `apart_factor` as far as any other rise, after which the loss took 2+
    logs to fall back to where it jumped from (warning). On a log of `min_points`+ the
    same test runs on the medians of `hump_bins` equal stretches of it (a slow hump over
    many logs, which the rolling level absorbs). A rise off the run's first
    logs is the start's (warmup-too-short's), and one where the logged LR
    jumps `lr_jump` is the schedule's."""
    y, steps = f.values, f.steps
    start = steps[0] <= steps[1] - steps[0]  # the log begins at the run's start
    unit, units = "log", "logs"
    head = max(float(np.median(y[: p.head_points])), float(np.median(y[: max(3, y.size // 20)])))
    learned = head - float(y.min())
    if y.size >= p.min_points:
        if y.size < p.hump_bins * p.hump_bin_points:
            return None  # stretches of fewer logs: the rolling level's multi-point spikes
        m = p.hump_bins
        edges = np.linspace(0, y.size, m + 1).astype(int)
        y = np.array([np.median(y[a:b]) for a, b in itertools.pairwise(edges)])
        steps = np.array([steps[b - 1] for b in edges[1:]])
        unit, units = "stretch", "stretches"
    d = np.diff(y)
    climb = _largest_climb(y, d)
    if climb is None:
        return None
    j, i = climb
    pre, rise, up = float(y[j]), float(y[i] - y[j]), i - j
    rest = np.concatenate([d[:j], d[i:]])  # the log's other changes: its trend and noise
    if rest.size < p.hump_min_changes or not pre > 0 or y[i] < (1 + p.min_rel) * pre:
        return None
    band = mad(rest)
    off = rise - up * float(np.median(rest))  # its departure from the log's own trend
    if off < p.k_sigma * band * math.sqrt(up) or rise < p.apart_factor * max(
        float(rest.max()), 0.0
    ):
        return None
    if not rise >= p.min_learned * learned:
        return None  # a relative blip on a loss solved to ~0
    back = np.flatnonzero(y[i + 1 :] <= pre)
    if not back.size or back[0] < p.hump_held - 1:
        return None  # never back, or back within a log or two: a bad batch, judged above
    if j < p.head_points and start:
        return None  # a log from the run's start: its first logs are the warmup's
    lr = run.get("lr")
    if lr is not None:
        lv = lr.finite()
        before, at = lv.values[lv.steps <= steps[j]], lv.values[lv.steps <= steps[i]]
        if before.size and at.size and before[-1] > 0 and at[-1] >= p.lr_jump * before[-1]:
            return None
    k = i + 1 + int(back[0])
    step, peak = int(steps[i]), float(y[i])
    return Hit(
        title=(
            f"Loss spike at step {step}: {fmt(pre)} -> {fmt(peak)} ({fmt(peak / pre)}x), "
            + (
                f"{fmt(off / band)} noise bands beyond the log's {unit}-to-{unit} changes"
                if band > 0
                else f"beyond every other {unit}-to-{unit} change of the log"
            )
            + f"; back under {fmt(pre)} by step {int(steps[k])}"
        ),
        step=step,
        end_step=int(steps[k]),
        evidence={
            "count": 1,
            "largest_step": step,
            "largest_value": peak,
            "largest_baseline": pre,
            "largest_rel": peak / pre - 1,
            "spike_steps": [step],
            "noise_band": band,
            "back_step": int(steps[k]),
            "points": int(y.size),
        },
        explanation=(
            f"The loss rose {fmt(peak / pre)}x over {up} {unit if up == 1 else units} of the log, far "
            f"outside the band its other {units} move in, and took {k - i} {units} to get "
            "back to where it jumped from: not one bad batch (that is "
            "gone at the next log) but the model thrown off its path (an LR at the edge of "
            "stability, a run of bad batches, a data-stream change) and repairing it."
        ),
        prescription=(
            "Keep the checkpoint from before the spike; "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _largest_climb(y: np.ndarray, d: np.ndarray) -> tuple[int, int] | None:
    """(start, end) indices of the largest rise over consecutive rising logs (a climb,
    `d` being the log's changes), or None when the log never rises."""
    best: tuple[int, int] | None = None
    a = 0
    while a < d.size:
        if d[a] <= 0:
            a += 1
            continue
        b = a
        while b + 1 < d.size and d[b + 1] > 0:
            b += 1
        if best is None or y[b + 1] - y[a] > y[best[1]] - y[best[0]]:
            best = (a, b + 1)
        a = b + 1
    return best


def _back_within(y: np.ndarray, i: int, pre: float, p: Params) -> bool:
    """The curve is back within `min_rel` of `pre` at one of the `recovering_points`
    logs after `i`."""
    after = y[i + 1 : i + 1 + p.recovering_points]
    return bool(after.size and float(after.min()) <= (1 + p.min_rel) * pre)


def _both_blown(run: Run, f: Series, p: Params) -> Hit | None:
    """The row of a short paste where the train loss is `huge_single_rel` + 1 (5x)
    the log before it and the eval loss logged at that row `tiny_factor` (10x) the eval
    before it, both back within `min_rel` of where they jumped from within `recovering_points`
    logs (warning; the largest such train jump)."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = ev.finite()
    es, ey = e.steps, e.values
    y, steps = f.values, f.steps
    best: tuple[int, int, int] | None = None
    for i in range(1, y.size - 1):
        pre = float(y[i - 1])
        if not (pre > 0 and y[i] >= (p.huge_single_rel + 1) * pre and _back_within(y, i, pre, p)):
            continue
        at = np.flatnonzero((es > steps[i - 1]) & (es <= steps[i]))
        before = np.flatnonzero(es <= steps[i - 1])
        if not (at.size and before.size):
            continue
        k, b = int(at[-1]), float(ey[before[-1]])
        if not (b > 0 and ey[k] >= p.tiny_factor * b and _back_within(ey, k, b, p)):
            continue
        if best is None or y[i] / pre > y[best[0]] / y[best[0] - 1]:
            best = (i, k, int(before[-1]))
    if best is None:
        return None
    i, k, kb = best
    step, pre, peak = int(steps[i]), float(y[i - 1]), float(y[i])
    eb, ea = float(ey[kb]), float(ey[k])
    back = i + 1 + int(np.argmax(y[i + 1 :] <= (1 + p.min_rel) * pre))
    return Hit(
        title=(
            f"Loss spike at step {step}: train loss {fmt(pre)} -> {fmt(peak)} "
            f"({fmt(peak / pre)}x) and eval loss {fmt(eb)} -> {fmt(ea)} ({fmt(ea / eb)}x) "
            f"at the same log, both back by step {int(steps[back])}"
        ),
        step=step,
        end_step=int(steps[back]),
        evidence={
            "count": 1,
            "largest_step": step,
            "largest_value": peak,
            "largest_baseline": pre,
            "largest_rel": peak / pre - 1,
            "spike_steps": [step],
            "eval_before": eb,
            "eval_at": ea,
            "back_step": int(steps[back]),
            "points": int(y.size),
        },
        explanation=(
            f"The train loss jumped {fmt(peak / pre)}x from one log to the next and the "
            f"held-out loss jumped {fmt(ea / eb)}x at the same log; both were back near "
            "where they jumped from within a few logs. Two curves on different data blowing "
            "up together is the model itself thrown off (a bad update at an LR at the edge "
            "of stability, BatchNorm statistics wrecked), not one bad batch, and the run "
            "repaired it."
        ),
        prescription=(
            "If it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _largest_rise(y: np.ndarray, j: int, back: int) -> float:
    """The largest ratio of a log to the one before it, outside the jump at `j` and its
    fall over the `back` logs after it (1.0 when the paste never rises elsewhere)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        up = y[1:] / y[:-1]
    keep = np.ones(up.size, bool)
    keep[max(0, j - 1) : j + back] = False
    up = up[keep & np.isfinite(up)]
    return float(max(up.max(), 1.0)) if up.size else 1.0


def _recovering(y: np.ndarray, peak_i: int, pre: float, p: Params) -> tuple[bool, np.ndarray]:
    """A jump at `peak_i` of `recovering_factor` over `pre` (the level before it) that
    falls at each point until it is back within `min_rel` of that level (2+ points after
    the peak; past that the paste wobbles at its level like any other stretch of it), or
    at each point to the end of the paste; and the index (into the points from the peak)
    of that return, when it came back so (empty otherwise)."""
    after = y[peak_i:]
    none = np.empty(0, np.int64)
    if not (pre > 0) or after.size <= p.recovering_points:
        return False, none
    ret = np.flatnonzero(after <= (1 + p.min_rel) * pre)
    ret = ret if ret.size and ret[0] >= 2 else none  # a lone point must fall to the end
    fell = after[: int(ret[0]) + 1] if ret.size else after
    ok = (
        y[peak_i] >= p.recovering_factor * pre
        and bool(np.all(np.diff(fell) < 0))
        and (after[0] - after[-1]) >= p.recovering_share * (after[0] - pre)
    )
    return ok, ret


def _signed(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 5-19 points of a loss that goes negative (a normalising flow's or a
    density model's negative log-likelihood): ratios to its level mean nothing there, so
    a spike is measured against the spread of the other points. One point whose rise
    over their median is `tiny_factor` (10x) the range they span, with the next point
    back inside that range, is a jump no batch noise makes (warning)."""
    y = f.values
    i = int(np.argmax(y))
    if not 0 < i < y.size - 1:
        return
    rest = _ordinary_rest(np.delete(y, i), p.tiny_factor)
    lo, hi, mid = float(rest.min()), float(rest.max()), float(np.median(rest))
    spread = hi - lo
    peak = float(y[i])
    if not (spread > 0 and peak - mid >= p.tiny_factor * spread and lo <= y[i + 1] <= hi):
        return
    yield _lone_spike(
        run,
        f,
        i,
        mid,
        f"{fmt((peak - mid) / spread)}x the range of the other {rest.size} points",
        {"spread": spread},
        "This loss goes negative (a likelihood), so its spikes cannot be read as a "
        f"multiple of its level; this one rose {fmt((peak - mid) / spread)}x the whole "
        "range the other points span and was back inside it at the next log: the "
        "optimizer overshot at that step (a bad batch, an LR at the edge of stability, "
        "fp16 overflow).",
    )


def _ordinary_rest(rest: np.ndarray, factor: float) -> np.ndarray:
    """The other points of a signed paste without their highest when it is a spike
    by the same measure (its rise over the median of the rest `factor` x the range
    they span): a second spike is no part of the range the paste's noise spans, and
    two do not mask each other (the tail test's `highest_ordinary`, for a loss with
    no level to take a multiple of)."""
    j = int(np.argmax(rest))
    others = np.delete(rest, j)
    spread = float(np.ptp(others)) if others.size >= 2 else 0.0
    if spread > 0 and float(rest[j]) - float(np.median(others)) >= factor * spread:
        return others
    return rest


def _lone_spike(
    run: Run,
    f: Series,
    i: int,
    baseline: float,
    size: str,
    evidence: dict[str, float],
    explanation: str,
) -> Hit:
    """One point of a short paste that jumped and was back at the next log: the finding
    the 3-4 line test and the negative-loss test share (they differ in how they measure
    the jump, `size`)."""
    y, steps = f.values, f.steps
    step, peak = int(steps[i]), float(y[i])
    return Hit(
        title=(
            f"Loss spike at step {step}: {fmt(float(y[i - 1]))} -> {fmt(peak)} -> "
            f"{fmt(float(y[i + 1]))}, {size}"
        ),
        step=step,
        end_step=int(steps[i + 1]),
        evidence={
            "count": 1,
            "largest_step": step,
            "largest_value": peak,
            "largest_baseline": baseline,
            **evidence,
            "spike_steps": [step],
            "points": int(y.size),
        },
        explanation=explanation,
        prescription=(
            "Log more points around the spike to see how often it happens; if it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _local(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 5-19 points whose loss is still falling has no one level: a point
    `tiny_factor` (10x) over both its neighbours, which agree with each other within
    `short_back`, rises past any batch noise whatever the rest of the curve does (the
    3-4 line test, applied at every point). Its rise must be `min_learned` of what the
    run learned (its first level minus its lowest): on a loss solved to ~0 a 10x blip
    is one misclassified sample. It is a warning when two rows do it, or when the eval
    loss logged at that step is `lone_eval_rise` above the evals on both sides of it
    (the held-out loss jumped and came back with it: the model was thrown off, not one
    batch); else info: a paste this short has no noise tail to set one row against. A
    row only `min_rel` over both neighbours counts when the eval loss at that log is
    `min_rel` over the evals on both sides too and it rises `both_learned` of what the
    paste learned (warning: two curves on different data in one jump)."""
    y, steps = f.values, f.steps
    head = float(np.median(y[: p.head_points]))
    learned = head - float(y.min())
    if not learned > 0:
        return
    found, both = [], []
    for i in range(1, y.size - 1):
        lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
        rise = float(y[i]) - hi
        if not (lo > 0 and hi <= p.short_back * lo):
            continue
        if y[i] >= p.tiny_factor * hi and rise >= p.min_learned * learned:
            found.append(i)
        elif (
            y[i] >= (1 + p.min_rel) * hi
            and rise >= p.both_learned * learned
            and _eval_jump(run, int(steps[i]), int(steps[i - 1]), int(steps[i + 1]), p, p.min_rel)
        ):
            # a smaller jump the held-out loss made too, at the same log and back at the
            # next: two curves on different data do not share one batch's noise
            both.append(i)
    if not (found or both):
        return
    i = max(found or both, key=lambda k: y[k])
    lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
    ref, peak, step = float(np.sqrt(lo * hi)), float(y[i]), int(steps[i])
    share = (peak - ref) / learned
    ev = _eval_jump(run, step, int(steps[i - 1]), int(steps[i + 1]), p)
    severity = Severity.WARNING if ev is not None or len(found) >= 2 else Severity.INFO
    evidence: dict[str, object] = {
        "count": len(found or both),
        "largest_step": step,
        "largest_value": peak,
        "largest_baseline": ref,
        "largest_rel": peak / ref - 1,
        "spike_steps": [int(steps[k]) for k in found],
        "learned_share": share,
        "points": int(y.size),
    }
    if ev is not None:
        evidence["eval_before"], evidence["eval_at"], evidence["eval_after"] = ev
    with_eval = (
        f"; the eval loss jumped with it ({fmt(ev[0])} -> {fmt(ev[1])} -> {fmt(ev[2])})"
        if ev is not None
        else ""
    )
    yield Hit(
        title=(
            f"Loss spike at step {step}: {fmt(float(y[i - 1]))} -> {fmt(peak)} -> "
            f"{fmt(float(y[i + 1]))} ({fmt(peak / ref)}x its neighbours) in {y.size} logged "
            f"points{with_eval}"
        ),
        step=step,
        end_step=int(steps[i + 1]),
        evidence=evidence,
        explanation=(
            f"One logged loss is {fmt(peak / ref)}x the points on both sides of it, which "
            "agree with each other: beyond any batch noise, on a curve still coming down. "
            "The optimizer overshot at that step (a bad batch, an LR at the edge of "
            "stability, fp16 overflow) and the loss came back"
            + (
                ", and the held-out loss rose and fell with it: the model itself was "
                "thrown off for that interval."
                if ev is not None
                else "."
            )
        ),
        prescription=(
            "Log more points around the spike to see how often it happens; if it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {step}",
            )
            + "."
        ),
        severity=severity,
    )


def _eval_jump(
    run: Run, step: int, prev: int, nxt: int, p: Params, rise: float | None = None
) -> tuple[float, float, float] | None:
    """(eval before, at, after) when the eval loss logged in (prev, step] is `rise`
    (default `lone_eval_rise`) above the last eval at or before `prev` and the first
    eval in (step, nxt], else None."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = ev.finite()
    es, ey = e.steps, e.values
    at = np.flatnonzero((es > prev) & (es <= step))
    before = np.flatnonzero(es <= prev)
    after = np.flatnonzero((es > step) & (es <= nxt))
    if not (at.size and before.size and after.size):
        return None
    b, a, c = float(ey[before[-1]]), float(ey[at[-1]]), float(ey[after[0]])
    if b > 0 and c > 0 and a >= (1 + (p.lone_eval_rise if rise is None else rise)) * max(b, c):
        return b, a, c
    return None


def _sparse_hit(run: Run, e: Excursion) -> Hit:
    """A confirmed multi-point excursion of a sparse loss that came back (warning)."""
    points = e.end - e.start + 1
    return Hit(
        title=(
            f"Loss spike over {points} logged points, steps {e.step}-{e.end_step}: "
            f"{fmt(e.level)} -> {fmt(e.peak)} ({e.peak / e.level:.1f}x), with {e.confirmed_by} "
            f"{fmt(e.confirm_ref)} -> {fmt(e.confirm_value)} at the same points; it came back"
        ),
        step=e.step,
        end_step=e.end_step,
        evidence={
            "count": 1,
            "largest_step": e.step,
            "largest_value": e.peak,
            "largest_baseline": e.level,
            "largest_rel": e.peak / e.level - 1,
            "spike_steps": [e.step],
            "points": points,
            "confirmed_by": e.confirmed_by,
            "confirm_before": e.confirm_ref,
            "confirm_worst": e.confirm_value,
        },
        explanation=(
            f"The loss left its level for {points} consecutive logged points, far beyond the "
            f"point-to-point noise of this log, and {e.confirmed_by} got as clearly worse at "
            "the same points: the model itself was thrown off (an LR at the edge of "
            "stability, a run of bad batches), not one noisy batch. It recovered, but the "
            "epochs in between were lost and it can happen again."
        ),
        prescription=(
            "Keep the checkpoint from before the spike; "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {e.step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )
