"""empty-samples: samples that are empty or whitespace only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pct, rows, summary


@dataclass(frozen=True)
class Params:
    # A few empty rows waste little; past 1% they are a pipeline bug worth fixing.
    warning_rate: float = 0.01


@rule(
    "empty-samples",
    minimum="a dataset audit, or a sample count with empty samples",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Empty or whitespace-only samples (input, or the answer where there is one).

    **What it does.** Counts rows whose input has no word, or whose answer has
    none when the schema has answers (instruction, prompt-completion, chat).

    **Why it matters.** Empty samples are pure padding: they cost steps, and an
    empty answer teaches the model to stop at once. They usually betray a
    broken extraction or formatting step upstream.

    **Known false positives.** Alpaca's optional `input` field is often empty
    by design; it is joined with `instruction`, so only both empty counts.

    **What to do.** Drop the rows (`--export` lists them) and fix the step
    that produced them.
    """
    d = summary(run)
    if d is None:  # no audit (preflight without the data extra): a plain count
        n, total = run.fact("empty_samples"), run.fact("dataset_size")
        if isinstance(n, int) and n > 0:
            rate = n / total if isinstance(total, int) and total else 1.0
            yield Hit(
                title=f"{n} empty or whitespace-only samples"
                + (f" of {total} ({pct(rate)})" if total else ""),
                evidence={
                    "empty": n,
                    "rows": total,
                    "rate": rate,
                    "first_lines": run.fact("empty_lines"),
                    "counted": True,
                },
                explanation=(
                    "Empty samples carry no signal; they waste steps and, with loss masking, "
                    "can give NaN or zero losses."
                ),
                prescription="Drop them before training (filter on stripped text length > 0).",
                severity=Severity.WARNING if rate >= p.warning_rate else Severity.INFO,
            )
        return
    if d.empty == 0:
        return
    rate = d.rate(d.empty)
    yield Hit(
        title=f"{d.empty} empty samples ({pct(rate)})",
        evidence={
            "empty": d.empty,
            "rate": rate,
            "rows": d.rows,
            "examples": rows(d.empty_examples),
        },
        explanation=(
            "Empty samples carry no signal; they waste steps and, as empty answers, teach the "
            "model to stop immediately. They usually mean an extraction step failed."
        ),
        prescription="Drop the empty rows and fix the step upstream that produced them.",
        severity=Severity.WARNING if rate >= p.warning_rate else Severity.INFO,
    )
