"""no-learning's readings of a ranking at random: a top-k accuracy pair that sits where a
random ranking puts it, or at the value the loss says is chance. It owns the top-k name
pattern and the pairing of a run's top-k metrics."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _loss_falls, _past_first_pass

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


# A top-k accuracy's name and its cutoff k: top5 / top-5 / top_k_accuracy_5 /
# top_5_categorical_accuracy / accuracy_top-5 / acc5 / acc@5 / prec@5; a recall@k only
# beside a plain accuracy (TF-slim's eval/recall_5): a retrieval's recall@1 and recall@k
# scale as 1 : k for a perfect ranking of k+ relevant items, so only a classifier's
# accuracy, whose top-1 is one label, pairs with it.
_TOPK_NAME = re.compile(
    r"(?P<tok>top[-_ ]?(?:k[-_ ]?(?:acc(?:uracy)?[-_ ]?)?)?|acc(?:uracy)?[-_@]?|prec@|"
    r"(?P<rec>recall[-_@]?|rec@))(?P<k>\d+)\b"
)


def _topk_cutoff(name: str) -> re.Match[str] | None:
    """The cutoff match of a task metric that is a top-k accuracy with k 2+ (`top5`,
    `acc@5`, `recall_5`); None for anything else, error rates (`err-top5`) included."""
    low = name.lower()
    m = _TOPK_NAME.search(low)
    if m is None or "err" in low or kind(name) != "task" or int(m.group("k")) < 2:
        return None
    return m


def _topk_pairs(run: Run) -> Iterator[tuple[Series, Series, int]]:
    """(top-1, top-k, k) for every top-k accuracy (k 2+) the run logs beside its top-1: the
    same name with its cutoff written 1, or the plain accuracy of the same prefix
    (`validation_top_k_accuracy_5` -> `validation_accuracy`, `eval/recall_5` ->
    `eval/accuracy`). Error rates (`err-top5`) are not accuracies."""
    by_low = {n.lower(): n for n in run.series}
    for name in run.series:
        low = name.lower()
        if (m := _topk_cutoff(name)) is None:
            continue
        head, tail = low[: m.start()], low[m.end() :]
        if head + m.group("tok") + "0" + tail in by_low:
            continue  # acc_0, acc_1, acc_2 ...: per-position accuracies, not cutoffs
        want = [head + w + tail for w in ("accuracy", "acc")]
        if m.group("rec") is None:
            want.insert(0, head + m.group("tok") + "1" + tail)
        top1 = next((by_low[w] for w in want if w in by_low), None)
        if top1 is not None:
            yield run.series[top1], run.series[name], int(m.group("k"))


def _same_evals(run: Run, a: Series, b: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, values of `a`, values of `b`) at the evals both score: their common steps;
    in a printout numbered by line (no step count) where each prints one value, that one
    eval (TF-slim's eval/Accuracy and eval/Recall_5, one line each)."""
    if run.fact("steps_ordinal") and len(a) == 1 and len(b) == 1:
        return a.steps, a.values, b.values
    steps, ia, ib = np.intersect1d(a.steps, b.steps, return_indices=True)
    return steps, a.values[ia], b.values[ib]


def _random_ranking(run: Run, p: Params) -> Hit | None:
    """A top-1 accuracy equal (within `ranking_tol`) to its top-k divided by k at 2+ of the
    (eval, cutoff) pairs the run logs past its first pass, with no pair anywhere in the log
    whose top-1 beats that by more (warning). A cutoff whose top-k is 1.0 counts when the
    top-1 is within the tolerance of 1/k: every label in the top k means C <= k."""
    pairs = list(_topk_pairs(run))
    if not pairs:
        return None
    matches: list[tuple[str, str, int, float, float, int]] = []
    for m1, mk, k in pairs:
        a1, ak = m1.finite(), mk.finite()
        steps, v1, vk = _same_evals(run, a1, ak)
        if not steps.size:
            continue
        scale = 100.0 if max(float(v1.max()), float(vk.max())) > 1.0 else 1.0
        v1, vk = v1 / scale, vk / scale
        late = _past_first_pass(run, steps, p, p.top1_min_epoch)
        if late is None:
            return None
        full = vk >= 0.999
        guess = np.where(full, 1.0 / k, vk / k)  # top-1 of a random ranking
        if np.any(~full & (v1 > (1 + p.ranking_tol) * guess)):
            return None  # the first choice beats a random pick at some eval: it learned
        hit = late & (v1 > 0) & (np.abs(v1 - guess) <= p.ranking_tol * guess)
        matches += [
            (m1.name, mk.name, k, float(v1[i]), float(vk[i]), int(steps[i]))
            for i in np.flatnonzero(hit)
        ]
    if len(matches) < p.ranking_pairs:
        return None
    loss = run.get("loss")
    lo, hi = min(x[5] for x in matches), max(x[5] for x in matches)
    if loss is not None and _loss_falls(loss, lo, hi, p):
        return None  # the loss still falls: the ranking may be on its way up
    return _random_ranking_hit(matches, lo, hi)


