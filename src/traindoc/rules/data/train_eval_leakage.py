"""train-eval-leakage: eval samples whose input also appears in train."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pairs, pct, summary


@dataclass(frozen=True)
class Params:
    # Past 5% of eval leaked, eval loss is mostly measuring memorisation.
    error_rate: float = 0.05
    # Under 1%: the eval numbers move little; worth knowing, not alarming.
    warning_rate: float = 0.01


@rule(
    "train-eval-leakage",
    minimum="a dataset audit with an eval split",
    family="data",
    severity=Severity.ERROR,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Eval samples whose input appears in train, exactly or nearly (Jaccard >= 0.6).

    **What it does.** Looks up each eval input's exact hash among the train
    inputs, and queries the same LSH index for near matches.

    **Why it matters.** The LoRA-plateau run: validation is a signal, not a formality. Leaked
    eval samples are memorised, so eval loss tracks train loss and hides
    overfitting; the "held-out" numbers are not.

    **Known false positives.** Benchmarks that share boilerplate (instructions,
    system prompts) with train; a shared template is not a leaked answer.

    **What to do.** Remove the leaked eval rows (`--export` lists them), or
    re-split after deduplicating.
    """
    d = summary(run)
    if d is None or d.eval_rows == 0 or d.leaked == 0:
        return
    rate = d.rate(d.leaked, eval_side=True)
    sev = (
        Severity.ERROR
        if rate >= p.error_rate
        else Severity.WARNING
        if rate >= p.warning_rate
        else Severity.INFO
    )
    yield Hit(
        title=f"{d.leaked} of {d.eval_rows} eval samples ({pct(rate)}) also appear in train",
        evidence={
            "leaked": d.leaked,
            "leaked_exact": d.leaked_exact,
            "leaked_near": d.leaked - d.leaked_exact,
            "eval_rows": d.eval_rows,
            "rate": rate,
            "examples": pairs(d.leak_examples),
        },
        explanation=(
            "Eval samples seen in training are memorised: eval loss follows train loss and "
            "overfitting goes unseen, so the early-stopping signal is not held out."
        ),
        prescription="Remove the leaked eval rows (traindoc data --export) or deduplicate, then re-split.",
        severity=sev,
    )
