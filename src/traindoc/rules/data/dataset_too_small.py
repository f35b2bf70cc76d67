"""dataset-too-small: fewer than ~1,000 representative samples."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import summary


@dataclass(frozen=True)
class Params:
    # The LoRA-plateau run: "under 1,000 representative samples, no tuning helps".
    min_samples: int = 1000


@rule(
    "dataset-too-small",
    minimum="a dataset audit, or the dataset_size fact",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Fewer than 1,000 representative samples (non-empty, duplicates counted once).

    **What it does.** Counts the samples that are neither empty nor an exact or
    near copy of another, and compares with 1,000.

    **Why it matters.** The LoRA-plateau run: under about 1,000 representative samples no
    hyper-parameter tuning makes fine-tuning work; the model memorises the set.

    **Known false positives.** Few-shot style tasks with very long samples, or
    adapters trained deliberately on a tiny style set, can work with less.

    **What to do.** Collect more data; use a smaller model; or use few-shot
    prompting instead of fine-tuning.
    """
    d = summary(run)
    if d is None:  # no audit (preflight without the data extra): a plain count
        n = run.fact("dataset_size")
        if run.fact("empty_samples") is not None and isinstance(n, int) and n < p.min_samples:
            yield Hit(
                title=f"{n} training samples (under {p.min_samples:,}), counted",
                evidence={"samples": n, "min_samples": p.min_samples, "counted": True},
                explanation=(
                    "With this few samples the model memorises the set rather than learning "
                    "the task; no learning-rate or schedule change fixes that."
                ),
                prescription=(
                    "Collect more samples (thousands), use a smaller model, or switch to "
                    "few-shot prompting instead of fine-tuning."
                ),
            )
        return
    if d.rows == 0 or d.unique >= p.min_samples:
        return
    yield Hit(
        title=f"Only {d.unique} representative samples (under {p.min_samples:,})",
        evidence={
            "unique": d.unique,
            "rows": d.rows,
            "empty": d.empty,
            "duplicates": d.duplicates,
            "near_duplicates": d.near_duplicates,
            "min_samples": p.min_samples,
        },
        explanation=(
            "With this few distinct samples the model memorises the set rather than learning "
            "the task; no learning-rate or schedule change fixes that."
        ),
        prescription=(
            "Collect more samples (thousands), use a smaller model, or switch to few-shot "
            "prompting instead of fine-tuning."
        ),
    )
