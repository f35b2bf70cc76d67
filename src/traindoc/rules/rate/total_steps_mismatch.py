"""total-steps-mismatch: planned steps disagree with data size x epochs / effective batch."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.measure.schedule import effective_batch
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Off by more than 1.5x either way is not rounding (drop_last, a last partial
    # accumulation window and packing move it by a few percent, not 50%).
    ratio: float = 1.5


@rule(
    "total-steps-mismatch",
    minimum="max_steps, dataset_size and num_train_epochs",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
    requires=("fact:max_steps", "fact:dataset_size", "fact:num_train_epochs"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Planned total steps inconsistent with dataset size x epochs / effective batch.

    **What it does.** Computes the optimizer steps the data implies,
    ceil(samples / (per-device batch x devices)) / accumulation x epochs, and
    compares it with the configured `max_steps` (or the total a scheduler was
    built with). Off by more than 1.5x is a warning; when the ratio is the
    accumulation or the device count, it names the likely cause: steps counted
    in micro-batches, or per device.

    **Why it matters.** The LR schedule and the warmup are laid out over the
    planned total. A total counted in micro-batches makes cosine decay
    accumulation-times too slowly (the LR never comes down, warmup_ratio gives a
    warmup accumulation-times too long); a total too small ends the schedule, or
    the run, long before the data is used.

    **Known false positives.** `max_steps` set on purpose to stop early or to
    repeat a small set (HF Trainer then ignores epochs); streaming datasets
    whose size is not known.

    **What to do.** Derive the total from the data: steps = ceil(samples /
    (batch x devices x accumulation)) x epochs, or set max_steps only when you
    mean to override epochs.
    """
    eb = effective_batch(run)
    if not eb:
        return
    size, epochs, planned = (
        int(run.fact("dataset_size")),
        float(run.fact("num_train_epochs")),
        int(run.fact("max_steps")),
    )
    per_step = int(run.fact("per_device_batch") or eb) * int(run.fact("devices") or 1)
    accum = int(run.fact("grad_accum") or 1)
    implied = math.ceil(size / per_step) // max(accum, 1) * epochs if per_step else 0
    implied = max(implied, epochs * size / eb)
    if implied <= 0 or planned <= 0:
        return
    ratio = planned / implied
    if 1 / p.ratio <= ratio <= p.ratio:
        return
    cause = ""
    devices = int(run.fact("devices") or 1)
    if accum > 1 and abs(ratio / accum - 1) < 0.1:
        cause = f"{ratio:.1f}x = the accumulation {accum}: the total counts micro-batches"
    elif devices > 1 and abs(ratio / devices - 1) < 0.1:
        cause = f"{ratio:.1f}x = the device count {devices}: the total counts per-device batches"
    yield Hit(
        title=(
            f"Planned {planned} steps, but {size} samples x {epochs:g} epochs / batch {eb} "
            f"= {implied:.0f} steps ({ratio:.2g}x)"
        ),
        evidence={
            "planned_steps": planned,
            "implied_steps": implied,
            "ratio": ratio,
            "dataset_size": size,
            "epochs": epochs,
            "effective_batch": eb,
            "cause": cause or None,
        },
        explanation=(
            "The LR schedule and warmup are spread over the planned total. "
            + (cause + ". " if cause else "")
            + (
                "With a total this large the decay barely starts and the warmup stretches."
                if ratio > 1
                else "With a total this small the schedule (or the run) ends before the data is used."
            )
        ),
        prescription=(
            f"Plan ~{implied:.0f} optimizer steps (samples / (batch x devices x accumulation) x "
            "epochs), or drop max_steps and let epochs decide."
        ),
    )
