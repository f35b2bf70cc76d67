"""duplicate-samples: the same sample (after normalisation) appears more than once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pairs, pct, summary


@dataclass(frozen=True)
class Params:
    # 1% of rows repeated is where the repeats start to weigh on the gradient
    # (each copy is an extra epoch for that sample); below it, worth knowing only.
    warning_rate: float = 0.01


@rule(
    "duplicate-samples",
    minimum="a dataset audit",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Exact duplicate samples (same words, case and punctuation ignored).

    **What it does.** Hashes each sample's lower-cased words (input and label or
    answer together) and counts rows that repeat an earlier row.

    **Why it matters.** The LoRA-plateau run: duplicates are one of the data faults that
    produce the oscillating plateau whatever the hyper-parameters: repeated
    samples are over-weighted, memorised, and leak between splits.

    **Known false positives.** Short, legitimately repeated samples ("yes",
    "thank you") in chat data; templated prompts whose variable part is not
    in the audited fields.

    **What to do.** Drop the repeats (`--export` lists their rows) and keep the
    first copy; deduplicate before splitting train and eval.
    """
    d = summary(run)
    if d is None or d.duplicates == 0:
        return
    rate = d.rate(d.duplicates)
    distinct = d.rows - d.empty - d.duplicates
    yield Hit(
        title=(
            f"{d.duplicates} duplicate rows ({pct(rate)}) in {d.duplicate_groups} groups: "
            f"{distinct} distinct samples in {d.rows} rows of {_where(d.paths)}"
        ),
        evidence={
            "files": list(d.paths),
            "distinct": distinct,
            "duplicates": d.duplicates,
            "rate": rate,
            "groups": d.duplicate_groups,
            "rows": d.rows,
            "examples": pairs(d.duplicate_examples),
        },
        explanation=(
            "Each copy is an extra pass over the same sample: it is over-weighted, memorised "
            "first, and if it also sits in eval, the eval loss is no longer held out."
        ),
        prescription="Drop the repeated rows (traindoc data --export lists them), then re-split.",
        severity=Severity.WARNING if rate >= p.warning_rate else Severity.INFO,
    )


def _where(paths: tuple[str, ...]) -> str:
    """The audited files by name, so the finding says which data it is about."""
    names = [Path(p).name for p in paths]
    return ", ".join(names[:3]) + (f" +{len(names) - 3} more" if len(names) > 3 else "")
