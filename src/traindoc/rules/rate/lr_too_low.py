"""lr-too-low: the peak LR is far below what the training regime needs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.schedule import peak_lr
from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import REGIME_WORDS
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import (
    FINETUNE,
    PRETRAIN_LR_BY_SIZE,
    TYPICAL_LR,
    curve,
    family_lr,
    optimizer_scale,
    size_scale,
)
from traindoc.rules.rate._sweep import SWEEP_GAP, sweep_hit


@dataclass(frozen=True)
class Params:
    # At or below these the run cannot leave where it starts in any sane number of
    # steps: 100x under the 1e-5 low end of full fine-tuning, 50x under LoRA's 5e-5 low
    # end. Pre-training's is 3e-5: 10x under the regime's typical 3e-4 (the exploded-head
    # run's) and half the lowest AdamW peak published for pre-training at any size
    # (GPT-3 175B and BLOOM-176B at 6e-5; size_scale lowers it for a known large model).
    # A from-scratch LM at 1.2e-5..2.8e-5 (a Lightning GPT sweep's low arms) still falls
    # after 20 epochs, 0.75-1.1 nats above its 2.4e-4 sibling's val loss.
    flag_at: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 3e-5, "full-finetune": 1e-7, "lora": 1e-6}
    )
    # What the regime needs, for the ratio: the exploded-head run names 3e-4 for pre-training; the
    # fine-tuning values are the low ends of their usual ranges (conservative ratio).
    expected: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 3e-4, "full-finetune": 1e-5, "lora": 5e-5}
    )
    # Regime unknown: only an LR that is far too low for every regime (full
    # fine-tuning's is the lowest) is worth saying, and never as an error.
    unknown_flag_at: float = 1e-7
    unknown_expected: float = 1e-5
    # Between that line and the regime's usual range: an LR 10x or more under the range's
    # low end (full fine-tune 1e-6, LoRA 5e-6; unknown regime: full fine-tuning's) is too
    # low when the loss agrees: over the whole run it barely moved - the eval loss (3+
    # evals: what the run is for) or else the train loss gained under 5% of its start.
    # (Pre-training's line, 3e-5, is already `flag_at`'s.)
    slow_below: float = 0.1
    # Regime unknown: half the full fine-tune line (a large model's full fine-tune runs
    # at 1e-6..2e-6, so 1e-6 alone says nothing there).
    unknown_slow_at: float = 5e-7
    slow_gain: float = 0.05
    slow_min_points: int = 3
    # ... unless the eval loss ended 5%+ above its best: an LR too small to move the
    # weights cannot make the model overfit either (whisper-large at 1e-6: eval 0.41 ->
    # 0.49 from its first eval on while the train loss fell 83%).
    overfit_rise: float = 0.05
    # Two evaluations are enough for the eval loss's gain: a model card's 2-epoch table
    # evaluates a whole epoch apart, and at 10x under the range one epoch does not converge.
    slow_min_evals: int = 2
    # ... or, with the uniform guess's loss known (ln C of a classifier's C classes, ln V of
    # a language model's vocabulary: run.floor), the eval loss at its best still at or
    # above this share of it: the model's predictions have not left uniform, whatever
    # the loss moved. At a workable LR a fine-tune leaves ln(C) far behind within its
    # first epochs; 10x under the range, many epochs can leave it within a fifth of it
    # (a 3-class indic-bert at 1e-6: best eval 0.973 = 89% of ln 3 after 20 epochs,
    # where its siblings at 1e-5..5e-5 leave ln 3 in an epoch or two; a 3-class
    # DistilBERT sentiment run, healthy at 1e-6, ended at 0.687 = 63% of ln 3).
    near_floor: float = 0.8
    # The class count unknown (a model card names no labels), a fine-tuned classifier's
    # first logged train loss within 2% of ln C (C = 2..10, whose logs lie 5%+ apart)
    # names it: a freshly initialised head predicts uniformly, so the run starts at ln C
    # (the 3-class indic-bert at 1e-6: first loss 1.0904, ln 3 = 1.0986). Only with a
    # held-out classification metric logged (accuracy, F1), and only for this reading.
    first_loss_tol: float = 0.02
    first_loss_max_classes: int = 10
    # ... or the loss was still falling steeply when the run ended: 5%+ of its level per
    # tenth of the run over its last stretch (sustained over the last 3 points of 5+),
    # where a run that converged flattens: at this LR the rate, not the budget, held it.
    tail_rate: float = 0.05
    tail_frac: float = 0.1
    tail_min_points: int = 5
    # Under the range's low end (but above the 10x line), the eval loss crawling: 10+ evals
    # that fall steadily (Mann-Kendall z <= -1.96) in a straight line - the last third
    # falls at least half as fast as the first third, where a run at a workable LR
    # decelerates - yet gained under 10% of their first value over the whole run. The
    # steps, not the budget or the data, set the pace (wav2vec2-base on 6-class MESD at
    # 1.25e-5, under the family's 3e-5: eval 1.796 -> 1.701 near ln 6 in 60 steps at
    # ~0.005 per eval, where its 1e-4 sibling is at 0.69 by the same step).
    crawl_min_evals: int = 10
    crawl_gain: float = 0.10
    crawl_z: float = -1.96
    crawl_keep: float = 0.5
    # Under the 10x line, an eval loss that has not begun to saturate: falling over the run
    # (Mann-Kendall z <= crawl_z) and as fast per step over its last quarter as over its
    # middle half (at least crawl_keep of it), where a run that converges decelerates.
    # At such an LR the step size, not the budget, sets that pace, whatever the gain
    # (OPT-6.7B at constant 1e-6: eval 2.504 -> 2.363 in an epoch, ~0.015 per eval to
    # the end). Two points per quarter at least: 8 (an eval table reads its last
    # interval, as the steep-tail test does).
    unsaturated_min_points: int = 8
    # An LR this small is zero in effect for any optimizer and any regime (no schedule
    # reaches 1e-20 on purpose: a cosine's last step is ~1e-13; 7e-111 is a decay
    # compounded past underflow): no update moves a weight, so no curve is needed to
    # confirm it - a warning at least, whatever the regime or the loss logged.
    null_lr: float = 1e-20
    # An arm of an LR sweep read with its siblings (fact `lr_sweep`: 3+ runs, 3+ peak LRs,
    # one optimizer, compared at the common budget) whose loss there is this much above
    # the best arm's, at a lower LR, is too low whatever its own curve says (the reason
    # for 5% is with rules/rate/_sweep.py's SWEEP_GAP).
    sweep_gap: float = SWEEP_GAP
    # Pre-training from scratch with the model's size known (config dimensions or tensors):
    # the norm is GPT-3's LR-by-size table (Brown et al. 2020, table 2.1: 6e-4 at 125M,
    # 3e-4 at 350M, 2e-4 at 1.3B, 1.2e-4 at 6.7B, 6e-5 at 175B), held at 6e-4 below 125M
    # (smaller models take as much or more: Pythia-70M 1e-3, a 17M TinyStories LM's sweep
    # best at 3e-3). It is the low end of practice (LLaMA-7B 3e-4, OPT-175B 1.2e-4), so an
    # LR at or under a fifth of it is far below the norm: a 17M LM at 1e-4 (6x under) ends
    # 0.43 nats above its 3e-3 sibling, where the same model at 3e-4 (2x under) is a
    # healthy run in a batch-size sweep. Not a flag line on its own: the curve must agree.
    pretrain_table_share: float = 0.2
    # ... the curve agrees when the loss was still falling when the run ended: the last
    # third of the eval loss (8+ evals, else the train loss) falls (Mann-Kendall z <=
    # crawl_z): the budget ran out while the step size still set the pace.
    pretrain_tail: float = 1 / 3


@rule(
    "lr-too-low",
    minimum="the peak LR (logged or configured) and the regime; the curve decides the severity",
    family="rate",
    severity=Severity.ERROR,
    params=Params(),
    requires=("lr|fact:learning_rate",),
    uses=("lr", "loss", "fact:n_params"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Peak learning rate far below what the regime needs, with a curve that does not move.

    **What it does.** Compares the peak LR (logged, else the configured `learning_rate`)
    with the regime's usual range: ~3e-4 pre-training, 1e-5..5e-5 full fine-tuning,
    5e-5..2e-4 LoRA (AdamW's; x100 under a named SGD). It flags an LR far under the range
    when the curve agrees: error when the loss does not fall, warning when it barely moves,
    crawls or is still falling steeply at the end, info when the regime is unknown and the
    curve does not agree.

    **Why it matters.** The exploded-head run pre-trained at LR 1e-6, 300x below the ~3e-4
    the regime needs; the loss sat at the uniform floor (10.8125) for 300 steps and would
    never have left it. Every step at such an LR is wasted compute.

    **Readings.** Lines (AdamW; pre-training ranges above 350M parameters scale down with
    GPT-3's LR-by-size table, x0.4 at 6.7B):

    - *Flag line*: 3e-5 pre-training (10x under 3e-4, half the lowest published AdamW
      pre-training peak, GPT-3 175B's and BLOOM-176B's 6e-5; a from-scratch GPT on
      WikiText-2 at 2.2e-5 still fell after 20 epochs, val 5.91 against 5.10 at 2.4e-4),
      1e-7 full fine-tune, 1e-6 LoRA, 1e-7 unknown regime. Under SGD 100x up: pre-training
      at 3e-3, the unknown regime's 10x line at 5e-5 (an SGD run at 3e-5 whose eval loss
      barely moved is a warning; SGD's usual LRs sit ~100x above Adam's: ResNets at 0.1, and
      in a 27M GPT's sweep SGD kept improving to 3e-2 while AdamW peaked at 3e-4).
    - *10x line*: 10x under the range's low end: 1e-6 full fine-tune, 5e-6 LoRA, 5e-7
      unknown (large models are fully fine-tuned at 1e-6..2e-6).
    - *Family ranges* by the base model's name: T5 / mT5 / Flan-T5 / ByT5 at 1e-4..1e-3
      (HF's T5 docs: 1e-4 and 3e-4 with AdamW, 1e-3 with Adafactor), wav2vec2-style speech
      encoders at 3e-5..3e-4 (CTC recipes 1e-4..3e-4, audio classification 3e-5). A T5
      fine-tune at 3e-6 is 33x under (t5-base, 2 epochs: val 2.0285 -> 2.0232).

    At or under the flag line:

    - *Loss agrees* (error): the second half shows no significant decrease of 3%+.
    - *Whole-run gain under 5%*, outside pre-training, the eval loss at 2+ evals, where the
      train curve is too short or noisy (warning, any regime; an unknown regime at 1e-8:
      eval 2.015 -> 2.005 over 3 epochs).
    - Otherwise, with the regime unknown: info, or warning with a curve below that agrees.

    Under the 10x line (and between it and the flag line):

    - *Barely moved* (warning): under 5% gained by the eval loss (first to best, 3+ evals;
      2 in a model card's 2-epoch table),
      else the held-out task metric read as an error (WER, 1 - accuracy; the one that moved
      most), else the train loss (first third to last) (OPT-6.7B at constant 3e-7: eval
      2.596 -> 2.529 in an epoch, -0.42 at 6e-6; a 3-class BERT at 1e-6: 1.036 -> 1.000,
      near ln 3, in 20 epochs; a wav2vec2 CTC continuation at 5e-7 with an `inf` eval loss:
      WER 0.1497 -> 0.1499 in 7 epochs). Not an eval loss ending 5%+ above its best (no
      LR too small overfits: whisper-large at 1e-6, eval 0.41 -> 0.49, train -83%).
    - *Still near chance* (warning): an eval loss that moved more but whose best is still
      80%+ of ln C / ln V (a 3-class indic-bert at 1e-6: best 0.973, 89% of ln 3, after 20
      epochs; a healthy 3-class DistilBERT at 1e-6 ended at 63%). With no class count
      logged, a fine-tuned classifier's first train loss within 2% of ln C (C = 2..10) names
      it (indic-bert: 1.0904, ln 3 = 1.0986).
    - *Still falling steeply* (warning): 5%+ of its level per tenth of the run over its last
      stretch, sustained over its last three of 5+ points, eval loss else train loss (mT5-
      small at 1e-5 for 10 epochs: val 28.1 -> 6.1, -10% in the last epoch).
    - *Not saturating* (warning): 8+ evals falling (Mann-Kendall), the last quarter falling
      per step at least half as fast as the middle half; the eval loss, else a held-out
      metric read as an error, never the train loss (OPT-6.7B at constant 1e-6: eval 2.504
      -> 2.363, ~0.015 per eval to the end; SGD at 1e-5 on IMDB, regime unknown: test
      accuracy 0.511 -> 0.611 in a straight line over 9 epochs).

    Under the range but above the 10x line (a known regime's or family's range):

    - *Crawl* (warning; also under the 10x line): 10+ evals falling steadily (z <= -1.96)
      in a straight line (the last third's least-squares slope at least half the first
      third's), gaining under 10% of the first eval (wav2vec2-base on 6-class MESD at
      1.25e-5, under the family's 3e-5: eval 1.796 -> 1.701, ~0.005 per eval over 60 steps,
      where its 1e-4 sibling was at 0.69; an xls-r sibling: 1.788 -> 1.770). Not a curve
      that decelerates, a flat noisy one, or a gain of 10%+. The LR alone says nothing here.
    - *Pre-training, size known* (config dimensions or tensors): at or under a fifth of
      GPT-3's LR-by-size table (6e-4 at 125M and below, 3e-4 at 350M, 1.2e-4 at 6.7B, 6e-5
      at 175B; x100 under SGD) with the loss still falling over the last third (eval at 8+
      evals, else train; z <= -1.96): warning (a 17.7M TinyStories LM at 1e-4 ends 0.43
      nats above its 3e-3 sibling; at 3e-4 it is a healthy arm; practice runs higher:
      LLaMA-7B 3e-4, Pythia-70M 1e-3). With the size unknown 1e-4 says nothing (GPT-3 13B's
      LR).
    - *Sweep arm* (3+ runs at 3+ peak LRs under one optimizer, fact `lr_sweep`): compared
      at the shortest arm's last step (among arms running half the longest or more) on the
      eval loss (else the train loss's last-tenth median), an arm under the best arm's LR
      5%+ above the best is a warning with both numbers, whatever its own curve (5% is ~10x
      seed spread; TinyStories 17M, 10k steps: 1.386 at 1e-3, 1.411 at 3e-3, 1.418 at 1e-2,
      1.796 at 1e-4). Arms above are `lr-too-high`'s.

    **Known false positives.** Optimisers with another LR scale the log does not name
    (SGD, Adafactor's relative step, LARS) and deliberate tiny-LR phases (probing,
    continued pre-training annealing). When the loss still falls the finding is only a
    warning (info when the regime is unknown). A peak LR under 1e-20 is a warning at least,
    with no loss curve and in any regime: zero in effect (a coqui HiFi-GAN generator logged
    7.05e-111 after its exponential decay compounded for 244k steps).

    **What to do.** Raise the peak LR to the regime's range (pre-training ~3e-4,
    full fine-tune 1e-5..5e-5, LoRA 5e-5..2e-4) with a 2-5% warmup. Check first
    that the starting checkpoint is sane: no LR rescues broken weights.
    """
    if (hit := sweep_hit(run, above=False, gap_line=p.sweep_gap)) is not None:
        yield hit
        return
    pk = peak_lr(run)
    if pk is None or pk.value <= 0 or (pk.still_warming and pk.source == "logged"):
        return  # LR == 0 is schedule-not-applied; a run still warming up has no peak yet
    regime = run.regime if run.regime in p.flag_at else None
    scale, size_why = size_scale(run)  # large pre-training models need less
    sgd = optimizer_scale(run) != 1.0
    scale *= optimizer_scale(run)  # SGD's LRs sit ~100x above AdamW's
    flag_at = (p.flag_at[regime] if regime else p.unknown_flag_at) * scale
    expected = (p.expected[regime] if regime else p.unknown_expected) * scale
    # A family that fine-tunes above the generic range (T5 at 1e-4..3e-4) sets the range.
    fam = family_lr(run)
    if fam is not None and regime and fam[0][0] <= TYPICAL_LR[regime][0]:
        fam = None
    rng = fam[0] if fam is not None else (TYPICAL_LR[regime] if regime else None)
    if fam is not None:
        expected = fam[0][0] * scale
    gain = tail = near = None
    crawl_only = unsaturated = False
    if pk.value > flag_at:
        # Under the range by 10x+ and a loss that barely moved: too low all the same.
        # (every line scales with the optimizer, the unknown regime's too: 5e-5 under SGD)
        slow_at = (p.slow_below * rng[0] if rng else p.unknown_slow_at) * scale
        # (pre-training above flag_at: only with the model's size known, against GPT-3's
        # LR-by-size table - a from-scratch loss still falls at the end of most budgets,
        # so its tail says something only at an LR far under the norm for the size)
        if regime == "pretraining" and not run.is_rl:
            hit = _under_table(run, p, pk.value, optimizer_scale(run))
            if hit is not None:
                yield hit
            return
        if run.is_rl:
            return
        if pk.value > slow_at:
            # under the range's low end: too low only when the eval loss crawls
            crawl = _crawling(run, p) if rng and pk.value < rng[0] * scale else None
            if crawl is None:
                return
            gain, crawl_only = crawl, True
        gain = gain if crawl_only else _run_gain(run, p)
        if not crawl_only and (gain is None or gain[1] >= p.slow_gain):
            # moved more than "barely", yet still near the uniform guess: too low as well
            gain, near = None, _near_floor(run, p)
        if not crawl_only and gain is None and near is None:
            tail = _still_falling(run, p)
            if tail is None:
                # a crawl that is too slow above this line is too slow under it
                gain = _crawling(run, p)
                crawl_only = gain is not None
                if gain is None:
                    # under this line, any fall that has not begun to saturate is the LR's
                    tail, unsaturated = _unsaturated(run, p), True
                    if tail is None:
                        return
    ratio = expected / pk.value
    loss = run.get("loss")
    c = curve(loss) if loss is not None else None
    stuck = c.stuck if c is not None else None
    if pk.value <= flag_at and not stuck and gain is None and regime != "pretraining":
        # Under the flag line the loss agrees as it does above it: a whole run's gain under
        # `slow_gain` (the eval loss at 2+ evals) says so where the train curve is too short
        # or too noisy for `curve` to call it stuck (not in pre-training, as above: a
        # from-scratch loss falls at any LR, its gain decides nothing there).
        g = _run_gain(run, p)
        gain = g if g is not None and g[1] < p.slow_gain else None
        if gain is None and not stuck:
            # ... and so does held-out quality that has not begun to saturate: at this LR
            # the step size, not the budget, sets its pace (as under the 10x line above)
            tail = _unsaturated(run, p)
            unsaturated = tail is not None
    # The curve must agree for an error; an unknown regime costs one level.
    severity = Severity.ERROR if stuck else Severity.WARNING
    if regime is None:
        severity = Severity(severity - 1)
    if gain is not None or near is not None:  # the loss decides: a warning, whatever the regime
        stuck, severity = True, Severity.WARNING
    if tail is not None:  # still falling steeply: slow, not stuck
        stuck, severity = False, Severity.WARNING
    if pk.value < p.null_lr and severity < Severity.WARNING:
        severity = Severity.WARNING  # zero in effect: no curve needed to confirm it
    lo, _, hi = rng if rng else (1e-5, None, 1e-3)
    lo, hi = lo * scale, hi * scale
    what = REGIME_WORDS.get(regime or "", "any run") + (f" of {fam[1]}" if fam else "")
    what += " at this size" if size_why else ""
    what += " under SGD" if sgd else ""
    curve_note = {
        True: "and the loss has not decreased meaningfully over the second half of the run",
        False: "although the loss still decreases",
        None: "(no loss curve to confirm it)",
    }[stuck]
    evidence = {
        "peak_lr": pk.value,
        "lr_source": pk.source,
        "expected_lr": expected,
        "ratio": ratio,
        "regime": regime or "unknown",
        **({"model_size": size_why} if size_why else {}),
        **({"optimizer": "sgd"} if sgd else {}),
        **({"model_family": fam[1]} if fam else {}),
        "loss_stuck": stuck,
    }
    if c is not None:
        evidence["late_loss"] = c.level
        evidence["late_change"] = c.late_change
    if gain is not None:
        evidence["gain_series"], evidence["gain_rel"] = gain
        curve_note = (
            f"and the {gain[0].replace('_', ' ')} gained only {gain[1]:.1%} of its start over "
            "the whole run"
        )
    if near is not None:
        evidence["best_eval_loss"], evidence["best_eval_share_of_floor"] = near
        curve_note = (
            f"and the eval loss at its best, {fmt(near[0])}, is still {near[1]:.0%} of "
            f"ln(C) = {fmt(near[0] / near[1])}, the loss of a uniform guess: the model has "
            "barely left chance"
        )
    if gain is not None and crawl_only:
        evidence["crawl"] = True
        curve_note = (
            f"and the eval loss fell in a straight line, gaining only {gain[1]:.1%} of its "
            "start over the whole run: the step size, not convergence, sets its pace"
        )
    if tail is not None and unsaturated:
        evidence["tail_series"], evidence["tail_keeps_pace"] = tail
        evidence["unsaturated"] = True
        curve_note = (
            f"and the {tail[0].replace('_', ' ')} was still falling when the run ended, its "
            f"last quarter at {tail[1]:.0%} of its middle's pace per step: it has not begun "
            "to converge, the step size sets its pace"
        )
    elif tail is not None:
        evidence["tail_series"], evidence["tail_rate_per_tenth"] = tail
        curve_note = (
            f"and the {tail[0].replace('_', ' ')} was still falling {tail[1]:.0%} per tenth of "
            "the run when it ended: far from converged"
        )
    yield Hit(
        title=f"Peak LR {fmt(pk.value)} is {_times(ratio)}x below the ~{fmt(expected)} {what} needs",
        step=int(loss.steps[0]) if loss is not None else None,
        end_step=int(loss.steps[-1]) if loss is not None else None,
        evidence=evidence,
        explanation=(
            f"The {pk.source} peak LR {fmt(pk.value)} is {_times(ratio)}x below the usual "
            f"{fmt(lo)}..{fmt(hi)} for {what}, {curve_note}. Updates this small barely move "
            "the weights: the run spends compute without learning."
        ),
        prescription=(
            f"Raise the peak LR from {fmt(pk.value)} to ~{fmt(expected)} ({fmt(lo)}..{fmt(hi)} "
            f"for {what})"
            + ("" if _warmed(run) else " with a 2-5% warmup")
            + ", after checking that the first-batch loss is sane (near ln(V) or below)"
            + (
                "; or switch to AdamW (~3e-4 for pre-training): SGD trains transformer LMs "
                "poorly at any LR."
                if sgd and regime == "pretraining"
                else "; if you use an optimiser with another LR scale, ignore this finding."
            )
        ),
        severity=severity,
    )


