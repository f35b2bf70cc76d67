"""Task metrics among a run's series: which eval series are accuracy / F1 / WER ...
and which way is better. Shared by the eval-curve rules and by any rule that asks
whether held-out quality still improves."""

from __future__ import annotations

import re

from traindoc.model import Run, Series

# Task metrics logged next to eval loss: name fragment -> True when higher is better.
_METRICS = {
    "accuracy": True,
    "acc": True,
    "f1": True,
    # F1 under its other spellings: NeuralClassifier's `fscore` / `macro-fscore`, conlleval's
    # `FB1`, `f_measure`
    "fscore": True,
    "fb1": True,
    "fmeasure": True,
    "bleu": True,
    "sacrebleu": True,
    "rouge": True,
    "chrf": True,
    "meteor": True,
    "exact_match": True,
    "em": True,
    "precision": True,
    "recall": True,
    "auc": True,
    "matthews": True,
    "mcc": True,
    "pearson": True,
    "spearman": True,
    "map": True,
    "ndcg": True,
    "bertscore": True,
    "iou": True,
    "miou": True,
    "dice": True,
    "exprate": True,
    "psnr": True,
    "ssim": True,
    "top1": True,
    # segmentation's pixel accuracies (GluonCV's pixAcc, mmseg's aAcc / mAcc)
    "pixacc": True,
    "aacc": True,
    "macc": True,
    "top5": True,
    # a bare "score" (a Kaggle pipeline's `val_score`, run_glue's `combined_score`) follows
    # scikit-learn's scorer convention: greater is better (an error is negated to be one)
    "score": True,
    "wer": False,
    "cer": False,
    "ter": False,
    # pose / landmark / flow: the share of keypoints placed within a threshold (PCK,
    # PCKh) rises as the model learns; the normalised mean landmark error (NME) and the
    # flow's end-point error (EPE) are distances, and fall
    "pck": True,
    "pckh": True,
    "nme": False,
    "epe": False,
}
# Monocular depth estimation's standard metrics (Eigen et al. 2014, printed by monodepth2,
# BTS, AdaBins, ...): the relative and log errors fall as the model improves, the threshold
# accuracies (share of pixels with max(d/d*, d*/d) < 1.25^k, "delta_1".."delta_3") rise.
# Whole names only: "rel" or "delta" alone name nothing in particular.
_DEPTH = re.compile(r"^(?:(abs_?rel|sq_?rel|rmse_?log|log_?rmse|silog)|(delta_?[123]))(?:_\d+)?$")
# A classifier's error rate, 1 - accuracy (fastai's `error_rate` metric): whole names
# only, as "error" alone may be a regression's or a count of failures.
_ERROR_RATES = frozenset({"error_rate", "err_rate"})
# ... and the word that makes any measure its complement ("top1_err", "acc_error")
_ERROR_WORDS = frozenset({"err", "error", "errors"})
_PREFIXES = ("eval_", "val_", "valid_", "validation_", "test_", "eval/", "val/", "test/")
_TRAIN = re.compile(r"^train(?:ing)?[_/ ]", re.I)
_PREFIX = re.compile(r"^(eval|val|valid|validation|test)[_/]")
_SPLIT = re.compile(r"[_/\-.]")
# rouge1 / rougeLsum / bleu4 / mAP50 are their family's; so is a retrieval cutoff
# (recall@1, ndcg@10, precision@5: the metric at k), and a top-k accuracy with its @
# dropped (timm's and the DeiT / MAE log.txt's acc1 / acc5, "test_acc1": 81.8).
_VARIANT = re.compile(
    r"(?<=^rouge)(?:\d+|lsum|l)$|(?<=^bleu)\d$|(?<=^map)\d+$|(?<=^acc)\d{1,2}$|(?<=.)@\w+$"
)


