"""precision-suboptimal: fp16 chosen where bf16 would do (no instability seen yet)."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.numerics._common import Params, fp16_symptoms


@rule(
    "precision-suboptimal",
    minimum="the precision fact (config or loss-scale lines)",
    family="numerics",
    # Info by default; warning only for a model known to overflow in fp16 (below).
    severity=Severity.WARNING,
    # Same thresholds as fp16-instability, so exactly one of the two speaks.
    params=Params(),
    requires=("fact:precision",),
    uses=("loss", "grad_norm"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """fp16 training where bf16 is supported: same speed, no overflow risk.

    **What it does.** When the run's precision is fp16 and none of
    fp16-instability's overflow signatures are present, suggests bf16. It says
    nothing for bf16 or fp32 runs, and nothing when fp16-instability already
    fires (that finding carries the same advice, louder).

    **Why it matters.** bf16 has fp32's exponent range, so it needs no loss
    scaling and does not overflow; on GPUs that support it it is as fast as
    fp16. fp16 is the most common cause of NaN in training, and models
    pre-trained in bf16 (LLaMA, T5, Gemma, ...) are known to overflow in it.

    **Known false positives.** Older GPUs (V100, T4, RTX 20xx) have no bf16:
    there fp16 is the right choice, which is why this is only info.

    With the device known (`gpu_bf16`, from preflight's `--gpu`), a GPU without
    bf16 silences it, and a model pre-trained in bf16 (config dtype bfloat16, or
    the LLaMA / T5 / Gemma / Mistral / Qwen families) trained in fp16 is a
    warning: those are known to overflow in fp16.

    **What to do.** On Ampere or newer GPUs (A100, H100, RTX 30xx/40xx) or
    TPUs, train with bf16=True instead of fp16=True.
    """
    if str(run.fact("precision")).lower() != "fp16":
        return
    if fp16_symptoms(run, p):
        return
    if run.fact("gpu_bf16") is False:
        return  # V100 / T4 / RTX 20xx: fp16 is the right choice there
    prone = _overflow_prone(run)
    yield Hit(
        title="Training in fp16: bf16 is as fast where supported and cannot overflow"
        + (f" ({prone})" if prone else ""),
        evidence={
            "precision": "fp16",
            "base_model": run.fact("base_model"),
            "gpu": run.fact("gpu"),
            "gpu_bf16": run.fact("gpu_bf16"),
            "overflow_prone": prone,
        },
        severity=Severity.WARNING if prone else Severity.INFO,
        explanation=(
            "fp16's range ends at 65504 and needs dynamic loss scaling; bf16 keeps fp32's "
            "exponent range, so the same run cannot overflow. No instability is visible in "
            "this run yet."
        ),
        prescription=(
            "On A100/H100, RTX 30xx/40xx or TPU, use bf16=True instead of fp16=True. On "
            "V100/T4/RTX 20xx (no bf16) keep fp16 and watch for NaNs."
        ),
    )


# Families pre-trained in bf16 that are known to overflow in fp16 (DOMAIN: practitioners).
_BF16_FAMILIES = ("llama", "t5", "gemma", "mistral", "qwen", "mixtral", "falcon", "bloom")


def _overflow_prone(run: Run) -> str | None:
    """Why this model is known to overflow in fp16, or None."""
    dtype = str(run.fact("model_dtype") or "").lower()
    if "bfloat16" in dtype or dtype == "bf16":
        return "the model was saved in bf16"
    kind = str(run.fact("model_type") or "").lower()
    fam = next((f for f in _BF16_FAMILIES if f in kind), None)
    return f"{kind} models are pre-trained in bf16 and known to overflow in fp16" if fam else None