def _table_lr(n: float) -> float:
    """GPT-3's pre-training peak LR for n parameters (log-log interpolation), held at the
    table's ends: 6e-4 below 125M, 6e-5 above 175B."""
    sizes = np.log([s for s, _ in PRETRAIN_LR_BY_SIZE])
    lrs = np.log([lr for _, lr in PRETRAIN_LR_BY_SIZE])
    return float(np.exp(np.interp(np.log(n), sizes, lrs)))


def _under_table(run: Run, p: Params, lr: float, opt_scale: float) -> Hit | None:
    """A from-scratch run of known size at or under `pretrain_table_share` of GPT-3's LR
    for its size (x100 under SGD), its loss still falling when the run ended."""
    n = run.fact("n_params")
    if not isinstance(n, int | float) or n <= 0:
        return None
    norm = _table_lr(float(n)) * opt_scale
    if lr > p.pretrain_table_share * norm:
        return None
    s = run.get("eval_loss")
    f = s.finite() if s is not None else None
    if f is None or len(f) < p.unsaturated_min_points:
        s = run.get("loss")
        f = s.finite() if s is not None else None
    if f is None or len(f) < p.unsaturated_min_points:
        return None
    k = max(3, int(len(f) * p.pretrain_tail))
    z = trend(f.steps[-k:], f.values[-k:]).z
    if z > p.crawl_z:
        return None
    what = "pre-training from scratch" + (" under SGD" if opt_scale != 1.0 else "")
    ratio = norm / lr
    return Hit(
        title=(
            f"Peak LR {fmt(lr)} is {_times(ratio)}x below the ~{fmt(norm)} GPT-3's table "
            f"gives a {n / 1e6:.3g}M-parameter model"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "peak_lr": lr,
            "expected_lr": norm,
            "ratio": ratio,
            "regime": "pretraining",
            "n_params": n,
            **({"optimizer": "sgd"} if opt_scale != 1.0 else {}),
            "tail_series": f.name,
            "tail_z": z,
            "loss_stuck": False,
        },
        explanation=(
            f"{what.capitalize()} a {n / 1e6:.3g}M-parameter model takes ~{fmt(norm)} "
            f"(GPT-3's LR-by-size table, the low end of practice); {fmt(lr)} is {_times(ratio)}x "
            f"under it, and the {f.name.replace('_', ' ')} was still falling over the last "
            f"third of the run (Mann-Kendall z {z:.1f}): the budget ran out while the step size "
            "still set the pace."
        ),
        prescription=(
            f"Raise the peak LR towards ~{fmt(norm)} (sweep 3x steps around it) with a 1-5% "
            "warmup; the same budget then reaches a lower loss."
        ),
        severity=Severity.WARNING,
    )


