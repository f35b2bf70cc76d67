"""linear-schedule: a linear LR decay planned where cosine usually does better (preflight)."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@rule(
    "linear-schedule",
    minimum="a preflight config naming the scheduler",
    family="rate",
    severity=Severity.INFO,
    # Preflight only: in a finished run the curve says more than the schedule's name.
    requires=("fact:lr_scheduler", "fact:preflight"),
)
def check(run: Run, p: object) -> Iterator[Hit]:
    """Linear LR decay configured: cosine after warmup usually converges better (info).

    **What it does.** In a preflight, when the configured scheduler is `linear`
    (HF Trainer's default), says so once, as info.

    **Why it matters.** The LoRA-plateau run: linear decay with 10% warmup and LR 2e-4 gave an
    oscillating plateau; cosine decay, 3% warmup and 5e-5 reached 0.87. Cosine
    keeps the LR near its peak longer and anneals more gently at the end.

    **Known false positives.** Many good runs use linear decay; this is a hint,
    never a fault (hence info), and it is not said of finished runs.

    **What to do.** `lr_scheduler_type=cosine` (HF / LLaMA-Factory),
    `lr_scheduler: cosine` (Axolotl's default), with a 2-5% warmup.
    """
    name = str(run.fact("lr_scheduler")).lower()
    if name != "linear":
        return
    yield Hit(
        title="Linear LR decay: cosine after warmup usually converges better",
        evidence={"lr_scheduler": name},
        explanation=(
            "A linear decay keeps the LR high for long into the run, where fine-tunes often "
            "settle into an oscillating plateau; cosine with a 3% warmup (and a lower peak LR) "
            "usually avoids it."
        ),
        prescription="Use lr_scheduler_type=cosine with warmup_ratio 0.02-0.05.",
    )
