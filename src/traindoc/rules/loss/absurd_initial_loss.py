"""absurd-initial-loss: the first losses sit far above the uniform floor ln(V)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.losses import components
from traindoc.measure.metrics import task_metrics
from traindoc.measure.stats import fmt, rolling_median
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._common import starts_mid_run


@dataclass(frozen=True)
class Params:
    # A freshly initialised LM starts within a few percent of ln(V); a trained one
    # below it. 2x the floor is already far outside both (the exploded-head run: 8.9x).
    ratio_error: float = 2.0
    # 1.3x - 2x: suspicious (e.g. tokens added to the vocabulary), worth a warning.
    ratio_warning: float = 1.3
    # Median over the first few logged points, so a single odd first batch does not decide.
    head_points: int = 3
    # Without a known V, judge against the largest common vocabulary (256k,
    # ln = 12.45): a first loss above twice that is absurd for any LM.
    unknown_vocab_floor: float = 12.46
    # Back under the floor within 5% of a log of 20+ points, ending under 0.9 ln(V):
    # the start cost a few steps, not the run (info).
    recover_min_points: int = 20
    recover_fraction: float = 0.05
    recover_end_ratio: float = 0.9
    # A run back under the floor later than that which ends at half the floor or under
    # has learned far past where a wrecked start lands (at best back on the floor): the
    # start cost it steps, not the run (a warning, not an error).
    learned_end_ratio: float = 0.5
    # A first row logged after updates at an LR this high (100x the 1e-4..5e-4 most
    # transformers train at; a few Adam steps at it move every weight by its whole init
    # scale) shows what those updates did, not the starting point.
    hot_lr: float = 0.05
    # With V unknown a loss that never gets under ln(256k) may be a sum over the tokens
    # of a sequence (CTC, ESPnet): judged only when no such sum reaches it (10k tokens).
    sum_tokens: float = 10_000.0
    # A fine-tune of a pretrained LM starts at 2-4 nats. ln(32000) = 10.37, the uniform
    # guess over the smallest common LM vocabulary (Llama 2 / Mistral), is far above that
    # for any vocabulary (0.83 ln V even for Gemma 3's 262,144) and above ln(C) of any
    # classifier under 32k classes: a fine-tune's first loss there is a broken start.
    finetune_start: float = math.log(32000)
    # Where V is known to be an LM's token vocabulary, a fine-tune's first loss at 0.8
    # ln(V) or more is also a broken start: the pretrained model scores barely better than
    # a uniform guess on the data, as if it knew nothing of the language (pretrained GPT-2
    # on English prose: 3.6; the same LoRA run's 9.23 = 0.85 ln(50257) before any update).
    # Under it a fine-tune may be far from its data (a new language, code) and is left be.
    finetune_near_floor: float = 0.8
    # The curve shows a fine-tune by itself when the loss is under 1.5 nats (a geometric
    # mean probability of 0.22 on the right token or class: a model that already knows
    # the data) within the first 5% of a log of 20+ points; a model trained from
    # scratch on real text needs far longer.
    finetune_level: float = 1.5
    finetune_fraction: float = 0.05
    # A first row that averages this many steps or more speaks for itself.
    window_steps: int = 10
    # So does one that an eval loss at the same step matches within 10% (train and val
    # estimates of one model differ by a few percent; an odd batch by far more).
    eval_agree_rel: float = 0.10
    # Logged terms whose first values add up to the first total within 5% (each term
    # rounded by its print) are that total's parts.
    terms_sum_rel: float = 0.05
    # A loss that never comes under the floor beside a held-out task metric that gains
    # 10%+ (relative, first eval to the median of the last third of 3+ evals): a model
    # with broken weights does not learn its task on unseen data while its loss stays
    # above uniform guessing, so the loss is on another scale (at most a warning).
    heldout_evals: int = 3
    heldout_gain: float = 0.10
    # A loss with no ln(V) (a regression's MSE, a plain loop's) whose first value is 1e4x
    # or more the level the same run reaches within its first 20% starts on the wrong
    # scale. Over the dev runs the healthy ones shed at most 1.4e3x by then (a BiLSTM-CRF's
    # NLL summed over each sentence: 1.7e4 -> 11.6; a TF-Agents DQN's TD loss 213x), the
    # unnormalised-target runs 4e5x and more (PaiNN on QM9: 8e10 -> 2e5; 1.4e6 -> 0.02):
    # 1e4 sits 7x above the one and 40x under the other.
    scale_ratio: float = 1e4
    scale_window: float = 0.20
    # ... from a first loss of 1e3 or more: a per-element loss on a sane scale (an MSE of
    # standardised targets, any cross-entropy under ln 256k) never starts there, so a
    # loss memorised down to ~0 does not read as a scale error.
    scale_min_start: float = 1e3
    # A window with 3+ points (a rolling median over them) in a log of 10+ points.
    scale_min_points: int = 10
    # A first loss of 1e20 or more that the run never sheds is beyond any data's scale:
    # raw QM9 energies in meV (~1e7) square to 1e14, and a sum of those over 1e5 elements
    # stays under 1e20. Only broken outputs (a weight init gone wrong) score there.
    astronomical: float = 1e20


@rule(
    "absurd-initial-loss",
    minimum="the first logged loss and the floor ln(V) (vocab_size, the model family or a known tokenizer) or ln(C), or that the run fine-tunes a pretrained model; 20 points to say whether it recovered",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss",),
    # The checkpoint rules name the tensor: a broken start explains the absurd loss.
    explained_by=("exploded-weights", "nonfinite-weights"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """First logged loss far above the uniform floor ln(V): a starting-point problem.

    **What it does.** Compares the start of the training loss (the lower of the first
    logged loss and the median of the first three) with ln(V) (ln(C) for a C-class
    classifier), the loss of a model that guesses uniformly. A start many times ln(V) is an
    error; a start the run shakes off, or one read on another scale, is a warning or info.
    A sane start wrecked by the next steps is `divergence`'s.

    **Why it matters.** A freshly initialised model starts near ln(V); a pretrained one
    starts below it. A first loss many times ln(V) means the weights themselves are broken
    (the exploded-head run: lm_head std 13.87, first loss 96 = 8.9x ln(50257)). No learning
    rate fixes it: the run spends itself undoing the damage and at best lands back on the
    floor.

    **Readings.**

    - *The start*: the lower of the first loss and the first three's median (one odd batch
      cannot decide). A first row that is a trainer's mean over its first 10+ steps (HF's
      Trainer and stacks on it, Megatron) decides alone, as does one an eval loss at the same
      step matches within 10% (nanoGPT's step-0 estimate: train 9.227, val 9.268).
    - *From scratch, far above ln(V)*: error. Info when back under ln(V) within the first 5%
      of a 20+ point log and ending below 0.9 ln(V) (a large logit scale cost a few steps).
      Warning when back under later and ending at half of ln(V) or under (a 17M-parameter
      LM: 430 at step 1 with V = 1024, under ln V by step 200 of 3,800, 2.4 at its end), or,
      in a 3-19 point log, when the second loss is already under ln(V), stays there and ends
      under 0.9 ln(V) (an mT5 fine-tune's card: 25.5, 6.1, 4.2).
    - *Fine-tune at or above ln(32000) = 10.37*, whatever V (the smallest common LM
      vocabulary; 0.83 ln V even for Gemma 3's 262,144): error when the run does not recover,
      info when under 1.5 nats within 5% of the run. A run is a fine-tune when it names its
      base model (the family gives V: `model/vocabs.py`), has an adapter or fine-tuning
      config, or is under 1.5 nats within the first 5% of a 20+ point log (a Gemma-3 QLoRA:
      14.75 then 1.22; a BLOOM classifier: 11.3 then 0.84 by step 150).
    - *Named fine-tune at 0.8 ln(V)+*, V an LM's token vocabulary: warning (weights not
      loaded, a foreign tokenizer, misaligned labels; a GPT-2 LoRA's step-0 9.23 = 0.85
      ln(50257), where the same model starts at 3.6). Under 0.8 ln(V) a fine-tune may be far
      from its data; a classifier's new head starts at ln(C) by design.
    - *Two-stage detector's RPN objectness* (`loss_rpn_cls` in detectron2 / mmdet,
      `loss_objectness` in maskrcnn-benchmark), a BCE whose neutral start is ln 2 = 0.69: a
      first value 2x ln 2 or more (first-three rule) is a broken start (detectron2 Faster
      R-CNN with MODEL.WEIGHTS commented out: loss_rpn_cls 12.1, total 86.5 at iteration
      19); info when back under ln 2 within 5% of a long log.
    - *Loss with no floor* (an MSE, a loss not known as a cross-entropy): a first loss of
      1e3+ that is 1e4x+ the level (3-point rolling median) the run reaches within its first
      20%: warning, info when within 100x of that level by 5% of the log, never an error
      (PaiNN on raw QM9 energies: 8.4e14 at epoch 1, 2e5 by epoch 17, 0.015 at epoch 84; a
      BiLSTM-CRF's summed NLL 1.7e4 -> 11.6 is 1.4e3x, healthy). A first loss of 1e20+ the
      run does not shed: error while it stays (PaiNN with a broken init: 5e30, then 3.19e31
      for 622 epochs). Not RL or GAN losses, nor a 3-point log (4.4e8 -> 5.9e7).
    - *Without V* the loss must be known to be a cross-entropy: the task says so, a named
      base model, an LM trainer (HF, Megatron, nanoGPT, fairseq, ...), a perplexity equal to
      exp(loss) ("loss 38.99 | ppl 8.6e16": 3.1x ln(256k)), a key naming it (`lm_loss`,
      `cross_entropy`, `xent`; not `nll`), a token count (`ntokens`, `tokens_processed`,
      `num_tokens`, `tokens/sec`: "ntokens: 618/1024, loss: 55.84" at 54.75 is 4.5x
      ln(256k)), or V in words (`Vocabulary size: 32768`, nanoGPT's `found vocab_size = 65`,
      a `GPTConfig(..., vocab_size=...)` repr). Otherwise not judged (a "train loss: 38.99
      val loss: 29.89" with nothing named).

    Lowered or not judged:

    - *Another scale* (warning, not error): a loss never under the floor while a held-out
      metric gains 10%+ (first eval to its last third's median, 3+ evals), a held-out
      accuracy at every eval at least halfway from chance (1/C; 1/2 when C unknown) to 1, or
      an eval loss under the floor at its first eval while the train loss logs 2x the floor
      (summed over tokens, distillation x T^2, multiplied by accumulation steps).
    - *After hot updates*: a first row after a few updates at LR 0.05+ (HF's first row at
      step 4, at LR 1.0): warning, caused by `lr-too-high` when it fires, advising to log
      the first step. After updates whose grad norm is already NaN / Inf: info, caused by
      `nonfinite-gradients`.
    - *Not judged*: a log starting mid-run (an excerpt from step 2100, a resume at epoch
      5.01); a margin-softmax head (ArcFace, CosFace: fact `margin_softmax`; starts near
      ln(C) + s sin(m): STgram-MFN with s=30, m=0.7 at 24.0 over 41 classes).

    **Known false positives.** Tokens newly added to the vocabulary or very long contexts
    can start a little above ln(V): only a large ratio is an error. With V unknown, a
    speech recogniser's loss (a CTC term, a WER / CER metric, ESPnet) may be summed over an
    utterance: judged only from 10,000x the floor, as is a wav2vec2-family fine-tune
    (wav2vec2, XLS-R, HuBERT, WavLM, MMS) with no WER logged. fairseq's `nll_loss` (per
    token) is held against the floor, not its `loss` (a wav2vec2 CTC fine-tune: loss 887,
    nll_loss 19.6 bits). Not held against ln(C) or ln(V), whatever a config names: a
    one-output head (num_labels=1), a run whose metrics name a regression (mse, rmse, mae,
    r2, no accuracy / F1 / perplexity), a detector or segmenter (mAP, IoU, Dice), a total
    whose first value sums 2+ logged terms. A loop known as an LM only by its token count
    is read as logging the mean over tokens; one logging their sum would read as absurd.

    **What to do.** Check the checkpoint (`traindoc ckpt`): per-tensor std against
    the init scale (output heads ~0.02). Restart from a clean checkpoint; ask
    "what is the first-batch loss?" before relaunching.
    """
    loss = _per_token_loss(run)
    if not fl.cross_entropy(run):
        # a detector's summed box/mask losses, a regression's MSE or a VAE's sum over
        # pixels: no ln(V) to compare with -- but a two-stage detector's RPN objectness
        # term is a binary cross-entropy, whose floor is ln 2
        hits = list(_objectness(run, p))
        yield from hits or _scale_error(run, loss, p)
        return
    if _mid_run(run, loss):
        return  # an excerpt from step 2100 (or epoch 5) on does not show the starting point
    if _summed_terms(run, loss, p):
        return  # the total of 2+ logged terms: no one head's ln(V) measures their sum
    floor = run.floor or p.unknown_vocab_floor / math.log(run.loss_base)  # nats -> its units
    # Exact zeros in the first logs are an overflow artefact (fp16 skips), not a level.
    first = loss.values[: p.head_points]
    first = first[np.isfinite(first) & (first != 0)]
    if first.size == 0:
        return
    head = float(np.median(first))  # one odd first batch cannot decide ...
    if _window_mean(run, loss, p) or _eval_agrees(run, loss, p):
        head = float(first[0])  # ... but a mean over the first 10+ steps is no one batch
    # ... and neither can the steps after it: a first loss at ln(V) followed by a
    # blow-up is a sane start wrecked by the updates (divergence's), so the first
    # logged loss must be absurd too.
    start = min(head, float(first[0]))
    ratio = start / floor
    v = run.vocab_size
    # a fine-tune whose first loss is at the uniform guess of the smallest common vocabulary
    if start >= p.finetune_start / math.log(run.loss_base):
        tuned = _finetune(run, loss, p)
    elif start >= p.finetune_near_floor * floor and _lm_vocab(run) and not _test_model(run):
        tuned = _finetune(run, loss, p, curve=False)  # a from-scratch LM starts there
    else:
        tuned = None
    if ratio < p.ratio_warning and tuned is None:
        return
    severity = Severity.ERROR if ratio >= p.ratio_error else Severity.WARNING
    if v is None and severity < Severity.ERROR and tuned is None:
        return  # with V unknown, only the unambiguous case is worth saying
    if v is None and not _per_token(run, loss, floor, start, p):
        return  # a summed loss (CTC, a sequence's sum) is large by its reduction
    back = _recovered_at(loss, floor, p) if ratio >= p.ratio_warning else None
    if tuned and back is None:
        back = _fell_to(loss, p.finetune_level / math.log(run.loss_base), p)
    if back is not None:
        # a fresh model's large logit scale, or a fine-tune's broken first window, that
        # the run left within 5% of its steps cost a few steps, not the run: severity
        # follows the impact (a SmolVLM2 LoRA at 19.2 for its first 10 steps, 0.4 by
        # step 40, shipped with exact match 0.18 -> 0.82)
        severity = Severity.INFO
    elif severity >= Severity.ERROR and (
        _learned_past_floor(loss, floor, p) or _back_next_log(loss, floor, p)
    ):
        # back under the floor later than 5% of the log, and ending at half of it or
        # under: an exploded start "at best lands back on the floor"; this run learned far
        # past it, so the start cost steps, not the run (a warning, not an error)
        severity = Severity.WARNING
    scale = _other_scale(run, loss, floor, p) if back is None else None
    if scale is not None and severity >= Severity.ERROR:
        # a loss that never comes under the floor beside a model that does well on unseen
        # data is no broken model: the logged loss is on another scale (a warning)
        severity = Severity.WARNING
    if _nonfinite_updates_before(run, loss):
        # The first row averages a window whose updates already had NaN/Inf gradients:
        # its level is the damage of those updates, not the starting point.
        severity, caused_by = Severity.INFO, ("nonfinite-gradients",)
    else:
        caused_by = ()
    what = f"{fl.log_name(run)}({v})" if v else f"{fl.log_name(run)}(V) of any common vocabulary"
    # a fine-tune under ln(V), at its uniform guess: the pretrained weights do not act
    unused = bool(tuned) and float(first[0]) < floor
    hot = _hot_lr_before(run, int(loss.steps[0]), p)
    if hot is not None and back is None and not caused_by:
        yield _after_hot_updates(loss, float(first[0]), floor, what, hot, ratio)
        return
    yield Hit(
        title=_title(
            float(first[0]),
            floor,
            what,
            back,
            bool(caused_by),
            tuned,
            p.finetune_start / math.log(run.loss_base),
        ),
        step=int(loss.steps[0]),
        evidence={
            "first_loss": float(first[0]),
            "head_median_loss": head,
            "floor": floor,
            "ratio": ratio,
            "vocab_size": v,
            "expected_init_loss": floor,
            "back_under_floor_at_step": back,
            "finetune": tuned,
            **({"grad_norm_at_first_log": "non-finite"} if caused_by else {}),
        },
        explanation=(
            (_UNUSED_WEIGHTS if unused else _BROKEN_WEIGHTS)
            + (
                f" But {scale}: the model is not broken on unseen data, so the logged loss "
                "is likely on another scale than one cross-entropy (a sum over tokens or "
                "samples, a distillation loss times T^2, a log multiplied by the "
                "gradient-accumulation steps)."
                if scale
                else ""
            )
        ),
        prescription=(
            "Evaluate the base model on a few training batches before any update: it should "
            "score 2-4 nats. If not, check that the pretrained weights are loaded (no "
            "'newly initialized' / missing-keys warning), that the tokenizer is the base "
            "model's, and that labels are the inputs shifted (not padding, not another "
            "template)."
            if unused
            else "Inspect the starting checkpoint's tensors (output head std should be "
            "~0.02-0.1, not tens) and restart from a clean checkpoint; check the first-batch "
            "loss before relaunching. If you added tokens, initialise their embeddings to the "
            "mean."
        ),
        severity=severity,
        caused_by=caused_by,
    )


_BROKEN_WEIGHTS = (
    "A model that guesses uniformly scores ln(V); a fresh model starts there and a "
    "pretrained one below it. A first loss this far above means the starting weights are "
    "broken (typically exploded weights in the output head), not that the model has yet to "
    "learn. Training from here is rehabilitation, not learning."
)
_UNUSED_WEIGHTS = (
    "A pretrained language model scores 2-4 nats on text before any update; a model that "
    "knows nothing scores ln(V). A fine-tune whose first loss is within 20% of ln(V) starts "
    "as if it had never been pretrained: its weights are not loaded or not used (a failed "
    "or wrong checkpoint, a tokenizer that is not the model's, labels misaligned with the "
    "inputs), and the run has to learn the language from scratch at a fine-tuning LR."
)


def _title(
    first: float,
    floor: float,
    what: str,
    back: int | None,
    nonfinite: bool,
    tuned: str | None,
    common: float,
) -> str:
    if tuned and first < floor:
        head = f"First loss {fmt(first)} of a fine-tune ({tuned}), which should start at 2-4 nats"
        if first < common:
            return head + f", is {first / floor:.2f}x the uniform floor {what} = {floor:.2f}"
        return (
            head + f", is above the uniform guess over 32,000 tokens (ln = {math.log(32000):.2f})"
        )
    return (
        f"First loss {fmt(first)} is {first / floor:.1f}x the uniform floor {what} = {floor:.2f}"
        + (f"; back under it by step {back}, then learns" if back is not None else "")
        + ("; logged after updates whose grad norm is already NaN/Inf" if nonfinite else "")
        + (f"; a fine-tune ({tuned}) starts at 2-4 nats" if tuned else "")
    )


# Two-stage detectors' RPN objectness loss (detectron2 / mmdet `loss_rpn_cls`,
# maskrcnn-benchmark `loss_objectness`): a binary cross-entropy averaged over the sampled
# anchors, ln 2 for a neutral objectness logit (the head is initialised at std 0.01).
OBJECTNESS = ("loss_rpn_cls", "loss_objectness")


def _objectness(run: Run, p: Params) -> Iterator[Hit]:
    """A detector whose first RPN objectness loss sits 2x or more above ln 2: the network
    starts broken (a randomly initialised backbone, unnormalised inputs), whatever its
    summed total loss."""
    for name in OBJECTNESS:
        s = run.get(name)
        f = s.finite() if s is not None else None
        if f is None or not len(f):
            continue
        if starts_mid_run(f):
            return
        first = f.values[: p.head_points]
        first = first[first != 0]
        if not first.size:
            return
        floor = math.log(2.0)
        start = min(float(np.median(first)), float(first[0]))
        ratio = start / floor
        if ratio < p.ratio_error:
            return
        back = _recovered_at(f, floor, p)
        hot = _hot_lr_before(run, int(f.steps[0]), p)
        if hot is not None and back is None:
            yield _after_hot_updates(f, float(first[0]), floor, f"ln 2 ({name})", hot, ratio)
            return
        total = run.get("loss")
        yield Hit(
            title=(
                f"First RPN objectness loss {fmt(float(first[0]))} is {first[0] / floor:.1f}x "
                f"its floor ln 2 = 0.69"
                + (f" (total loss {fmt(float(total.values[0]))})" if total is not None else "")
                + (f"; back under it by step {back}, then learns" if back is not None else "")
            ),
            step=int(f.steps[0]),
            evidence={
                "series": name,
                "first_loss": float(first[0]),
                "floor": floor,
                "ratio": ratio,
                "back_under_floor_at_step": back,
            },
            explanation=(
                f"`{name}` is a binary cross-entropy (object or background per anchor): a "
                "neutral start scores ln 2 = 0.69 and a pretrained backbone starts below it. "
                "A first value this far above means the network's features are broken at the "
                "start: typically a backbone left randomly initialised (pretrained weights "
                "not loaded) or inputs not normalised. The first hundreds of iterations then "
                "only undo the bad start."
            ),
            prescription=(
                "Load the pretrained backbone (detectron2: MODEL.WEIGHTS; mmdet: "
                "init_cfg=dict(type='Pretrained', ...)) and check the input normalisation "
                "(PIXEL_MEAN / PIXEL_STD, img_norm_cfg) before relaunching."
            ),
            severity=Severity.INFO if back is not None else Severity.ERROR,
        )
        return


def _scale_error(run: Run, loss: Series, p: Params) -> Iterator[Hit]:
    """A loss with no floor whose first value is 1e4x or more the level the run reaches
    within its first 20% (from 1e3 or more): a start on the wrong scale (unnormalised
    regression targets, a broken init) that the run spends its first steps removing."""
    if run.fact("task") in ("rl", "gan"):
        return  # a TD error or an adversarial loss moves with its targets by design
    f = loss.finite()
    y, steps = f.values, f.steps
    if y.size < p.scale_min_points or starts_mid_run(f):
        return
    first = y[: p.head_points]
    start = min(float(np.median(first)), float(first[0]))
    span = float(steps[-1] - steps[0]) or 1.0
    window = np.flatnonzero((steps - steps[0]) / span <= p.scale_window)
    if start < p.scale_min_start or window.size < p.head_points:
        return
    smooth = rolling_median(y, 3)
    i = int(window[np.argmin(smooth[window])])
    level = float(smooth[i])
    if level <= 0 or start / level < p.scale_ratio:
        # exact zeros (a loss that underflows or is masked away) are no level
        if start >= p.astronomical and level > 0:
            yield _astronomical(loss, start, level, p)
        return
    # how long the run took to shed the scale error: to within 100x of that level
    near = np.flatnonzero(smooth <= 100 * level)
    shed = int(steps[near[0]])
    cost = (shed - steps[0]) / span
    severity = Severity.INFO if cost <= p.recover_fraction else Severity.WARNING
    end = float(np.median(y[-max(3, y.size // 10) :]))
    yield Hit(
        title=(
            f"First loss {fmt(start)} is {start / level:.1e}x the {fmt(level)} this run reaches "
            f"by step {int(steps[i])} ({(steps[i] - steps[0]) / span:.0%} of the log): it "
            "starts on the wrong scale"
        ),
        step=int(steps[0]),
        evidence={
            "first_loss": float(y[0]),
            "head_median_loss": start,
            "early_level": level,
            "early_level_step": int(steps[i]),
            "scale_ratio": start / level,
            "shed_by_step": shed,
            "end_loss": end,
        },
        explanation=(
            f"A loss on a sane scale (an MSE of standardised targets, a per-token "
            f"cross-entropy) does not start {start / level:.0e}x above where the same run "
            f"stands after a fifth of its steps: the run spent its start (to step {shed}, "
            f"{cost:.0%} of the log) removing a scale error, typically regression targets "
            "left in raw units (energies in meV, prices in dollars) or an output layer whose "
            "initial outputs are far from the targets' range."
        ),
        prescription=(
            "Standardise the targets (subtract the training mean, divide by the std; or fit "
            "per-atom reference energies) or initialise the output bias at the targets' mean, "
            "and check that the first-batch loss is around the targets' variance (~1 once "
            "standardised) before relaunching."
        ),
        severity=severity,
    )


def _astronomical(loss: Series, start: float, level: float, p: Params) -> Hit:
    """A first loss of 1e20 or more that the run does not shed: broken outputs."""
    f = loss.finite()
    end = float(np.median(f.values[-max(3, len(f) // 10) :]))
    return Hit(
        title=(
            f"First loss {fmt(start)} is beyond any data's scale (1e20+) and the run never "
            f"sheds it (still {fmt(end)} at its end)"
        ),
        step=int(f.steps[0]),
        evidence={"head_median_loss": start, "early_level": level, "end_loss": end},
        explanation=(
            "No regression target in raw units reaches this: energies in meV (~1e7) square "
            "to 1e14. A loss of 1e20+ comes from outputs that are numerically broken from the "
            "start (a weight initialisation gone wrong, an uninitialised tensor), and a run "
            "that stays there does not learn at all."
        ),
        prescription=(
            "Check the model's first outputs on one batch and the initialisation of every "
            "layer (std per tensor); standardise the targets; relaunch once the first-batch "
            "loss is on the targets' scale."
        ),
        severity=Severity.ERROR if end >= p.astronomical else Severity.WARNING,
    )


def _summed_terms(run: Run, loss: Series, p: Params) -> bool:
    """The first logged loss is the sum of 2+ logged terms (a multi-head or auxiliary
    loss, CE + a regulariser): each term may start at its own floor, so the total sits
    at a multiple of any one ln(V) by construction."""
    f = loss.finite()
    if not len(f):
        return False
    at = int(f.steps[0])
    firsts = []
    for name in components(run):
        s = run.get(name)
        v = s.values[(s.steps == at) & np.isfinite(s.values)] if s is not None else ()
        if len(v) and float(v[0]) > 0:
            firsts.append(float(v[0]))
    total = float(f.values[0])
    return len(firsts) >= 2 and abs(sum(firsts) - total) <= p.terms_sum_rel * total


def _lm_vocab(run: Run) -> bool:
    """V is known and is a language model's token vocabulary (not a classifier's C, whose
    new head starts at ln(C) in a fine-tune too)."""
    return bool(run.fact("vocab_size")) and not run.fact("num_classes") and run.fact("task") == "lm"


# A base model named as a test fixture (sshleifer/tiny-gpt2, hf-internal-testing's
# tiny-random-LlamaForCausalLM, a local ./tiny-gpt2): random weights in a released
# family's shape, which start at ln(V) by design (TinyLlama, one word, is pretrained).
_TEST_MODEL = re.compile(r"(?:^|[/_.-])(?:tiny|random)(?:[/_.-]|$)", re.I)


def _test_model(run: Run) -> bool:
    base = run.fact("base_model")
    return isinstance(base, str) and _TEST_MODEL.search(base) is not None


def _finetune(run: Run, loss: Series, p: Params, curve: bool = True) -> str | None:
    """Why the run starts from a pretrained model, or None: a named base model, an
    adapter or a fine-tuning config, or (with `curve`) a curve under 1.5 nats within 5%
    of the run. Detectors, GANs and RL are left out: their losses are sums or surrogates."""
    if run.fact("task") in ("detection", "gan", "rl"):
        return None
    regime = run.facts.get("regime")
    if (
        regime is not None
        and regime.value == "pretraining"
        and not regime.source.startswith("inferred")
    ):
        return None  # a config that trains from scratch (train_from_scratch): a fresh model
    if (base := run.fact("base_model")) is not None:
        return f"of {base}"
    if run.fact("regime") in ("lora", "full-finetune"):
        return f"{run.fact('regime')}: {run.facts['regime'].source}"
    at = _fell_to(loss, p.finetune_level / math.log(run.loss_base), p) if curve else None
    return None if at is None else f"under {p.finetune_level:g} nats by step {at}"


def _mid_run(run: Run, loss: Series) -> bool:
    """The log starts mid-run: a late window by its steps, or a resumed run (the log
    says it continued from a checkpoint) whose first loss row is past the first epoch
    (epoch 5.01: whole passes came before it). Without a resume, a first row past
    epoch 1 is still the mean since step 1 (HF logging every 500 steps of a 62-step
    epoch), and it holds the start."""
    f = loss.finite()
    if not len(f):
        return False
    if starts_mid_run(f):
        return True
    ep = run.get("epoch")
    if not run.fact("resume_steps") or ep is None or not len(ep):
        return False
    at = ep.values[(ep.steps <= f.steps[0]) & np.isfinite(ep.values)]
    return bool(at.size) and float(at[-1]) > 1.0


def _window_mean(run: Run, loss: Series, p: Params) -> bool:
    """The first logged loss is the mean over its first 10+ steps: HF's Trainer (and the
    stacks on it) and Megatron log the mean since the previous row, so a first row at
    step 50 holds 50 batches, not one odd batch."""
    return run.fact("trainer") in WINDOW_MEAN and int(loss.steps[0]) >= p.window_steps


def _eval_agrees(run: Run, loss: Series, p: Params) -> bool:
    """An eval loss logged at the first loss's step agrees with it within 10%: two
    estimates over many batches (nanoGPT's estimate_loss at step 0: train 9.227, val 9.268)
    say the same level, which no one odd batch does."""
    ev = run.get("eval_loss")
    if ev is None or not len(loss):
        return False
    at = ev.values[(ev.steps == loss.steps[0]) & np.isfinite(ev.values)]
    first = float(loss.values[0])
    return bool(at.size) and abs(float(at[0]) - first) <= p.eval_agree_rel * abs(first)


# Trainers whose logged loss averages every step since the previous row.
WINDOW_MEAN = frozenset({"hf", "llamafactory", "ms-swift", "megatron"})


def _fell_to(loss: Series, level: float, p: Params) -> int | None:
    """The first step where a log of 20+ points is under `level`, if within its first 5%."""
    f = loss.finite()
    if len(f) < p.recover_min_points:
        return None
    under = np.flatnonzero(f.values < level)
    if not under.size:
        return None
    at = int(f.steps[under[0]])
    span = float(f.steps[-1] - f.steps[0]) or 1.0
    return at if (at - f.steps[0]) / span <= p.finetune_fraction else None


def _nonfinite_updates_before(run: Run, loss: Series) -> bool:
    """The first loss was logged after updates (at step 2+, or at an epoch past 0) whose
    gradient norm, logged with it, is already NaN/Inf."""
    gn = run.get("grad_norm")
    if gn is None or not len(gn):
        return False
    first = int(loss.steps[0])
    at = gn.values[gn.steps <= first]
    if not at.size or np.isfinite(at[-1]):
        return False
    ep = run.get("epoch")
    epoch = float(ep.values[0]) if ep is not None and len(ep) else 0.0
    return (first > 1 and not run.fact("steps_ordinal")) or epoch > 0


def _per_token(run: Run, loss: Series, floor: float, start: float, p: Params) -> bool:
    """With V unknown, a speech run's loss reads as a per-token mean only if it gets
    under the common floor at some point, or starts beyond what any sum over a
    sequence reaches (10k tokens x ln(256k)): ESPnet's and CTC's summed losses start
    in the hundreds and stay in the tens, which no uniform floor measures."""
    if not _speech(run):
        return True  # an LM's or classifier's logged loss is a per-token (sample) mean
    f = loss.finite()
    return bool((f.values < floor).any()) or start >= p.sum_tokens * floor


def _per_token_loss(run: Run) -> Series:
    """The loss to hold against ln(V): fairseq's `nll_loss` where it logs one, its per-token
    NLL, beside a `loss` that may be label-smoothed or a sum over each sentence
    (sentence_avg: a wav2vec2 CTC fine-tune's loss 887 with nll_loss 19.6 bits)."""
    loss = run.get("loss")
    assert loss is not None
    if run.fact("trainer") != "fairseq":
        return loss
    for name in ("nll_loss", "train_nll_loss"):
        s = run.get(name)
        f = s.finite() if s is not None else None
        if f is not None and len(f) and int(f.steps[0]) <= int(loss.steps[0]):
            return f
    return loss


# Speech encoders fine-tuned with a CTC head (a summed loss by default in HF's configs,
# ctc_loss_reduction='sum'), named by their base model.
_CTC_ENCODERS = re.compile(r"wav2vec2|xls-?r|xlsr|hubert|wavlm|data2vec-audio|unispeech|mms-", re.I)


def _speech(run: Run) -> bool:
    """A speech recogniser (a CTC term, a WER / CER metric, ESPnet, a wav2vec2-family base
    model): its loss is often summed over an utterance's frames or tokens
    (ctc_loss_reduction='sum')."""
    names = [n.lower() for n in run.series]
    base = run.fact("base_model")
    if isinstance(base, str) and _CTC_ENCODERS.search(base):
        return True
    return run.fact("trainer") == "espnet" or any(
        "ctc" in n
        # eval_wer (HF), val_wer, valid_wer (fairseq's subset prefix)
        or re.sub(r"^(?:eval|valid|val)_", "", n.rsplit("/", 1)[-1]) in ("wer", "cer")
        for n in names
    )


def _other_scale(run: Run, loss: Series, floor: float, p: Params) -> str | None:
    """Why the loss, which never comes under the floor, reads on another scale than the
    model's: an eval loss already under the floor at its first eval while the train loss
    logs 2x the floor or more there, or a held-out task metric that improves by
    `heldout_gain` (relative) from its first eval to its last ones (a model whose
    weights are broken does badly on unseen data as long as its loss stays above
    ln(V)). None when the loss gets under the floor or nothing held-out says so."""
    f = loss.finite()
    if not len(f) or bool((rolling_median(f.values, 3) <= floor).any()):
        return None
    ev = run.get("eval_loss")
    e = ev.finite() if ev is not None else None
    if e is not None and len(e) and float(e.values[0]) < floor:
        at = float(np.interp(e.steps[0], f.steps, f.values))
        if at >= p.ratio_error * floor:
            return (
                f"the eval loss is {fmt(float(e.values[0]))} at its first eval, under the "
                f"floor, while the train loss logs {fmt(at)} there"
            )
    chance = 1.0 / run.vocab_size if run.vocab_size and run.vocab_size >= 2 else 0.5
    for m, higher in task_metrics(run):
        y = m.finite().values
        if not y.size or not y[0]:
            continue
        last = float(np.median(y[-max(1, y.size // 3) :]))
        gain = (last - float(y[0])) / abs(float(y[0])) * (1.0 if higher else -1.0)
        if y.size >= p.heldout_evals and gain >= p.heldout_gain:
            return f"{m.name} improves {fmt(float(y[0]))} -> {fmt(last)} over its evals"
        # an accuracy halfway from chance to perfect at every eval: no broken model
        low = float(y.min())
        if higher and "acc" in m.name.lower() and (1.0 + chance) / 2 <= low <= float(y.max()) <= 1:
            return f"{m.name} is {fmt(low)} or more at every eval (chance {chance:.2g})"
    return None


def _learned_past_floor(loss: Series, floor: float, p: Params) -> bool:
    """A log of 20+ points that got back under the floor (3-point median) and ends at
    `learned_end_ratio` of it or under (median of its last tenth)."""
    f = loss.finite()
    if len(f) < p.recover_min_points:
        return False
    if not bool((rolling_median(f.values, 3) <= floor).any()):
        return False
    end = float(np.median(f.values[-max(3, len(f) // 10) :]))
    return end <= p.learned_end_ratio * floor


def _back_next_log(loss: Series, floor: float, p: Params) -> bool:
    """A log too short for the 5% test (3 to 19 points) whose second loss is already
    under the floor, stays under it, and ends under 0.9 of it: the start's damage lasted
    one logging interval at most (an mT5 fine-tune's model card: 25.5, then 6.1, 4.2)."""
    f = loss.finite()
    y = f.values
    if not 3 <= y.size < p.recover_min_points or not (y > 0).all():
        return False  # (exact zeros: fp16 overflow skips, no level that says it recovered)
    return bool(np.all(y[1:] <= floor)) and float(y[-1]) <= p.recover_end_ratio * floor


def _recovered_at(loss: Series, floor: float, p: Params) -> int | None:
    """The step where a long log is back under the floor, if that is early and the
    loss then learns on (ends well under the floor); else None."""
    f = loss.finite()
    if len(f) < p.recover_min_points:
        return None
    y = rolling_median(f.values, 3)
    under = np.flatnonzero(y <= floor)
    if not under.size:
        return None
    at = int(f.steps[under[0]])
    span = float(f.steps[-1] - f.steps[0]) or 1.0
    end = float(np.median(f.values[-max(3, len(f) // 10) :]))
    if (at - f.steps[0]) / span > p.recover_fraction or end > p.recover_end_ratio * floor:
        return None
    return at


def _hot_lr_before(run: Run, first_step: int, p: Params) -> float | None:
    """The LR of the updates before the first logged row, when there were any and it
    was hot enough to wreck the model by itself; else None."""
    if first_step <= 1:
        return None
    lr = run.get("lr")
    if lr is not None and len(lr) and int(lr.steps[0]) <= first_step:
        value = float(lr.values[0])
    else:
        cfg = run.fact("learning_rate")
        value = float(cfg) if isinstance(cfg, (int, float)) else float("nan")
    return value if value >= p.hot_lr else None


def _after_hot_updates(
    loss: Series, first: float, floor: float, what: str, lr: float, ratio: float
) -> Hit:
    step = int(loss.steps[0])
    return Hit(
        title=(
            f"First logged loss {fmt(first)} is {first / floor:.1f}x the uniform floor {what} "
            f"= {floor:.2f}, logged at step {step} after {step - 1} update(s) at LR {fmt(lr)}"
        ),
        step=step,
        evidence={
            "first_loss": first,
            "floor": floor,
            "ratio": ratio,
            "first_logged_step": step,
            "updates_before_first_log": step - 1,
            "lr_before_first_log": lr,
        },
        explanation=(
            f"The first row comes after {step - 1} update(s) at LR {fmt(lr)}, an LR that can "
            "wreck a model within a few steps (and a logged loss averages the steps up to "
            "its row). This loss may be those updates' damage, not a broken starting point."
        ),
        prescription=(
            "Log the first step (logging_first_step=True, or log every step at the start): a "
            "first loss near ln(V) or below means the LR is the cause, so lower it; a first "
            "loss this high means the starting checkpoint is broken (inspect its tensors)."
        ),
        severity=Severity.WARNING,
        caused_by=("lr-too-high",),
    )