def _run_gain(run: Run, p: Params) -> tuple[str, float] | None:
    """(series, relative gain) of the loss over the whole run: the eval loss's first value
    to its best when 2+ evals are logged, else the train loss's first third to its last
    third (medians: batch noise does not decide). None when too little is logged."""
    ev = run.get("eval_loss")
    ev = ev.finite() if ev is not None else None
    if ev is not None and len(ev) >= p.slow_min_evals and ev.values[0] > 0:
        v = ev.values
        if v.min() > 0 and (v[-1] - v.min()) / v.min() >= p.overfit_rise:
            return None  # the eval loss rose off its best: the weights move (overfitting)
        return "eval_loss", float((v[0] - v.min()) / v[0])
    metric = _metric_gain(run, p)
    if metric is not None:
        return metric
    loss = run.get("loss")
    f = loss.finite() if loss is not None else None
    if f is None or len(f) < 2 * p.slow_min_points:
        return None
    k = len(f) // 3
    a, b = float(np.median(f.values[:k])), float(np.median(f.values[-k:]))
    return ("loss", (a - b) / a) if a > 0 else None


def _near_floor(run: Run, p: Params) -> tuple[float, float] | None:
    """(best eval loss, its share of the uniform guess's loss) when the floor (ln C, ln V:
    run.floor) is known, 2+ evals are logged, and the best is still at or above
    `near_floor` of it. None otherwise, or when the eval loss ended 5%+ above its best
    (the weights move: overfitting's, as in _run_gain)."""
    floor = run.floor or _first_loss_floor(run, p)
    ev = run.get("eval_loss")
    f = ev.finite() if ev is not None else None
    if floor is None or floor <= 0 or f is None or len(f) < p.slow_min_evals:
        return None
    v = f.values
    best = float(v.min())
    if best <= 0 or (v[-1] - best) / best >= p.overfit_rise:
        return None
    share = best / floor
    return (best, share) if share >= p.near_floor else None


