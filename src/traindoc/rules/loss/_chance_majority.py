"""no-learning's readings of an accuracy at a one-class share: the majority class's share
of the eval set, and a benchmark's known one-class share. It owns the per-class score
reading that tells a one-class predictor from a learning model."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.metrics import is_running_best
from traindoc.measure.stats import fmt, printed_decimals
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _past_first_pass, _plain_accuracies

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


_ACCURACY_NAME = re.compile(r"^(.*?)(?:acc|accuracy)$", re.IGNORECASE)


def _at_evals(run: Run, a: Series, name: str) -> np.ndarray:
    """`name`'s values at the steps of `a` as fractions (NaN where it has none)."""
    s = run.get(name)
    if s is None or not len(f := s.finite()):
        return np.full(len(a), np.nan)
    at = dict(zip(f.steps.tolist(), f.values.tolist(), strict=True))
    v = np.array([at.get(st, np.nan) for st in a.steps.tolist()], np.float64)
    return v / 100.0 if float(np.nanmax(f.values)) > 1.0 else v


def _majority_share(
    acc: np.ndarray, prec: np.ndarray, rec: np.ndarray, f1: np.ndarray, p: Params
) -> tuple[int, str] | None:
    """(the eval, how it shows) of the first eval whose scores
    only a model that names one class for every input gets: recall 1 with the precision
    equal to the accuracy, or an F1 of 2a / (1 + a) for the accuracy a (every sample
    called positive: precision and accuracy are both the positives' share), or a recall
    (F1) of 0 beside an accuracy above 0 (no positive found: the accuracy is at most the
    negatives' share). A multi-class average cannot show it: a micro or weighted recall is
    the accuracy, and a macro recall of 1 (0) is an accuracy of 1 (0)."""
    tie = p.majority_tie
    for i, (a, pr, r, f) in enumerate(zip(acc, prec, rec, f1, strict=True)):
        if not tie < a < 1.0 - tie:
            continue
        if abs(r - 1.0) <= tie and abs(pr - a) <= tie:
            return i, "recall 1 and precision = accuracy: every sample called positive"
        if abs(f - 2 * a / (1 + a)) <= tie and not abs(r - 1.0) > tie:
            return i, "F1 = 2a / (1 + a) for the accuracy a: every sample called positive"
        if r <= tie or f <= tie:
            return i, "recall / F1 0: no positive found"
    return None


def _score_rises(v: np.ndarray, i: int, p: Params) -> bool:
    """A positive-class score (F1, recall) above its value at eval `i` by more than
    `majority_margin` at some eval: a rare class being found while the accuracy, bound
    near the majority share, barely moves."""
    return bool(np.isfinite(v[i]) and np.nanmax(v) > v[i] + p.majority_margin)