def task_metrics(run: Run) -> list[tuple[Series, bool]]:
    """Eval series that are task metrics, with their direction (higher better).

    A metric is named like one (accuracy, f1, iou, wer, ...) and is an eval one by
    its prefix (eval_, val_, test_) or because it is logged at the eval loss's steps
    ("iou (avg on test)" next to eval_loss).

    A running best (`best_accuracy`, `Best_norm_ED`, `val_acc_best`: the best eval so
    far, as deep-text-recognition-benchmark, fairseq and many scripts print it beside the
    current one) is no measurement of the current model: it cannot get worse and stays
    flat whenever an eval sets no new best, so it is left out.
    """
    ev = run.get("eval_loss")
    ev_steps = set(ev.steps.tolist()) if ev is not None else set()
    out = []
    for name, s in run.series.items():
        if not len(s) or "loss" in name or is_running_best(name):
            continue
        m = _PREFIX.match(name)
        if _TRAIN.match(name):
            continue  # a train metric logged once per epoch, at the eval's steps (Lightning)
        if not m and (
            # (a series longer than the evals cannot be logged at their steps only)
            not (ev_steps and len(s) <= len(ev_steps) and set(s.steps.tolist()) <= ev_steps)
            or any(f"{pre}{name}" in run.series for pre in _PREFIXES)
        ):
            continue  # a train metric (Keras logs acc next to val_acc each epoch)
        if (higher := direction(name)) is not None:
            out.append((s, higher))
    return out


# A top-k accuracy with k 2-10: Ultralytics' `accuracy_top5`, timm's `acc5`, Swin's `Acc@5`,
# the PyTorch ImageNet example's `Prec@5`, `top5_acc`.
_TOPK = re.compile(r"(?:top[-_]?|acc|acc@|prec@)([2-9]|10)(?!\d)", re.IGNORECASE)


def headline_metrics(run: Run) -> list[tuple[Series, bool]]:
    """`task_metrics` less each top-k accuracy (k 2+) whose top-1 is logged beside it.

    The top-k scores the same predictions more loosely: it saturates near 1 when k is
    near the class count (a top-5 over 7 skin-lesion classes at 0.999) and moves with
    the tail ranks, so a top-5 slipping 0.999 -> 0.986 while the top-1 climbs 0.78 ->
    0.83 is no verdict on the task. Where the top-1 is logged, it is the task."""
    ms = task_metrics(run)
    names = {s.name for s, _ in ms}

    def top1(name: str) -> str | None:
        m = _TOPK.search(name)
        return name[: m.start(1)] + "1" + name[m.end(1) :] if m else None

    return [(s, h) for s, h in ms if top1(s.name) not in names]


def is_running_best(name: str) -> bool:
    """The name marks a best-so-far value (`best_accuracy`, `eval/best_f1`)."""
    return "best" in _SPLIT.split(name.lower().replace(" ", "_"))


def direction(name: str) -> bool | None:
    """True when a metric named like this is better higher (accuracy), False when lower
    (WER), None when the name is no task metric's."""
    m = _PREFIX.match(name) or _TRAIN.match(name)
    rest = name[m.end() :] if m else name
    if d := _DEPTH.match(rest.lower().replace(" ", "_")):
        return d.group(2) is not None
    if rest.lower().replace(" ", "_") in _ERROR_RATES:
        return False
    parts = _SPLIT.split(rest.lower().replace(" ", "_").replace("(", "_"))
    if any(p in _ERROR_WORDS for p in parts) and any(
        _METRICS.get(_VARIANT.sub("", p)) for p in parts
    ):
        # the error of a measure that is better higher: pycls' and many ImageNet scripts'
        # `top1_err` / `top5_err`, 100 - the top-k accuracy, falls as the model learns
        return False
    for part in parts:
        part = _VARIANT.sub("", part)  # rouge1 / rougeLsum / bleu4 / mAP50: their family's
        if part in _METRICS:
            return _METRICS[part]
    return None


def is_train_name(name: str) -> bool:
    """The name says the value was measured on the training data (`train_acc`)."""
    return _TRAIN.match(name) is not None


def train_metrics(run: Run) -> list[tuple[Series, bool]]:
    """Task metrics measured on the training data (Keras' `acc` beside `val_acc`,
    `train_acc`), with their direction: the complement of `task_metrics`."""
    evals = {id(s) for s, _ in task_metrics(run)}
    out = []
    for name, s in run.series.items():
        if not len(s) or "loss" in name or id(s) in evals or _PREFIX.match(name):
            continue
        if (higher := direction(name)) is not None:
            out.append((s, higher))
    return out