def _first_loss_floor(run: Run, p: Params) -> float | None:
    """ln C when a fine-tuned classifier (a held-out accuracy/F1 logged) logged its first
    train loss within `first_loss_tol` of ln C for C in 2..first_loss_max_classes: an
    untrained head's uniform guess. None otherwise."""
    names = [s.name.lower() for s, higher in task_metrics(run) if higher]
    if run.regime not in FINETUNE or not any("acc" in n or "f1" in n for n in names):
        return None  # a classifier's metric: a seq2seq loss near 2.08 is no ln 8
    loss = run.get("loss")
    f = loss.finite() if loss is not None else None
    if f is None or not len(f):
        return None
    first = float(f.values[0])
    for c in range(2, p.first_loss_max_classes + 1):
        if abs(first - math.log(c)) <= p.first_loss_tol * math.log(c):
            return math.log(c)
    return None


def _metric_gain(run: Run, p: Params) -> tuple[str, float] | None:
    """(metric, relative gain) of the held-out task metric that moved most over the run,
    read as an error (a WER as it is, an accuracy in [0, 1] as 1 - accuracy): from its
    first eval to its best. With no eval loss (a CTC table's `inf`) the metric is what the
    run is for. None when no metric has 2+ evals, or one ended 5%+ worse than its best
    (the weights move: overfitting, not an LR too small to move them)."""
    best: tuple[str, float] | None = None
    for s, higher in task_metrics(run):
        v = s.finite().values
        if v.size < p.slow_min_evals:
            continue
        if higher and not (v.min() >= 0.0 and v.max() <= 1.0):
            continue  # an unbounded score (PSNR, BLEU in points) has no error to read
        err = 1.0 - v if higher else v
        lo = float(err.min())
        if err[0] <= 0 or lo < 0:
            continue
        if lo > 0 and (err[-1] - lo) / lo >= p.overfit_rise:
            return None
        gain = float((err[0] - lo) / err[0])
        if best is None or gain > best[1]:
            best = (s.name, gain)
    return best


