"""label-conflicts: the same (or near-same) input appears with different labels or answers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pairs, pct, summary


@dataclass(frozen=True)
class Params:
    # Label noise of a few percent already costs accuracy measurably; 1% of rows
    # in conflicting pairs is where it is worth fixing before tuning anything.
    warning_rate: float = 0.01


@rule(
    "label-conflicts",
    minimum="a dataset audit with inputs and labels",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Same or near-same input (word 1+2-gram Jaccard >= 0.8) with a different label or answer.

    **What it does.** Among pairs whose inputs are identical or near-identical,
    counts those whose class labels differ, or whose answers are neither equal
    nor near-equal.

    **Why it matters.** The LoRA-plateau run names wrong labels among the data faults behind
    the oscillating plateau: the model is asked to fit both answers, the loss
    cannot go below the disagreement, and gradients from the pair cancel.

    **Known false positives.** Tasks where one input has several valid answers
    (open-ended generation, paraphrase); inputs that differ in a detail the
    label depends on (a negation, a number).

    **What to do.** Review the pairs (`--export` lists the rows): fix the wrong
    label, or drop both when the task is genuinely ambiguous.
    """
    d = summary(run)
    if d is None or d.conflicts == 0:
        return
    rate = d.rate(d.conflicts)
    what = "labels" if d.label_kind == "class" else "answers"
    yield Hit(
        title=f"{d.conflict_pairs} pairs of same-input samples with different {what} ({d.conflicts} rows, {pct(rate)})",
        evidence={
            "conflicts": d.conflicts,
            "pairs": d.conflict_pairs,
            "rate": rate,
            "label_field": d.label_field,
            "examples": pairs(d.conflict_examples),
        },
        explanation=(
            "The model is trained to give two different answers to the same input; it cannot "
            "fit both, so the loss stalls at the disagreement and oscillates."
        ),
        prescription="Review the listed pairs; fix the wrong label or drop ambiguous samples.",
        severity=Severity.WARNING if rate >= p.warning_rate else Severity.INFO,
    )
