"""lr-too-high: the peak LR is above what the regime tolerates, and the curve shows it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from traindoc.measure.floor import band as floor_band
from traindoc.measure.losses import nonfinite_loss
from traindoc.measure.schedule import peak_lr, reached_peak_lr
from traindoc.measure.spikes import spike_events
from traindoc.measure.stats import fmt, lr_fraction, median, rolling_median, trend
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import REGIME_WORDS
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import (
    TYPICAL_LR,
    adam_like,
    curve,
    nonfinite,
    optimizer_scale,
    size_scale,
)
from traindoc.rules.rate._rl_lr import rl_hot_hit
from traindoc.rules.rate._sweep import SWEEP_GAP, sweep_hit


@dataclass(frozen=True)
class Params:
    # An arm of an LR sweep read with its siblings, above the best arm's LR, whose loss
    # at the common budget is this much above the best's (the reason for 5% is with
    # rules/rate/_sweep.py's SWEEP_GAP).
    sweep_gap: float = SWEEP_GAP
    # A plateau while the LR has decayed below 15% of its peak is the schedule's
    # converging tail, not an LR too high to settle (as in oscillating-plateau).
    converged_lr_fraction: float = 0.15
    # Above these an LR is outside what the regime tolerates for AdamW: pre-training
    # >2e-3 (only small models take it), full fine-tune >2e-4 (10x the usual 2e-5),
    # LoRA >1e-3 (5x the 2e-4 tutorial default). Regime unknown: the most tolerant.
    tolerated: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 2e-3, "full-finetune": 2e-4, "lora": 1e-3}
    )
    unknown_tolerated: float = 2e-3
    # The top of the usual range. Here an LR is only blamed for the LoRA-plateau run's oscillating
    # plateau: LoRA at the 2e-4 tutorial default (1.5e-4 leaves float slack).
    plateau_lr: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 1e-3, "full-finetune": 5e-5, "lora": 1.5e-4}
    )
    # What to lower to: the LoRA-plateau run's fix was 5e-5 for LoRA; the exploded-head
    # run's 3e-4 for pre-training.
    target: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 3e-4, "full-finetune": 2e-5, "lora": 5e-5}
    )
    unknown_target: float = 3e-4
    # Spikes: 6 robust sigmas and 25% (loss) / 2x (grad norm) above the local
    # median; one or two happen in healthy runs, three or more are a pattern.
    min_spikes: int = 3
    spikes_per_point: float = 1e-3
    loss_spike_rel: float = 0.25
    grad_spike_rel: float = 1.0
    # The LoRA-plateau run: loss fell 2.3 -> 1.1 (drop >= 1.2x) then oscillated 1.08-1.14 (~5%
    # band; 3% is clear of bf16/logging jitter on a ~1 loss).
    plateau_min_drop: float = 1.2
    plateau_min_band: float = 0.03
    # At the top of the usual range a flat noisy tail can also be a run that simply
    # converged. Only a band that persists through a 5-point rolling median (a
    # saw-tooth: 0.8+ for the LoRA-plateau run's shape, ~0.55 for white batch noise) is a warning
    # there; a white-noise plateau is only info.
    min_persistence: float = 0.7
    # A loss spike must rise at least 5% of what the run learned (head - best)
    # above its local median: relative spikes on a loss near zero are noise.
    spike_min_learned: float = 0.05
    # Held-out loss worsening: 5+ evals whose last fifth sits >= 1.3x the best eval,
    # while the train loss fell < 3% (not overfitting): the updates wreck the model.
    eval_min_points: int = 5
    eval_worse: float = 1.3
    eval_train_fell: float = 0.03
    # The loss broke (NaN/Inf, or a divergence began) while the logged LR was still
    # rising at each of the last 3+ logs before it: the warmup had carried the LR past
    # what the run takes, and the schedule was about to raise it further. Lower it
    # to half the LR at the break.
    rising_points: int = 3
    below_break: float = 0.5
    # ... at an LR of 1e-5 or more (half the full fine-tune target): a run that breaks
    # below the smallest usual LR is broken by something else (init, data, precision).
    rising_min_lr: float = 1e-5
    # ... or broke inside a warmup's climb: the LR rose at every log from its first (at half
    # the peak or less) to the peak, over `rising_points`+ logs, and the break came before the
    # peak with at least one logged rise before it. A per-epoch LR log of a 5-epoch warmup has
    # 2 logs up to a break in its second epoch, too few for "the last 3 rose", yet the break
    # is the climb's all the same. A break before the climb's first rise came at its smallest
    # LR, which says nothing about the peak (fp16, data and init break there too).
    # A held-out loss that blew up 10x+ above its best eval so far counts as a break there when
    # the train loss is higher over the same stretch than before it (the model, not the eval,
    # broke): one bad step at a climbing LR threw the weights far off, even if the run later
    # recovers (LB-SGD's ResNet-18 at batch 8192: test loss 41 -> 12,475 as the warmup passed
    # LR 1.28 on its way to 3.2, train loss 5.3 -> 6.6, at chance for the next 16 epochs).
    eval_blowup: float = 10.0
    # A train loss blown up the same 10x+ above its best so far, and to twice its first log
    # or more (a restarted or appended run lands back near its start, not 2x above it), is
    # a break too, read by the same rising-LR tests as a NaN. When the decaying LR later
    # brings such a loss back down, loss-spike calls it a spike and divergence stays silent,
    # yet it came as the LR climbed (the CSC3043S TinyStories arm at AdamW 1.0: train loss
    # 8.4 -> 6.6 -> 92 as its 200-step warmup reached the peak, 304 a log later).
    blowup_above_start: float = 2.0
    # ... or broke just as the warmup reached the peak: the LR had climbed from half the
    # peak or less over the last 3+ logs to it, and the loss broke within a quarter of the
    # warmup's length after (or its first 3 logs there), the LR still at 90%+ of the peak:
    # it never trained at the peak.
    peak_from: float = 0.5
    peak_window: float = 0.25
    peak_held: float = 0.9
    # An LR range test read off the warmup: the loss (5-point median) bottoms out while
    # the LR still climbs, then sits 1.5x+ above that bottom once the LR has doubled
    # past it - over 5+ logs that trend up (Mann-Kendall z >= 1.96) - and the first 3+
    # logs at the peak stay there. The run learns at the LR of the bottom and unlearns
    # above it: lower the peak to that LR.
    turn_rise: float = 1.5
    turn_lr_growth: float = 2.0
    turn_points: int = 5
    turn_z: float = 1.96
    turn_peak_points: int = 3
    # Adam(W) at 5x the most tolerant table value (1e-2, 10x Adam's 1e-3 default) or more
    # is too high for any network, from scratch or not: a run that never learned or sits
    # at chance there is the LR's, whatever the regime.
    adam_far: float = 5.0
    # An error names the LR as the cause of a broken run, so the "too high" must not rest
    # on a guess: the table's ground known (the regime, or the optimizer named: not a
    # trainer's default assumed), and the LR 2x+ past the tolerated value (at the table's
    # edge a broken run is as often the data's, the dtype's or a bug's). Otherwise a
    # warning, however the run broke.
    error_ratio: float = 2.0
    # An LR from here up, with no optimizer named, is SGD's usual range (0.1 for a
    # ResNet, scaled with the batch up to 1.6): the AdamW table does not apply unless
    # the run is known to be an LM (or its regime is known).
    sgd_range: float = 2e-2
    # Off the table (SGD's scale, a non-LM task), a run that broke at its LR is told to
    # lower it 3x (the next step of a 0.1 -> 0.03 search), not to the AdamW table's value.
    off_table_cut: float = 3.0
    # The hot phase: from the LR's peak to where it falls under half of it. A loss whose
    # best level there (its last fifth, or a 5-point median's low) is within 10% of
    # where the phase began (its first 3 logs),
    # and whose end is 10%+ below that best once the schedule decays the LR, learned
    # only when the LR came down: the peak was too high to learn at. The phase must be
    # 20%+ of the run with 10+ losses, and 5+ losses must follow it.
    hot_fraction: float = 0.5
    # ... and the top of the schedule, judged the same way: where the LR is within 20% of
    # its peak (a cosine's first ~30%, a linear decay's first fifth). A run can learn at
    # half the peak and still not at the peak itself (the cs336 TinyStories arm at AdamW
    # 3e-2: train loss 3.75 -> 3.8 over steps 250-1650 at LR 0.024-0.03, learning only as
    # the cosine took the LR below ~0.02, ending at val 2.12 against 1.61 at 3e-3): with
    # only the half-peak window its late hot-phase descent hid the stall at the top.
    top_fraction: float = 0.8
    hot_min_share: float = 0.2
    hot_min_points: int = 10
    hot_learned: float = 0.10
    cooled_drop: float = 0.10
    # Stuck at the unigram level: a from-scratch LM (regime pretraining, a vocabulary of
    # 1,000+ known) whose loss over the second half of the run stays at or above 0.55
    # ln(V) - the low end of the unigram entropy of text (0.55-0.7 ln V: 7.4 of 10.8
    # nats for GPT-2's BPE), i.e. it learned token frequencies and nothing of context -
    # and gained under 5% there (first vs last fifth of that half, medians). A healthy
    # from-scratch LM leaves that band within its first few hundred updates (nanoGPT's
    # GPT-2: ~7.4 by step 100, ~6 by step 500), so the half judged must begin at step
    # 300 or later, and hold 10+ losses. Counted only above the tolerated LR.
    unigram_ratio: float = 0.55
    unigram_min_vocab: int = 1000
    unigram_gain: float = 0.05
    unigram_from_step: int = 300
    unigram_min_points: int = 10
    # ... and, from the bottom of the usual pre-training range up (1e-4, the TYPICAL_LR
    # table's low end, scaled for size and optimizer), the same stall when it began
    # within the run's first fifth: under 5% gained from the first fifth of the logged
    # run to its last (medians). The model reached the unigram level in its first logs
    # and never used its context after (a GPT-2-vocabulary LM sweep at AdamW 3e-4..1e-3,
    # no warmup: train loss 7.3-7.6 for 1,000-2,250 steps, val rising, while its arms at
    # 1.1e-4..2.9e-4 fell to ~5.1). Fix: a 3x lower peak with a warmup.
    unigram_usual_cut: float = 3.0
    # ... seen from the run's start: its first log within the first tenth of its steps.
    unigram_start_share: float = 0.1


# Symptom findings (warning or error) that count as instability, by the sign they give.
SYMPTOMS = {
    "non-finite": ("nonfinite-loss", "nonfinite-gradients"),
    "diverging": ("divergence",),
    # a gradient norm growing 10x+ without bound after warmup: the weights are running
    # away, the divergence of the parameters that the loss shows later (or never, when
    # clipping hides it from the loss)
    "exploding gradients": ("grad-explosion",),
    "spikes": ("loss-spike", "grad-spike"),
    # an LR above the regime's tolerance and a model that never learned or sits at
    # chance: the steps are too large to find the descent at all
    "stuck": ("uniform-plateau", "no-learning"),
}
# (and "wrecked": absurd-initial-loss after updates at the LR, read from its evidence)
_SHOWN = {"non-finite": "NaN/Inf", "wrecked": "a first loss far above ln(V) after updates at it"}


@rule(
    "lr-too-high",
    minimum="the peak LR (logged or configured) and the regime; the curve decides the severity",
    family="rate",
    severity=Severity.ERROR,
    params=Params(),
    requires=("lr|fact:learning_rate",),
    uses=("lr", "loss", "grad_norm", "eval_loss", "fact:n_params"),
    # a curve wrecked by a bad resume is not the LR's fault
    explained_by=("fp16-instability", "absurd-initial-loss", "resume-loss-jump"),
    reads=(
        "absurd-initial-loss",
        "divergence",
        "nonfinite-loss",
        "nonfinite-gradients",
        "loss-spike",
        "grad-spike",
        "grad-explosion",
        "oscillating-plateau",
        "uniform-plateau",
        "no-learning",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Peak learning rate above what the regime tolerates, with instability to show it.

    **What it does.** Compares the peak LR (logged, else configured) with the regime's
    tolerance: 2e-3 pre-training, 2e-4 full fine-tuning, 1e-3 LoRA, 2e-3 unknown (AdamW's
    table: 100x up under SGD, 10x down under Lion, the Lion paper's 3-10x smaller LR; an HF
    Trainer naming no optimizer ran AdamW). Above it, it flags the LR when the curves show
    instability: error when the run broke for good on known ground, warning for weaker
    signs, info for a high LR with a calm curve. Warmups that break the run, RL, and LR
    sweeps have readings of their own below.

    **Why it matters.** The LoRA-plateau run: LoRA at the 2e-4 tutorial default with
    linear decay and 10% warmup fell 2.3 -> 1.1, then oscillated 1.08-1.14 for ~1,000 steps
    with no trend and validation stalled. Steps too large bounce around the minimum. The
    fix was max LR 5e-5 with cosine decay and 3% warmup: loss 0.87 in ~800 more steps. A
    2e-4 LoRA run that keeps converging is not flagged: the default is fine when the curve
    says so.

    **Readings.** *Known ground* means the regime known or the optimizer named (not a
    trainer's default assumed) and the LR 2x+ past the tolerance; off it, a broken run is a
    warning.

    Above the table:

    - *Broke for good* (error on known ground): NaN / Inf loss (or a loss component), grad
      norms non-finite that `nonfinite-gradients` calls an error, a divergence its rule
      calls an error, or a gradient norm growing 10x+ without bound after warmup
      (`grad-explosion`, even while clipping keeps the loss calm).
    - *Unstable* (warning): a grad norm a loss scaler skipped and the run recovered from, a
      loss that trends up or sits 1.5x above its best without undoing the run, an eval loss
      ending 1.3x above its best while the train loss does not fall, 3+ loss / grad-norm
      spikes (and one per 1,000 logged points), or an oscillating plateau.
    - *Stuck under Adam(W)* (error): a known regime's model that never learned or sits at
      chance (`no-learning`, `uniform-plateau`), or any such model at 1e-2+ (10x Adam's
      default), whatever the task; a model stuck or wrecked under a named Adam(W) 5x+ past
      any table counts at any severity.
    - *Hot first updates* (error): a first logged loss far above ln(V) after updates at this
      LR (`absurd-initial-loss`'s "after hot updates").
    - *Learned only when the LR came down* (warning): under 10% learned over the hot phase
      (from the peak until under half of it, 20%+ of the run), then 10%+ below its best
      there as the schedule decays; or the same over the schedule's top (LR within 20% of
      its peak: a cosine's first ~30%) (the cs336 TinyStories arm at AdamW 3e-2: train ~3.8
      over steps 250-1650, learning only below LR ~0.02, val 2.12 against 1.61 at 3e-3).
    - *Unigram stall* (warning): a from-scratch LM (pre-training, vocabulary 1,000+) whose
      loss over the run's second half (starting at step 300+) sits at or above 0.55 ln(V)
      (text's unigram entropy is 0.55-0.7 ln V), gaining under 5% there (first vs last
      fifth, medians).
    - *Top of the usual range* (LoRA >= 2e-4, full fine-tune >= 5e-5, pre-training >= 1e-3,
      scaled down above 350M parameters by GPT-3's LR-by-size table, x0.4 at 6.7B): only a
      diverging loss or an oscillating plateau is blamed: warning for a saw-tooth that
      survives a 5-point rolling median, info for white noise (a short late window must
      beat what white noise of as many points reaches 19 times in 20: 30 points score 0.7+
      one time in eight).
    - Without instability: info.

    Below the table or at any LR:

    - *Early unigram stall* (warning), from 1e-4 up (1e-2 under SGD), when it began in the
      run's first fifth: under 5% gained from the first fifth to the last, on a from-scratch
      LM or an LM of unknown regime, below ln(V)'s band, the log's first point within the
      first tenth of the run (a GPT-2-vocabulary sweep without warmup: train 7.3-7.6, 0.68
      ln V, for 1,000-2,250 steps at AdamW 3e-4..1e-3, while arms at 1.1e-4..2.9e-4 fell to
      ~5.1). Not a slow descent into the band, nor a stall below 1e-4; unrelated inputs
      stall the same way (the finding says to check a batch). Fix: a
      3x lower peak and a warmup.
    - *Broke during the warmup* (warning), at 1e-5+: the loss broke (NaN / Inf, a
      divergence's onset, a train loss 10x+ above its best and 2x+ above its first log even
      if the decay brings it back, or a grad norm running away 100x+ over a few logs) while
      the logged LR rose at each of the last 3 logs before it; or as a warmup (from half the
      peak or less, rising 3+ logs) reached the peak (within a quarter of the warmup's
      length, or its first 3 logs there, LR at 90%+ of peak); or inside the climb after at
      least one logged rise (a per-epoch LR log of a 5-epoch warmup has two up to a break in
      epoch 2). There a held-out loss 10x+ above its best eval with the train loss higher
      also counts, even if the run recovers (LB-SGD's ResNet-18 at batch 8192, SGD 3.2,
      5-epoch warmup: test loss 41 -> 12,475 past LR 1.28, train 5.3 -> 6.6, at chance for
      16 epochs); not an eval jump with the train loss falling. Fix: half the LR at the
      break.
    - *LR range test* (warning): during the warmup the loss (5-point median) bottoms out,
      rises over 5+ logs as the LR more than doubles, and its first 3 logs at the peak sit
      1.5x+ above the bottom (the eval loss no better): fix at the bottom's LR.

    RL (a reward is logged; the loss is a surrogate, so only grad-norm spikes and NaN / Inf
    count, and the tolerance is 3x the highest LR of rl-baselines3-zoo's tuned configs:
    7e-4 Atari (A2C RMSprop), 4e-3 classic control (DQN MountainCar), 1e-3 MuJoCo (TD3);
    1e-2 when the env is unknown):

    - *Critic loss grows* (warning): the TD loss (critic_loss, or a DQN's loss with an
      epsilon schedule) 10x+ higher over the last third of its 10+ logs than the first fifth
      (medians) (CS285's DQN on CartPole at Adam 5e-2: critic ~2 -> 50, eval return 10-100
      against 500 at 1e-3, whose critic grew 6-15x from 0.05).
    - *Return stalled* (warning, env known): a quarter of the way from random to competent
      or less, the last fifth up under 5% of that way on the fifth before, 10+ logs, epsilon
      at its floor (SB3's DQN on Breakout at 5e-3: 5.3 for its last 200k steps, 21.5 at
      5e-4).
    - *PPO steps too large* (warning, any LR): approx KL (SB3 `train/approx_kl`, CleanRL
      `losses/approx_kl`) above 0.5 at 3+ updates (else clip fraction above 0.5), entropy
      collapsing under half, the return giving back half its gain (SB3 PPO on Street
      Fighter II at 9e-5: KL up to 24, entropy 8.3 -> 0.2, return 4398 -> 1696).

    Sweeps: when nothing above warns and the run is one arm of an LR sweep (3+ runs at 3+
    peak LRs under one optimizer, fact `lr_sweep`), an arm above the best arm's LR whose
    loss at the common budget is 5%+ above the best's is a warning with both numbers (arms
    below are `lr-too-low`'s).

    **Known false positives.**

    - A converged run at its noise floor looks like a plateau: not counted while a logged
      eval loss still improves.
    - A loss solved to ~0 (100x below its start): spikes and bands are not counted, and a
      rise counts as divergence only at 5%+ of what the run learned.
    - Non-LM tasks with no regime (a classifier at Adam 3e-3, a detector at SGD 0.02,
      inferred from box / mask terms), or an LR of 2e-2+ with no optimizer named and no LM
      task (SGD's range: a ResNet at 0.1-1.6): a high LR alone and spikes are not reported;
      only NaN / Inf, divergence or an exploding grad norm, with a 3x cut as the fix.
    - NaNs under fp16 are usually the dtype (`fp16-instability`); duplicates and label
      noise also make oscillating plateaus.
    - With no LR logged, a configured peak behind a linear warmup longer than the run was
      never reached (a wav2vec2 card at 3e-4 with 500 warmup steps in 210: 1.26e-4 at
      most): `warmup-too-long`'s.
    - With no LR logged or configured the rule does not judge, not even a NaN after finite
      fp32 training (the LR was the cause about one time in eight; none of four where the
      loss had been falling): `nonfinite-loss`'s advice stands alone.

    **What to do.** Lower the peak LR 3-10x (LoRA: ~5e-5, full fine-tune:
    ~2e-5, pre-training: ~3e-4), use cosine decay and a 2-5% warmup; tune LR,
    schedule and effective batch together.
    """
    found = list(_readings(run, p))
    # an info (a high LR with a calm curve) gives way to the sweep's evidence against it
    if all(h.severity == Severity.INFO for h in found):
        sweep = sweep_hit(run, above=True, gap_line=p.sweep_gap)
        found = [sweep] if sweep is not None else found
    yield from found