def _crawling(run: Run, p: Params) -> tuple[str, float] | None:
    """("eval_loss", relative gain) when 10+ evals fall steadily in a straight line (the last
    third at least half as fast as the first) yet gained under 10% of the first eval."""
    ev = run.get("eval_loss")
    f = ev.finite() if ev is not None else None
    if f is None or len(f) < p.crawl_min_evals:
        return None
    v, t = f.values, f.steps.astype(float)
    if v[0] <= 0 or v.min() <= 0:
        return None
    gain = float((v[0] - v.min()) / v[0])
    if gain >= p.crawl_gain or trend(t, v).z > p.crawl_z:
        return None
    k = len(v) // 3  # least-squares slopes of the first and last thirds (3+ evals each)
    first, last = float(np.polyfit(t[:k], v[:k], 1)[0]), float(np.polyfit(t[-k:], v[-k:], 1)[0])
    if not (first < 0 and last < 0 and last <= p.crawl_keep * first):
        return None
    return "eval_loss", gain


def _still_falling(run: Run, p: Params) -> tuple[str, float] | None:
    """(series, relative drop per tenth of the run) when the loss was still falling steeply
    at the end: the eval loss when 5+ evals are logged, else the train loss. A sparse log
    (under 20 points) reads its last interval, falling over its last 3 points; a dense one
    the medians of its last two tenths (falling over its last three). None otherwise."""
    for name in ("eval_loss", "loss"):
        s = run.get(name)
        f = s.finite() if s is not None else None
        if f is None or len(f) < p.tail_min_points:
            continue
        v, t = f.values, f.steps.astype(float)
        span = float(t[-1] - t[0])
        if span <= 0:
            return None
        if len(f) < 20:
            if not (v[-3] > v[-2] > v[-1] > 0):
                return None
            rate = (v[-2] - v[-1]) / v[-1] * (p.tail_frac * span) / float(t[-1] - t[-2])
        else:
            w = p.tail_frac * span
            edges = [t[-1] - k * w for k in (3, 2, 1)]
            win = [v[(t > a) & (t <= a + w)] for a in edges]
            if any(x.size == 0 for x in win):
                return None
            m = [float(np.median(x)) for x in win]
            if not (m[0] > m[1] > m[2] > 0):
                return None
            rate = (m[1] - m[2]) / m[2]
        return (name, float(rate)) if rate >= p.tail_rate else None
    return None


