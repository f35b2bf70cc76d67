"""memory-insufficient: the estimated peak memory is above the device's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # The estimate is +-15-25% against measured peaks (docs/preflight.md): within
    # 10% of the device it is a warning ("tight"), beyond it an error.
    tight_margin: float = 0.10


@rule(
    "memory-insufficient",
    minimum="a memory estimate and the device memory (preflight)",
    family="memory",
    severity=Severity.ERROR,
    params=Params(),
    requires=("fact:memory_estimate", "fact:device_memory_gib"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Estimated peak training memory above the device's memory, with the cheapest fix.

    **What it does.** Reads the preflight estimate of peak memory (weights,
    gradients, optimizer states, activations from sequence length x micro-batch
    with or without gradient checkpointing, logits, 1 GiB CUDA overhead; LoRA and
    QLoRA train only the adapters) and compares it with the device's memory
    (`--gpu NAME` from a table, or `--gpu-mem 24GB`). Error when the estimate
    exceeds the device by more than 10%, warning when it is within 10% above or
    below (tight: fragmentation can tip it). Names the cheapest change that fits:
    gradient checkpointing, then an 8-bit optimizer, bf16 weights, micro-batch 1
    with more accumulation, LoRA, QLoRA, shorter sequences.

    **Why it matters.** An out-of-memory error after the model has loaded and the
    data has been tokenised costs minutes to hours per try; a 7B model on one
    24 GB GPU is the typical case: full fine-tuning needs ~16-18 bytes
    per parameter before activations.

    **Known false positives.** DeepSpeed ZeRO / FSDP shard the model states over
    devices, CPU offload moves them off the GPU: the estimate is per device
    without sharding. Packing, variable-length batches and custom kernels
    (Liger, fused cross-entropy) change the activation and logits terms.

    **What to do.** Apply the fixes in the order given until one fits; each
    entry carries its estimated total.
    """
    est: dict[str, Any] = dict(run.fact("memory_estimate"))
    device = float(run.fact("device_memory_gib"))
    total = float(est.get("total", 0.0))
    if total <= device * (1 - p.tight_margin):
        return
    fixes = [f for f in run.fact("memory_fixes") or () if isinstance(f, dict)]
    first_fit = next((f for f in fixes if f.get("fits")), None)
    severity = Severity.ERROR if total > device * (1 + p.tight_margin) else Severity.WARNING
    name = run.fact("gpu")
    where = f"{name}'s {device:g} GiB" if name else f"the {device:g} GiB available"
    parts = {k: v for k, v in est.items() if k != "total"}
    big = max(parts, key=parts.get) if parts else "?"
    over = total > device
    title = (
        f"Estimated peak {total:.1f} GiB "
        + (f"exceeds {where}" if over else f"is within 10% of {where}")
        + (
            f"; cheapest fix: {first_fit['fix']} (~{first_fit['total_gib']:.1f} GiB)"
            if first_fit
            else ""
        )
    )
    yield Hit(
        title=title,
        evidence={
            "estimate_gib": total,
            "device_gib": device,
            "gpu": name or f"{device:g} GiB",
            "breakdown": parts,
            "largest": big,
            "cheapest_fix": first_fit["fix"] if first_fit else None,
            "fixes": fixes,
        },
        explanation=(
            f"Weights, gradients, optimizer states and activations add up to ~{total:.1f} GiB "
            f"(largest: {big}, {parts.get(big, 0):.1f} GiB) against {device:g} GiB on the device"
            + (". The run would stop with an out-of-memory error." if over else "; too tight.")
        ),
        prescription=(
            (f"Cheapest change that fits: {first_fit['fix']} (~{first_fit['total_gib']:.1f} GiB). ")
            if first_fit
            else "No single-device change fits: shard with DeepSpeed ZeRO-3 / FSDP or use a "
            "larger GPU. "
        )
        + "In order of cost: "
        + "; ".join(f"{f['fix']} -> {f['total_gib']:.1f} GiB" for f in fixes[:6]),
        severity=severity,
    )