def _each_one_class_late(run: Run, a: Series, scores: tuple[np.ndarray, ...], p: Params) -> bool:
    """1-2 evals settle it only when each of them is a one-class model's and each is
    logged past epoch `chance_min_epoch` by an epoch the log prints: a fresh head's first
    eval names one class in healthy runs too (NCRF++ at epoch 0: recall 0, accuracy 0.803),
    and a step count or the order of the lines does not say how far the run had got."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return False
    if np.any(np.interp(a.steps, e.steps, e.values) < p.chance_min_epoch):
        return False
    av, pv, rv, fv = scores
    return all(
        _majority_share(av[j : j + 1], pv[j : j + 1], rv[j : j + 1], fv[j : j + 1], p)
        for j in range(len(a))
    )


def _accuracy_at_majority(run: Run, p: Params) -> Hit | None:
    """An accuracy (held-out or train: a model that learns fits its train set first) with
    its precision and recall, or its F1 (one prefix: eval_accuracy, eval_f1, ...), one of whose evals is the one-class signature
    (`_majority_share`), at 3+ evals the last from epoch `chance_min_epoch` on, none above
    that share by more than `majority_margin` (a quarter of the errors left, at most): the
    model never beats naming the majority class (warning)."""
    for acc_s in run.series.values():
        m = _ACCURACY_NAME.match(acc_s.name)
        if m is None or is_running_best(acc_s.name):
            continue
        a = acc_s.finite()
        if not len(a):
            continue
        pre = m.group(1)
        pv, rv = _at_evals(run, a, pre + "precision"), _at_evals(run, a, pre + "recall")
        fv = _at_evals(run, a, pre + "f1")
        av = a.values / 100.0 if float(a.values.max()) > 1.0 else a.values
        got = _majority_share(av, pv, rv, fv, p)
        if got is None:
            continue
        if len(a) < p.majority_points and not _each_one_class_late(run, a, (av, pv, rv, fv), p):
            continue
        i, how = got
        share = float(av[i])
        if _score_rises(fv, i, p) or _score_rises(rv, i, p):
            continue  # the positives' score climbs off the one-class eval's: a model that learns
        past = _past_first_pass(run, a.steps, p, p.chance_min_epoch)
        if past is None or not bool(past[-1]):
            continue
        allv = av
        margin = min(p.majority_margin, 0.25 * (1.0 - share))
        top = float(allv.max())
        if top > share + margin:
            continue
        return Hit(
            title=(
                f"{acc_s.name} never beats the majority class's share {share:.4g}: at most "
                f"{top:.4g} over {allv.size} evals ({how} at one of them)"
            ),
            step=int(a.steps[0]),
            end_step=int(a.steps[-1]),
            evidence={
                "metric": acc_s.name,
                "majority_share": share,
                "max_accuracy": top,
                "evals": int(allv.size),
                "margin": margin,
            },
            explanation=(
                f"At one eval the scores are those of a model that names one class for every "
                f"input ({how}), which puts the majority class's share of the eval set at "
                f"{share:.4g}. Over all {allv.size} evals, the last past "
                f"{p.chance_min_epoch:g} passes over the data, the accuracy never rises more than "
                f"{margin:.3g} above that share: the model has learned the class prior and "
                "little or nothing that tells the classes apart."
            ),
            prescription=(
                "Look at the predicted class distribution; check the labels reach the loss "
                "(and match the inputs), the LR (a full fine-tune wants ~1e-5-5e-5), class "
                "weights or resampling for an imbalanced set, and that the classifier head "
                "is trained (not frozen, not re-initialised after loading)."
            ),
            severity=Severity.WARNING,
        )
    return None


# The class counts of widely used benchmark eval sets (GLUE / SuperGLUE dev splits as the
# `datasets` hub ships them): a model that names one class for every sample scores that
# class's count over the set's size, a fraction no learning model lands on to 5+ digits.
_BENCHMARK_CLASSES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("SST-2 dev", (444, 428)),
    ("MRPC dev", (279, 129)),
    ("RTE dev", (146, 131)),
    ("CoLA dev", (721, 322)),
    ("QNLI dev", (2761, 2702)),
    ("QQP dev", (25545, 14885)),
    ("MNLI matched dev", (3479, 3213, 3123)),
    ("MNLI mismatched dev", (3463, 3240, 3129)),
    ("WNLI dev", (40, 31)),
    ("BoolQ dev", (2033, 1237)),
)


def _one_class_share(value: float, decimals: int) -> tuple[str, int, int] | None:
    """The benchmark set and class count whose share `value` is, to its printed decimals
    (`decimals` 5+: one share in 10^5 is no coincidence over some 25 known shares)."""
    for name, counts in _BENCHMARK_CLASSES:
        n = sum(counts)
        for k in counts:
            if abs(value - k / n) <= 0.5 * 10.0**-decimals + 1e-12:
                return name, k, n
    return None


def _accuracy_at_benchmark_share(run: Run, p: Params) -> Hit | None:
    """Every held-out accuracy of the run (1+ evals) equal, to 5+ printed decimals, to one
    class's share of a known benchmark eval set (SST-2 dev: 444 / 872 = 0.5091743): the
    model names that class for every sample (warning)."""
    _train, held = _plain_accuracies(run)
    for m in held:
        v = m.finite().values
        if not v.size or np.any(v != v[0]) or not 0.0 < v[0] < 100.0:
            continue
        value, scale = (float(v[0]) / 100.0, 2) if v[0] > 1.0 else (float(v[0]), 0)
        shown = printed_decimals(v, p.share_decimals + 4)
        decimals = p.share_decimals + 4 if shown is None else shown + scale
        if decimals < p.share_decimals or (got := _one_class_share(value, decimals)) is None:
            continue
        bench, k, n = got
        return Hit(
            title=(
                f"{m.name} is {fmt(float(v[0]))} at "
                + (f"every one of its {v.size} evals" if v.size > 1 else "its eval")
                + f": exactly {k}/{n}, one class's share of the {bench} set, so the model "
                "names that class for every sample"
            ),
            step=int(m.steps[0]),
            end_step=int(m.steps[-1]),
            evidence={
                "metric": m.name,
                "value": float(v[0]),
                "evals": int(v.size),
                "benchmark": bench,
                "class_count": k,
                "eval_size": n,
            },
            explanation=(
                f"An accuracy is the share of the eval samples predicted right. {k} of the "
                f"{n} samples of the {bench} set belong to one class, so a model that "
                "predicts that class for every input scores exactly this, to every printed "
                "digit; a model that weighs its input lands on that fraction by coincidence "
                "almost never. It has learned the prior at most, not the task."
            ),
            prescription=(
                "Check the predictions' class distribution on a few eval batches; then the LR "
                "(a full fine-tune of a large encoder collapses to one class above ~5e-5; try "
                "1e-5-3e-5 with warmup), the seed (large models on small GLUE sets fail on some "
                "seeds: rerun), and that the labels reach the loss."
            ),
            severity=Severity.WARNING,
        )
    return None