def _ranking_at_loss_chance(run: Run, p: Params) -> Hit | None:
    """A top-k accuracy (k 2+) at k/C for the C that the cross-entropy of the same evals
    names (C = e^L, L the eval loss, else the train loss logged since the eval before),
    within `loss_ranking_tol` in C at every eval past the first pass (1+), with the loss
    not falling `frozen_max_drop` over them (warning). A uniform guess over C classes
    scores both ln C and k/C; a model that learned anything has a top-k far above k/C
    long before its loss leaves ln C, so two measures naming the same C at one eval is
    the guess, not a coincidence. Only top-k (k 2+): a top-1 at 1/C is the class prior
    of whichever class the model names, and a small C is `_chance_level`'s."""
    loss = run.get("eval_loss") or run.get("loss")
    if loss is None or not len(lf := loss.finite()):
        return None
    for mk in run.series.values():
        m = _topk_cutoff(mk.name)
        if m is None or m.group("rec") or not len(f := mk.finite()):
            continue
        k = int(m.group("k"))
        v = f.values / (100.0 if float(f.values.max()) > 1.0 else 1.0)
        late = _past_first_pass(run, f.steps, p, p.chance_min_epoch)
        if late is None or not late.any() or float(v.max()) <= 0:
            continue
        at = [_loss_at_eval(lf, f.steps, i) for i in range(f.steps.size)]
        if any(x is None or x <= 0 for x in at):
            continue
        c_loss = np.exp(np.asarray(at, dtype=float) * math.log(run.loss_base))
        ratio = np.where(v > 0, k / np.maximum(v, 1e-12) / c_loss, np.inf)
        if k >= 0.5 * float(c_loss.min()) or np.any(ratio < 1 / (1 + p.loss_ranking_tol)):
            continue  # k near C: every ranking scores near 1; or an eval beats the guess
        hit = late & (ratio <= 1 + p.loss_ranking_tol)
        if not hit[late].all():
            continue
        steps = f.steps[late]
        if _loss_falls(lf, float(steps.min()), float(steps.max()), p):
            continue
        return _loss_chance_hit(loss.name, mk.name, k, float(np.median(c_loss[late])), f, late)
    return None


def _loss_at_eval(loss: Series, steps: np.ndarray, i: int) -> float | None:
    """The loss of eval i: its value at that step, else the median of the train logs
    since the eval before (the epoch the eval closes)."""
    at = np.flatnonzero(loss.steps == steps[i])
    if at.size:
        return float(loss.values[at[-1]])
    lo = steps[i - 1] if i else -np.inf
    w = loss.values[(loss.steps > lo) & (loss.steps <= steps[i])]
    return float(np.median(w)) if w.size else None


def _loss_chance_hit(loss: str, topk: str, k: int, c: float, f: Series, late: np.ndarray) -> Hit:
    steps, vals = f.steps[late], f.values[late]
    pct = "%" if float(f.values.max()) > 1.0 else ""
    return Hit(
        title=(
            f"{topk} is {fmt(float(vals[-1]))}{pct} at step {int(steps[-1])}, {k}/C for the "
            f"C = {c:.0f} classes that {loss} names (e^loss): the model guesses uniformly "
            f"over its classes ({late.sum()} eval(s) past the first pass)"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence={
            "metrics": [loss, topk],
            "cutoffs": [k],
            "implied_classes": round(c),
            "evals": int(late.sum()),
        },
        explanation=(
            "A classifier that ignores its input spreads its probability evenly over the C "
            "classes: its cross-entropy is ln C and the true class is among its top k k times "
            "in C. Here the loss and the top-k accuracy name the same C after a full pass "
            "over the data, so the predictions still carry no information about the input."
        ),
        prescription=(
            "Look at the predicted classes on a few samples; check that the labels match the "
            "inputs and the head's class count, the input preprocessing, the LR (0, or so "
            "high the outputs collapsed; clipping the gradients is the usual fix for the "
            "latter) and that the weights evaluated are the trained ones."
        ),
        severity=Severity.WARNING,
    )


def _random_ranking_hit(
    matches: list[tuple[str, str, int, float, float, int]], lo: int, hi: int
) -> Hit:
    shown = "; ".join(
        f"{n1} {fmt(v1)} vs {nk} {fmt(vk)} (k={k})" for n1, nk, k, v1, vk, _ in matches[:4]
    )
    c = round(1.0 / float(np.median([x[3] for x in matches])))
    return Hit(
        title=(
            f"The top-1 accuracy is its top-k divided by k at {len(matches)} (eval, cutoff) "
            f"pairs ({shown}): the model ranks the classes at random (chance for about {c})"
        ),
        step=lo,
        end_step=hi,
        evidence={
            "metrics": sorted({x[0] for x in matches} | {x[1] for x in matches}),
            "pairs": len(matches),
            "cutoffs": sorted({x[2] for x in matches}),
            "median_top1": float(np.median([x[3] for x in matches])),
            "implied_classes": c,
        },
        explanation=(
            "A classifier that ignores its input ranks the C classes at random: the true class "
            "comes first 1 time in C and among the top k k times in C, so its top-k accuracy is "
            "k times its top-1 at every cutoff (and reaches 1.0 at k = C). A model that learned "
            "anything puts the true class first far more often than a k-th of its top-k. Here "
            "the logged accuracies match a random ranking after a full pass over the data."
        ),
        prescription=(
            "Look at the predicted classes on a few samples (one class for all?); check that the "
            "labels match the inputs and the head's class count, the input preprocessing (the "
            "normalisation the model was built for), the LR (0, or far too high for the batch "
            "size: a collapsed output) and that the trained weights are the ones evaluated."
        ),
        severity=Severity.WARNING,
    )