def _readings(run: Run, p: Params) -> Iterator[Hit]:
    """The run's own evidence (the rule's page above); a sweep's comparison comes after."""
    pk = reached_peak_lr(run)  # an LR the run never reached cannot be too high
    if pk is None or pk.value <= 0:
        return
    regime = run.regime if run.regime in p.tolerated else None
    scale, size_why = size_scale(run)  # large pre-training models take smaller LRs
    scale *= optimizer_scale(run)  # the table is AdamW's: SGD's LRs sit ~100x above
    tolerated = (p.tolerated[regime] if regime else p.unknown_tolerated) * scale
    plateau_lr = p.plateau_lr[regime] * scale if regime else tolerated
    rising = _broke_rising(run, p)
    if rising is not None:
        yield _rising_hit(run, p, *rising)
        return
    turned = None if run.is_rl else _turned_up_warming(run, p)
    if turned is not None:
        yield _turned_hit(run, p, turned)
        return
    if (hit := rl_hot_hit(run, pk.value)) is not None:
        yield hit  # an RL loss is a surrogate: the agent's own curves, read by _rl_lr
        return
    usual_low = TYPICAL_LR["pretraining"][0] * scale
    if usual_low <= pk.value <= tolerated and _unigram_from_start(run, regime, p):
        yield _unigram_hit(run, p, pk.value)
        return
    if pk.value < plateau_lr:
        return
    high = pk.value > tolerated
    # An RL loss is a surrogate near 0 whose blips are completions ending early,
    # not overshooting: judge RL runs by grad norm and non-finite values only.
    loss = None if run.is_rl else run.get("loss")
    c = curve(loss) if loss is not None else None

    signs: list[str] = []
    broken = nonfinite_loss(run)
    n_nan = nonfinite(run, broken[0])[0] if broken else 0
    n_nan += nonfinite(run, "grad_norm")[0]
    if n_nan:
        signs.append("non-finite")
    if c is not None and c.diverging:
        signs.append("diverging")
    # A task solved to ~0 loss: its spikes and band are the noise of a solved
    # problem (a 1e-4 -> 5e-4 loss blip is +400% of nothing), not overshooting.
    solved = c is not None and c.converged
    loss_spikes = grad_spikes = 0
    if loss is not None and not solved:
        # A loss spike must also matter at the scale of the problem: 5% of what
        # the run learned, so blips on a loss near its floor are not counted.
        min_abs = p.spike_min_learned * c.learned if c is not None else 0.0
        f = loss.finite().values
        loss_spikes = spike_events(f, min_rel=p.loss_spike_rel, min_abs=min_abs).size
    gn = run.get("grad_norm")
    if gn is not None and not solved:
        grad_spikes = spike_events(gn.finite().values[3:], min_rel=p.grad_spike_rel).size
    # Spikes are rare events: 3 in 16,000 per-step losses are a normal tail, 3 in 300 a
    # pattern. The count must also reach one per 1,000 logged points (as loss-spike's).
    n_points = max(len(loss) if loss is not None else 0, len(gn) if gn is not None else 0)
    if max(loss_spikes, grad_spikes) >= max(p.min_spikes, p.spikes_per_point * n_points):
        signs.append("spikes")
    # A flat tail while the schedule has decayed the LR to a small fraction of its
    # peak is convergence (cosine's tail), not an LR too high to settle.
    lr_frac = lr_fraction(run, c.late_start, float("inf")) if c is not None else None
    plateau = (
        c is not None
        and not solved
        and c.oscillating_plateau(p.plateau_min_drop, p.plateau_min_band)
        and not _eval_improving(run, c.late_start)
        and not (lr_frac is not None and lr_frac < p.converged_lr_fraction)
    )
    # What the symptom rules found counts as well: a two-point blow-up or a short
    # paste's spikes are theirs to detect, with their own minimum data.
    plateau = plateau or (not solved and run.symptom("oscillating-plateau") is not None)
    if plateau:
        signs.append("oscillating")
    optim = str(run.fact("optim", "")).lower()
    # Adam's step moves every weight by ~LR whatever the gradient's scale: 5x the most
    # tolerant table value (1e-2; Lion's 1e-3) is too high for any network, whatever the
    # regime. An HF Trainer run that names no optimizer ran the Trainer's AdamW.
    adaptive = adam_like(run)
    adam_far = adaptive and pk.value >= p.adam_far * p.unknown_tolerated * optimizer_scale(run)
    for sign, rules in SYMPTOMS.items():
        if sign == "stuck" and not (high and (regime or adam_far) and "sgd" not in optim):
            # at chance with a usual LR is too low, bad data or a bug; and only a known
            # regime under Adam(W), or Adam far past any table, says what "too high" is
            # (SGD takes 0.1 by design)
            continue
        if sign not in signs and run.symptom(*rules) is not None:
            signs.append(sign)
    if "diverging" not in signs and _eval_worsens(run, p):
        signs.append("diverging")  # held-out loss climbing while the train loss does not fall
    if high and not solved and loss is not None and _learned_only_cooled(run, loss, p):
        signs.append("learned only as the LR decayed")
    if high and regime == "pretraining" and loss is not None and _unigram_stuck(run, loss, p):
        signs.append("stuck at the unigram level")
    absurd = run.symptom("absurd-initial-loss")
    if high and absurd is not None and "lr_before_first_log" in absurd.evidence:
        signs.append("wrecked")  # the first log came after updates at this LR, far above ln(V)

    # The tolerance table is for transformer LMs under AdamW. With no regime known
    # and a task known not to be language modelling (a classifier, a regressor),
    # the LR alone proves nothing: only the curves can accuse it.
    # An LR of 2e-2 or more with no optimizer named is SGD's range (ResNets train at
    # 0.1-1.6), where an unknown task is no more an AdamW LM's than a named classifier.
    # Only a named Adam(W) or Lion takes a run off that range: an HF Trainer run at 2e-2
    # that names none is as often prefix or prompt tuning (high LRs by design) as a
    # misconfigured AdamW, and the table does not judge its spikes.
    sgd_range = pk.value >= p.sgd_range and not ("adam" in optim or "lion" in optim)
    task = run.fact("task")
    table_applies = regime is not None or task == "lm" or (task is None and not sgd_range)
    # Adam(W) far past any table with a model at chance is the LR's whatever the task
    table_applies = table_applies or ("stuck" in signs and adam_far)
    if not table_applies:
        # Off the table's ground (a detector under SGD at 0.02 is normal) only a NaN or
        # a diverging loss accuses the LR; spikes and bands are that task's noise.
        signs = [s for s in signs if s in ("non-finite", "diverging", "exploding gradients")]
        if not signs:
            return
    if high:
        # off the table the break alone accuses the LR (its sign must be decisive); on it,
        # the table's verdict must not rest on an assumed optimizer or on its edge
        known = regime is not None or bool(optim)
        sure = not table_applies or (known and pk.value >= p.error_ratio * tolerated)
        far = adam_far and bool(optim)  # a named Adam(W) 5x+ past any table
        if sure and _broke_for_good(run, signs, broken is not None, far):
            severity = Severity.ERROR
        elif signs:
            severity = Severity.WARNING
        else:
            severity = Severity.INFO
    elif "diverging" in signs or (plateau and c is not None and c.sawtooth(p.min_persistence)):
        severity = Severity.WARNING
    elif plateau:
        severity = Severity.INFO
    else:
        return
    target = (p.target[regime] if regime else p.unknown_target) * scale
    if not table_applies:
        # off the AdamW table (SGD's scale, a detector): the LR is ordinary for it, the
        # break is the evidence; the fix is a few times lower, not the table's value
        target = pk.value / p.off_table_cut
    what = REGIME_WORDS.get(regime or "", "a typical run") + (" at this size" if size_why else "")
    shown = (
        ", ".join(_SHOWN.get(s, s) for s in signs)
        if signs
        else "no instability in the curves (yet)"
    )
    evidence = {
        "peak_lr": pk.value,
        "lr_source": pk.source,
        "tolerated_lr": tolerated,
        "target_lr": target,
        "ratio": pk.value / tolerated,
        "regime": regime or "unknown",
        **({"model_size": size_why} if size_why else {}),
        "instability": ",".join(signs) or "none",
        "nonfinite": n_nan,
        "loss_spikes": loss_spikes,
        "grad_spikes": grad_spikes,
    }
    if c is not None:
        evidence |= {
            "late_loss": c.level,
            "late_change": c.late_change,
            "band": c.band,
            "persistence": c.persistence,
        }
    level = "above what" if high else "at the top of what"
    title = f"Peak LR {fmt(pk.value)} is {level} {what} tolerates; curve shows: {shown}"
    explanation = (
        f"For {what} an LR above ~{fmt(tolerated)} is usually unstable"
        + ("" if high else f", and at {fmt(pk.value)} a plateau is the typical symptom")
        + ". Steps this large overshoot the minimum: the loss spikes, drifts up or bounces "
        "in a band instead of settling."
    )
    if not table_applies:
        title = f"The loss broke ({shown}) at a peak LR of {fmt(pk.value)}"
        explanation = (
            f"An LR of {fmt(pk.value)} is ordinary on SGD's scale (or for this task), so the "
            f"value alone accuses nothing; the {shown} does: at this LR, for this batch and "
            "model, the steps overshoot until the loss breaks."
        )
    yield Hit(
        title=title,
        step=c.late_start if plateau and not high else (int(loss.steps[0]) if loss else None),
        end_step=int(loss.steps[-1]) if loss is not None else None,
        evidence=evidence,
        explanation=explanation,
        prescription=_prescription(run, pk.value, target),
        severity=severity,
    )


