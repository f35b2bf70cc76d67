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

    **What it does.** Flags a run whose loss does not fall: the median of the start (the
    higher of the first 3 points and the first 5%) against the median of the last 10%,
    plus a Mann-Kendall trend test on the binned curve, held to a regime tolerance
    (pre-training 10%, fine-tune / LoRA 3%, unknown 2%). Error when the drop is under half
    the tolerance, the curve is well measured and the regime known; warning otherwise.
    Short, late or loss-less logs are read by the narrower readings below (warnings unless
    marked error). A flat curve at ln(V) is `uniform-plateau`'s, a rising one `divergence`'s.

    **Why it matters.** A run whose loss never goes down spends compute on nothing. The
    usual causes: an LR far too low for the regime (the exploded-head run: 1e-6 in
    pre-training, ~300x too low), an LR of 0 or never scheduled, or no trainable parameters
    (a PEFT / freezing mistake gives a perfectly flat loss).

    **Readings.** "From epoch N" reads the logged epoch (from epoch 3: two full passes
    behind it whether epochs count from 0 or 1); with no epoch logged, "from update 1000"
    unless stated. "No loss falling 10%": no loss in the log falls 10% over the logs read.

    The loss curve:

    - *Whole run, 10+ losses*: the drop above (error / warning). A train loss hovering
      about ln C beside an eval loss `uniform-plateau` finds at the floor is that rule's. A
      run under 100 steps whose loss descends beyond its noise is a smoke test, not held
      to the tolerance, unless the log spans 10+ epochs (a Keras or epoch table counts
      epochs as steps: SciGPT-2, 20 epoch means 1.8976 -> 1.8927, -0.26%).
    - *Under 10 losses*: not judged (the report says so), unless the loss falls >= 4%
      with most steps down (learning, however short) or a reading below applies.
    - *Still from the start*: 4+ losses from the start (past the warmup) all within 0.5%
      of their median (warning). With under 4 train losses logged less often than the
      evals (a model card's "No log" rows): 4+ eval losses from the first interval within
      0.5%, the train losses in that band, no task metric gaining 2% of its scale
      (longformer on CoLA: eval loss 0.6960-0.7005 over 5 epochs, MCC 0 -> -0.05).
    - *Epoch means from the first epoch*: 4+ all within 2%, or 4-9 with none 2% below the
      first however they wobble (warning; the first mean holds the untrained model's loss).
      With 2-3 means: none 2% below the first nor 20% above it, and the eval loss at 2+
      evals not 2% below its first either (warning; DeepSpeech: train CTC 223.1 -> 225.0,
      val 188.4 -> 209.5 over epochs 0-1). Not when a task metric reaches 90%.
    - *Epoch means after the first* (3+) printing one value, the print resolving 0.5% of
      it (warning; a wav2vec2 KD student: 2.94, then 2.88 at epochs 2-5; "0.28" at 2
      decimals is 3.6%, too coarse).
    - *After the first log*: the losses after the first (3+) within 1% of each other and
      the eval loss within 1% at 3+ evals (warning).
    - *Still across an epoch*, anywhere in the log: 2+ losses a whole logged epoch or more
      apart, all within 0.1% of their median (warning). Converged healthy runs drift
      0.2-3% per epoch, frozen ones 0.005-0.08% (a flair tagger 15.2876 -> 15.2855 with a
      dev score of 0; a Keras retrieval model 1059.92 -> 1059.88, every top-k accuracy 0).
      Only when the printed digits resolve 0.1% (0.0266 cannot), the loss is not at the
      uniform floor, no task metric reaches 90%, and the loss is no negated overlap score
      (dice / IoU / cosine in [-1, 0)) at -0.9 or lower. Two losses within one epoch are
      not read (running means barely move late in an epoch).
    - *Pinned at 0.25 / 0.5*: the last 30% of train (else eval) losses (5+) within 0.1% of
      0.25 or 0.5, printed to that precision, however far it fell before (warning): MSE /
      MAE of an output of 0.5 on 0/1 targets, label-blind (measure/floor.py's
      `label_blind`; a StatQuest LSTM under MSE: 1.75 -> 0.2500045 for 5900 epochs, both
      outputs 0.500). Not 0.2% off, only the last 20% there, a 2-decimal print ("0.25"
      covers 0.245-0.255), or a task metric at 90%+. (ln 2 is `uniform-plateau`'s C = 2.)
    - *Loss = K (1 - accuracy)* to 0.05% at each of the last 2+ logs printing both (train
      or held-out pair), K a framework clamp: -ln 1e-7 = 16.1181 in Keras / TF (15.9424 at
      its float32 upper clip), -ln FLT_MIN = 87.3365 in Caffe's softmax, 100 in PyTorch's
      BCELoss (warning): every output pinned at 0 or 1, no gradient through the clip (a
      Keras MLP with ReLU output and BCE: 7.8306 at acc 0.5142 = 16.1181 x 0.4858 at all 7
      logs of epoch 1; Caffe PSPNet: 21.4058 at accuracy 0.754905, then 87.3365 at 0). Not
      one log on the line, nor a loss 0.16% off it (a detector's summed losses).
    - *Eval loss frozen*: identical to 4+ printed digits at all its 5+ evals while the train
      loss over them moves 3%+ (medians of first and last thirds), anywhere (warning;
      FaceNet's triplet val_loss at its margin, 0.2000, for 7 epochs while the train loss
      fell 0.1927 -> 0.1775). Digits are the logger's: Keras' `val_loss: 0.2000` beside
      0.1927 counts as 4; a 2-decimal loss repeats by chance.
    - *Late window* (resumed, head truncated): not judged, unless it sits at ln C for the
      class count (vocabulary) the run states: 10+ losses whose median +- 2 standard errors
      (1.25 sigma / sqrt(n)) and each third's median lie in `uniform-plateau`'s band (0.5%
      below, 2% above) (warning). Not a window passing through ln C on the way down, one
      with no count stated, or one `uniform-plateau`'s stretch reaches the end of. An eval
      loss logged from the first interval with the first train loss by the second eval is
      no late window (a model card's "No log" rows): judged as the whole run.
    - *Same losses as a run at another LR* pasted beside it (fact `same_loss_as`), however
      short (error): the LR never reaches the weights.

    No update reaches the weights:

    - *Grad norm NaN / Inf at every one of 3+ logs*, however short (error): every step
      skipped by the loss scaler or writing NaN.
    - *3+ fp16 overflow messages with the scale at its floor* and no loss curve (error):
      the scale repeats (DeepSpeed's "reducing to 1") or is cut below 2^-24. Not a scale
      still halving above that (apex 1 -> 0.5 -> 0.25 then training on: calibration).
    - *LR logged 0 at every log* (as `schedule-not-applied` finds it: printed finely
      enough, early in the plan or at full precision) beside 2-9 losses whose last and
      median after the first are not 2% under the first (warning; PaddleOCR distillation at
      `lr: 0.000000` in epoch 1 of 500, loss 1627.3 -> 1625.4, accuracy 0). Not a loss that
      falls (another parameter group trains).
    - *In-batch contrastive loss at 0 with a batch of one* (a run logging `logit_scale`,
      image-text accuracies, or a contrastive / InfoNCE loss; batch column 1 at every log
      or effective batch 1), from one log (warning): a single candidate, loss and gradient
      0 (Chinese-CLIP: "Loss: 0.000000 | Image2Text Acc: 100.00 | ... | Global Batch Size:
      1"). Not a loss above 0 or a batch of 2+.
    - *Under 10 losses with `eval-stagnation` spanning the run* (95%+, or flat from a first
      eval within one interval of the start): reported here as well.

    Frozen predictions:

    - *Eval metric frozen*: a task metric identical to its printed digits at 4+ evals, off
      its best value, while the loss fell under 10% (or the eval loss stays within 10% at
      4+ evals, or at the 4+ after the first: a wav2vec2 card, eval loss 5.30 then 3.5641 at
      seven evals, WER 1.0 at all ten), however short (warning). 2 evals suffice when the
      first is at step 0 (Caffe's `test_initialization`). A 0 counts only when no other
      higher-is-better metric moves (one rare class's F1 at 0 is not read).
    - *Eval loss and an eval metric* both identical to 4+ significant digits at 2+ evals
      steps apart (3+ for HF, whose final evaluate() repeats the best) (warning); with no
      eval loss, the train loss identical to 4+ digits at its 2+ logs and an eval metric
      repeated at 2+ evals among them (PaddleSeg: loss 0.1503 and mIoU 0.5000 at two logs
      100 iterations apart).
    - *No loss logged*, eval metric and its train counterpart each identical at 4+ logs
      (not at 0, 1 or 100) (warning); the train one may differ at its first if identical
      to 4+ digits at the 4+ after (an MXNet AlexNet: Train-accuracy 0.509277 at epoch 0,
      0.517578 at 1-4, Validation-accuracy 0.517578 at all five). Or two eval metrics
      identical at the same 4+ evals, one printed to 4+ digits (accuracy 0.8512 and mIoU
      0.4471); the second may be a metric at 0 (a NER card: token accuracy 0.9388, entity
      F1 / precision / recall 0.0 at all five evals). A metric at 0 alone never counts.
    - *No loss, in-epoch values repeat*: a metric printed at 2+ points of every epoch
      taking the same values (2+ distinct, one to 4+ digits) at the same points of 3+
      consecutive epochs (warning; an MXNet Titanic loop: 0.65625, 0.621875, 0.6083,
      0.609375, 0.615 every epoch).
    - *No loss, frozen from the start*: an eval metric identical to 4+ digits at all its 5+
      evals, the first at epoch <= 1 or within one interval of step 0, with no other metric
      or the eval loss moving 10%+ (warning; MXNet: Validation-accuracy=0.110204 at epochs
      0-15). Not a late window (an mmdet mAP50 of 0.9022 at 15 late evals of a healthy run).
    - *No loss, still from the start*: a train and a held-out metric each moving at most
      0.1% of their headroom (median to the nearer end) over 8+ logs from the first
      (warning; XGBoost: test-error 0.027200 -> 0.027195, train-error 0.010228 -> 0.010231
      over ten rounds). Not a late window, nor a metric at its end (0 errors).
    - *NaN loss beside a frozen metric*: the eval loss (else the train loss) NaN / Inf at
      every one of 4+ logs and an eval task metric identical (off its best, any digits) at
      all 4+ evals (warning; an mT5 card in fp16: eval loss NaN, BLEU 0.0111 at all 7
      evals, train loss 163, 1.1, 0.04, 0.0, 156, 75; Keras on Theano: loss and val_loss
      NaN, val_acc 0.0980 every epoch). With train and held-out loss both NaN at all 2+
      logs, 2+ evals suffice (nolearn: valid acc 73.50% at 3 epochs). Not a NaN appearing
      late or an eval loss finite at some evals; `nonfinite-loss` names the cause.
    - *One-column confusion matrix*: the last printed matrix (rows true, columns predicted)
      with every count in one column while 2+ true classes occur, however short (error).
      Not when a mixed matrix follows.
    - *All-deletion WER line*: the last Kaldi-style `%WER x [ errs / words, I ins, D del, S
      sub ]` with every reference word deleted and none inserted (warning; pychain's TDNN:
      `%WER 100.00 [ 20138 / 20138, 0 ins, 20138 del, 0 sub ]`). Not with substitutions or
      insertions, nor when another score follows.
    - *Empty decoded sample*: the log's last `Prediction: ""` beside a non-empty reference,
      at epoch 10+, from one sample (warning; kur's DeepSpeech at epoch 88 under Keras 2,
      validation loss 372). Not early (the CTC blank plateau) nor followed by a non-empty one.

    Scores at chance:

    - *Top-5 under 5%* at every one of 3+ logs from epoch 10, loss falling under 10%, however
      late (warning; a MEAL-V2 distillation at epoch 46, Top-5 1.28%). Any value above 1
      means percent, else fractions. A plain top-1 is not read this way.
    - *Top-1 at most a fifth of top-5* at every one of 3+ evals from epoch 1, no class count
      needed (warning; an mmcls ResNet on 6 classes at top-1 8.82%, top-5 94-100% at epochs
      32-43; healthy ImageNet after one epoch: ~15% / ~35%). Not the first epoch, nor a pair
      mixing percent and fraction.
    - *Top-1 within 10% of top-k / k* at 2+ (eval, cutoff) pairs past the first pass (epoch
      1; an eval printout with no step: its one eval), no eval beating top-k / k by more, no
      loss falling 10% (warning); a top-k of 1.0 counts when top-1 is within 10% of 1/k
      (MXNet MNIST at batch size 1: `Validation-accuracy=0.0974`, top-5 0.4832, top-10 1.0
      at epoch 9; TF-slim AlexNet after 200k steps: accuracy 0.001, recall_3/4/5
      0.003/0.004/0.005). Not a top-1 well under it, nor a retrieval's recall@1 vs recall@k.
    - *Train and held-out accuracy both at 1/C*: medians within 0.01 of 1/C for one C of
      2-20, all logs from epoch 10, 3+ logs, no loss falling 10% (warning; MXNet LeNet on 2
      GPUs: Train-accuracy 0.092-0.108 through epoch 18, Validation-accuracy 0.100916 at
      epochs 17-18). Not one accuracy alone, nor the first epochs.
    - *Accuracy at 1/C throughout*: every top-1 log from epoch 2, 3+ in all, within min(0.01,
      0.5/C) of 1/C, C known (`num_classes = 10`, Keras' "Found 2000 images belonging to 2
      classes.") or a C of 2-20 a train and a held-out accuracy, or a loss median in ln C's
      band, agree on; no loss falling 10% (warning; a 10-class MXNet run at 0.099-0.101 /
      0.098 from epoch 2; a Keras CIFAR-10 CNN at acc 0.098 / val_acc 0.1000 every epoch).
      6+ logs: each third's median in the band, every log within 5x the point-to-point
      scatter (a guess on N samples scatters sqrt(p (1 - p) / N): 0.016 at 0.5 over 1000).
    - *Train no better than held-out late*: train top-1 at most held-out + 0.01, both under
      0.5 (medians of their last 3 logs, all from epoch 50), no loss falling 10% (warning; a
      Keras GCN at epochs 497-499: train 0.30, test 0.297). Mixup can put a healthy train
      metric under its held-out one, but then the held-out one is high.
    - *Top-1 and top-k fall to 0*: both exactly 0 at their last 3+ logs after a log under 1%
      counting 2+ right answers (no 1/n), no loss falling 10% (warning; an 8-GPU MXNet
      ImageNet run: Train-accuracy 0.002266, top-5 0.003281 at batch 50, 0 after). Not
      per-batch zeros from the first log.
    - *ROC AUC at 0.5*: every one of 2+ values (evals, or best-valid and test) within 0.02
      (warning; a RecBole FM: valid and test AUC 0.5, logloss 15.5; a SLi-Rec run: AUC 0.493,
      group AUC 0.482 after epoch 1). Not partial / PR AUC, a pose model's PCK AUC, a single
      AUC, AUCs all before the first train loss, any AUC leaving the band (a GNN at 0.49 at
      epoch 0 with LR 0, then 0.63), or one printed 0.
    - *Kappa / MCC at 0*: every one of 2+ values within 0.02, beside another eval metric
      above 0 (warning; PaddleSeg binary: Kappa 0.0000 at iterations 500 and 3000 beside Acc
      0.9517, the background's share). Not with no other metric above 0.
    - *R^2 at 0*: every one of 2+ values within 0.02, the last from epoch 1 (warning): the
      model outputs the mean. Not if any leaves the band, evals in the first epoch, or an RL
      value function's explained variance.
    - *One-class signature*: an accuracy logged with precision and recall or F1, one eval
      showing the signature (recall 1 with precision = accuracy, F1 = 2a / (1 + a), or
      recall / F1 0 beside an accuracy above 0), 3+ evals the last from epoch 2, none above
      that share by 0.02 (or a quarter of the errors left, if fewer), no F1 / recall
      climbing 0.02 (warning; an HF classifier: accuracy 0.6056 = precision, recall 1.0,
      then 0.6056 and 0.6197 at epochs 2-3). 1-2 evals suffice when each shows it and each
      is past a printed epoch 2. Not multi-class averages, a later climb (F1 0 -> 0.44 at
      accuracy 0.98 -> 0.985), or a lone eval with no epoch (NCRF++ at epoch 0: recall 0,
      accuracy 0.803).
    - *Benchmark one-class share*: every held-out accuracy (1+ evals) equal to 5+ printed
      decimals to one class's share of a known eval set (GLUE / SuperGLUE dev: SST-2 444 /
      872 = 0.5091743, MRPC 279 / 408 = 0.6838235, MNLI matched 3479 / 9815 = 0.3544575,
      ...; a chance of ~1 in 10^4) (warning; XLNet-large on SST-2: `acc =
      0.5091743119266054` at every eval). Not fewer digits (0.5092) or a moving accuracy.

    Floors and ceilings:

    - *Overlap metric at 0* (Dice, IoU, mAP, F1, by any spelling: `metrics/mAP50(B)`,
      `bbox/AP50`, `mDice`, `val_mean_io_u`, `mAP@0.5`): 0 or at most 0.1% of scale (0.001
      / 0.1 in percent) at every one of 2+ evals from epoch 10, the train or eval loss moving
      under 10% (or none logged) (warning; nnU-Net at epochs 99-100: 'Average global
      foreground Dice: [0.0]'; a scratch YOLOv8: mAP50-95 0.00009-0.00012 at all 10 evals,
      train loss 15.9 -> 13.2, eval 13.3 -> 12.2). Also every eval from epoch 3 through 10+
      (a detector at mAP 0 from epoch 1 to 12). Not a scratch detector that climbs after
      five epochs, a plain accuracy, or one class at 0 beside another score above (a rare
      entity's F1 0, overall 0.71).
    - *Error rate at its ceiling*: WER / CER exactly 1.0 (100 in percent) at every one of 2+
      evals from epoch 10, the train and eval loss moving under 10% (warning; a wav2vec2 card
      with 500 warmup steps in a 200-step run: WER 1.0 at epochs 14 and 29, eval loss 3.69 ->
      3.35); or every eval from epoch 3 through 10+ (fairseq wav2vec2: valid_wer 100 at
      epochs 4, 7, 10, eval loss 898 -> 885). Not with the eval loss falling (3.22 -> 2.60),
      nor 0.9999.
    - *Error rate at the end*: within 0.99-1.05 at every one of 2+ evals, the last being the
      run's last (the next would pass `num_train_epochs`, `max_steps` or a recorded end),
      whatever the loss (warning; a wav2vec2 card: train 13.2 -> 3.1, eval 4.01 -> 2.96, WER
      1.0, 1.0, 1.0059 at epochs 1.47-4.41 of 5; another 1.0 -> 0.9999 at 7.14 and 14.29 of
      15). Not an excerpt or early stop, a WER well above 1 (1.13 -> 1.01), a single eval, or
      a train / eval loss ending under ln 2.
    - *Error rate above 100%* (no epoch logged): a train error rate over 100 at every one of
      4+ logs from update 1000, its last third no lower than its first, every eval error rate
      at or above 100 at 2+ evals there, no loss falling 10% (warning; tesstrain from
      scratch: char train 180% -> 104% over iterations 2400-2800; 101-103% and rising at
      6200-6700 of another, every eval WER 100). Exactly 100% is not this reading.
    - *Positives never found*: 2+ distinct positive-class scores (precision, recall, F1,
      mAP) each exactly 0 at the same 3+ logs after the first epoch, none above 0 anywhere,
      whatever the loss (warning; an ERNIE NER run: all 0 at 6 logs of epoch 6, loss 0.27 ->
      0.07; a distilbert token classifier: 0 at 5 evals, token accuracy 0.660 -> 0.663). 2
      logs when train and held-out scores are both 0 (NeuralClassifier with an empty token
      dictionary: precision, recall, F 0 at epochs 1-2). An accuracy does not count as
      finding positives; not one rare class, the first pass, or a single score.
    - *Recall at its floor*: every recall and F1 at most 0.1% of scale at 2+ evals, the first
      from epoch 2 and the last a whole epoch after, no mAP / AP above it (warning; an NCRF++
      CoNLL-2003 tagger: dev recall 0.0002 at epochs 2-3, F1 0.0003, precision 0.17). Not a
      ranking's recall@K, nor values at or under 1 that may be percent (0.05 reads as 5%).
    - *Any higher-is-better metric at 0* (sequence accuracy, BLEU, mAP, a train `acc`) at
      every one of 3+ logs, the last from epoch 3 (2+ when all from epoch 10), the loss over
      them falling under 10% and at or above ln 2, no other such metric above 0 (warning; a
      CTC captcha model at epochs 130-131: accuracy 0.000, cost 21.9; PaddleOCR handwriting
      at epoch 3: acc and norm_edit_dis 0 at six logs, CTC loss 115-117; a lip-reading model:
      v_acc 0 at five passes, epochs 0-3, cross-entropy above ln 500). No epoch: 3+ logs from
      update 1000 (an NMT run: BLEU 0.00 at steps 6100-6900, loss 34-37, every output one
      word); inside a first epoch too long for epoch 3: 3+ logs from update 5000 with the
      loss within 0.5% of its median (ArcFace at updates 7880-7980 of epoch 0: acc 0 at six
      logs, loss 42.01-42.03). An accuracy of 0 or 1/n (n >= 64) counts as 0 (Caffe at
      iterations 3860-3900: 0, 1/128, 1/128, loss 8.85-8.93). Not beside an mae / mse
      column, nor a loss under ln 2 (Keras' accuracy of a regression: 0 beside MSE 0.02).

    **Known false positives.** A loss whose relative fall is small because the total holds
    a constant term (a regulariser, a fixed auxiliary loss) or a fine-tune starts near its
    floor: when a held-out task metric improves 10%+ (relative, first eval to the median of
    its last third, 3+ evals) the whole-run finding is info (a Whisper fine-tune: WER 20.9
    -> 15.9 under a loss that moved 1%). RL trainers (GRPO / PPO) are skipped: their loss
    is not expected to fall. A GAN's opposing losses are not judged. A model fine-tuned on
    data it already knows can start low and stay there (reported, but worth knowing).

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
