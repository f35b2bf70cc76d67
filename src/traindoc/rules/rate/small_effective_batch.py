"""small-effective-batch: effective batch below ~16 for fine-tuning, with a noisy loss."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.schedule import effective_batch
from traindoc.measure.stats import diff_mad, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import FINETUNE, relative_noise


@dataclass(frozen=True)
class Params:
    # The LoRA-plateau run: 16-64 is a reasonable start for fine-tuning; below 16
    # gradients get noisy.
    min_batch: int = 16
    # Robust noise (MAD around a 25-point rolling median) above 5% of the loss level:
    # logged losses of batch 32+ fine-tunes sit around 1-3%; batch 1-8 runs at 8-20%.
    noise_rel: float = 0.05
    # A batch this small is a warning whatever the regime, when the loss is noisy.
    tiny_batch: int = 2
    # Points needed to measure noise on a short log (from consecutive differences).
    short_noise_points: int = 4
    # Issue 12: an efficiency hint stays info unless the curve shows harm, and harm
    # means the noise hides or stops progress. Progress is read after the run's first
    # tenth (the initial drop every fine-tune makes): a loss that still trends down
    # there by 3%+ of its level (significant), or halves, learns through its noise.
    still_falls: float = 0.03
    # Batch sampling noise stays under the loss's own level; spread beyond it (a loss
    # jumping 0 <-> 160) is instability, left to the NaN / spike / fp16 rules.
    max_batch_noise: float = 1.0
    # A loss that ends 10x below its start has fitted its task: noise relative to a
    # level that low is the jitter of a fitted problem, not a band a batch would lower.
    solved_rel: float = 0.1
    # An eval loss or a task metric (3+ evals) ending within 1% of its best is a model
    # still getting better on held-out data: the noisy train band costs nothing visible.
    eval_points: int = 3
    eval_at_best: float = 0.01


# Findings that say why a loss does not descend, whatever the batch: no update moves
# it (an LR far too low, predictions frozen, the uniform floor). A run that breaks
# (divergence, NaN, an LR too high) is not among them: a batch of 1 is part of why an
# LR is too high for it.
OTHER_CAUSES = ("lr-too-low", "no-learning", "uniform-plateau")


@rule(
    "small-effective-batch",
    minimum="the per-device batch (devices and accumulation counted as 1 when unknown)",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
    requires=("loss|fact:per_device_batch|fact:effective_batch",),
    # a band that does not descend because the run does not learn has that as its
    # cause: read here so the batch is then only worth knowing
    reads=OTHER_CAUSES,
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Effective batch below ~16 for fine-tuning, with a loss noisy enough to show it.

    **What it does.** Takes the effective batch (`effective_batch`, else
    per-device batch x devices x accumulation, missing factors counted as 1) and,
    for a fine-tuning run (full or LoRA) below 16, measures the loss noise: the
    robust spread (MAD) around a 25-point rolling median over the second half of
    the run, relative to the loss level (a short log: from consecutive
    differences). A small batch is an efficiency hint (info) unless the curve
    shows harm, that is noise (above 5%) that hides or stops progress (issue 12):
    a loss that, after its first tenth (the initial drop every fine-tune makes),
    neither halves nor trends down by 3%+ of its level (Mann-Kendall, significant):
    a band that never gets past its own noise, however wide, unless a held-out
    curve (eval loss or a task metric, 3+ evals: WER, accuracy, ROUGE, ...) still
    ends at its best (a seq2seq eval loss can tick up while its WER keeps falling:
    one at its best is enough). A held-out curve that got worse while the train
    loss clearly falls is overfitting's shape, not the batch's. A noisy loss that clearly falls and then
    holds (a 60-step demo at batch 2 going 3.6 -> 2.3 in its first 25 steps) pays
    only in noise, one that ends 10x below its start has fitted its task, and a
    spread above the loss's own level is instability (NaN, spikes,
    fp16), not sampling noise. The regime unknown gives at
    most info, except for a batch of 1-2 (one or two samples a step in any
    regime); pre-training with a token batch and RL runs (prompts x generations,
    a surrogate loss) are skipped.

    **Why it matters.** The LoRA-plateau run: a batch too small gives noisy gradients and
    fluctuations that look like convergence; 16-64 is a reasonable start. A 7B
    model on one 24 GB GPU forces a small batch: gradient checkpointing saves
    memory but does not reduce the gradient variance.

    A band already explained by a run that does not learn (lr-too-low, no-learning or
    uniform-plateau at warning or above) is info: a batch of 8 does not stop a run that
    an LR of 2e-8 keeps still, and a larger one would not make it learn. A run that
    breaks is not such an explanation: the LR that suits a larger batch is too high for
    a small one, so there both are causes.

    **Known false positives.** Heterogeneous data is noisy at any batch size;
    logged losses averaged over `logging_steps` hide noise (so the threshold is
    conservative there).

    **What to do.** Raise the effective batch to 16-64 with gradient accumulation
    (batch 2 x accumulation 8 = 16), and lower the LR with it if it was tuned
    for a larger batch; otherwise accept noisier training with more epochs.
    """
    loss = run.get("loss")
    eb = effective_batch(run)
    regime = run.regime
    # RL batches are prompts x generations and the loss is a surrogate near 0:
    # neither the threshold nor the loss noise means anything there.
    if eb is None or eb >= p.min_batch or regime == "pretraining" or run.is_rl:
        return
    other = run.symptom(*OTHER_CAUSES)
    if loss is None:
        # preflight, the config alone: a fine-tune's warning, else info. A training log
        # with no train loss (a model card's "No log") has no curve to show harm: info.
        noise, noisy = float("nan"), False
        setup = bool(run.fact("preflight"))
        severity = Severity.WARNING if setup and regime in FINETUNE else Severity.INFO
    else:
        noise = relative_noise(loss)
        if noise != noise:
            noise = _short_noise(loss)
        # Swings larger than the loss itself are no sampling noise at any batch size
        # (a 0 <-> 163 loss is numerics breaking): not this rule's harm.
        noisy = noise == noise and p.noise_rel <= noise < p.max_batch_noise
        # A batch of one or two is one or two samples per step in any regime: when the
        # loss shows it, that is a warning even where the regime is unknown.
        tiny = eb <= p.tiny_batch
        # The harm a small batch does is noise that hides or stops progress: a band
        # that makes no progress after the initial drop, with no held-out curve at its
        # best to say otherwise. A noisy loss that still falls clearly (or one that
        # overfits to ~0) is paying only in noise.
        harmed = noisy and other is None and not _solved(loss, p) and _shows_harm(run, loss, p)
        severity = Severity.WARNING if harmed and (regime in FINETUNE or tiny) else Severity.INFO
    per_device, devices, accum = (
        run.fact("per_device_batch"),
        run.fact("devices"),
        run.fact("grad_accum"),
    )
    want = -(-p.min_batch // eb)
    yield Hit(
        title=(
            f"Effective batch {eb} is below 16"
            + (f"; loss noise {100 * noise:.0f}% of its level" if noise == noise else "")
        ),
        step=int(loss.steps[len(loss) // 2]) if loss is not None else None,
        end_step=int(loss.steps[-1]) if loss is not None else None,
        evidence={
            "effective_batch": eb,
            "per_device_batch": per_device,
            "devices": devices,
            "grad_accum": accum,
            "loss_noise": noise,
            "noisy": bool(noisy),
            "regime": regime or "unknown",
        },
        explanation=(
            "Effective batch = per-device batch x devices x accumulation. Below ~16 the "
            "gradient of each step is a noisy estimate: the loss fluctuates in a band that can "
            "look like convergence, and the LR that suits a larger batch is too high for it."
            + (
                ""
                if noisy or loss is None
                else " The loss is not noisy here, so this is only worth knowing."
            )
            + (
                f" The band has another cause here ({other.rule}: {other.title}): a larger "
                "batch would not make this run learn."
                if noisy and other is not None
                else ""
            )
        ),
        prescription=(
            f"Raise gradient accumulation ~{want}x to reach an effective batch of 16-64 (or "
            "more devices / a larger per-device batch with gradient checkpointing), and re-tune "
            "the LR together with it."
        ),
        severity=severity,
    )


def _shows_harm(run: Run, loss: Series, p: Params) -> bool:
    """Harm the curve shows (issue 12): a train loss that makes no progress after its
    first tenth, unless a held-out curve (3+ evals) still ends at its best. A
    held-out curve that got worse while the train loss clearly falls is overfitting's
    shape (the train curve learned, the held-out one turned), not noise that hides
    progress: a larger batch would not bring it back."""
    if any(_ends_at_best(s, higher, p) for s, higher in _eval_curves(run, p)):
        return False  # held-out quality still improves: the band costs nothing visible
    return not _progresses(loss, p)


def _eval_curves(run: Run, p: Params) -> list[tuple[Series, bool]]:
    """The eval loss and the task metrics (higher-is-better flag) with 3+ evals."""
    curves = [(run.get("eval_loss"), False), *task_metrics(run)]
    return [(s, h) for s, h in curves if s is not None and s.finite().values.size >= p.eval_points]


def _ends_at_best(s: Series, higher: bool, p: Params) -> bool:
    e = s.finite().values
    e = e if higher else -e  # higher is better from here on
    best = float(e.max())
    return float(e[-1]) >= best - p.eval_at_best * abs(best) and float(e[0]) < best


def _solved(loss: Series, p: Params) -> bool:
    """The loss ends 10x below where it started: a task fitted, whose relative noise
    is the jitter of a fitted problem, not a band a larger batch would lower."""
    f = loss.finite().values
    k = max(1, f.size // 10)
    # where it started: the first 3 logs (a fast first drop is not the start level)
    head, tail = float(np.max(f[:3])), float(np.median(f[-k:]))
    return head > 0 and tail <= p.solved_rel * head


def _progresses(loss: Series, p: Params) -> bool:
    """After its first tenth (the initial drop), the loss halves, or trends down
    (Mann-Kendall, significant) by `still_falls` or more of its level: progress the
    noise neither stopped nor hides."""
    f = loss.finite()
    cut = f.values.size // 10
    later, steps = f.values[cut:], f.steps[cut:]
    if later.size < 4:
        return False
    # halved between the medians of its first and last thirds (two points at least:
    # one low point of a noisy handful is no level)
    k = max(2, later.size // 3)
    if float(np.median(later[-k:])) <= 0.5 * float(np.median(later[:k])):
        return True  # no test needed on a handful of epochs
    t = trend(steps, later)
    level = float(np.median(np.abs(later))) or 1.0
    return t.falling and -t.slope * float(steps[-1] - steps[0]) / level >= p.still_falls


def _short_noise(loss: Series) -> float:
    """Step-to-step noise of a short log relative to its level: the MAD of
    consecutive differences over sqrt(2), over the median (NaN when too short)."""
    f = loss.finite()
    if len(f) < Params.short_noise_points:
        return math.nan
    level = float(np.median(f.values))
    return diff_mad(f.values) / math.sqrt(2) / abs(level) if level else math.nan
