"""no-learning: the loss does not meaningfully decrease (and is not at ln(V))."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import bins, diff_mad, fmt, trend
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, NotJudged, rule, too_few
from traindoc.rules.loss._chance_accuracy import (
    _accuracies_at_prior_late,
    _accuracy_at_chance_throughout,
    _accuracy_at_named_chance,
    _train_no_better_late,
)
from traindoc.rules.loss._chance_error_rate import (
    _error_rate_ceiling_at_end,
    _error_rate_ceiling_late,
    _error_rate_worse_than_empty,
)
from traindoc.rules.loss._chance_majority import _accuracy_at_benchmark_share, _accuracy_at_majority
from traindoc.rules.loss._chance_overlap import _overlap_zero_late
from traindoc.rules.loss._chance_positives import _positives_never_found, _recall_at_floor
from traindoc.rules.loss._chance_ranking import _random_ranking, _ranking_at_loss_chance
from traindoc.rules.loss._chance_scores import _agreement_at_chance, _auc_at_chance, _r2_at_mean
from traindoc.rules.loss._chance_topk import (
    _top1_no_better_than_top5,
    _top5_at_chance,
    _topk_falls_to_zero,
)
from traindoc.rules.loss._chance_zero import _zero_while_flat
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._contrastive import _single_candidate
from traindoc.rules.loss._frozen_predictions import (
    _empty_output,
    _empty_sample,
    _epochs_repeat,
    _eval_loss_frozen,
    _frozen_evals,
    _frozen_metric,
    _frozen_metrics,
    _frozen_while_nonfinite,
    _lone_frozen_from_start,
    _one_class,
    _same_as_peer,
    _still_from_start,
)
from traindoc.rules.loss._no_learning_context import _epochs_covered, _heldout_gained
from traindoc.rules.loss._no_learning_updates import _all_skipped, _dead_gradients
from traindoc.rules.loss._no_learning_window import (
    _mid_run_reason,
    _window_at_chance,
    _window_learns,
)
from traindoc.rules.loss._pinned import _pinned_label_blind
from traindoc.rules.loss._saturated import _saturated_outputs
from traindoc.rules.loss._short_logs import (
    _evals_from_start,
    _mostly_down,
    _never_progressed,
    _no_step_taken,
    _short_verdict,
    _still_across_epochs,
)


@dataclass(frozen=True)
class Params:
    # Fewer points than this cannot separate "flat" from "noisy".
    min_points: int = 10
    # Least relative drop (start -> end) that counts as learning, per regime. From
    # scratch an LM falls far below ln(V) (tens of percent); a fine-tune of a
    # pretrained model still drops several percent; unknown regime: most tolerant.
    min_drop_pretraining: float = 0.10
    min_drop_finetune: float = 0.03
    # A held-out task metric 10%+ better (relative) at the median of its last third than
    # at its first of 3+ evals is a model that learns, whatever the loss's relative fall
    # (a WER 20.9 -> 15.9 under a loss total with a constant term): info, not a finding.
    heldout_evals: int = 3
    heldout_gain: float = 0.10
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
    # 2-9 such epoch means: none 2% below the first (the untrained model's mean) - and
    # none more than 20% above it, a climb being divergence's - with, for 2-3 of them, the
    # eval loss at 2+ evals not falling either: two curves agree that the first epochs
    # taught nothing; 4+ means are that many passes agreeing on their own (a noisy log
    # that wobbles by more than 2% but never gets below its first epoch).
    epoch_rise: float = 0.2
    # 2-9 losses a whole epoch or more apart (first to last), all within 0.1% of their
    # median, printed finely enough to show 0.1%: over a pass through the data a model
    # whose weights change moves its loss by more than that, late in a run too (epoch
    # means of converged healthy runs move 0.2-3%; frozen ones 0.005-0.08%). Anywhere in
    # the run: a late window that does not move is as frozen as an early one. Not a
    # negated overlap score (a dice loss) at -0.9 or lower: the model fits its task
    # (epoch_fitted), and at -0.995 the bound -1 leaves it almost no room to move.
    still_epochs: float = 1.0
    still_spread: float = 0.001
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
    # No epoch logged (an iteration count only): a train error rate (WER, CER) above 100%
    # at every one of 4+ logs from update 1000 on, not falling over them, with every eval
    # error rate at or above 100% at 2+ evals in that span. Above 100% is more edits than
    # the reference has characters (words): worse than an empty output, which scores 100%
    # exactly (the CTC blank plateau, normal for the first thousands of updates). A model
    # emits such garbage only at its very start, and falls back under 100% as it learns
    # (tesstrain #51's own run: 180% at iteration 2400 -> 104% at 2800); one that is
    # still above it and not falling after 1000+ updates gets nothing right.
    ceiling_min_step: float = 1000.0
    ceiling_train_points: int = 4
    # An eval error rate within 1% under and 5% over its ceiling 1.0 at every one of 2+
    # evals, the last of them the run's last (the next eval would fall past the planned
    # end): at most 1 word in 100 right, a few insertions at most - the empty or blank-only
    # transcript. Far above 1 is a decoder emitting wrong words, another state.
    ceiling_below: float = 0.01
    ceiling_above: float = 0.05
    # A train metric printed several times an epoch (a running average reset each
    # epoch) whose in-epoch sequence is identical, value for value, in this many
    # consecutive epochs: the model scores every batch the same way every pass.
    repeat_epochs: int = 3
    # A higher-is-better task metric (sequence accuracy, BLEU, mAP, ...) exactly 0 at every
    # one of 3+ logs, the last from epoch 3 on (two full passes over the data whether the
    # count starts at 0 or 1; zeros before it only add that it never scored), while the loss over the same logs falls under `frozen_max_drop`
    # and stays at or above ln 2 (a classifier that gets every sample wrong has a
    # cross-entropy of at least ln 2 on each: a lower loss beside an accuracy of 0 is not
    # the loss that accuracy scores, e.g. Keras' accuracy of a regression).
    zero_points: int = 3
    zero_min_epoch: float = 3.0
    # ... or, inside a first epoch too long for that (ArcFace on MS1M: epoch 0 at update
    # 7880), every log from update 5000 on with the loss over them within `flat_spread`
    # (0.5%) of its median: five thousand updates give any model that learns some right
    # answers, and a loss that still over a stretch (42.01-42.03) is no slow descent that a
    # sequence metric waits on.
    zero_min_update: float = 5000.0
    # An accuracy 0 or 1/n at each of those logs, one n of 64+, counts as 0: one sample of
    # a batch of 64 or more right at most (Caffe's per-batch accuracy 0, 1/128, 1/128 at
    # iterations 3860-3900, the loss 8.85-8.93) is a model that gets nothing right.
    one_hit_min_batch: int = 64
    # A train accuracy no higher than a held-out one (+0.01) and both under 0.5, medians
    # of their last 3 logs, all from epoch 50 on: after fifty passes a model that learned
    # anything fits its own samples better than unseen ones (a Keras GCN at epochs
    # 497-499: train 0.30, test 0.297). A healthy run with heavy augmentation (mixup) can
    # score its train batches under its held-out set, but the held-out one is then high.
    fit_points: int = 3
    fit_epochs: float = 50.0
    fit_margin: float = 0.01
    fit_ceiling: float = 0.5
    # Two positive-class scores (precision, recall, F1, mAP) at 0 at the same 3+ logs from
    # epoch 1, none above 0 anywhere; 2 logs settle it when the zeros score the training
    # and a held-out set alike: each log is then two sets of samples on which the model
    # finds no positive, four measurements in all.
    positives_both_points: int = 2
    # Every recall / F1 of the run at or under 0.1% (of its scale) at each of 2+ evals, the
    # first from epoch 2 on and the last a whole epoch after it (two full passes before it
    # whether the count starts at 0 or 1): the model finds under 1 positive in 1000.
    recall_floor: float = 0.001
    recall_min_epoch: float = 2.0
    zero_min_loss: float = math.log(2)
    # An eval loss identical, to 4+ digits as the log prints them (the train loss's decimals:
    # one logger prints both), at every one of 5+ evals while the train loss over them
    # moves 3%+ (medians of its first and last thirds): the updates change the weights, so
    # a held-out average that does not move at all means the outputs are a constant
    # (FaceNet's triplet val_loss at its margin, 0.2000, for 7 epochs while the train loss
    # fell 0.1927 -> 0.1775). A train loss that sits still too is an LR at ~0: not read here.
    frozen_move: float = 0.03
    # No loss logged: an eval metric identical, to 4+ printed digits, at every one of 5+
    # evals from the run's first eval on (its first eval at epoch <= 1 or within one eval
    # interval of step 0): the model's held-out predictions never changed after the start.
    lone_frozen_evals: int = 5
    # No loss logged: a train and a held-out metric that each change by at most 0.1% of
    # their headroom (the distance to the metric's nearer end: an error rate of 0.0272
    # has 0.0272 left to gain) over 8+ logs from the first: XGBoost's test-error
    # 0.027200 -> 0.027195 over ten rounds. A booster's early rounds, or a network's
    # early epochs, change at least a few percent of the errors left.
    still_points: int = 8
    still_share: float = 1e-3
    # A ROC AUC (a ranking metric whose chance level is 0.5 whatever the class balance)
    # within 0.02 of 0.5 at every one of its 2+ values in the log (evals, or a validation
    # and a test result): the model's scores order positives and negatives at random. The
    # same band and count read a kappa / MCC at 0 and a regression's R^2 at 0 (the mean
    # predictor's, whatever the targets' scale).
    auc_points: int = 2
    auc_band: float = 0.02
    # A top-1 accuracy at most a fifth of the top-5 logged at the same evals, at every one
    # of 3+ evals from epoch 1 on: a ranking that ignores the input scores 1/C and 5/C, a
    # fifth whatever C; the first epoch's evals may honestly sit there.
    top1_points: int = 3
    top1_min_epoch: float = 1.0
    # A top-1 accuracy equal to its top-k over k (within 10%: a guess's binomial scatter
    # over a few hundred hits) at 2+ (eval, cutoff) pairs past the first pass, none in the
    # log above it: two predictions of a random ranking hold (one eval at two cutoffs, or
    # two evals), where a model that learned anything has a top-1 far above top-k / k.
    ranking_tol: float = 0.1
    ranking_pairs: int = 2
    # A top-k (k 2+) within 30% of k/C for the C = e^L its eval's cross-entropy names, at
    # every eval past the first pass, the loss not falling 10% over them: the loss and the
    # ranking agree on a uniform guess (30%: a head that names one class scores that
    # class's share, which a real label set keeps within a third of 1/C).
    loss_ranking_tol: float = 0.3
    # A train and a held-out accuracy both at 1/C (C = 2-20; each's median within 0.01 of
    # it, the precision at which an accuracy names C) at every log from epoch 10 on, 3+
    # logs in all: two measures agree that the model still guesses after 10 passes.
    chance_agree: float = 0.01
    # A top-1 accuracy (train or held-out) at 1/C for the run's known C (its num_classes,
    # or the class count of the standard dataset it names: model/datasets.py), median
    # within min(0.01, 0.5/C) of 1/C over its logs from epoch 3 on (two full passes
    # whichever way epochs count; no epoch logged: from update 1000), 3+ such logs with
    # the last third no higher, no loss falling `frozen_max_drop` over them: the model
    # still guesses uniformly (or names one class) after passes over its data.
    named_chance_epoch: float = 3.0
    # Every top-1 accuracy log from epoch 2 on (a full pass behind it whether the count
    # starts at 0 or 1; no epoch: update 1000), 3+ logs, within min(0.01, 0.5/C) of 1/C
    # (C known, or the small C a train and a held-out accuracy agree on), no loss falling
    # 10%: not one log after a full pass is above a guess. Per log, not a median: a model
    # that starts to learn is above the band at some log.
    chance_min_epoch: float = 2.0
    # ... or, with 6+ logs of one accuracy (enough for thirds), the median of each third
    # within that band and every log within 5 times the logs' own point-to-point scatter:
    # a finite eval set scatters a guess's accuracy by sqrt(p (1 - p) / N) (0.016 at 0.5
    # over 1000 samples), so a long log of a model that guesses has a few logs past 0.01,
    # while a model that starts to learn lifts a whole third above the band (5 sigma: a
    # guess logged 3000 times passes it at one log in some 300 such runs).
    chance_long_points: int = 6
    chance_z: float = 5.0
    named_chance_step: float = 1000.0
    named_chance_points: int = 3
    # A loss equal to a framework's clamp times the error rate, loss = K (1 - accuracy)
    # (K = -ln 1e-7 = 16.1181 in Keras / TF, 15.9424 at its float32 upper clip, -ln FLT_MIN
    # = 87.3365 in Caffe, 100 in PyTorch's BCELoss), within 0.05% of K (1 - acc), at each
    # of the last 2+ logs where a loss and an accuracy are printed together: every output is
    # pinned at the clip (measure/saturation.py). A model that weighs its input lands on
    # that line by coincidence at one log (a few in a thousand at this tolerance), at two
    # different sets of batches practically never.
    saturated_points: int = 2
    saturated_tol: float = 5e-4
    # The train and the held-out loss both NaN / Inf at every one of their 2+ logs: the
    # model computes no number from its first log on, so its predictions are fixed and
    # an eval metric identical at 2+ evals is their consequence, not a coincidence.
    nonfinite_both_points: int = 2
    # A late window of a run (its start not in the log) is judged only at a known chance
    # level: 10+ losses whose median, give or take 2 standard errors (1.25 sigma /
    # sqrt(n)), and the medians of each third of the window all lie in the band of ln C
    # for the count the run states (uniform-plateau's band). Whatever the loss did
    # before, a model at ln C now guesses; a window that is merely flat may have
    # converged, and one a third of which leaves the band is on its way somewhere.
    window_parts: int = 3
    window_z: float = 2.0
    # A loss whose last 30% of logs (5+) all lie within 0.1% of a label-blind level
    # (measure/floor.py: 0.25 and 0.5, the squared and absolute error of an output of 0.5
    # on 0/1 targets), printed to that precision: at that output every batch scores the
    # level exactly, whatever its labels, so the scatter of a model that weighs its input
    # (1-10% per batch; a full-batch descent keeps moving) is gone. 0.1% is the 4th
    # significant digit; 30% of the run is its later part, not a value passed through.
    pinned_points: int = 5
    pinned_share: float = 0.3
    pinned_tol: float = 1e-3
    # A short log of epoch means from the first epoch whose means after the first (3+)
    # print one value, the print resolving 0.5% of it: early in a run a model that learns
    # lowers its epoch mean by more than that over three passes (`epoch_spread` asks 2%
    # of four means with the first; this asks a quarter of it of the means after it).
    same_points: int = 3
    same_resolution: float = 0.005
    # An eval accuracy beside its precision and recall, one eval of which is a one-class
    # model's (recall 1 with precision = accuracy, or recall and precision 0: to 1e-4, the
    # printed digits of such scores), at 3+ evals the last from epoch 2: none of them more
    # than 0.02 (a quarter of the errors left, when fewer) above that eval's accuracy, the
    # majority class's share. 0.02 is at_chance's margin for a finite eval set's scatter.
    # With 1-2 evals, each must itself be a one-class model's, past epoch 2 by a printed
    # epoch: the signature is exact (to the printed digits), so every eval of the log names
    # one class past two passes; a fresh head's first eval names one class in healthy runs.
    majority_points: int = 3
    majority_tie: float = 1e-4
    majority_margin: float = 0.02
    # A held-out accuracy equal, to 5+ printed decimals, to one class's share of a known
    # benchmark eval set (SST-2 dev: 444 / 872 = 0.50917) at every eval, one eval enough:
    # the model names that class for every sample. 5 decimals: some 25 known shares, each
    # hit by chance once in 10^5, so a model that weighs its input practically never does.
    share_decimals: int = 5


@rule(
    "no-learning",
    minimum="10 logged losses from the run's start, or 10+ of a late window at ln C of a stated count throughout (with fewer: 2+ not falling beside an LR at 0 at every log; 4+ from the start all within 0.5%, 4+ epoch means from the first within 2% or none 2% below the first (2-3 none below the first, with the eval loss not falling), 3+ after the first within 1% with 3+ evals within 1%, a grad norm NaN at 3+ logs, an eval metric frozen at 4+ evals or at its step-0 value, or losses identical to a run at another LR; no loss: eval and train metric frozen at 4+ logs (the train one may differ at its first), a metric's in-epoch values repeated in 3+ epochs, two eval metrics frozen at 4+ evals, or a top-5 under chance from epoch 10; any log: a top-1 at most a fifth of its top-5 at 3+ evals from epoch 1; any log: a top-1 within 10% of its top-k / k at 2+ (eval, cutoff) pairs from epoch 1 (no epoch: update 1000; a printout with no step: its one eval), none above it, no loss falling 10%; an overlap metric (Dice, IoU, mAP, F1) at 0 or under 0.1% at every eval, 2+ from epoch 3 on, the last from epoch 10, with the train or eval loss moving under 10%; the last decoded sample empty beside a non-empty reference at epoch 10+ (1 sample); an error rate (WER, CER) at 1.0 at every eval, 2+ from epoch 3 on, the last from epoch 10, with the train and eval loss moving under 10% (no epoch: a train error rate above 100 at 4+ logs from update 1000, not falling, eval error rates at or above 100 at 2+ evals; any log: an error rate within 0.99-1.05 at every one of 2+ evals, the last the run's last by its planned epochs or steps); two positive-class scores (precision, recall, F1, mAP) at 0 at the same 3+ logs from epoch 1 (2+ when train and held-out scores are both at 0), none above 0 anywhere; every recall / F1 at or under 0.1% at 2+ evals from epoch 2 spanning a whole epoch, no mAP above it; an in-batch contrastive loss at 0 with a batch of one (1 log); any higher-is-better metric at 0 at 3+ logs, the last from epoch 3 (2+ from epoch 10; no epoch logged: 3+ from update 1000) with a loss over them falling under 10% and at or above ln 2, no other metric above 0; no loss: an eval metric identical at 5+ evals from the first; any log: every ROC AUC within 0.02 of 0.5, 2+ values; any log: every kappa / MCC within 0.02 of 0, 2+ values, beside an eval metric above 0; any log: every R^2 within 0.02 of 0, 2+ values, the last from epoch 1; any log: a train and a held-out accuracy both at 1/C (C = 2-20, medians within 0.01) from epoch 10, 3+ logs, no loss falling 10%; any log: an accuracy at 1/C for the C the run states or its dataset's name gives (median within min(0.01, 0.5/C)) at 3+ logs from epoch 3 (no epoch: from update 1000), the last third no higher, no loss falling 10%; any log: every top-1 accuracy within min(0.01, 0.5/C) of 1/C (C known, or the C 2-20 a train and a held-out accuracy, or an accuracy and a loss at ln C, agree on; 6+ logs: each third's median within it, every log within 5 sigma of the logs' scatter) at 3+ logs from epoch 2 (no epoch: from update 1000), no loss falling 10%; any log: the eval loss (else the train loss) NaN / Inf at every one of 4+ logs with an eval metric identical at 4+ evals; any log: 2+ losses a whole epoch or more apart all within 0.1%; any log: the eval loss identical to 4+ printed digits at 5+ evals while the train loss over them moves 3%+; any log: a last WER breakdown with every reference word deleted, none inserted; any log: a loss equal to a clamp (-ln 1e-7, -ln FLT_MIN, 100) times (1 - accuracy) at the last 2+ logs; train and eval loss NaN at every one of 2+ logs with an eval metric identical at 2+ evals; any log: the last 30% of train (else eval) losses (5+) within 0.1% of 0.25 or 0.5; epoch means after the first (3+) printing one value to 0.5%; an accuracy never 0.02 above the majority share a one-class eval (recall 1 = precision / accuracy, F1 = 2a/(1+a), recall 0) gives, 3+ evals to epoch 2 (1-2 evals: each one-class, each past a printed epoch 2); any log: every held-out accuracy (1+ evals) one class's share of a known benchmark eval set to 5+ printed decimals)",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=(
        "loss|event:fp16-overflow|event:one-class-predictions|event:empty-output"
        "|event:empty-prediction|kind:task",
    ),
    uses=("lr", "grad_norm"),
    core=True,
    reads=("eval-stagnation", "schedule-not-applied", "uniform-plateau"),
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
    LoRA 3%, unknown 2%). A flat curve *at* ln(V) is `uniform-plateau`'s (so is a
    train loss that merely hovers about ln C beside an eval loss that rule finds at the
    floor: one diagnosis, the more specific one), a rising one `divergence`'s. A run under 100 steps whose loss descends beyond its
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
    pretrained model already fitting its data). With only 2-3 such epoch means, none
    2% below the first (and none 20% above it: a climb is divergence's) while the eval
    loss at 2+ evals does not fall 2% below its first either: two curves agree that the
    first epochs taught nothing (DeepSpeech: train CTC 223.1 -> 225.0, val 188.4 ->
    209.5 over epochs 0-1; warning, same task-metric exception). With 4-9 such means the
    train curve alone says it, however they wobble: that many passes and not one of them
    2% below the first. Also a warning: the
    losses after the first (3+; the first may average the first descent) within 1% of
    each other with the eval loss within 1% at 3+ evals: after the first log neither
    curve moves.

    However short the log and wherever in the run it lies, 2+ losses whose first and
    last are a whole epoch or more apart (by the logged epoch) and all within 0.1% of
    their median also settle it (warning): between them the model took a full pass of
    updates over its data, and a model whose weights change moves its loss by more than
    0.1% over a pass, late in training too (epoch means of converged healthy runs drift
    0.2-3% from one epoch to the next; those of frozen runs 0.005-0.08%: a flair tagger
    at 15.2876 -> 15.2855 with a dev score of 0, a Keras retrieval model at 1059.92 ->
    1059.88 with every top-k accuracy 0). Only when the printed digits can show a 0.1%
    move (0.0266 cannot), the loss is not at the uniform floor (uniform-plateau's), and
    no task metric reaches 90% (a model that fits its data may sit still), nor does the
    loss itself as a negated overlap score: a dice / IoU / cosine loss in [-1, 0) at -0.9
    or lower fits its task, and at -0.995 its bound -1 leaves it almost no room to move.
    Two losses within 0.1% inside one epoch say nothing: running means late in an epoch
    barely move by construction.

    A decoded sample printed beside its reference (`Prediction: ""` then `Truth: "that's it
    on your account"`: kur, DeepSpeech and seq2seq loops print one per epoch) whose
    prediction is empty while the reference is not, the last such sample of the log and at
    epoch 10 or later, settles it from one sample (warning): after ten passes a sequence
    model that learned anything emits some tokens, right or wrong, and an empty output is
    the blank / end-of-sequence token winning everywhere (kur's DeepSpeech at epoch 88 under
    Keras 2, validation loss 372). An empty sample early (the CTC blank plateau of the first
    epochs) or one followed by a non-empty sample is not read.

    An in-batch contrastive loss (a CLIP-style run: it logs its learned `logit_scale`, an
    image-to-text / text-to-image accuracy, or a loss named contrastive / InfoNCE) that
    prints 0 at every log while the log says each step sees one sample (a batch-size
    column at 1 at every log, or an effective batch of 1) settles it from one log
    (warning): the other samples of a batch are a contrastive loss's negatives, so with
    one sample the softmax has a single candidate, probability 1, cross-entropy 0 and
    gradient 0 whatever the weights, and the in-batch accuracies read 100% (Chinese-CLIP
    at "Loss: 0.000000 | Image2Text Acc: 100.00 | ... | Global Batch Size: 1"). A
    contrastive loss above 0, or a batch of 2+, is left to the other readings.

    A gradient norm that is NaN/Inf at every one of 3+ logged steps also settles
    it, however short the log: each step was skipped by the loss scaler, or wrote
    NaN into the weights; either way nothing is learned. So do 3+ fp16 overflow
    messages with the loss scale at its floor and no loss curve to judge: the scale
    repeats from one message to the next (it cannot go lower: DeepSpeed's "reducing
    to 1") or is cut below fp16's smallest value, 2^-24 (no scale makes the step
    finite). A scale still being halved above that (apex walking 1 -> 0.5 -> 0.25 for
    a summed loss, then training on) is the scaler calibrating: it skips the steps of
    its search, not every step.

    A logged LR of 0 at every log, as `schedule-not-applied` finds it (printed finely
    enough to show a real LR, and either early in the run's plan or at full float
    precision), beside 2-9 losses that do not fall (neither the last nor the median after
    the first 2% under the first) also settles it however short the log and wherever it starts
    (warning): an optimizer step moves a weight by the LR times its update, so at 0 no
    weight changes, and the loss agrees (PaddleOCR distillation at `lr: 0.000000` in
    epoch 1 of 500, loss 1627.3 -> 1625.4 over three logs, accuracy 0). A loss that falls
    beside an LR logged at 0 is a model trained by another parameter group than the one
    logged: not read this way.

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

    A top-1 accuracy at most a fifth of the top-5 logged at the same evals, at every one
    of 3+ evals from epoch 1 on, settles it however short the log (warning), without a
    class count: a ranking that ignores the input puts the true class first 1 time in C
    and in its top five 5 times in C, so its top-1 is a fifth of its top-5 whatever C is,
    while a classifier that learned anything ranks the true class first far more often
    than among its next four (ImageNet after one epoch: top-1 ~15%, top-5 ~35%). Below a
    fifth is a first choice worse than that guess: usually one class predicted for every
    input (an mmcls ResNet on 6 classes at top-1 8.82% and top-5 94-100% at epochs 32-43).
    The first epoch's evals are not read (an untrained model sits there by design), nor a
    pair printed one in percent and the other as a fraction.

    The same ranking read at any cutoff k: a top-1 accuracy equal, within 10%, to its
    top-k divided by k at 2+ (eval, cutoff) pairs past the first pass (epoch 1; no epoch:
    update 1000; an eval printout with no step count: its one eval), with no eval anywhere
    in the log whose top-1 beats top-k / k by more, settles it however short the log
    (warning): two predictions of a random ranking hold, at two cutoffs of one eval or at
    two evals. A top-k of 1.0 counts when the top-1 is within 10% of 1/k (every label in
    the top k: C <= k, so 1/k is chance or below). MXNet's MNIST example at batch size 1:
    `Validation-accuracy=0.0974`, top-5 0.4832 (5 x 0.0966), top-10 1.0 at epoch 9;
    TF-slim AlexNet after 200k steps: accuracy 0.001, recall_3/4/5 0.003/0.004/0.005. A
    top-1 well under top-k / k is not read this way (a first choice worse than a guess
    is the rule above's, at 3+ evals), nor a retrieval's recall@1 beside its recall@k (a
    perfect ranking of k+ relevant items scores 1 : k), nor a loss falling 10% over the
    evals read (a slow start on its way up).

    An eval overlap metric (Dice, IoU, mAP, F1: what they score is the positives or the
    foreground found) at its floor, 0 or at most 0.1% of its scale (0.001 as a fraction,
    0.1 in percent: digits at or under 0.001 are under 0.1% whichever way they are read),
    at every one of 2+ evals, all from epoch 10 on, while the train loss or the eval loss
    beside the metric moves under 10% of its size (or no loss is logged), settles it the
    same way (warning): after 10 passes over the data a model that learned anything marks
    some of the foreground right, so 0 to the printed digit is a model predicting background
    everywhere (nnU-Net at epochs 99 and 100: 'Average global foreground Dice: [0.0]',
    its own check then blaming a 0.99 momentum), and a few boxes in ten thousand are luck
    (a YOLOv8 built from scratch: mAP50-95 0.00009-0.00012 at all 10 evals). The eval loss
    counts as the metric's companion because a detector's train total holds a class term
    that falls to the class prior while the boxes learn nothing (that YOLOv8: train loss
    15.9 -> 13.2, eval loss 13.3 -> 12.2, box loss rising). Earlier epochs can honestly
    score 0 (a detector's first epochs; a scratch detector under 0.1% for five epochs that
    then climbs is not read, as every eval must sit at the floor), and a plain accuracy is
    not read this way (Keras prints a meaningless 0 `acc` for a regression). The scores are
    known by any framework's spelling (Ultralytics' `metrics/mAP50(B)`, detectron2's
    `bbox/AP50`, mmseg's `mDice`, Keras' `val_mean_io_u`, `mAP@0.5`, an F1); one class's
    score at the floor beside another overlap score above it (a rare entity type's F1 at 0
    while the overall F1 is 0.71) is a model that finds the rest, not read.

    The same floors read over a longer stay: an overlap metric at 0, or an error rate at its
    ceiling, at every eval from epoch 3 (two full passes) through epoch 10 or later, with
    the same loss conditions, settles it as well: the model sat at the floor for 7+ passes
    (a fairseq wav2vec2 fine-tune: valid_wer 100 at epochs 4, 7 and 10, eval loss 898 ->
    885). Evals before epoch 3 at the same floor do not excuse the later ones (a detector
    at mAP 0 at every eval from epoch 1 to 12): 2+ evals from epoch 3 on, the last from
    epoch 10 on, every eval of the metric at the floor. Evals that all end before epoch 10 are not read this way (a CTC head's blank
    plateau can last into the first epochs).

    Two or more positive-class scores (precision, recall, F1, mAP: two different measures,
    not two spellings of one) each exactly 0 at every one of the same 3+ logs, all after the
    first epoch, with no positive-class score of the run above 0 at any log, settle it
    whatever the loss does (warning): each is 0 only when not one prediction is a true
    positive, so the model predicts the negative class (the 'O' tag, background, no label)
    for everything; a loss that falls beside it is the model fitting that majority class
    (an ERNIE NER run: precision, recall, F1 0 at 6 logs of epoch 6, loss 0.27 -> 0.07; a
    distilbert token classifier: all three 0 at 5 evals, token accuracy 0.660 -> 0.663). A
    plain accuracy beside them does not count as finding positives (it scores the negatives
    a do-nothing model gets right). One rare class's scores at 0 beside others that score
    is no finding, nor are logs inside the first pass, nor a single score. Two logs are
    enough when the zeros score the training set and a held-out set alike: each log is then
    two sets of samples on which the model finds nothing (NeuralClassifier with an empty
    token dictionary: train, validate and test precision, recall and F-score all 0 at epochs
    1 and 2).
    Every recall and F1 the run logs at or under 0.1% of its scale (a few lucky positives,
    not exactly 0) at each of 2+ evals, the first from epoch 2 on and the last a whole
    epoch after it, settles it too (warning), with no mAP / AP above that floor (a detector
    whose boxes score finds positives) and the warmup over: recall is the share of the true
    positives found, F1 at most twice it, and after two full passes a model that learned
    anything of the task finds far more than 1 in 1000 (an NCRF++ CoNLL-2003 tagger at
    dev recall 0.0002 at epochs 2 and 3, F1 0.0003, precision 0.17 on its handful of
    entities). Evals inside the first two epochs are not read so (a detector's warmup),
    nor a ranking's recall@K (a recommender's floor is K over a catalog the log does not
    give), nor a score printed at or under 1 that could be a percent (0.05 is read as 5%).

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
    Read at the run's end, the ceiling is the outcome instead: an eval error rate within
    1% under and 5% over 1.0 (at most 1 word in 100 right, a few insertions at most) at
    every one of 2+ evals, the last of them the run's last eval (the next, one eval
    interval on, would fall past the planned end: `num_train_epochs` against the logged
    epoch, or `max_steps`, or the last step of a log that records its end), settles it
    whatever the loss did (warning): the run produced a model that transcribes nothing. A
    CTC loss falls a long way on the blank plateau (a wav2vec2 card: train loss 13.2 ->
    3.1, eval loss 4.01 -> 2.96, WER 1.0, 1.0, 1.0059 at epochs 1.47-4.41 of 5; another
    WER 1.0 -> 0.9999 at epochs 7.14 and 14.29 of 15), so a falling loss does not say
    otherwise there. Not a log whose next eval would still fall inside the plan (an
    excerpt, or a run stopped early: its model may yet leave the plateau), nor a WER well
    above 1 (a decoder emitting wrong words, 1.13 -> 1.01), nor a single eval, nor
    a run whose train or eval loss ends under ln 2 (a model that gets its words right: a
    WER of ~1 there is 1% in percent).
    With no epoch logged (an iteration count only), a train error rate *above* 100% (more
    edits than the reference has characters: worse than an empty output) at every one of
    4+ logs from update 1000 on, not falling over them (its last third no lower than its
    first), with every eval error rate at or above 100 at 2+ evals in that span and no
    loss falling 10% there, settles it too (warning): garbage above 100% belongs to a
    recogniser's very start and gives way as it learns (tesstrain from scratch: char train
    180% -> 104% over iterations 2400-2800 of one run, 101-103% and rising at 6200-6700 of
    another whose every eval WER is 100). Exactly 100% is the empty-output plateau, which
    can last thousands of updates in a healthy run: not this statement.

    Any higher-is-better task metric (a recogniser's sequence accuracy, BLEU, mAP, a
    train-side `acc`) exactly 0 at every one of 3+ logs, the last from epoch 3 on (2+ logs
    when all are from epoch 10 on, as for an overlap metric), while the loss over the same logs falls under
    10% and stays at or above ln 2 and no other higher-is-better metric of the run scores
    above 0 over them (a rare class's F1 or AP at 0 beside an overall mAP is no model that
    gets nothing right), settles it however short or late the window (warning): a CTC
    captcha model at epochs 130-131 with accuracy 0.000 and a cost of 21.9. Epoch 3 means two full passes over the data whether
    the count starts at 0 or 1: a model's first pass can honestly score 0 (ArcFace's first
    steps, a CTC head on its blank plateau), but after two passes a model that learns gets
    some samples right or at least keeps lowering its loss; this one does neither (a
    PaddleOCR handwriting run at epoch 3: acc 0.000000 and norm_edit_dis 0.000000 at six
    logs, CTC loss 115-117). Zeros at the epochs before the third are no excuse for the
    later ones: they only add that the model never scored, and the loss over all of them
    must still not fall (a lip-reading model at v_acc 0.00000 at five test passes from
    epoch 0 to 3, its cross-entropy above ln 500 throughout). The ln 2 floor is what a classifier scores when it gets a sample
    wrong (the true class is not the argmax, so its probability is at most 1/2): a mean loss
    under it beside an accuracy of 0 means the accuracy is not what the loss trains (Keras'
    accuracy of a regression, 0 beside an MSE of 0.02), and a log with a regression error
    column (mae, mse) is not read this way at all. A log with no epoch column measures the
    same span in optimizer updates: 3+ logs all from update 1000 on (the bar the error-rate
    ceiling uses; a printed step, not a line count), a thousand updates being more than a
    model that learns needs to get some samples right (an NMT run at steps 6100-6900: BLEU
    0.00 at every log, its loss 34-37 and not falling, every output the same word). Inside
    a first epoch too long to reach epoch 3 (a face-recognition set of millions of images:
    epoch 0 at update 7880), 3+ logs all from update 5000 on count the same when the loss
    over them also lies within 0.5% of its median: five thousand updates are ample to get
    some samples right, and a loss that still is no slow descent a sequence metric waits on
    (an ArcFace run at updates 7880-7980 of epoch 0: acc 0 at six logs, loss 42.01-42.03,
    its verification accuracies 0.50). An accuracy 0 or 1/n at each of those logs, for one
    n of 64 or more, counts as 0: one sample of a batch of 64+ right at most is a model
    that gets nothing right, whatever a lucky guess may score (Caffe at iterations
    3860-3900: per-batch accuracy 0, 1/128, 1/128, the loss 8.85-8.93).

    A top-1 train accuracy no higher than a held-out one (+0.01), both under 0.5 (medians
    of their last 3 logs, all from epoch 50 on), with no loss falling 10% over them,
    settles it too (warning): after fifty passes a model that learned anything fits the
    samples it trains on better than unseen ones, and one scoring both alike and low has
    learned the class prior at most (a Keras GCN at epochs 497-499: train 0.30, test
    0.297). Heavy augmentation (mixup) can put a healthy run's train metric under its
    held-out one, but the held-out one is then high, not under 0.5.

    A top-1 accuracy and its top-k (k 2+) each exactly 0 at their last 3+ logs, after a log
    under 1% that counts 2+ right answers as printed (0.002266 is no 1/n, so an average over
    hundreds of samples, not one batch's lucky pick), with no loss falling 10% over the
    zeros, settle it however early (warning): a model guessing among any number of classes
    keeps scoring what it scored, and a top-k of exactly 0 over hundreds of samples is below
    any guess: NaN outputs, or labels outside the head's range (an 8-GPU MXNet ImageNet run:
    Train-accuracy 0.002266 and top-5 0.003281 at batch 50, 0.000000 at every later log).
    Per-batch zeros from the first log (a fresh 1000-class model's batch of 32) fall from
    nothing and are not read.

    With no loss logged, a train and a held-out metric that each move by at most 0.1% of
    their headroom (the distance from their median to the metric's nearer end) over 8+ logs
    from the run's first (epoch <= 1, or within one log interval of step 0) settle it too
    (warning): printed to digits that do change, yet neither moves, so the updates after the
    first leave the predictions where they were (XGBoost's test-error 0.027200 -> 0.027195
    and train-error 0.010228 -> 0.010231 over its first ten rounds). Early rounds of a
    booster, or early epochs of a network, that learn change a few percent of the errors
    left; a late window of a converged run is not read, nor a metric at its end (0 errors).

    A ROC AUC (`auc`, `roc_auc`, `eval_auc`, `group_auc`: not a partial or PR AUC, and not
    a pose model's AUC of its PCK curve) within 0.02 of 0.5 at every one of its 2+ values
    in the log (evals, or a best-validation and a test result; percent read as such)
    settles it however short the log (warning): 0.5 is what a scorer that orders
    positives and negatives at random gets, whatever the class balance, so unlike an
    accuracy it needs no class count to be read as chance. A model that learned anything
    ranks some positives above negatives (a RecBole FM: best valid AUC 0.5 and test AUC
    0.5 with a logloss of 15.5; a SLi-Rec run: AUC 0.493 and group AUC 0.482 after its
    first epoch). One AUC alone is not read (an eval before training scores 0.5), nor AUCs
    all logged before the first train loss (the untrained model's evals), nor a
    log where any AUC leaves the band (a GNN at AUC 0.49 at epoch 0 with LR 0, then 0.63),
    nor an AUC printed 0 (a metric not computed).

    The same holds for a chance-corrected agreement score, Cohen's kappa or Matthews'
    correlation (HF GLUE CoLA's `matthews_correlation`): every value in the log (2+)
    within 0.02 of 0, beside another eval metric of those evals above 0 (the eval ran),
    settles it however short the log (warning). Both subtract the agreement chance alone
    gives, so 0 is chance whatever the class balance, and exactly 0 is what a model that
    predicts one class for every input scores (PaddleSeg on a binary task: Kappa 0.0000 at
    iterations 500 and 3000 beside an Acc of 0.9517, the background's share). A 0 with no
    other metric above 0 is not read (a metric left unset prints 0).

    The same holds for a regression's coefficient of determination (`r2`, `val_r2`,
    `r2_score`): every value in the log (2+) within 0.02 of 0, the last from epoch 1 on,
    settles it (warning). R^2 is 1 minus the model's squared error over that of the
    targets' mean, so 0 is what a model that outputs the mean for every input scores,
    whatever the targets' scale: the regression counterpart of a loss at ln C. A run whose
    R^2 leaves the band at any eval is not read, nor evals inside the first epoch, nor an
    RL value function's explained variance (noisy around 0 in healthy runs).

    A train accuracy and a held-out one (val / eval / test) whose medians both lie within
    0.01 of 1/C for the same small C (2-20), their logs all from epoch 10 on, 3+ logs in
    all, with no loss in the log falling 10% over them, settle it however short the log
    (warning): 1/C is what a model that ignores its input scores over C balanced classes,
    and two measures on different data agreeing on it after 10 passes is the model
    predicting the prior (MXNet LeNet on 2 GPUs: Train-accuracy 0.092-0.108 through epoch
    18 beside Validation-accuracy 0.100916 at epochs 17 and 18). One accuracy alone is
    not read (a 12-class model at 10% is 20% above chance), nor the first epochs (a fresh
    model starts at chance), nor accuracies beside a loss that falls (on their way up).

    The whole-run form of both: every top-1 accuracy log from epoch 2 on (a full pass
    behind it whether epochs count from 0 or 1; no epoch: update 1000), 3+ logs in all,
    each within min(0.01, 0.5/C) of 1/C, where C is the run's known class count or else
    the small C (2-20) their level names when a second measure agrees (a train and a
    held-out accuracy both at it, or a loss whose median from epoch 2 is in ln C's band:
    the cross-entropy of the same uniform guess), with no loss falling 10%
    over them, settles it from the start of the run on (warning): not one log after a
    full pass over the data is above a guess (a 10-class MXNet run at Train-accuracy
    0.099-0.101 and Validation-accuracy 0.098 from epoch 2; a Keras CIFAR-10 CNN at
    acc 0.098 / val_acc 0.1000 at every epoch). Each log is held to the band, not a
    median: a slow start that begins to learn leaves it at some log (a model at chance
    for its first epochs that then climbs is not read), and so does a model whose
    accuracy scatters around 1/C by more than a guess does. A long log (6+ logs of one
    accuracy) is held to the band by the median of each third instead, with every log
    within 5 times the logs' own point-to-point scatter: a guess scored on a finite eval
    set scatters by sqrt(p (1 - p) / N) (0.016 at 0.5 over 1000 samples), so 300 epochs
    of a binary model at chance put some logs past 0.01 however still it is, while a
    model that starts to learn lifts a whole third above the band. A class count read
    from a text setting as a number (`num_classes = 10` -> 10.0), or from Keras'
    "Found 2000 images belonging to 2 classes.", is the run's known C.

    An eval loss identical to 4+ digits at every one of its 5+ evals, while the train loss
    over the same span moves 3% or more (medians of its first and last thirds), settles it
    too (warning), wherever the window lies: the updates change the weights, so a held-out
    average that does not move at all is a model whose outputs are a constant (FaceNet's
    triplet val_loss at its margin, 0.2000, for 7 epochs while the train loss fell
    0.1927 -> 0.1775: every embedding the same). The digits are the log's: one logger
    prints the train and the eval loss alike, so Keras' `val_loss: 0.2000`, read as 0.2,
    counts as 4 digits beside a train loss printed as 0.1927; a loss printed to 2 decimals
    repeats by chance. A train loss that sits still too is an LR at ~0 (other readings').

    With no loss logged, an eval metric identical to 4+ printed digits at every one of 5+
    evals, the first of them at the run's start (epoch <= 1, or within one eval interval of
    step 0), settles it as well (warning), unless another metric of the same model or the
    eval loss (10%+) moves: the held-out predictions are the same after every epoch as after
    the first (MXNet: Validation-accuracy=0.110204 at epochs 0-15). A late window of
    identical evals is not read this way: a converged model on a small eval set repeats its
    score (an mmdet mAP50 of 0.9022 at 15 late evals of a healthy run).

    A loss that is never a number, the eval loss NaN / Inf at every one of its 4+ logs
    (the train loss when no eval loss is logged), beside an eval task metric identical at
    every one of its 4+ evals (off its best value) settles it whatever the train loss
    prints (warning): the scored model outputs no usable probabilities and its predictions
    are the same at every eval. No digit count is asked of the metric here (a BLEU of
    0.0002 repeats only by coincidence beside a working model, never beside a NaN one):
    an mT5 card in fp16 with eval loss NaN and BLEU 0.0111 at all 7 evals while the
    train loss prints 163, 1.1, 0.04, 0.0, 156, 75; Keras on Theano with loss and
    val_loss NaN and val_acc 0.0980 at every epoch. `nonfinite-loss` names the cause;
    this finding says the run learned nothing (a NaN that appears late, or an eval loss
    finite at some evals, is not read this way).

    A loss equal to a framework's clamp times the error rate, loss = K (1 - accuracy), to
    0.05% at each of the last 2+ logs where a loss and an accuracy are printed together
    (the train pair or the held-out pair), settles it however short the log (warning). K
    is what one confidently wrong sample costs at the clip before the log: -ln(1e-7) =
    16.1181 in Keras / TF (15.9424 at its float32 upper clip), -ln(FLT_MIN) = 87.3365 in
    Caffe's softmax, 100 in PyTorch's BCELoss; a right sample at the other end of the clip
    costs 0. Only a model whose every output is pinned at 0 or 1 scores exactly that, so
    it no longer weighs its input, and the clip passes no gradient back (a Keras MLP with
    a ReLU output and BCE: loss 7.8306 at acc 0.5142 = 16.1181 x 0.4858 at all 7 logs of
    its first epoch; Caffe PSPNet: 21.4058 at accuracy 0.754905, then 87.3365 at 0). One
    log on the line is not read (a few in a thousand land there by chance at 0.05%), nor a
    loss 0.16% off it (a detector's summed losses beside its accuracy).

    With the train and the held-out loss both NaN / Inf at every one of their 2+ logs, an
    eval task metric identical at 2+ evals is enough for the NaN reading above: from its
    first log on the model computes no number on any data, so its predictions are fixed
    (nolearn: train and valid loss NaN, valid acc 73.50% at each of 3 epochs).

    A printed confusion matrix (rows the true classes, columns the predicted ones, as
    sklearn / torchmetrics print it) whose every count lies in one column while 2+
    true classes occur, the last matrix the log prints, settles it however short the
    log: the model predicts one class for every input (its accuracy is that class's
    share), which is what a model that has learned only the class prior does. An
    earlier one-column matrix followed by a mixed one is a model that got past it.

    The same holds for a speech recogniser's last scoring line (Kaldi's `%WER x [ errs /
    words, I ins, D del, S sub ]`, which ESPnet, icefall and k2 recipes print too) whose
    every reference word is a deletion with no insertion, however short the log (warning):
    the hypothesis is empty for every utterance, the model predicts blank / silence
    everywhere (pychain's TDNN: `%WER 100.00 [ 20138 / 20138, 0 ins, 20138 del, 0 sub ]`).
    A WER of 100 with substitutions or insertions is not read this way (a model that emits
    wrong words is a different state), nor an earlier all-deletion score followed by
    another.

    A run pasted next to another whose losses are identical to the printed digit
    although its LR differs (an LR sweep in one issue: fact `same_loss_as`) is
    flagged however short: two LRs cannot give the same losses unless the LR never
    reaches the weights.

    A loss (the train loss, else the eval loss) whose last 30% of logs (5+) all lie within
    0.1% of 0.25 or 0.5, printed to that precision, settles it however far it fell before
    (warning): 0.25 is the squared
    error and 0.5 the absolute error of an output of 0.5 on a 0/1 target, the same for
    either label (cross-entropy's ln 2 is uniform-plateau's C = 2), so at that output every
    batch scores exactly the level and the batch-to-batch scatter of a model that weighs
    its input vanishes (measure/floor.py's `label_blind`). A StatQuest LSTM under MSE fell
    1.75 -> 0.2500045 and sat there for 5900 epochs, both outputs 0.500. A noisy loss that
    settles near 0.25, one 0.2% off it, one only its last 20% there, or one printed to 2
    decimals ("0.25" covers 0.245-0.255) is not read this way, nor a run whose task metric
    reaches 90%.

    A short log of epoch means from the first epoch whose means after the first (3+)
    print one value, the print resolving 0.5% of it, settles it too (warning): the first
    mean may hold the first descent, but in its first epochs a model that learns lowers
    its epoch mean by more than one printed digit over three passes (a wav2vec2 KD student:
    train loss 2.94, then 2.88 at epochs 2-5). "0.28" at 2 decimals (3.6%) is too coarse.

    An accuracy (held-out, or train: a model that learns fits its train set first) logged
    with its precision and recall or its F1, one eval of which is a one-class model's
    signature (recall 1 with precision equal to accuracy, or an F1 of
    2a / (1 + a) for the accuracy a: every sample called positive, precision and accuracy
    both the positives' share; or a recall / F1 of 0 beside an accuracy above 0: no
    positive found, the accuracy at most the negatives' share), at 3+ evals the last from
    epoch 2, none more than 0.02 (a quarter of the errors left, when fewer) above that
    share and no F1 / recall climbing more than 0.02 above its value there, settles it
    (warning): the model never beats naming the majority class (an HF classifier at eval
    accuracy 0.6056 = precision with recall 1.0, then 0.6056 and 0.6197 at epochs 2-3). A
    multi-class average cannot show the signature (a micro or weighted recall is the
    accuracy; a macro recall of 1 is an accuracy of 1). A later eval that climbs past the
    margin, or rare positives being found (F1 0 -> 0.44 while the accuracy moves 0.98 ->
    0.985), is a model that got past the prior. A log with only 1-2 evals settles it when
    each of them carries the signature itself and each is past epoch 2 by an epoch the log
    prints: the signature is exact to the printed digits, so every eval the log shows is of
    a model naming one class after two passes over its data. Without a printed epoch a lone
    one-class eval may be the first of a healthy run (NCRF++ at epoch 0: recall 0, accuracy
    0.803, positives found from epoch 1): not read.

    The same one-class signature read from the accuracy alone, where the eval set is one
    everybody uses: a held-out accuracy equal, to 5+ printed decimals, to one class's
    count over the size of a well-known benchmark eval set (GLUE / SuperGLUE dev splits:
    SST-2's 444 / 872 = 0.5091743, MRPC's 279 / 408 = 0.6838235, MNLI matched's 3479 /
    9815 = 0.3544575, ...) at every eval, a single eval enough, settles it (warning): a
    model that names one class for every sample scores exactly that fraction, and one
    that weighs its input lands on one of some 25 such fractions to 5 decimals about once
    in 10^4 runs (XLNet-large on SST-2: `acc = 0.5091743119266054` at every eval). An
    accuracy printed to fewer digits (0.5092 is 4) or one that moves between evals is not
    read this way.

    **Known false positives.** A loss whose relative fall is small because the total
    holds a constant term (a regulariser, a fixed auxiliary loss) or because a fine-tune
    starts near its floor: when a held-out task metric improves 10%+ (relative, from its
    first eval to the median of its last third, 3+ evals) the model learns, and the
    whole-run finding is info (a Whisper fine-tune's WER 20.9 -> 15.9 under a loss that
    moved 1%). A log that covers only a late window of a long run
    (resumed, head truncated) is not judged, and the report says why (a flat window
    can be a run that converged before it), unless it sits at a known chance level
    throughout: 10+ losses whose median, give or take 2 standard errors (1.25 sigma /
    sqrt(n)), and the median of each third of the window all lie in the band of ln C
    for the class count (vocabulary) the run states (uniform-plateau's band: 0.5% below,
    2% above) flag it (warning): whatever the loss did before the window, a model at
    ln C now gives every class the same probability. A window flat anywhere else (a
    converged run), one whose thirds pass through ln C on the way down, or one with no
    count stated is not read this way; one at ln C quietly enough for uniform-plateau's
    stretch to reach its end is left to that rule. A log whose eval loss is logged
    from the first interval on and whose first train loss comes by the second eval is
    no late window (a model card's "No log" first rows: the train loss was logged every
    500 steps, the evals every epoch): it is a log of the whole run, judged as one. RL trainers (GRPO/PPO) are skipped: their
    loss is not expected to fall. A model fine-tuned on data it already knows can
    start low and stay there (then it is reported, but it is worth knowing).

    **What to do.** Check the logged LR (non-zero, scheduled, right for the regime:
    pre-training ~3e-4, full fine-tune ~1e-5-5e-5, LoRA ~1e-4), the trainable-
    parameter count and the gradient norm (0 means nothing is trained).
    """
    if (hit := _all_skipped(run, p)) is not None:
        yield hit
        return
    if (
        hit := _one_class(run)
        or _empty_output(run)
        or _empty_sample(run, p)
        or _single_candidate(run)
    ) is not None:
        yield hit
        return
    loss = run.get("loss")
    if run.is_rl:
        return
    if (hit := _saturated_outputs(run, p)) is not None:
        yield hit
        return
    if loss is None:  # only task metrics logged (an accuracy per epoch), or a GAN's players
        if (
            hit := _frozen_metrics(run, p)
            or _frozen_while_nonfinite(run, p)
            or _lone_frozen_from_start(run, p)
            or _still_from_start(run, p)
            or _epochs_repeat(run, p)
            or _top5_at_chance(run, None, p)
            or _top1_no_better_than_top5(run, p)
            or _topk_falls_to_zero(run, None, p)
            or _random_ranking(run, p)
            or _ranking_at_loss_chance(run, p)
            or _overlap_zero_late(run, None, p)
            or _error_rate_ceiling_late(run, None, p)
            or _error_rate_ceiling_at_end(run, p)
            or _error_rate_worse_than_empty(run, None, p)
            or _positives_never_found(run, p)
            or _recall_at_floor(run, p)
            or _auc_at_chance(run, p)
            or _agreement_at_chance(run, p)
            or _r2_at_mean(run, p)
            or _accuracies_at_prior_late(run, None, p)
            or _train_no_better_late(run, None, p)
            or _accuracy_at_named_chance(run, None, p)
            or _accuracy_at_chance_throughout(run, None, p)
            or _accuracy_at_majority(run, p)
            or _accuracy_at_benchmark_share(run, p)
        ) is not None:
            yield hit
        elif run.fact("task") == "gan":
            # the generator's loss rises as the discriminator improves: no curve says "learns"
            yield NotJudged(
                "a GAN's generator and discriminator losses are opponents, not one learning "
                "curve; judge it by its samples or a quality metric (FID, IS)"
            )
        return
    if (hit := _frozen_while_nonfinite(run, p)) is not None:
        yield hit
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
    if (
        (hit := _frozen_metric(run, f, p)) is not None
        or (hit := _frozen_evals(run)) is not None
        or (hit := _eval_loss_frozen(run, f, p)) is not None
    ):
        yield hit
        return
    if (
        hit := _top5_at_chance(run, f, p)
        or _top1_no_better_than_top5(run, p)
        or _topk_falls_to_zero(run, f, p)
        or _random_ranking(run, p)
        or _ranking_at_loss_chance(run, p)
        or _overlap_zero_late(run, f, p)
        or _error_rate_ceiling_late(run, f, p)
        or _error_rate_ceiling_at_end(run, p)
        or _error_rate_worse_than_empty(run, f, p)
        or _positives_never_found(run, p)
        or _recall_at_floor(run, p)
        or _zero_while_flat(run, f, p)
        or _auc_at_chance(run, p)
        or _agreement_at_chance(run, p)
        or _r2_at_mean(run, p)
        or _accuracies_at_prior_late(run, f, p)
        or _train_no_better_late(run, f, p)
        or _accuracy_at_named_chance(run, f, p)
        or _accuracy_at_chance_throughout(run, f, p)
        or _accuracy_at_majority(run, p)
        or _accuracy_at_benchmark_share(run, p)
    ) is not None:
        yield hit
        return
    if (
        hit := _still_across_epochs(run, f, p)
        or _no_step_taken(run, f, p)
        or _pinned_label_blind(run, f, p)
    ) is not None:
        yield hit
        return
    if starts_mid_run(f) and not _evals_from_start(run, f):
        at = fl.at_floor(run, "loss")
        if at is not None and at.to_end:
            return  # at ln(V) / ln(C) to its end: uniform-plateau's finding
        hit = _window_at_chance(run, f, p)
        if hit is not None or not _window_learns(f, p):
            yield hit or NotJudged(_mid_run_reason(f))
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
    # At ln(V) (or ln(C))? Then it is uniform-plateau's finding: the train loss there to
    # its end, or any curve (the eval loss too) that uniform-plateau found at the floor, a
    # loss hovering about ln C that does not fall being the uniform guess it names.
    at = fl.at_floor(run, "loss")
    if (at is not None and at.to_end) or run.symptom("uniform-plateau") is not None:
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
    gained = _heldout_gained(run, p)
    if gained is not None:
        # the model gets better on unseen data: the loss's small relative fall is a scale
        # (a constant term in the total, a fine-tune near its floor), not a stuck model
        severity = Severity.INFO
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
            + (
                f" But {gained}: the model learns, so the loss's relative fall understates "
                "it (a constant term in a multi-term total, a fine-tune already near its "
                "floor)."
                if gained
                else ""
            )
        ),
        prescription=(
            "Check the logged LR column (0? never warmed up? 1e-6 where ~3e-4 is needed "
            "for pre-training, ~1e-4 for LoRA?), the trainable-parameter count and the "
            "gradient norm; fix, then confirm the loss falls within the first few hundred "
            "steps before spending the full budget."
        ),
        severity=severity,
    )
