"""large-effective-batch: effective batch far above 64 for a small fine-tuning set."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.measure.schedule import effective_batch
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # The LoRA-plateau run: 16-64 is a reasonable start for fine-tuning; too large ->
    # sharper minima,
    # worse generalisation. 4x the top of that range is "far above".
    max_batch: int = 256
    # Only batches above the recommended range are candidates at all.
    min_batch: int = 64
    # Fewer than 10 optimizer steps per epoch: the schedule and the warmup have
    # almost nothing to work with (a 2,000-sample set at batch 256 = 8 steps).
    min_steps_per_epoch: float = 10.0


@rule(
    "large-effective-batch",
    minimum="the effective batch and the dataset size (steps per epoch)",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Effective batch far above 64 for a small fine-tuning set.

    **What it does.** Takes the effective batch (as in small-effective-batch) and,
    for a run that is not pre-training, flags it above 64 when the training set
    (`dataset_size`) gives fewer than 10 optimizer steps per epoch (warning), or
    when it is above 256 (info).

    **Why it matters.** The LoRA-plateau run: an effective batch too large leads to sharper
    minima and worse generalisation; 16-64 is a reasonable start for fine-tuning.
    On a small set it also leaves only a handful of updates per epoch, so the
    warmup and decay are a few steps long.

    **Known false positives.** Large-batch recipes with LR scaled accordingly
    (LAMB/LARS), and pre-training (skipped when the regime is known).

    **What to do.** Bring the effective batch to 16-64 (lower gradient
    accumulation first), re-tune the LR for it, and check steps per epoch >= ~10.
    """
    eb = effective_batch(run)
    if eb is None or eb <= p.min_batch or run.regime == "pretraining":
        return
    size = run.fact("dataset_size")
    per_epoch = float(size) / eb if size else None
    few_steps = per_epoch is not None and per_epoch < p.min_steps_per_epoch
    if not few_steps and eb <= p.max_batch:
        return
    severity = Severity.WARNING if few_steps else Severity.INFO
    what = f"{per_epoch:.1f} optimizer steps per epoch" if per_epoch is not None else ""
    yield Hit(
        title=f"Effective batch {eb} is far above 16-64" + (f": {what}" if what else ""),
        evidence={
            "effective_batch": eb,
            "dataset_size": size,
            "steps_per_epoch": per_epoch,
            "regime": run.regime or "unknown",
        },
        explanation=(
            "Effective batch = per-device batch x devices x accumulation. Far above 64 a "
            "fine-tune takes few, very averaged steps: sharper minima and worse generalisation"
            + (f", and only {what} for warmup and decay to work with." if what else ".")
        ),
        prescription=(
            "Lower the effective batch to 16-64 (reduce gradient accumulation first) and re-tune "
            "the LR with it; aim for at least ~10 optimizer steps per epoch."
        ),
        severity=severity,
    )
