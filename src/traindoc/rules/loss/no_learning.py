"""no-learning: the loss does not meaningfully decrease (and is not at ln(V))."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.schedule import warmup
from traindoc.measure.stats import bins, diff_mad, fmt, trend
from traindoc.model import Finding, Run, Series, Severity
from traindoc.model.signals import kind
from traindoc.rules import advice
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._evalcurve import direction, task_metrics


@dataclass(frozen=True)
class Params:
    # Fewer points than this cannot separate "flat" from "noisy".
    min_points: int = 10
    # Least relative drop (start -> end) that counts as learning, per regime. From
    # scratch an LM falls far below ln(V) (tens of percent); a fine-tune of a
    # pretrained model still drops several percent; unknown regime: most tolerant.
    min_drop_pretraining: float = 0.10
    min_drop_finetune: float = 0.03
    min_drop_unknown: float = 0.02
    # "Pre-training" that starts well under ln(V) is continued pre-training: judge it
    # as a fine-tune.
    continued_ratio: float = 0.6
    # Start/end levels: medians of the first / last share of the raw points.
    head_fraction: float = 0.05
    tail_fraction: float = 0.1
    # The drop must also beat this many standard errors of the two medians, else
    # the curve is too noisy to call (then only a warning).
    noise_z: float = 3.0
    # A run shorter than this cannot be expected to drop by the regime's tolerance:
    # a significant descent is enough (a 20-step smoke test falling 3% learns).
    short_run_steps: int = 100
    # ... unless the log covers this many epochs: 10 passes over the data are no short
    # run whatever the step count says (a Keras table counts epochs: 19 "steps" there
    # are 19 epochs), and a model that learns lowers its loss by more over them.
    short_run_epochs: float = 10.0
    # Margin on the fitted drop: 2 standard errors (~95%) that it still falls short.
    fit_z: float = 2.0
    # Every one of this many logged grad norms NaN/Inf: no step can have been applied.
    min_dead_grads: int = 3
    # An eval task metric (accuracy, F1, ...) identical to its printed digits at this
    # many evals: a model whose weights move predicts differently on some of a
    # held-out set's samples, so its predictions are frozen (usually one class) ...
    frozen_metric_points: int = 4
    # ... while the loss fell less than this (a falling loss with a saturated metric
    # is a model that learns; a metric at its best value is solved, not frozen).
    frozen_max_drop: float = 0.10
    # With too few losses for its own test, an eval-stagnation over this share of the
    # run (eval and train flat from the first eval on) is the run not learning.
    whole_run: float = 0.95
    # A short log from the start (4-9 points) whose every loss lies within 0.5% of
    # their median: a model whose weights change moves its loss more than that over
    # 4 logs (per-step noise alone is 1-10%; epoch means of a learning model fall).
    flat_points: int = 4
    flat_spread: float = 0.005
    # A short log whose first loss is higher (an epoch mean that holds the first
    # descent) but whose later losses (3+) lie within 1% of each other, with the eval
    # loss within 1% at 3+ evals as well: after the first log neither curve moves. A
    # model that learns lowers its epoch-mean train loss by more than 1% a log.
    after_first_points: int = 3
    after_first_spread: float = 0.01
    after_first_evals: int = 3
    # One loss per epoch from the first epoch on (4+, an epoch mean each: HF's
    # logging per epoch, Keras' epoch line), all within 2% of their median: the first
    # epoch's mean holds the loss of the untrained model, so a model that learned
    # anything in epoch 1 has a first mean well above the later ones. Not when a task
    # metric in the log is high (a pretrained model already fitting its data).
    epoch_points: int = 4
    epoch_spread: float = 0.02
    epoch_fitted: float = 0.9
    # A top-5 accuracy (a metric only a classifier logs) under 5% at every one of 3+ logs
    # from epoch 10 on, while the loss falls under `frozen_max_drop`: 5% is what top-5
    # scores by chance over 100 classes (and is below chance for fewer); a classifier
    # that learned anything in 10 passes over its data ranks the true class in its top 5
    # far more often, whatever the number of classes.
    topk_late_epoch: float = 10.0
    topk_chance: float = 0.05
    topk_points: int = 3
    # An overlap metric (Dice, IoU, mAP, F1: scores of the positives / foreground found)
    # exactly 0 at every one of 2+ evals from epoch 10 on, while the loss moves under
    # `frozen_max_drop`: after 10 passes a model that learned anything finds some of the
    # foreground; 0 to the printed digit is a model that predicts none of it.
    overlap_points: int = 2
    # A train metric printed several times an epoch (a running average reset each
    # epoch) whose in-epoch sequence is identical, value for value, in this many
    # consecutive epochs: the model scores every batch the same way every pass.
    repeat_epochs: int = 3
    # A higher-is-better task metric (sequence accuracy, BLEU, mAP, ...) exactly 0 at every
    # one of 3+ logs, all from epoch 3 on (two full passes over the data whether the count
    # starts at 0 or 1), while the loss over the same logs falls under `frozen_max_drop`
    # and stays at or above ln 2 (a classifier that gets every sample wrong has a
    # cross-entropy of at least ln 2 on each: a lower loss beside an accuracy of 0 is not
    # the loss that accuracy scores, e.g. Keras' accuracy of a regression).
    zero_points: int = 3
    zero_min_epoch: float = 3.0
    zero_min_loss: float = math.log(2)
    # No loss logged: an eval metric identical, to 4+ printed digits, at every one of 5+
    # evals from the run's first eval on (its first eval at epoch <= 1 or within one eval
    # interval of step 0): the model's held-out predictions never changed after the start.
    lone_frozen_evals: int = 5
    # Every ROC AUC reported (2+ values) within 0.02 of 0.5 after training began: a
    # ranking no better than a coin (a model that learned anything clears 0.52 on any
    # eval set of a few hundred samples).
    auc_values: int = 2
    auc_chance_band: float = 0.02


@rule(
    "no-learning",
    minimum="10 logged losses (with fewer: 4+ from the start all within 0.5%, 4+ epoch means from the first within 2%, 3+ after the first within 1% with 3+ evals within 1%, a grad norm NaN at 3+ logs, an eval metric frozen at 4+ evals or at its step-0 value, or losses identical to a run at another LR; no loss: eval and train metric frozen at 4+ logs (the train one may differ at its first), a metric's in-epoch values repeated in 3+ epochs, two eval metrics frozen at 4+ evals, or a top-5 under chance from epoch 10; every ROC AUC (2+ values, one after training began) within 0.02 of 0.5; an overlap metric (Dice, IoU, mAP, F1) at 0 at 2+ evals from epoch 10 with a loss moving under 10%; an error rate (WER, CER) at 1.0 at 2+ evals from epoch 10 with the train and eval loss moving under 10%; any higher-is-better metric at 0 at 3+ logs from epoch 3 (2+ from epoch 10) with a loss over them falling under 10% and at or above ln 2, no other metric above 0; no loss: an eval metric identical at 5+ evals from the first)",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss|event:fp16-overflow|event:one-class-predictions|kind:task",),
    uses=("lr", "grad_norm"),
    core=True,
    reads=("eval-stagnation",),
    explained_by=(
        "fp16-instability",  # every update skipped by the loss scaler
        "nonfinite-loss",  # NaN from the first step: no update is ever applied
        "nonfinite-gradients",
        "lr-too-low",
        "lr-too-high",  # steps so large the model bounces and ends where it started
        "schedule-not-applied",
        "no-trainable-parameters",
        "absurd-initial-loss",
        "vanishing-gradients",
        # a loss that climbs does not decrease either: the climb is the finding
        "divergence",
        "empty-samples",
        "label-conflicts",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """Loss does not meaningfully decrease over the run, and is not at ln(V).

    **What it does.** Compares the median loss at the start of the run (the
    higher of the first 3 points and the first 5%) with the median of the last
    10%, and runs a Mann-Kendall trend test on the binned curve. Flags when the
    relative drop is under a regime-aware tolerance (pre-training 10%, fine-tune /
    LoRA 3%, unknown 2%). A flat curve *at* ln(V) is `uniform-plateau`'s, a
    rising one `divergence`'s. A run under 100 steps whose loss descends beyond its
    noise is not held to the regime's tolerance (a smoke test), unless its log spans
    10+ epochs: a Keras or epoch table counts epochs as steps, and 10 passes over the
    data are no short run (SciGPT-2: 20 epoch means 1.8976 -> 1.8927, -0.26%).

    **Why it matters.** A run whose loss never goes down is spending compute on
    nothing. The usual causes are an LR far too low for the regime (the exploded-head run: 1e-6
    in pre-training, ~300x too low), an LR that is 0 or never scheduled, or no
    trainable parameters (a PEFT / freezing mistake gives a perfectly flat loss).

    Fewer than 10 points cannot separate flat from noisy: the rule then says it could
    not judge (the run is inconclusive unless something else is found), unless the
    loss falls >= 4% with most steps down, which is learning however short, or 4+
    losses from the start (past the warmup) all lie within 0.5% of their median: a
    loss that does not move at all (warning); or, with under 4 train losses logged less
    often than the evals (a model card's "No log" rows: the card carries one logged loss
    over several epochs, read once), 4+ eval losses from the first interval within the
    same 0.5% with the train losses in that band and no task metric gaining 2% of its
    scale (longformer on CoLA: eval loss 0.6960-0.7005 at 5 epochs, MCC 0 -> -0.05;
    warning); or 4+ epoch means from the first epoch
    on (one loss per whole epoch) all within 2%: the first epoch's mean holds the
    untrained model's loss, so a model that learned anything has a first mean clearly
    above the rest (warning; not when a task metric in the log reaches 90%: a
    pretrained model already fitting its data). Also a warning: the losses after the
    first (3+; the first may average the first descent) within 1% of each other with
    the eval loss within 1% at 3+ evals: after the first log neither curve moves.

    A gradient norm that is NaN/Inf at every one of 3+ logged steps also settles
    it, however short the log: each step was skipped by the loss scaler, or wrote
    NaN into the weights; either way nothing is learned.

    With under 10 losses, an `eval-stagnation` that spans the whole run (95%+ of
    it, or flat from a first eval that came within one eval interval of the start)
    is reported here as well: a run that never moved is not learning, not stagnating.

    An eval task metric (accuracy, F1, ...) identical to its printed digits at 4+
    evals, off its best value (a 0 not beside another higher-is-better metric that moves:
    one rare class's F1 stuck at 0 while the overall F1 moves is a model whose predictions
    change), while the loss fell under 10% (or the eval loss stays
    within 10% at 4+ evals: the metric's own held-out companion, where the first train
    log may average the untrained model's first steps, as a CTC head's fall to its blank
    plateau does while WER stays 1.0; or within 10% at the 4+ evals after the first, which
    can itself come before the plateau, in the warmup: a wav2vec2 card with eval loss 5.30
    then 3.5641 at seven evals, WER 1.0 at all ten), also settles it
    however short the log: on a held-out set of any size a model that changes
    predicts differently somewhere, so its predictions are frozen (typically the
    majority class). Two evals suffice when the first is at step 0, before any
    update (Caffe's `test_initialization`): the trained model then scores exactly
    what the untrained one did, whatever the loss did in between. The eval loss
    and an eval metric both identical to 4+ significant digits at 2+ evals logged
    steps apart (3+ for HF, whose final evaluate() of the best checkpoint repeats
    it) say no update reached the weights in between (warning); with no eval loss,
    the train loss identical to 4+ digits at its 2+ logs and an eval metric repeated
    at 2+ evals among them say the same (PaddleSeg: loss 0.1503 and mIoU 0.5000 at
    two logs 100 iterations apart). With no loss
    logged at all, an eval metric and its train counterpart each identical at 4+
    logs (not at 0, 1 or 100) settle it the same way (warning); the train counterpart may
    differ at its first log if it is identical, to 4+ printed digits, at the 4+ logs after
    it: a train metric averages an epoch's batches, and the first epoch's average holds the
    untrained model's first steps (an MXNet AlexNet: Train-accuracy 0.509277 at epoch 0,
    then 0.517578 at epochs 1-4, Validation-accuracy 0.517578 at all five), and so do two eval metrics
    identical at the same 4+ evals, one of them printed to 4+ digits (accuracy 0.8512
    and mIoU 0.4471 at every eval: two measures of a model whose predictions do not
    change). The second may be a higher-is-better metric at 0 at those same evals beside
    a first printed to 4+ digits (a NER card: token accuracy 0.9388 and entity F1,
    precision, recall 0.0 at all five evals: every token tagged 'O'); alone, a metric at
    0 can be a run that has not started, so it never counts by itself. With no loss, a
    metric printed at 2+ points of every epoch (a running average reset each epoch) that
    takes the same values, at least two distinct and one printed to 4+ digits, at the same
    points of 3+ consecutive epochs says the same (warning): the batches come in the same order and the model
    scores each one exactly as the pass before (an MXNet Titanic loop: running accuracy
    0.65625, 0.621875, 0.6083, 0.609375, 0.615 in every epoch).

    A top-5 accuracy (`top-5`, `top5_acc`, Keras' `top_k_categorical_accuracy`: a
    metric only a classifier logs) under 5% at every one of 3+ logs from epoch 10 on,
    while the loss falls under 10% over the log, settles it however short or late the
    window (warning): 5% is what top-5 scores by guessing over 100 classes, and is below
    guessing for fewer, while a classifier that learned anything in 10 passes over its
    data ranks the true class in its top 5 far more often (a MEAL-V2 distillation at
    epoch 46 with Top-5 1.28%). A log printing any value above 1 is in percent; values
    all at or under 1 are read as fractions (0.30 is 30%, the conservative reading). A
    plain (top-1) accuracy is not read this way: a classifier over 1000 classes can sit
    under 1% honestly, and Keras prints a meaningless near-zero `acc` for regressions.

    Every ROC AUC the run reports (2+ values: valid and test, AUC and group AUC, or
    several evals) within 0.02 of 0.5, one of them after training began (logged after the
    first train loss, or a best-of-run result), settles it however short the log
    (warning): an AUC is the chance that a random positive scores above a random
    negative, so 0.5 is a coin toss whatever the classes' balance, and a model that
    learned only the class prior (its log-loss falling to the prior's entropy) still
    scores exactly 0.5 (RecBole's FM: best valid and test AUC 0.5; SLi-Rec: AUC 0.493
    and group AUC 0.482 after an epoch). A partial AUC or a precision-recall AUC has
    another chance level and is not read this way.

    An eval overlap metric (Dice, IoU, mAP, F1: what they score is the positives or the
    foreground found) exactly 0 at every one of 2+ evals, all from epoch 10 on, while the
    loss moves under 10% of its size (or no loss is logged), settles it the same way
    (warning): after 10 passes over the data a model that learned anything marks some of
    the foreground right, so 0 to the printed digit is a model predicting background
    everywhere (nnU-Net at epochs 99 and 100: 'Average global foreground Dice: [0.0]',
    its own check then blaming a 0.99 momentum). Earlier epochs can honestly score 0 (a
    detector's first epochs), and a plain accuracy is not read this way (Keras prints a
    meaningless 0 `acc` for a regression).

    The mirror case, an eval error rate (WER, CER: the share of words or characters the
    model gets wrong) exactly at its ceiling 1.0 (100 when printed in percent) at every
    one of 2+ evals, all from epoch 10 on, while the train loss and the eval loss (each
    when logged) move under 10% over those evals, settles it the same way (warning): 1.0
    is what an empty transcript scores, the CTC head emitting only the blank token. That
    blank plateau is normal in the first epochs, and a model leaving it lowers its eval
    loss first (a WER of 1.0 with the eval loss falling 3.22 -> 2.60 is no finding), but
    after 10 passes over the data a model that learns has left it (a wav2vec2 card with a
    warmup of 500 steps in a 200-step run: WER 1.0 at epochs 14 and 29, eval loss 3.69 ->
    3.35). A WER of 0.9999 is the first words coming through, not the ceiling.

    Any higher-is-better task metric (a recogniser's sequence accuracy, BLEU, mAP, a
    train-side `acc`) exactly 0 at every one of 3+ logs, all from epoch 3 on (2+ logs from
    epoch 10 on, as for an overlap metric), while the loss over the same logs falls under
    10% and stays at or above ln 2 and no other higher-is-better metric of the run scores
    above 0 over them (a rare class's F1 or AP at 0 beside an overall mAP is no model that
    gets nothing right), settles it however short or late the window (warning): a CTC
    captcha model at epochs 130-131 with accuracy 0.000 and a cost of 21.9. Epoch 3 means two full passes over the data whether
    the count starts at 0 or 1: a model's first pass can honestly score 0 (ArcFace's first
    steps, a CTC head on its blank plateau), but after two passes a model that learns gets
    some samples right or at least keeps lowering its loss; this one does neither (a
    PaddleOCR handwriting run at epoch 3: acc 0.000000 and norm_edit_dis 0.000000 at six
    logs, CTC loss 115-117). The ln 2 floor is what a classifier scores when it gets a sample
    wrong (the true class is not the argmax, so its probability is at most 1/2): a mean loss
    under it beside an accuracy of 0 means the accuracy is not what the loss trains (Keras'
    accuracy of a regression, 0 beside an MSE of 0.02), and a log with a regression error
    column (mae, mse) is not read this way at all.

    With no loss logged, an eval metric identical to 4+ printed digits at every one of 5+
    evals, the first of them at the run's start (epoch <= 1, or within one eval interval of
    step 0), settles it as well (warning), unless another metric of the same model or the
    eval loss (10%+) moves: the held-out predictions are the same after every epoch as after
    the first (MXNet: Validation-accuracy=0.110204 at epochs 0-15). A late window of
    identical evals is not read this way: a converged model on a small eval set repeats its
    score (an mmdet mAP50 of 0.9022 at 15 late evals of a healthy run).

    A printed confusion matrix (rows the true classes, columns the predicted ones, as
    sklearn / torchmetrics print it) whose every count lies in one column while 2+
    true classes occur, the last matrix the log prints, settles it however short the
    log: the model predicts one class for every input (its accuracy is that class's
    share), which is what a model that has learned only the class prior does. An
    earlier one-column matrix followed by a mixed one is a model that got past it.

    A run pasted next to another whose losses are identical to the printed digit
    although its LR differs (an LR sweep in one issue: fact `same_loss_as`) is
    flagged however short: two LRs cannot give the same losses unless the LR never
    reaches the weights.

    **Known false positives.** A log that covers only a late window of a long run
    (resumed, head truncated) is skipped; not when its eval loss is logged from the
    first interval on and the first train loss by the second eval (a model card's
    "No log" first rows: the train loss was logged every 500 steps, the evals every
    epoch), which is a log of the whole run. RL trainers (GRPO/PPO) are skipped: their
    loss is not expected to fall. A model fine-tuned on data it already knows can
    start low and stay there (then it is reported, but it is worth knowing).

    **What to do.** Check the logged LR (non-zero, scheduled, right for the regime:
    pre-training ~3e-4, full fine-tune ~1e-5-5e-5, LoRA ~1e-4), the trainable-
    parameter count and the gradient norm (0 means nothing is trained).
    """
    if (hit := _all_skipped(run, p)) is not None:
        yield hit
        return
    if (hit := _one_class(run)) is not None:
        yield hit
        return
    loss = run.get("loss")
    if run.is_rl:
        return
    if loss is None:  # only task metrics logged (an accuracy per epoch), or a GAN's players
        if (
            hit := _frozen_metrics(run, p)
            or _lone_frozen_from_start(run, p)
            or _epochs_repeat(run, p)
            or _top5_at_chance(run, None, p)
            or _auc_at_chance(run, None, p)
            or _overlap_zero_late(run, None, p)
            or _error_rate_ceiling_late(run, None, p)
        ) is not None:
            yield hit
        elif run.fact("task") == "gan":
            # the generator's loss rises as the discriminator improves: no curve says "learns"
            yield NotJudged(
                "a GAN's generator and discriminator losses are opponents, not one learning "
                "curve; judge it by its samples or a quality metric (FID, IS)"
            )
        return
    f = loss.finite()
    n = len(f)
    if (peer := run.fact("same_loss_as")) is not None:
        yield _same_as_peer(f, peer)
        return
    gn = run.get("grad_norm")
    if gn is not None and len(gn) >= p.min_dead_grads and not np.isfinite(gn.values).any():
        yield _dead_gradients(run, f, gn)
        return
    if (hit := _frozen_metric(run, f, p)) is not None or (hit := _frozen_evals(run)) is not None:
        yield hit
        return
    if (
        hit := _top5_at_chance(run, f, p)
        or _auc_at_chance(run, f, p)
        or _overlap_zero_late(run, f, p)
        or _error_rate_ceiling_late(run, f, p)
        or _zero_while_flat(run, f, p)
    ) is not None:
        yield hit
        return
    if starts_mid_run(f) and not _evals_from_start(run, f):
        return
    y = f.values
    if n < p.min_points:
        # Too few points to tell flat from noisy; a fall twice the most tolerant
        # regime's threshold, point after point, is learning all the same.
        falls = n >= 2 and y[-1] <= (1 - 2 * p.min_drop_unknown) * y[0] and _mostly_down(y)
        if falls:
            return
        stalled = run.symptom("eval-stagnation")
        at = fl.at_floor(run, "loss")
        if at is not None and at.to_end:
            return  # flat at ln(V) / ln(C): uniform-plateau's finding
        whole = stalled is not None and (
            stalled.evidence.get("window_frac", 0) >= p.whole_run
            or stalled.evidence.get("from_first_eval", False)
        )
        if whole:
            yield _never_progressed(f, stalled)
        elif (hit := _short_verdict(run, f, p)) is not None:
            yield hit
        else:
            yield too_few("loss", n, p.min_points)
        return
    kh, kt = max(3, int(p.head_fraction * n)), max(3, int(p.tail_fraction * n))
    start = max(float(np.median(y[:3])), float(np.median(y[:kh])))
    end = float(np.median(y[-kt:]))
    if start == 0 or not math.isfinite(start):
        return
    # At ln(V) (or ln(C))? Then it is uniform-plateau's finding.
    at = fl.at_floor(run, "loss")
    if at is not None and at.to_end:
        return
    known = fl.known(run)
    floor = known.value if known else None
    drop = (start - end) / abs(start)
    regime = run.regime
    if regime == "pretraining" and not (floor and start < p.continued_ratio * floor):
        min_drop = p.min_drop_pretraining
    elif regime in ("full-finetune", "lora", "pretraining"):
        min_drop = p.min_drop_finetune
    else:
        min_drop = p.min_drop_unknown
    sigma = diff_mad(y) / math.sqrt(2)  # point noise, trend-free
    err = 1.2533 * sigma * math.sqrt(1 / kh + 1 / kt) / abs(start)
    tol = max(min_drop, p.noise_z * err)
    if drop >= tol or drop <= -tol:
        return  # it clearly learns, or it rises (divergence's)
    st, vals = bins(f)
    tr = trend(st, vals)
    span = int(f.steps[-1] - f.steps[0])
    short = span < p.short_run_steps and _epochs_covered(run, f) < p.short_run_epochs
    if short and tr.falling and drop > p.noise_z * err:
        return  # too short to hold to a regime's tolerance, and it is descending
    # Claim "not learning" only when confident: the drop along the fitted line
    # (Theil-Sen over the whole run, far less noisy than two medians), plus its
    # noise margin, must still fall short of what the regime should achieve.
    fit_drop = -tr.slope * span / abs(start)
    fit_err = p.fit_z * sigma * math.sqrt(12 / n) / abs(start)
    if fit_drop + fit_err >= min_drop:
        return
    # Error only when the drop is clearly tiny (under half the tolerance, whatever
    # its trend), the curve is well measured and the regime is known.
    well_measured = p.noise_z * err < min_drop
    tiny = drop < min_drop / 2
    severity = Severity.ERROR if tiny and well_measured and regime is not None else Severity.WARNING
    evidence: dict[str, object] = {
        "start_loss": start,
        "end_loss": end,
        "relative_drop": drop,
        "tolerance": tol,
        "trend_z": tr.z,
        "noise_sigma": sigma,
        "regime": regime or "unknown",
    }
    if floor is not None:
        evidence["floor"] = floor
    lr = run.get("lr")
    if lr is not None and len(lr.finite()):
        evidence["median_lr"] = float(np.median(lr.finite().values))
    yield Hit(
        title=(
            f"Loss does not decrease: {fmt(start)} -> {fmt(end)} over "
            f"{int(f.steps[-1] - f.steps[0])} steps ({-drop:+.1%}; learning needs at least -{tol:.1%})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=(
            "Over the whole run the loss ends where it started, within noise. The "
            "optimizer is not moving the model in a useful direction: typically the LR is "
            "far too low or zero, the schedule never steps, or no parameter is trainable."
        ),
        prescription=(
            "Check the logged LR column (0? never warmed up? 1e-6 where ~3e-4 is needed "
            "for pre-training, ~1e-4 for LoRA?), the trainable-parameter count and the "
            "gradient norm; fix, then confirm the loss falls within the first few hundred "
            "steps before spending the full budget."
        ),
        severity=severity,
    )


def _epochs_covered(run: Run, f: Series) -> float:
    """How many epochs the loss's steps span (the logged epoch at its last step minus
    at its first), 0 when no epoch is logged."""
    ep = run.get("epoch")
    if ep is None or len(e := ep.finite()) < 2 or len(f) < 2:
        return 0.0
    at = np.interp([f.steps[0], f.steps[-1]], e.steps, e.values)
    return float(at[1] - at[0])


def _evals_from_start(run: Run, f: Series) -> bool:
    """The eval loss is logged from the run's first interval on and the first train loss
    comes by the second eval: the log covers the run from its start and the train loss
    was only logged less often (HF's logging_steps=500 beside per-epoch evals of 268
    steps: a model card's first rows read "No log"), not a late window of a longer run."""
    ev = run.get("eval_loss")
    if ev is None or len(e := ev.finite()) < 2 or not len(f):
        return False
    return bool(e.steps[0] <= np.median(np.diff(e.steps)) and f.steps[0] <= e.steps[1])


def _flat_from_start(run: Run, f: Series, p: Params) -> Hit | None:
    """4-9 losses from the start of a run, all within `flat_spread` of their median,
    past the warmup: the loss has not moved at all (warning)."""
    y = f.values
    if y.size < p.flat_points:
        return None
    w = warmup(run)
    if w is not None and not w.complete:
        return None  # the LR is still ramping up: too early to expect a move
    level, spread = _around_median(y)
    if spread > p.flat_spread:
        return None
    return Hit(
        title=(
            f"Loss does not move: {y.size} logs from the start all within {spread:.2%} of "
            f"{fmt(level)} ({fmt(float(y[0]))} -> {fmt(float(y[-1]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=_flat_evidence(y, level, spread),
        explanation=(
            f"Every logged loss lies within {spread:.2%} of the same level. Batches alone move "
            "a loss by more than that, and a model whose weights change moves its mean: the "
            "updates are not reaching the model, or are too small to matter."
        ),
        prescription=(
            "Check the logged LR (0, or far too low for the regime), the trainable-parameter "
            "count and the gradient norm (0?), that optimizer.step() runs and that the loss is "
            "computed from the model's outputs (not detached), and the labels."
        ),
        severity=Severity.WARNING,
    )


def _flat_evals_from_start(run: Run, f: Series, p: Params) -> Hit | None:
    """Under 4 train losses, logged less often than the evals (a model card's "No log"
    rows, then one training loss carried over several epochs), but 4+ eval losses from
    the run's first interval on, all within `flat_spread` of their median with the train
    losses inside the same band, and no task metric gaining 2% of its scale: the
    held-out loss, measured more often, shows the same unmoving curve (warning)."""
    ev = run.get("eval_loss")
    if ev is None or f.values.size >= p.flat_points or not _evals_from_start(run, f):
        return None
    e = ev.finite()
    if len(e) < p.flat_points:
        return None
    level, spread = _around_median(e.values)
    if spread > p.flat_spread or np.max(np.abs(f.values - level)) > p.flat_spread * abs(level):
        return None
    for m, higher in task_metrics(run):
        v = m.finite().values
        if v.size < 2:
            continue
        gain = float(v.max() - v[0]) if higher else float(v[0] - v.min())
        if gain > 0.02 * (100.0 if float(np.abs(v).max()) > 1.5 else 1.0):
            return None  # the predictions improve: a converged model still refining
    return Hit(
        title=(
            f"Loss does not move: {len(e)} eval losses from the first epoch all within "
            f"{spread:.2%} of {fmt(level)} ({fmt(float(e.values[0]))} -> "
            f"{fmt(float(e.values[-1]))}), the {f.values.size} train losses in the same band"
        ),
        step=int(e.steps[0]),
        end_step=int(e.steps[-1]),
        evidence=_flat_evidence(e.values, level, spread, series="eval_loss"),
        explanation=(
            f"Every eval loss lies within {spread:.2%} of the same level from the first eval "
            "on, and so does the training loss: a model whose weights change moves its "
            "held-out loss by more than that. The updates are not reaching the model, or "
            "are too small to matter."
        ),
        prescription=(
            "Check the logged LR (0, or far too low for the regime), the trainable-parameter "
            "count and the gradient norm (0?), that optimizer.step() runs, and the labels."
        ),
        severity=Severity.WARNING,
    )


def _around_median(y: np.ndarray) -> tuple[float, float]:
    """(median, the farthest any value lies from it relative to it): how flat a log is."""
    level = float(np.median(y))
    return level, float(np.max(np.abs(y - level))) / abs(level) if level else float("inf")


def _flat_evidence(y: np.ndarray, level: float, spread: float, **extra: object) -> dict:
    return {
        "points": int(y.size),
        "level": level,
        "spread_rel": spread,
        "start_loss": float(y[0]),
        "end_loss": float(y[-1]),
        **extra,
    }


def _spread(y: np.ndarray) -> float:
    """(max - min) / |median|: how far apart the values lie, relative to their level."""
    level = float(np.median(y))
    return float(y.max() - y.min()) / abs(level) if level else float("inf")


def _short_verdict(run: Run, f: Series, p: Params) -> Hit | None:
    """What a short log (under 10 losses) from the start shows, most specific first."""
    for sign in (_flat_from_start, _flat_evals_from_start, _flat_after_first, _flat_epochs):
        if (hit := sign(run, f, p)) is not None:
            return hit
    return None


def _epoch_means(run: Run, f: Series) -> np.ndarray | None:
    """The epoch of each loss when every loss is one epoch's (consecutive whole epochs
    from the first: 1, 2, 3 or 0, 1, 2), else None."""
    ep = run.get("epoch")
    if ep is None or len(ep.finite()) < 2:
        return None
    e = ep.finite()
    at = np.interp(f.steps, e.steps, e.values)
    whole = np.round(at)
    if not (np.allclose(at, whole, atol=0.02) and whole[0] <= 1):
        return None
    return whole if bool(np.all(np.diff(whole) == 1)) else None


def _flat_epochs(run: Run, f: Series, p: Params) -> Hit | None:
    """4-9 epoch-mean losses from the first epoch, all within 2% of their median, and no
    task metric in the log says the model already fits its data (warning)."""
    y = f.values
    if y.size < p.epoch_points or _epoch_means(run, f) is None:
        return None
    level, spread = _around_median(y)
    if spread > p.epoch_spread:
        return None
    for m in run.series.values():
        if kind(m.name) != "task" or direction(m.name) is not True or not len(m.finite()):
            continue
        top = float(np.max(m.finite().values))
        if top >= (100 * p.epoch_fitted if top > 1.0 else p.epoch_fitted):
            return None  # 90%+ right: a model that already fits (or learned) its task
    return Hit(
        title=(
            f"Loss does not move from epoch to epoch: {y.size} epoch means from the first "
            f"all within {spread:.1%} of {fmt(level)} ({fmt(float(y[0]))} -> {fmt(float(y[-1]))})"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence=_flat_evidence(y, level, spread, epoch_means=True),
        explanation=(
            "Each logged loss is the mean over one epoch, the first one included. The first "
            "epoch's mean holds the loss of the untrained model: a model that learns "
            "anything in it has a first mean clearly above the later ones, and keeps "
            f"lowering them. Here all {y.size} lie within {spread:.1%}: the updates do not "
            "change what the model predicts."
        ),
        prescription=(
            "Check the predictions' class distribution (one class for every input?), the LR "
            "(0, or far too low / high for the optimizer), the labels and that the loss is "
            "computed from the model's outputs; then that the trained parameters are the "
            "ones the optimizer holds."
        ),
        severity=Severity.WARNING,
    )


def _flat_after_first(run: Run, f: Series, p: Params) -> Hit | None:
    """A short log from the start whose train losses after the first (3+) and whose
    evals (3+) each lie within 1%: after the first log nothing moves (warning)."""
    y = f.values[1:]
    ev = run.get("eval_loss")
    e = ev.finite().values if ev is not None else np.empty(0)
    if y.size < p.after_first_points or e.size < p.after_first_evals:
        return None
    w = warmup(run)
    if w is not None and not w.complete:
        return None
    ty, te = _spread(y), _spread(e)
    if ty > p.after_first_spread or te > p.after_first_spread:
        return None
    return Hit(
        title=(
            f"Nothing moves after the first log: train loss {fmt(float(y[0]))} -> "
            f"{fmt(float(y[-1]))} within {ty:.2%} over {y.size} logs, eval loss within "
            f"{te:.2%} of {fmt(float(np.median(e)))} at {e.size} evals"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "points": int(f.values.size),
            "first_loss": float(f.values[0]),
            "start_loss": float(y[0]),
            "end_loss": float(y[-1]),
            "train_spread_rel": ty,
            "eval_points": int(e.size),
            "eval_level": float(np.median(e)),
            "eval_spread_rel": te,
        },
        explanation=(
            "Only the first log is higher (it averages the first steps); after it the train "
            f"loss stays within {ty:.2%} and the held-out loss within {te:.2%}. A model that "
            "learns lowers its train loss by more than that from one log to the next, and a "
            "fine-tune keeps fitting its train set: the updates stopped changing the model "
            "after the first steps (an LR far too high or too low, a collapsed output, labels "
            "it cannot fit)."
        ),
        prescription=(
            "Check the predictions' class distribution on a few batches (one class for all?), "
            "then the LR (a full fine-tune of a pretrained encoder wants ~1e-5-5e-5), the "
            "labels and that the loss is computed from the model's outputs."
        ),
        severity=Severity.WARNING,
    )


def _never_progressed(f: Series, stalled: Finding) -> Hit:
    ev = stalled.evidence
    return Hit(
        title=(
            f"No progress over the whole run: eval loss flat at {fmt(ev['eval_level'])} at "
            f"{ev['eval_points']} evals, train loss {fmt(ev['train_start'])} -> "
            f"{fmt(ev['train_end'])}"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "eval_level": ev["eval_level"],
            "eval_points": ev["eval_points"],
            "start_loss": ev["train_start"],
            "end_loss": ev["train_end"],
            "window_frac": ev["window_frac"],
            "from_first_eval": ev.get("from_first_eval", False),
        },
        explanation=(
            "From the first eval to the last neither the held-out loss nor the training loss "
            "moved beyond its noise: whatever the run learned, it learned none of it after the "
            "first logged point. The optimizer is not moving the model usefully."
        ),
        prescription=(
            "Check the logged LR (0? never warmed up? far too low for the regime?), the "
            "trainable-parameter count and the gradient norm; for a fine-tune, check that the "
            "data is not what the model already predicts (eval loss flat from the start)."
        ),
        severity=Severity.WARNING,
    )


def _frozen_metric(run: Run, loss: Series, p: Params) -> Hit | None:
    """An eval task metric stuck at one value while the loss barely moves, or at the
    value the untrained model scored (an eval before the first update). Stuck means
    identical at its last 4+ evals: a model that collapsed after its first eval (val acc
    0.571, then 0.357 = one class's share at every later epoch) is as frozen as one that
    never moved; the first eval can precede the collapse."""
    y = loss.values
    if y.size < 2 or not y[0] > 0:
        return None
    flat = still = (y[0] - y[-1]) / y[0] < p.frozen_max_drop
    # The held-out metric's own companion: the eval loss within 10% at every eval.
    # The first train log can average the untrained model's first steps (a CTC head's
    # fall to its blank plateau) and so "fall" while nothing after it moves.
    held = _eval_loss_still(run, p)
    flat = flat or held
    if not flat and not any(len(s) and s.steps[0] <= 0 for s in run.series.values()):
        return None  # a falling loss, and no eval before the first update to compare with
    for m, higher in task_metrics(run):
        mf = m.finite()
        v = mf.values
        same = int(np.argmax(v[::-1] != v[-1])) if np.any(v != v[-1]) else v.size
        whole = same == v.size  # every eval, not only the last `same`
        if v.size < 2 or same < (2 if whole else p.frozen_metric_points):
            continue
        value = float(v[-1])
        best = (1.0, 100.0) if higher else (0.0,)
        if value in best:
            continue  # solved: nothing left to change
        if higher and value == 0.0 and _other_metric_moves(run, m):
            continue  # one class's 0 beside a metric that moves: the predictions do change
        # Scored before any update (at or before the first logged loss) and again at
        # the end to the printed digit: whatever the loss did, the predictions are the
        # untrained model's (a worst value of 0 can still be "too early": not counted).
        from_init = (
            whole and int(mf.steps[0]) <= min(int(loss.steps[0]), 0) and value not in (0.0, 0.5)
        )
        # a metric frozen only since its first eval needs the train loss itself flat: a
        # model that fits its training set (train loss 0.10 -> 5e-4) also stops changing
        # its held-out answers, having learned
        if not (from_init or ((flat if whole else still) and same >= p.frozen_metric_points)):
            continue
        at = fl.at_floor(run, "loss")  # only now: on a long loss it is the costly part
        if at is not None and at.to_end:
            return None  # at ln(C) the metric is at chance: uniform-plateau's finding
        title = (
            f"{m.name} is {fmt(value)} before the first update (step {int(mf.steps[0])}) and "
            f"still {fmt(value)} at step {int(mf.steps[-1])}, while the loss moves "
            f"{fmt(float(y[0]))} -> {fmt(float(y[-1]))}: the predictions are the untrained model's"
            if from_init and v.size < p.frozen_metric_points
            else f"{m.name} is {fmt(value)} at "
            + (f"every one of {v.size} evals" if whole else f"each of its last {same} evals")
            + f" while the loss moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}: the "
            "predictions do not change"
        )
        if held and not from_init:
            e = run.get("eval_loss").finite().values  # type: ignore[union-attr]
            title += f" (eval loss {fmt(float(e[0]))} -> {fmt(float(e[-1]))})"
        return Hit(
            title=title,
            step=int(mf.steps[-same]),
            end_step=int(m.steps[-1]),
            evidence={
                "metric": m.name,
                "value": value,
                "evals": int(v.size),
                "same_evals": same,
                "start_loss": float(y[0]),
                "end_loss": float(y[-1]),
            },
            explanation=(
                f"On a held-out set a model whose weights change predicts differently on at "
                f"least some samples; {m.name} identical to the last digit at {same} evals "
                "means the predictions are frozen, most often one class for every input "
                "(the metric is then that class's share). The model is not learning the task."
            ),
            prescription=(
                "Check the predictions' class distribution on a few eval batches; then the LR "
                "(0, or far too low / high), the labels (encoded as the loss expects? all one "
                "class?), class imbalance, and that the trained parameters are the ones used "
                "for prediction."
            ),
            severity=Severity.WARNING,
        )
    return None


def _eval_loss_still(run: Run, p: Params) -> bool:
    """The eval loss logged at 4+ evals, all within `frozen_max_drop` of their median
    (max - min): the held-out loss does not move, whatever the first train log did."""
    ev = run.get("eval_loss")
    if ev is None:
        return False
    e = ev.finite().values
    if e.size < p.frozen_metric_points or not np.all(e > 0):
        return False
    if _spread(e) < p.frozen_max_drop:
        return True
    # The first eval can come before the model reaches the level it then keeps (in the
    # warmup, or a CTC head's fall to its blank plateau): the evals after it, 4+ of them,
    # within the same 10% say the same.
    rest = e[1:]
    return rest.size >= p.frozen_metric_points and _spread(rest) < p.frozen_max_drop


_TOP5 = re.compile(r"top[-_ ]?5|acc(?:uracy)?[-_@]?5\b|top_k_categorical")


def _top5_at_chance(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-5 accuracy under 5% at every one of 3+ logs from epoch 10 on, with a loss
    that falls under `frozen_max_drop` over the log (warning). Percent or fraction: a log
    printing a value above 1 is in percent; otherwise values are read as fractions (the
    conservative reading: 0.5 is 50%, not 0.5%)."""
    ep = run.get("epoch")
    if ep is None or not len(ep.finite()):
        return None
    # no single loss (a GAN's two players, a metrics-only log): the metric alone
    y = loss.values if loss is not None else np.empty(0)
    if loss is not None and (
        y.size < 2 or not y[0] > 0 or (y[0] - y[-1]) / y[0] >= p.frozen_max_drop
    ):
        return None
    e = ep.finite()
    for m in run.series.values():
        if kind(m.name) != "task" or not _TOP5.search(m.name.lower()):
            continue
        mf = m.finite()
        v = mf.values
        if v.size < p.topk_points:
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if float(at.min()) < p.topk_late_epoch:
            continue
        scale = 100.0 if float(v.max()) > 1.0 else 1.0
        top = float(v.max()) / scale
        if top >= p.topk_chance:
            continue
        return Hit(
            title=(
                f"{m.name} stays under {p.topk_chance:.0%} (at most {top:.2%}) at all {v.size} logs "
                f"from epoch {int(at.min())} on"
                + (
                    f", while the loss moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}"
                    if loss is not None
                    else ""
                )
                + ": the classifier is guessing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "max_top5": top,
                "logs": int(v.size),
                "first_epoch": float(at.min()),
                **(
                    {"start_loss": float(y[0]), "end_loss": float(y[-1])}
                    if loss is not None
                    else {}
                ),
            },
            explanation=(
                f"A top-5 accuracy of {p.topk_chance:.0%} is what guessing scores over 100 classes, "
                "and less than guessing over fewer. After 10 or more passes over the data a "
                "classifier that has learned anything puts the true class in its top 5 far more "
                "often; this one still does not, and no loss it logs is falling either."
            ),
            prescription=(
                "Check that the labels match the inputs (and the class count of the head), the "
                "LR (0, or far too low / high), that the parameters being trained are the ones "
                "used for prediction, and that the loss is computed from the model's logits."
            ),
            severity=Severity.WARNING,
        )
    return None


# ROC AUC by any of its usual names (group AUC, AUROC); not a partial AUC (pAUC) or the
# area under a precision-recall curve, whose chance level is the positives' share.
_AUC = re.compile(r"(?:^|[^a-z])(?:g|group_?|roc_?)?(?:auc|auroc)(?:_?roc)?(?:$|[^a-z])")
_NOT_ROC = re.compile(r"pauc|pr_?auc|auc_?pr|auprc|aupr")


def _auc_at_chance(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """Every ROC AUC the run reports (2+ values) within 0.02 of 0.5, at least one of them
    after training began (logged after the first train loss, or a best-of-run result):
    the model ranks a random positive above a random negative no more often than a coin
    (warning). 0.5 is chance whatever the classes' balance, which no other metric offers:
    an accuracy's chance level needs the class shares, an AUC's does not."""
    found = [
        s.finite()
        for name, s in run.series.items()
        if _AUC.search(name.lower()) and not _NOT_ROC.search(name.lower()) and len(s.finite())
    ]
    if not found:
        return None
    vals = np.concatenate([s.values for s in found])
    scale = 100.0 if float(np.max(vals)) > 1.0 else 1.0
    auc = vals / scale
    if auc.size < p.auc_values or float(np.max(np.abs(auc - 0.5))) > p.auc_chance_band:
        return None
    first_loss = float(loss.steps[0]) if loss is not None and len(loss) else None
    trained = any("best" in name.lower() for name in run.series) or (
        first_loss is not None and any(float(s.steps[-1]) > first_loss for s in found)
    )
    if not trained:
        return None  # evals before any update score chance honestly
    names = ", ".join(dict.fromkeys(s.name for s in found))
    return Hit(
        title=(
            f"{names} stays at chance: {fmt(float(auc.min()))}-{fmt(float(auc.max()))} at all "
            f"{auc.size} values reported: the model ranks no better than a coin"
        ),
        step=int(min(s.steps[0] for s in found)),
        end_step=int(max(s.steps[-1] for s in found)),
        evidence={
            "metrics": names,
            "min_auc": float(auc.min()),
            "max_auc": float(auc.max()),
            "values": int(auc.size),
        },
        explanation=(
            "A ROC AUC is the chance that the model scores a random positive above a random "
            "negative: 0.5 is a coin toss, whatever the classes' balance. Every AUC this run "
            "reports is within 0.02 of it after training: its scores carry no information "
            "about the label (a constant prediction, or one learned from the class prior "
            "only, scores exactly 0.5), even where its log-loss fell toward the prior's."
        ),
        prescription=(
            "Check that the features reach the model (a pipeline that feeds zeros or one "
            "column scores 0.5), that the labels line up with the inputs, the LR (0, or far "
            "too high: a model that saturates its outputs predicts one value), and the "
            "embedding / feature sizes against the data."
        ),
        severity=Severity.WARNING,
    )


_OVERLAP = ("dice", "iou", "miou", "map", "f1")


def _overlap_zero_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """An eval overlap metric (Dice, IoU, mAP, F1) exactly 0 at every one of 2+ evals, all
    from epoch 10 on, with a loss that moves under `frozen_max_drop` of its size (warning)."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    y = loss.values if loss is not None else np.empty(0)
    if loss is not None and (
        y.size < 2 or not y[0] or abs(y[0] - y[-1]) / abs(y[0]) >= p.frozen_max_drop
    ):
        return None
    for m, higher in task_metrics(run):
        parts = re.split(r"[_/\-. ]", m.name.lower())
        if not higher or not any(re.sub(r"\d+$", "", x) in _OVERLAP for x in parts):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points or mf.values.any():
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if float(at.min()) < p.topk_late_epoch:
            continue
        moves = (
            f", while the loss moves {fmt(float(y[0]))} -> {fmt(float(y[-1]))}" if y.size else ""
        )
        return Hit(
            title=(
                f"{m.name} is 0 at every one of {len(mf)} evals from epoch {int(at.min())} "
                f"on{moves}: the model finds none of the foreground / positives"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "value": 0.0,
                "evals": len(mf),
                "first_epoch": float(at.min()),
                **({"start_loss": float(y[0]), "end_loss": float(y[-1])} if y.size else {}),
            },
            explanation=(
                f"{m.name} scores the overlap between what the model marks as positive "
                "(foreground, a detection, an entity) and the truth. After 10 or more passes "
                "over the data a model that has learned anything marks some of it right; "
                "exactly 0 at every eval is a model that predicts the background / negative "
                "class for everything, and its loss is not falling either."
            ),
            prescription=(
                "Check that the labels reach the loss (mask values, class indices, the number "
                "of classes of the head), the class balance (a foreground of a few % needs a "
                "Dice or weighted loss), the LR and momentum (nnU-Net lowers a 0.99 momentum "
                "when the Dice stays 0), and that the eval uses the trained weights."
            ),
            severity=Severity.WARNING,
        )
    return None


_ERROR_RATE = ("wer", "cer")


def _error_rate_ceiling_late(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """An eval error rate (WER, CER) exactly at its ceiling, 1.0 (100 when printed in
    percent), at every one of 2+ evals, all from epoch 10 on, with the train loss and the
    eval loss (each when logged) moving under `frozen_max_drop` of their size over those
    evals (warning): the mirror of an overlap metric at 0."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    for m, higher in task_metrics(run):
        parts = re.split(r"[_/\-. ]", m.name.lower())
        if higher or not any(x in _ERROR_RATE for x in parts):
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points:
            continue
        if not (np.all(mf.values == 1.0) or np.all(mf.values == 100.0)):
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        if float(at.min()) < p.topk_late_epoch:
            continue
        moves: list[str] = []
        evidence: dict[str, object] = {
            "metric": m.name,
            "value": float(mf.values[0]),
            "evals": len(mf),
            "first_epoch": float(at.min()),
        }
        still = True
        for name, s in (("loss", loss), ("eval_loss", run.get("eval_loss"))):
            if s is None or not len(sf := s.finite()):
                continue
            inside = (sf.steps >= mf.steps[0]) & (sf.steps <= mf.steps[-1])
            w = sf.values[inside] if inside.sum() >= 2 else sf.values[-2:]
            if w.size < 2 or not w[0] or abs(w[0] - w[-1]) / abs(w[0]) >= p.frozen_max_drop:
                still = False
                break
            moves.append(f"{name} {fmt(float(w[0]))} -> {fmt(float(w[-1]))}")
            evidence[f"{name}_start"], evidence[f"{name}_end"] = float(w[0]), float(w[-1])
        if not still:
            continue
        beside = f", while {', '.join(moves)}" if moves else ""
        return Hit(
            title=(
                f"{m.name} is {fmt(float(mf.values[0]))} (its ceiling) at every one of "
                f"{len(mf)} evals from epoch {int(at.min())} on{beside}: the model transcribes "
                "nothing"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence=evidence,
            explanation=(
                f"{m.name} is the share of words (characters) the model gets wrong; exactly "
                "1.0 is its ceiling for an empty output: a CTC model that emits only the blank "
                "token scores it whatever the audio. Early in training that blank plateau is "
                "normal, but after 10 or more passes over the data a model that learns has left "
                "it, and its loss falls as it does; here neither happened."
            ),
            prescription=(
                "Check the LR and its warmup (a warmup longer than the run never reaches the "
                "peak LR), that the vocabulary / tokenizer matches the labels (no all-<unk> "
                "targets), the audio sampling rate and normalisation, and that the CTC "
                "loss's blank index is the one the head predicts."
            ),
            severity=Severity.WARNING,
        )
    return None


_REGRESSION = ("mae", "mse", "rmse", "mape", "msle")


def _zero_while_flat(run: Run, loss: Series, p: Params) -> Hit | None:
    """A higher-is-better task metric exactly 0 at every one of 3+ logs, all from epoch 3
    on, while the loss over those logs falls under `frozen_max_drop` and stays at or above
    ln 2 (warning)."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    if any(part in _REGRESSION for n in run.series for part in re.split(r"[_/\-. ]", n.lower())):
        return None  # an accuracy next to a regression error is Keras' meaningless one
    for m in run.series.values():
        if kind(m.name) != "task" or direction(m.name) is not True:
            continue
        mf = m.finite()
        if len(mf) < p.overlap_points or mf.values.any():
            continue
        at = np.interp(mf.steps, e.steps, e.values)
        # two logs suffice from epoch 10 on (as for an overlap metric), three from epoch 3
        need = p.overlap_points if float(at.min()) >= p.topk_late_epoch else p.zero_points
        if len(mf) < need or float(at.min()) < p.zero_min_epoch:
            continue
        inside = (loss.steps >= mf.steps[0]) & (loss.steps <= mf.steps[-1])
        w = loss.values[inside]
        if w.size < need or not np.all(w >= p.zero_min_loss):
            continue
        if _other_metric_scores(run, m):
            continue  # another measure of the same model scores: one class's 0 (a rare class)
        k = max(1, w.size // 3)
        first, last = float(np.mean(w[:k])), float(np.mean(w[-k:]))
        if (first - last) / first >= p.frozen_max_drop:
            continue  # the loss falls: the metric may still be on its way up
        at_floor = fl.at_floor(run, "loss")
        if at_floor is not None and at_floor.to_end:
            return None  # at ln(V) / ln(C): uniform-plateau's finding
        return Hit(
            title=(
                f"{m.name} is 0 at every one of {len(mf)} logs from epoch {int(at.min())} on, "
                f"while the loss moves {fmt(float(w[0]))} -> {fmt(float(w[-1]))}: the model "
                "gets nothing right and is not improving"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={
                "metric": m.name,
                "value": 0.0,
                "logs": len(mf),
                "first_epoch": float(at.min()),
                "start_loss": float(w[0]),
                "end_loss": float(w[-1]),
            },
            explanation=(
                f"After two or more passes over the data {m.name} has not scored a single "
                "sample right at any log, and the loss over the same stretch is not falling "
                "(and is too high for a model that gets its samples right). A model that "
                "learns gets some samples right by then, or at least keeps lowering its loss: "
                "this one is stuck (empty or constant outputs: all blank for a CTC head, no box "
                "for a detector, one token for a decoder)."
            ),
            prescription=(
                "Decode a few predictions and compare with the labels (empty? the same for "
                "every input?); check the label encoding and dictionary (class count, blank "
                "index, character set), the LR (0, or far too high / low) and that the loss is "
                "computed from the model's outputs."
            ),
            severity=Severity.WARNING,
        )
    return None


def _other_metric_scores(run: Run, m: Series) -> bool:
    """Another higher-is-better task metric above 0 at some log within `m`'s span: the
    model gets something right (a rare class's F1 or AP at 0 beside an overall mAP)."""
    lo, hi = m.finite().steps[0], m.finite().steps[-1]
    for s in run.series.values():
        if s is m or kind(s.name) != "task" or direction(s.name) is not True:
            continue
        f = s.finite()
        inside = (f.steps >= lo) & (f.steps <= hi)
        if np.any(f.values[inside] > 0):
            return True
    return False


def _other_metric_moves(run: Run, m: Series) -> bool:
    """Another higher-is-better task metric takes 2+ values within `m`'s span: the model's
    predictions change (a rare class's F1 stuck at 0 beside an overall F1 that moves)."""
    lo, hi = m.finite().steps[0], m.finite().steps[-1]
    for s in run.series.values():
        if s is m or kind(s.name) != "task" or direction(s.name) is not True:
            continue
        f = s.finite()
        inside = f.values[(f.steps >= lo) & (f.steps <= hi)]
        if inside.size > 1 and np.ptp(inside) > 0:
            return True
    return False


def _lone_frozen_from_start(run: Run, p: Params) -> Hit | None:
    """No loss: an eval metric identical to 4+ printed digits at every one of its 5+
    evals, the first of them at the run's start (warning)."""
    ep = run.get("epoch")
    ev = run.get("eval_loss")
    moved = ev is not None and len(e := ev.finite().values) >= 2 and e[0] != 0
    if moved and abs(e[0] - e[-1]) / abs(e[0]) >= p.frozen_max_drop:
        return None  # the held-out loss moves: the predictions do change
    for m, _ in task_metrics(run):
        mf = m.finite()
        v = mf.values
        if v.size < p.lone_frozen_evals or not _stuck_values(v, p) or not _digits(float(v[0])):
            continue
        if any(
            kind(s.name) == "task" and s is not m and np.ptp(s.finite().values) > 0
            for s in run.series.values()
            if len(s.finite()) > 1
        ):
            continue  # another metric of the same model moves: its predictions change
        if ep is not None and len(e := ep.finite()):
            start = float(np.interp(mf.steps[0], e.steps, e.values)) <= 1.0
        else:
            start = bool(mf.steps[0] <= np.median(np.diff(mf.steps)))
        if not start:
            continue  # a late window: a converged model on a small eval set can repeat
        value = float(v[0])
        return Hit(
            title=(
                f"{m.name} is {fmt(value)} at every one of {v.size} evals from the first on: "
                "the predictions never change"
            ),
            step=int(mf.steps[0]),
            end_step=int(mf.steps[-1]),
            evidence={"metric": m.name, "value": value, "evals": int(v.size)},
            explanation=(
                f"{m.name} counts the held-out samples the model gets right. It is the same to "
                f"every printed digit at all {v.size} evals, the first one included: the model "
                "scores exactly as it did after its first epoch, on every sample. A model that "
                "learns changes some predictions from one eval to the next; this one answers the "
                "same (most often one class for every input, the metric being that class's share)."
            ),
            prescription=(
                "Log the loss; check the predictions' class distribution, the LR (0, or far too "
                "high / low), the labels, and that the trained parameters are the ones used for "
                "prediction."
            ),
            severity=Severity.WARNING,
        )
    return None


def _frozen_metrics(run: Run, p: Params) -> Hit | None:
    """No loss logged: an eval metric and its train counterpart each identical to the
    printed digit at 4+ logs. Two sets of samples scored the same every time by a
    model whose weights move is not possible: its predictions are frozen."""
    evals = [m for m, _ in task_metrics(run)]
    frozen = [s for s in run.series.values() if kind(s.name) == "task" and _stuck(s, p)]
    ev = next((s for s in frozen if any(s is m for m in evals)), None)
    tr = next((s for s in frozen if not any(s is m for m in evals)), None)
    if ev is not None and tr is None:
        # A train metric is an average over the epoch's batches: its first log holds the
        # untrained model's first steps (MXNet's Train-accuracy 0.509277 at epoch 0, then
        # 0.517578 at every later epoch while the validation accuracy is 0.517578 at all).
        # After that first log it is a measure of the frozen model like the eval metric.
        tr = next(
            (
                s
                for s in run.series.values()
                if kind(s.name) == "task"
                and not any(s is m for m in evals)
                and _stuck_after_first(s, p)
                and _digits(float(s.finite().values[-1]))
            ),
            None,
        )
    moving = any(
        kind(s.name) == "task" and not any(s is m for m in evals) and len(s.finite()) > 1
        for s in run.series.values()
    )
    if ev is not None and tr is None and not moving:
        # no train metric: two eval metrics frozen at the same 4+ evals, one of them to
        # 4+ digits (accuracy and mIoU, kappa), are two measures of one frozen model
        tr = next(
            (
                s
                for s in frozen
                if s is not ev
                and any(s is m for m in evals)
                and np.array_equal(s.finite().steps, ev.finite().steps)
                and (_digits(float(s.finite().values[0])) or _digits(float(ev.finite().values[0])))
            ),
            None,
        )
        if tr is None and _digits(float(ev.finite().values[0])):
            # ... or beside it a higher-is-better eval metric at 0 at those same evals
            # (NER's entity F1, precision and recall 0.0 while the token accuracy is 0.9388
            # every epoch): the frozen predictions never get one positive right. Alone a 0
            # can be a run not yet started; next to a 4-digit twin it is the same model.
            tr = next(
                (
                    m
                    for m, higher in task_metrics(run)
                    if higher
                    and m is not ev
                    and len(v := m.finite().values) >= p.frozen_metric_points
                    and not v.any()
                    and np.array_equal(m.finite().steps, ev.finite().steps)
                ),
                None,
            )
    if ev is None or tr is None:
        return None
    e, t = float(ev.finite().values[0]), float(tr.finite().values[0])
    return Hit(
        title=(
            f"{ev.name} is {fmt(e)} at every one of {len(ev)} evals and {tr.name} {fmt(t)} "
            f"at every one of {len(tr)} logs: the predictions do not change"
        ),
        step=int(min(ev.steps[0], tr.steps[0])),
        end_step=int(max(ev.steps[-1], tr.steps[-1])),
        evidence={"metric": ev.name, "value": e, "evals": len(ev), "train_metric": tr.name},
        explanation=(
            "A model whose weights change scores at least some samples differently from one "
            f"epoch to the next; {ev.name} and {tr.name} both identical to the last digit mean "
            "the predictions are frozen, most often one class for every input (the metric is "
            "then that class's share). The model is not learning the task."
        ),
        prescription=(
            "Log the loss too; check the predictions' class distribution, then the LR (0, or "
            "far too low / high), the labels, and that the trained parameters are the ones "
            "used for prediction."
        ),
        severity=Severity.WARNING,
    )


def _epochs_repeat(run: Run, p: Params) -> Hit | None:
    """No loss: a metric printed at 2+ points of each epoch (a running average reset
    every epoch) whose in-epoch values, at least two distinct ones, repeat exactly in
    3+ consecutive epochs. The batches come in the same order each pass and the model
    scores each the same way: its predictions, so its weights, do not change."""
    ep = run.get("epoch")
    if ep is None:
        return None
    e = ep.finite()
    epoch_at = dict(zip(e.steps.tolist(), e.values.tolist(), strict=True))
    for s in run.series.values():
        if kind(s.name) != "task":
            continue
        f = s.finite()
        groups: dict[float, list[float]] = {}
        for st, v in zip(f.steps.tolist(), f.values.tolist(), strict=True):
            if st not in epoch_at:
                groups = {}
                break
            groups.setdefault(epoch_at[st], []).append(v)
        seqs = [groups[k] for k in sorted(groups)]
        per = max((len(q) for q in seqs), default=0)
        full = [q for q in seqs if len(q) == per]  # the last epoch may be cut short
        if per < 2 or len(full) < p.repeat_epochs or len(set(full[0])) < 2:
            continue
        if not any(_digits(x) for x in full[0]):
            continue  # 0.98, 0.99 at 2 decimals: a converged model can repeat that by chance
        if any(q != full[0] for q in full) or len(full) < len(seqs) - 1:
            continue
        return Hit(
            title=(
                f"{s.name} repeats the same {per} values ({fmt(full[0][0])} ... "
                f"{fmt(full[0][-1])}) at the same points of each of {len(full)} epochs: the "
                "predictions do not change"
            ),
            step=int(f.steps[0]),
            end_step=int(f.steps[-1]),
            evidence={"metric": s.name, "per_epoch": per, "epochs": len(full)},
            explanation=(
                f"{s.name} is a running average over each epoch's batches; it takes the same "
                "values at the same batches pass after pass, so the model classifies every "
                "batch exactly as it did the epoch before. Weights that change alter some "
                "prediction in an epoch; these did not (most often one class for every input)."
            ),
            prescription=(
                "Log the loss; check the predictions' class distribution, the LR, that the "
                "optimizer steps the model that predicts, and the output layer / loss pairing "
                "(a single-unit logistic output scored by an argmax accuracy never moves)."
            ),
            severity=Severity.WARNING,
        )
    return None


def _frozen_evals(run: Run) -> Hit | None:
    """The eval loss and an eval task metric each identical, to 4+ significant digits, at
    2+ evals logged at different steps: two measures of a held-out set that do not move
    at all while steps are taken mean the weights did not change between the evals.
    With no eval loss, the train loss identical to 4+ digits at its 2+ logs and an eval
    metric repeated at 2+ evals among them say the same."""
    ev = run.get("eval_loss")
    # HF's final evaluate() after load_best_model_at_end scores the best checkpoint
    # again, at the last step: two evals of an HF run can repeat by design
    least = 3 if run.fact("trainer") in ("hf", "llamafactory") else 2
    if ev is None:
        # No eval loss: the train loss frozen to 4+ digits at its 2+ logs carries the
        # digits, and the metric need only repeat (0.5000 is printed as 0.5).
        tr = run.get("loss")
        e = tr.finite() if tr is not None else None
        need_digits = False
    else:
        e, need_digits = ev.finite(), True
    if e is None or len(e) < least or np.ptp(e.values) != 0 or e.steps[0] == e.steps[-1]:
        return None
    if not _digits(e.values[0]):
        return None
    which = "eval loss" if ev is not None else "train loss"
    for m, _ in task_metrics(run):
        v = m.finite()
        if len(v) < 2 or np.ptp(v.values) != 0 or (need_digits and not _digits(v.values[0])):
            continue
        if not need_digits and not (v.steps[0] <= e.steps[-1] and v.steps[-1] >= e.steps[0]):
            continue  # the metric's evals must fall among the frozen train logs
        if v.values[0] in (0.0, 1.0, 100.0):
            continue
        loss, metric = float(e.values[0]), float(v.values[0])
        return Hit(
            title=(
                f"{which} {fmt(loss)} and {m.name} {fmt(metric)} are identical at steps "
                f"{int(e.steps[0])} and {int(e.steps[-1])}: the model did not change between them"
            ),
            step=int(e.steps[0]),
            end_step=int(e.steps[-1]),
            evidence={
                ("eval_loss" if ev is not None else "train_loss"): loss,
                "metric": m.name,
                "value": metric,
                "evals": len(e),
            },
            explanation=(
                f"{int(e.steps[-1] - e.steps[0])} steps passed between two evals that agree to "
                "every printed digit on two measures of the held-out set. Weights that change "
                "move an eval loss in its 4th digit; these did not, so no update reached them "
                "(an LR decayed to ~0, frozen parameters, or a skipped optimizer step)."
            ),
            prescription=(
                "Print the LR with enough digits (it may have decayed to ~0), check that the "
                "optimizer steps and that the trained parameters require grad."
            ),
            severity=Severity.WARNING,
        )
    return None


def _digits(x: float, n: int = 4) -> bool:
    """x printed with n+ significant digits (56.168, 35.9623): no coincidence repeats it."""
    text = f"{x:.10g}".lstrip("-0.").replace(".", "")
    return len(text.rstrip("0")) >= n if "e" not in text else False


def _stuck(s: Series, p: Params) -> bool:
    """Identical at 4+ logs, and not at a metric's ends (1.0 / 100 solved, 0 not started)."""
    return _stuck_values(s.finite().values, p)


def _stuck_after_first(s: Series, p: Params) -> bool:
    """Identical at the 4+ logs after its first, which differs (a train metric's first
    epoch average holds the untrained model's batches); not at a metric's ends."""
    v = s.finite().values
    return v.size > p.frozen_metric_points and _stuck_values(v[1:], p) and v[0] != v[1]


def _stuck_values(v: np.ndarray, p: Params) -> bool:
    return v.size >= p.frozen_metric_points and np.ptp(v) == 0 and v[0] not in (0.0, 1.0, 100.0)


def _mostly_down(y: np.ndarray) -> bool:
    """At least two thirds of the consecutive changes are decreases."""
    d = np.diff(y)
    return d.size > 0 and float((d < 0).mean()) >= 2 / 3


def _same_as_peer(f: Series, peer: dict) -> Hit:
    return Hit(
        title=(
            f"Losses are identical to those of {peer['run']} ({peer['points']} points) although "
            f"its LR is {peer['lr']:g} and this run's {peer['lr_here']:g}: the LR has no effect"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={"same_loss_as": peer["run"], "peer_lr": peer["lr"], "lr": peer["lr_here"]},
        explanation=(
            "Two runs on the same data with different learning rates cannot log the same "
            "losses to the last digit unless the optimizer step changes nothing: the "
            "parameters are not the ones the optimizer holds (re-created model, frozen "
            "requires_grad, optimizer built before the model was replaced), or the step is "
            "never taken."
        ),
        prescription=(
            "Print the parameter norm before and after one optimizer step; check that the "
            "optimizer is built from the model that trains and that requires_grad is set; "
            "count the trainable parameters."
        ),
    )


def _all_skipped(run: Run, p: Params) -> Hit | None:
    """Overflow messages with the loss scale already at its floor (DeepSpeed's
    "Attempted loss scale: 1, reducing to 1"): the scaler skips the step and cannot
    go lower, so every step it prints is an update that never happens."""
    floor = [e for e in run.events if e.kind == "fp16-overflow" and e.value is not None]
    floor = [e for e in floor if e.value <= 1.0]
    if len(floor) < p.min_dead_grads:
        return None
    loss = run.get("loss")
    if loss is not None and len(loss.finite()) >= p.min_points:
        return None  # a curve to judge: the curve decides
    first = floor[0]
    return Hit(
        title=(
            f"{len(floor)} fp16 overflows with the loss scale already at its floor "
            f"({first.value:g}): each of those steps is skipped, no update is applied"
        ),
        step=first.step,
        evidence={
            "skipped_at_floor": len(floor),
            "loss_scale": first.value,
            "first_line": first.line,
            "example": first.text[:160],
        },
        explanation=(
            "Each overflow makes the scaler skip the step and halve the scale; at the floor it "
            "cannot halve any more, so every step overflows again and is skipped: the step "
            "counter advances, the weights never change."
        ),
        prescription=(
            "Train in bf16 (or fp32); a model pre-trained in bf16 (T5, many LLMs) overflows "
            "in fp16 whatever the scale. Check the first batch for inf/NaN inputs too."
        ),
    )


def _dead_gradients(run: Run, f: Series, gn: Series) -> Hit:
    prec = advice.precision(run)
    return Hit(
        title=(
            f"The gradient norm is NaN/Inf at every one of {len(gn)} logged steps: no "
            "optimizer step is being applied"
        ),
        step=int(gn.steps[0]),
        end_step=int(gn.steps[-1]),
        evidence={"grad_norm_points": len(gn), "finite_grad_norms": 0, "loss_points": len(f)},
        explanation=(
            "With a non-finite gradient at every step, the fp16 loss scaler skips each update "
            "(the weights never change) or the update writes NaN into the weights; the loss "
            "column can still look finite (HF replaces NaN losses by the window average, and "
            "exact zeros follow an overflow). Either way the run is not learning."
        ),
        prescription=(
            advice.sentence(
                prec and prec + " (a model pre-trained in bf16 overflows in fp16)",
                "check the first batch for inf/NaN inputs and the loss for log(0)",
            )
            + "; then confirm a finite grad norm on the first steps before relaunching."
        ),
    )


def _one_class(run: Run) -> Hit | None:
    """The last printed confusion matrix has every prediction in one column."""
    mats = [e for e in run.events if e.kind in ("one-class-predictions", "confusion-matrix")]
    if not mats or mats[-1].kind != "one-class-predictions" or mats[-1].value is None:
        return None
    e = mats[-1]
    share = float(e.value)
    return Hit(
        title=(
            f"the confusion matrix puts every prediction in one class (line {e.line}): the "
            f"model predicts one class for every input, accuracy = its share {fmt(share)}"
        ),
        step=e.step,
        evidence={"one_class_share": share, "line": e.line, "matrix": e.text},
        explanation=(
            "A confusion matrix's columns count the predicted classes; all samples of 2+ "
            "true classes in one column means the model outputs the same class whatever "
            "the input -- it has learned at most the class prior (the majority class), "
            "not the task."
        ),
        prescription=(
            "Check the labels and class balance (weight or resample the classes), the LR "
            "(0, far too low or too high), that the inputs are normalised and reach the "
            "model, and the software environment (a mismatched CUDA / PyTorch build)."
        ),
    )