def _broke_for_good(run: Run, signs: list[str], loss_nonfinite: bool, far: bool) -> bool:
    """Direct evidence that the run broke at this LR, which an error needs: a NaN/Inf loss,
    gradients non-finite for good (nonfinite-gradients' error, not steps a loss scaler
    skipped and the run recovered from), a divergence its rule calls an error (a blow-up
    that undid the run, not a late wobble or a trend up), a gradient norm running away, a
    model at chance, or a first loss wrecked by updates at the LR, each as its own rule's
    error. An LR above the table
    with only weaker signs (spikes, a rise, a recovered NaN norm) is a warning: healthy
    runs above the table show those too, and an error on a healthy run costs the most."""
    # each sign decisive only where its own rule is sure of it (an error): a warning's
    # gradient growth, plateau or first loss may rest on a guess (a floor, a window); a
    # model that never learned, or was wrecked, under a named Adam(W) 5x+ past any table
    # (`far`) is the LR's whatever its own rule's severity: no network trains there
    err = Severity.ERROR
    if "exploding gradients" in signs and run.symptom("grad-explosion", at_least=err):
        return True
    stuck = run.symptom("uniform-plateau", "no-learning", at_least=err)
    if "stuck" in signs and (far or stuck):
        return True
    if "wrecked" in signs and (far or run.symptom("absurd-initial-loss", at_least=err)):
        return True
    nan_for_good = loss_nonfinite or run.symptom("nonfinite-gradients", at_least=Severity.ERROR)
    if "non-finite" in signs and nan_for_good:
        return True
    return "diverging" in signs and run.symptom("divergence", at_least=Severity.ERROR) is not None


