"""loss-spike: isolated large spikes in the loss that recover."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.measure.spikes import confirmed_excursions, confirmers
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._spike_head import _head
from traindoc.rules.loss._spike_hump import _hump
from traindoc.rules.loss._spike_rolling import _check
from traindoc.rules.loss._spike_sparse import _sparse_hit


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