def _unsaturated(run: Run, p: Params) -> tuple[str, float] | None:
    """(series, last quarter's least-squares slope / the middle half's) when 8+ evals
    fall over the run (Mann-Kendall) and the last quarter falls at least `crawl_keep` as
    fast per step as the middle half: held-out quality has not begun to saturate. The
    eval loss, else (none logged) a held-out task metric read as an error (WER as it is,
    an accuracy in [0, 1] as 1 - accuracy: a test accuracy creeping 0.51 -> 0.61 in a
    straight line); never a train loss, which can keep falling as a model fits its own
    batches (a tiny-LR LoRA's 16% straight fall says nothing alone). None otherwise."""
    s = run.get("eval_loss")
    f = s.finite() if s is not None else None
    if f is None or len(f) < p.unsaturated_min_points:
        f = None if f is not None and len(f) else _metric_error(run, p.unsaturated_min_points)
    if f is None:
        return None
    v, t = f.values, f.steps.astype(float)
    if trend(t, v).z > p.crawl_z:
        return None
    q = len(v) // 4
    mid = float(np.polyfit(t[q:-q], v[q:-q], 1)[0])
    last = float(np.polyfit(t[-q:], v[-q:], 1)[0])
    if not (mid < 0 and last <= p.crawl_keep * mid):
        return None
    return f.name, last / mid


def _metric_error(run: Run, min_points: int) -> Series | None:
    """The held-out task metric with the most evals (`min_points` or more) as an error
    series (WER as it is, an accuracy in [0, 1] as 1 - accuracy); None when none has."""
    best: Series | None = None
    for s, higher in task_metrics(run):
        f = s.finite()
        if len(f) < min_points or (best is not None and len(f) <= len(best)):
            continue
        if higher and not (f.values.min() >= 0.0 and f.values.max() <= 1.0):
            continue  # an unbounded score (PSNR, BLEU in points) has no error to read
        best = Series(s.name, f.steps, 1.0 - f.values) if higher else f
    return best


def _warmed(run: Run) -> bool:
    """The run already warms up over 2% or more of its steps: a higher peak keeps it."""
    share = advice.warmup_share(run)
    return share is not None and share >= advice.WARMUP_LOW


def _times(ratio: float) -> str:
    """A ratio for a title: whole below 1e5, scientific past it (an LR that collapsed to
    1e-111 is 1e+106x below, not a hundred-digit number)."""
    return f"{ratio:.0f}" if ratio < 1e5 else fmt(ratio)
