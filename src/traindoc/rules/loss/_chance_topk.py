"""no-learning's readings of top-k accuracies: a top-5 under guessing, a top-1 no better
than its top-5, and a top-k that falls to zero after it had hits."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt, printed_decimals
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import kind
from traindoc.rules.api import Hit
from traindoc.rules.loss._chance_common import _loss_falls
from traindoc.rules.loss._chance_ranking import _topk_pairs

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


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


# The top-1 series a top-5 one pairs with: the same name with its cutoff 5 written 1.
_TOP5_TOKEN = re.compile(r"(top[-_ ]?|acc(?:uracy)?[-_@]?|@)5\b")


def _top1_of(run: Run, top5: str) -> Series | None:
    """The top-1 accuracy logged beside `top5` (`accuracy_top-5` -> `accuracy_top-1`,
    `acc5` -> `acc1`, `rec@5` -> `rec@1`), or None."""
    low = top5.lower()
    m = _TOP5_TOKEN.search(low)
    if m is None:
        return None
    want = low[: m.start()] + m.group(1) + "1" + low[m.end() :]
    name = next((n for n in run.series if n.lower() == want), None)
    return run.get(name) if name is not None else None


def _top1_no_better_than_top5(run: Run, p: Params) -> Hit | None:
    """A top-1 accuracy at most a fifth of the top-5 logged at the same evals, at every
    one of 3+ evals from epoch 1 on (warning): the model's first choice is no better than a
    random pick among its five best, which is what a ranking that ignores the input gives
    (1/C and 5/C) whatever the class count."""
    ep = run.get("epoch")
    if ep is None or not len(e := ep.finite()):
        return None
    for m5 in run.series.values():
        if kind(m5.name) != "task" or not _TOP5.search(m5.name.lower()):
            continue
        m1 = _top1_of(run, m5.name)
        if m1 is None:
            continue
        a1, a5 = m1.finite(), m5.finite()
        steps, i1, i5 = np.intersect1d(a1.steps, a5.steps, return_indices=True)
        if steps.size < p.top1_points:
            continue
        v1, v5 = a1.values[i1], a5.values[i5]
        if (float(v1.max()) > 1.0) != (float(v5.max()) > 1.0):
            continue  # one printed in percent, the other as a fraction: not comparable
        at = np.interp(steps, e.steps, e.values)
        if float(at.min()) < p.top1_min_epoch or not (v5 > 0).all():
            continue
        if not bool(np.all(v1 <= v5 / 5.0 * (1 + 1e-9))):  # (a printed 0.0011 is 0.0055 / 5)
            continue
        return Hit(
            title=(
                f"{m1.name} is at most a fifth of {m5.name} at all {steps.size} evals from epoch "
                f"{int(at.min())} on ({fmt(float(np.median(v1)))} vs {fmt(float(np.median(v5)))}): "
                "the model's first choice is no better than a guess among its top five"
            ),
            step=int(steps[0]),
            end_step=int(steps[-1]),
            evidence={
                "metric": m1.name,
                "top5_metric": m5.name,
                "evals": int(steps.size),
                "median_top1": float(np.median(v1)),
                "median_top5": float(np.median(v5)),
                "first_epoch": float(at.min()),
            },
            explanation=(
                "A ranking that ignores the input puts the true class first 1 time in C and in "
                "its top five 5 times in C: top-1 is a fifth of top-5 whatever the class count. "
                "A classifier that learned anything ranks the true class first far more often "
                "than that; this one does not at any eval after a full pass over the data "
                "(typically a constant first choice: one class predicted for every input)."
            ),
            prescription=(
                "Look at the predicted classes on a few eval samples (one class for all?); check "
                "that the labels match the inputs and the head's class count, the LR (0, or far "
                "too high) and that the loss is computed from the model's outputs."
            ),
            severity=Severity.WARNING,
        )
    return None


def _hits_shown(v: float, decimals: int) -> int:
    """The fewest right answers an accuracy `v` (a fraction) printed to `decimals` can
    count: 1 when it is 1/n for some n as printed, else 2 (k/n with k >= 2)."""
    n = round(1.0 / v)
    return 1 if n > 0 and abs(1.0 / n - v) <= 0.5 * 10.0**-decimals else 2


def _trailing_zeros_after_hits(s: Series, p: Params) -> tuple[int, float] | None:
    """(the trailing zeros, the last value before them) of an accuracy exactly 0 at its
    last `zero_points`+ logs after a log under 1% that counts 2+ right answers
    (`_hits_shown`): a share that small with two hits behind it is an average over 200+
    samples, not one batch's lucky pick. None otherwise."""
    v = s.finite().values
    top = 100.0 if float(v.max()) > 1.0 else 1.0
    nz = np.flatnonzero(v)
    if not nz.size or v.size - 1 - int(nz[-1]) < p.zero_points:
        return None
    last = float(v[nz[-1]]) / top
    dec = printed_decimals(v, 8)
    if not 0 < last < 0.01 or dec is None or _hits_shown(last, dec - (2 if top > 1 else 0)) < 2:
        return None
    return v.size - 1 - int(nz[-1]), last


def _topk_falls_to_zero(run: Run, loss: Series | None, p: Params) -> Hit | None:
    """A top-1 accuracy and its top-k each exactly 0 at their last 3+ logs after a log
    under 1% with 2+ right answers behind it (`_trailing_zeros_after_hits`), with no
    loss falling `frozen_max_drop` over them (warning). A model guessing among any number
    of classes keeps scoring the share it scored before; a top-k of exactly 0 over
    hundreds of samples is below any guess: outputs that are NaN, or labels outside the
    range the head predicts."""
    for top1, topk, k in _topk_pairs(run):
        a, b = _trailing_zeros_after_hits(top1, p), _trailing_zeros_after_hits(topk, p)
        if a is None or b is None:
            continue
        f = top1.finite()
        since = float(f.steps[-a[0]])
        if loss is not None and _loss_falls(loss, since, float(f.steps[-1]), p):
            continue
        return Hit(
            title=(
                f"{top1.name} and {topk.name} fall from {fmt(a[1])} and {fmt(b[1])} to exactly "
                f"0 at each of their last {min(a[0], b[0])}+ logs: below a guess"
            ),
            step=int(since),
            end_step=int(f.steps[-1]),
            evidence={
                "metric": top1.name,
                "topk_metric": topk.name,
                "k": k,
                "before": a[1],
                "topk_before": b[1],
                "zero_logs": min(a[0], b[0]),
            },
            explanation=(
                f"Before the zeros both accuracies were small but counted several right "
                f"answers over hundreds of samples, what a model that guesses scores. Since then "
                f"not one sample has its label even among the model's top {k}: a model that "
                "guessed at random would still hit some, so its outputs no longer rank the "
                "classes at all (NaN or infinite logits, a head whose classes do not match "
                "the labels)."
            ),
            prescription=(
                "Log the loss; check the outputs for NaN/Inf (a lower LR, gradient clipping, "
                "the input normalisation), that the labels lie in the head's class range, and "
                "for a multi-GPU run that the gradients are aggregated."
            ),
            severity=Severity.WARNING,
        )
    return None
