"""precision-suboptimal: fp16 chosen where bf16 would do (no instability seen yet)."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.numerics._common import Params, fp16_symptoms


@rule(
    "precision-suboptimal",
    family="numerics",
    severity=Severity.INFO,
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

    **What to do.** On Ampere or newer GPUs (A100, H100, RTX 30xx/40xx) or
    TPUs, train with bf16=True instead of fp16=True.
    """
    if str(run.fact("precision")).lower() != "fp16":
        return
    if fp16_symptoms(run, p):
        return
    yield Hit(
        title="Training in fp16: bf16 is as fast where supported and cannot overflow",
        evidence={"precision": "fp16", "base_model": run.fact("base_model")},
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