def _prescription(run: Run, peak: float, target: float) -> str:
    """What to change, from what the run does now (its schedule, warmup, precision)."""
    text = advice.join(
        f"Lower the peak LR from {fmt(peak)} to ~{fmt(target)} ({peak / target:.0f}x lower)",
        advice.schedule(run),
        "tune the effective batch with it",
    )
    prec = advice.precision(run)
    return text + "." + (f" If the loss has NaNs: {prec} first." if prec else "")


def _eval_improving(run: Run, since: int) -> bool:
    """Eval loss still falls over the late window: the train plateau is the noise floor."""
    ev = run.get("eval_loss")
    if ev is None:
        return False
    late = ev.finite().after(since)
    if len(late) < 4:
        return False
    tr = trend(late.steps, late.values)
    span = float(late.steps[-1] - late.steps[0])
    level = float(abs(late.values).mean()) or 1.0
    return tr.z < -1.96 and tr.slope * span / level <= -0.01


def _learned_only_cooled(run: Run, loss: Series, p: Params) -> bool:
    """The loss did not fall while the logged LR was at half its peak or more (or at the top
    of the schedule, within 20% of the peak), and fell 10%+ after the schedule took it
    below: the run learned only once the LR came down."""
    return any(
        _cooled_from(run, loss, p, frac) for frac in dict.fromkeys((p.hot_fraction, p.top_fraction))
    )


def _cooled_from(run: Run, loss: Series, p: Params, frac: float) -> bool:
    """`_learned_only_cooled` for one hot window: where the LR is at `frac` of its peak or more."""
    lr = run.get("lr")
    if lr is None or len(lr) < p.hot_min_points:
        return False
    lf, f = lr.finite(), loss.finite()
    if not len(lf) or not len(f) or lf.values.max() <= 0:
        return False
    # from where the LR reaches its peak (the warmup's descent is not the hot phase's)
    first = int(np.argmax(lf.values >= 0.98 * lf.values.max()))
    hot = lf.values >= frac * lf.values.max()
    cooled = np.flatnonzero(~hot[first:])
    if not cooled.size:
        return False  # hot to the end: the main curve tests judge that
    start, end = int(lf.steps[first]), int(lf.steps[first + int(cooled[0])])
    inside = f.values[(f.steps >= start) & (f.steps < end)]
    after = f.values[f.steps >= end]
    span = float(f.steps[-1] - f.steps[0]) or 1.0
    if inside.size < p.hot_min_points or after.size < 5 or (end - start) / span < p.hot_min_share:
        return False
    head = float(np.median(inside[:3]))  # where the phase began
    # the best level it reached at peak LR: its last fifth, or a 5-point median's low
    tail = float(np.median(inside[-max(2, inside.size // 5) :]))
    best = min(tail, float(rolling_median(inside, 5).min()))
    low = float(np.median(after[-max(2, after.size // 5) :]))
    # under 10% learned at peak LR, then 10%+ more once the LR came down
    return head > 0 and best >= (1 - p.hot_learned) * head and low <= (1 - p.cooled_drop) * best


def _unigram_stuck(run: Run, loss: Series, p: Params) -> bool:
    """A from-scratch LM whose loss over the second half of the run sits at or above the
    unigram band (0.55 ln V) and gained under 5% there: it learned token frequencies,
    then nothing more, for the whole second half."""
    v = run.vocab_size
    if run.floor is None or v is None or v < p.unigram_min_vocab:
        return False
    f = loss.finite()
    if not len(f):
        return False
    mid = float(f.steps[0]) + (float(f.steps[-1]) - float(f.steps[0])) / 2
    half = f.values[f.steps >= mid]
    if half.size < p.unigram_min_points or mid < p.unigram_from_step:
        return False
    k = max(2, half.size // 5)
    head, tail = float(np.median(half[:k])), float(np.median(half[-k:]))
    level = float(np.median(half))
    return (
        level >= p.unigram_ratio * run.floor and head > 0 and (head - tail) / head < p.unigram_gain
    )


def _unigram_from_start(run: Run, regime: str | None, p: Params) -> bool:
    """A from-scratch LM (pre-training, or an LM task of unknown regime) stuck at the
    unigram level (`_unigram_stuck`) since its first logs: it also gained under 5% from
    the first fifth of the logged run to its last, so the stall is not the slow tail of
    a descent but a model that stopped using its input early. It must have left the
    uniform level ln(V) (uniform-plateau's band): a model that never learned even the
    token frequencies was not trained at all, which no LR explains. And the log must
    show the run's start (its first log within the first tenth of its steps): a late
    window alone cannot tell a stall from a converged model's floor (a healthy 27M GPT
    on short titles ends at 0.60 ln V)."""
    if run.is_rl or not (regime == "pretraining" or (regime is None and run.fact("task") == "lm")):
        return False
    loss = run.get("loss")
    if loss is None or run.floor is None or not _unigram_stuck(run, loss, p):
        return False
    f = loss.finite()
    if f.steps[0] > p.unigram_start_share * f.steps[-1]:
        return False
    k = max(2, len(f) // 5)
    head, tail = float(np.median(f.values[:k])), float(np.median(f.values[-k:]))
    left_uniform = tail < floor_band(run, run.floor)[0]
    return left_uniform and head > 0 and (head - tail) / head < p.unigram_gain


def _unigram_hit(run: Run, p: Params, peak: float) -> Hit:
    loss = run.get("loss")
    assert loss is not None and run.floor is not None  # checked by _unigram_from_start
    f = loss.finite()
    level = float(np.median(f.values[f.steps >= (f.steps[0] + f.steps[-1]) / 2]))
    target = peak / p.unigram_usual_cut
    return Hit(
        title=(
            f"The LM's loss stayed at the unigram level ({fmt(level)}, "
            f"{level / run.floor:.2f} ln V) from its first logs to step {int(f.steps[-1])} "
            f"at a peak LR of {fmt(peak)}"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "peak_lr": peak,
            "target_lr": target,
            "instability": "stuck at the unigram level",
            "late_loss": level,
            "unigram_ratio": level / run.floor,
            "ln_vocab": run.floor,
        },
        explanation=(
            f"A loss near {level / run.floor:.2f} ln(V) is what a model that predicts "
            "token frequencies and ignores its context scores. A from-scratch LM passes "
            "that level within a few hundred updates; this one reached it in its first logs "
            "and then gained under 5% for the rest of the run. At an LR in the usual "
            "pre-training range or above, the usual cause is early steps too large for this "
            "model (no or too short a warmup): they collapse the representations, and "
            "the model falls back on the unigram prior. A data pipeline that feeds inputs "
            "unrelated to their targets stalls the same way: check a batch if a lower LR "
            "does not help."
        ),
        prescription=advice.join(
            f"Lower the peak LR from {fmt(peak)} to ~{fmt(target)}",
            advice.warmup(run, "add a warmup of 2-5% of the steps"),
            "restart from scratch (the stalled weights carry nothing)",
        )
        + ".",
        severity=Severity.WARNING,
    )


def _eval_worsens(run: Run, p: Params) -> bool:
    """The eval loss ends well above its best while the train loss has not fallen: the
    model gets worse on held-out data without fitting the train set better (that would
    be overfitting), i.e. the updates are wrecking it. Read from the evals, for logs
    whose train loss is too sparse for a curve of its own."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None or tr is None:
        return False
    e, t = ev.finite().values, tr.finite().values
    if e.size < p.eval_min_points or t.size < 3:
        return False
    k = max(2, e.size // 5)
    best, late = float(e.min()), float(np.median(e[-k:]))
    kt = max(1, t.size // 5)
    t_start, t_end = float(np.median(t[:kt])), float(np.median(t[-kt:]))
    train_fell = t_start > 0 and (t_start - t_end) / t_start >= p.eval_train_fell
    return best > 0 and late >= p.eval_worse * best and not train_fell


def _broke_rising(run: Run, p: Params) -> tuple[int, float, str] | None:
    """(step, LR, what broke) where the loss broke while the logged LR still rose at each
    of the last `rising_points` logs up to it, or inside a warmup's climb: a NaN/Inf loss,
    a divergence's onset, a grad norm's runaway onset, a train loss blown up 10x+ above its
    best, or (in a warmup's climb) a held-out loss blown up 10x+."""
    lr = run.get("lr")
    if lr is None:
        return None
    broken = nonfinite_loss(run)
    steps: list[tuple[int, str]] = []
    if broken is not None and broken[0] != "eval_loss":
        s = broken[1]
        bad = ~np.isfinite(s.values)
        if np.isfinite(s.values[: int(np.argmax(bad))]).any():  # finite before it broke
            steps.append((int(s.steps[int(np.argmax(bad))]), "its loss became NaN/Inf"))
    # a divergence's onset, or a gradient norm that ran away (100x+ in a few logs, into
    # NaN or still climbing): the weights breaking, which the loss shows later or never
    for sym in ("divergence", "grad-explosion"):
        f = run.symptom(sym)
        if (
            f is not None
            and f.step is not None
            and (sym == "divergence" or f.evidence.get("runaway"))
        ):
            said = "its loss began to diverge" if sym == "divergence" else "its grad norm ran away"
            steps.append((int(f.step), said))
    if (jump := _loss_blowup(run, p)) is not None:
        steps.append(jump)
    f = lr.finite()
    blown = _eval_blowup(run, p)
    if blown is not None and (_warming(f, blown[0], p) or _just_peaked(f, blown[0], p)):
        steps.append(blown)
    if not steps:
        return None
    at, what = min(steps)
    before = f.values[f.steps <= at]
    k = p.rising_points
    if not before.size or before[-1] <= 0:
        return None
    if before.size >= k:
        rose = bool((np.diff(before[-k:]) > 0).all()) and before[-1] >= float(before.max())
        if (rose or _just_peaked(f, at, p)) and before[-1] >= p.rising_min_lr:
            return at, float(before[-1]), what
    # inside a warmup's climb, one logged rise before the break is enough: the climb goes on
    # to the peak, so the break is where it carried the LR (not its first, smallest value)
    lr_at = float(np.interp(at, f.steps, f.values))
    climbed = before.size >= 2 and before[-1] > before[0]
    return (
        (at, lr_at, what) if climbed and _warming(f, at, p) and lr_at >= p.rising_min_lr else None
    )


def _warming(lr: Series, at: int, p: Params) -> bool:
    """`at` lies inside a warmup's climb: the LR rose at every log from its first (at half
    its peak or less) to where it reaches the peak, over `rising_points`+ logs, and `at`
    comes at or after the first log and before the peak."""
    v, s = lr.values, lr.steps
    top = float(v.max())
    if len(v) < 2 or top <= 0:
        return False
    i = int(np.argmax(v >= 0.98 * top))  # where the warmup reached the peak
    return (
        i + 1 >= p.rising_points
        and v[0] <= p.peak_from * top
        and bool((np.diff(v[: i + 1]) > 0).all())
        and s[0] <= at < s[i]
    )


def _loss_blowup(run: Run, p: Params) -> tuple[int, str] | None:
    """(step, what) of the first train loss 10x+ its best before it and 2x+ its first log: a
    loss thrown far above where the run started, not a noisy log (an RL surrogate's swings
    are not a loss curve)."""
    loss = None if run.is_rl else run.get("loss")
    if loss is None:
        return None
    f = loss.finite()
    v = f.values
    if v.size < 3 or v[0] <= 0:
        return None
    best = np.minimum.accumulate(v)
    jumped = (v[1:] >= p.eval_blowup * best[:-1]) & (v[1:] >= p.blowup_above_start * v[0])
    jumped &= best[:-1] > 0
    if not jumped.any():
        return None
    i = int(np.argmax(jumped)) + 1
    return int(f.steps[i]), f"its loss blew up {v[i] / best[i - 1]:.0f}x above its best"


def _eval_blowup(run: Run, p: Params) -> tuple[int, str] | None:
    """(step, what) of the first eval whose loss is 10x+ its best eval before it, while the
    train loss over the same stretch sits above its level before it (the model broke, not
    the evaluation)."""
    ev, tr = run.get("eval_loss"), run.get("loss")
    if ev is None or tr is None:
        return None
    e, t = ev.finite(), tr.finite()
    best = np.minimum.accumulate(e.values)
    for i in range(1, len(e)):
        if best[i - 1] <= 0 or e.values[i] < p.eval_blowup * best[i - 1]:
            continue
        lo, hi = e.steps[i - 1], e.steps[i]
        now = t.values[(t.steps > lo) & (t.steps <= hi)]
        earlier = t.values[t.steps <= lo]
        if now.size and earlier.size and median(now) > median(earlier):
            ratio = e.values[i] / best[i - 1]
            return int(hi), f"its eval loss blew up {ratio:.0f}x"
    return None


def _just_peaked(lr: Series, at: int, p: Params) -> bool:
    """The break came as the warmup ended: the LR climbed from half its peak or less over
    `rising_points`+ logs to the peak, and the loss broke within the first quarter of the
    warmup's length after it (or its first `rising_points` logs at the peak, for a sparse
    log), the LR still at 90%+ of the peak. The run never trained at the peak: it broke
    on reaching it, which is the peak's fault, not the schedule's later course."""
    v, s = lr.values, lr.steps
    top = float(v.max())
    i = int(np.argmax(v >= 0.98 * top))  # where the warmup reached the peak
    k = p.rising_points
    if i < k or v[0] > p.peak_from * top or not (np.diff(v[i - k : i + 1]) > 0).all():
        return False
    # a quarter of the warmup, or its first `rising_points` logs at the peak if longer
    window = max(p.peak_window * float(s[i] - s[0]), k * float(np.median(np.diff(s))))
    lr_at = float(np.interp(at, s, v))
    return s[i] <= at <= s[i] + window and lr_at >= p.peak_held * top


def _rising_hit(run: Run, p: Params, at: int, lr_at: float, what: str) -> Hit:
    target = p.below_break * lr_at
    pk = peak_lr(run)
    peaked = pk is not None and lr_at >= 0.98 * pk.value
    when = "as the warmup reached the peak LR" if peaked else "while the LR was still rising"
    return Hit(
        title=(
            f"The loss broke at step {at} {when} (now {fmt(lr_at)}): "
            "the run cannot take the LR its schedule is climbing to"
        ),
        step=at,
        evidence={
            "break_step": at,
            "lr_at_break": lr_at,
            "target_lr": target,
            "rising_logs": p.rising_points,
            "peak_lr": pk and pk.value,
        },
        explanation=(
            (
                f"The logged LR climbed to its peak over the warmup and {what} at step {at}, "
                "within its first logs there: the run broke on reaching the peak, so the "
                "peak is above what this model and batch tolerate."
            )
            if peaked
            else (
                f"The logged LR was still climbing at step {at}, where {what}: the warmup "
                "carried the LR past what this model and batch tolerate, and the schedule "
                "would raise it further."
            )
        ),
        prescription=advice.join(
            f"Lower the peak LR below the {fmt(lr_at)} at which the loss broke, to ~{fmt(target)}",
            advice.schedule(run),
            "restart from a checkpoint before the break",
        )
        + ".",
        severity=Severity.WARNING,
    )


@dataclass(frozen=True)
class _Turn:
    step: int  # where the loss bottomed out
    lr: float  # the LR there
    low: float  # the 5-point median's bottom
    at_peak: float  # the loss's median over its first logs at the peak LR
    peak_step: int
    peak_lr: float
    eval_at_turn: float | None
    eval_at_peak: float | None


def _turned_up_warming(run: Run, p: Params) -> _Turn | None:
    """The loss bottomed out during the warmup and rose with the LR to 1.5x+ that bottom
    by the time the LR peaked, and stayed up there: the LR range test's reading, in a
    run (it learns at the LR of the bottom and unlearns above it)."""
    lr, loss = run.get("lr"), run.get("loss")
    if lr is None or loss is None:
        return None
    lf, f = lr.finite(), loss.finite()
    if len(lf) < p.turn_points or len(f) < p.turn_points + 2 or lf.values.max() <= 0:
        return None
    top = float(lf.values.max())
    peak_step = int(lf.steps[int(np.argmax(lf.values >= 0.98 * top))])
    warm = f.steps <= peak_step
    if warm.sum() < p.turn_points + 2:  # a bottom with 2+ logs before it, 5+ logs of rise
        return None
    steps, values = f.steps[warm], f.values[warm]
    med = rolling_median(values, p.turn_points)
    i = int(np.argmin(med))
    turn_step = int(steps[i])
    lr_turn = float(np.interp(turn_step, lf.steps, lf.values))
    low = float(med[i])
    at_peak = f.values[f.steps >= peak_step][: p.turn_peak_points]
    peak_level = float(np.median(at_peak)) if at_peak.size else 0.0
    if (
        low <= 0
        or lr_turn <= 0
        or top < p.turn_lr_growth * lr_turn
        or values.size - i < p.turn_points
        or at_peak.size < p.turn_peak_points
        or peak_level < p.turn_rise * low
        or float(at_peak.min()) < low
        or trend(steps[i:], values[i:]).z < p.turn_z
    ):
        return None
    ev = run.get("eval_loss")
    e_turn = e_peak = None
    if ev is not None and len(e := ev.finite()):
        # held-out loss must agree when it is logged: no better at the peak than near the turn
        e_turn = float(e.values[int(np.argmin(np.abs(e.steps - turn_step)))])
        later = e.values[e.steps >= peak_step]
        e_peak = float(later[0]) if later.size else None
        if e_peak is not None and e_peak < e_turn:
            return None
    return _Turn(turn_step, lr_turn, low, peak_level, peak_step, top, e_turn, e_peak)


def _turned_hit(run: Run, p: Params, t: _Turn) -> Hit:
    held = (
        f"; the eval loss went {fmt(t.eval_at_turn)} -> {fmt(t.eval_at_peak)}"
        if t.eval_at_turn is not None and t.eval_at_peak is not None
        else ""
    )
    return Hit(
        title=(
            f"The loss bottomed out at {fmt(t.low)} at step {t.step} (LR {fmt(t.lr)}) and rose "
            f"with the warmup to {fmt(t.at_peak)} at the peak LR {fmt(t.peak_lr)}{held}"
        ),
        step=t.step,
        end_step=t.peak_step,
        evidence={
            "turn_step": t.step,
            "lr_at_turn": t.lr,
            "loss_at_turn": t.low,
            "peak_step": t.peak_step,
            "peak_lr": t.peak_lr,
            "loss_at_peak": t.at_peak,
            "rise": t.at_peak / t.low,
            "target_lr": t.lr,
            **({"eval_at_turn": t.eval_at_turn} if t.eval_at_turn is not None else {}),
            **({"eval_at_peak": t.eval_at_peak} if t.eval_at_peak is not None else {}),
        },
        explanation=(
            f"The run learned while the LR climbed to {fmt(t.lr)}, then its loss rose "
            f"{t.at_peak / t.low:.1f}x as the warmup took the LR {t.peak_lr / t.lr:.0f}x higher, "
            "and stayed up at the peak: past that LR each step undoes more than it learns "
            "(what an LR range test shows)."
        ),
        prescription=advice.join(
            f"Lower the peak LR from {fmt(t.peak_lr)} to ~{fmt(t.lr)}, the LR at which the "
            "loss was lowest",
            advice.schedule(run),
            f"keep the checkpoint near step {t.step} if one was saved",
        )
        + ".",
        severity=Severity.WARNING,
    )
