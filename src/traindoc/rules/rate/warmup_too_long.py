"""warmup-too-long: warmup takes well above the 2-5% of total steps that works."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import curve, total_steps, warmup


@dataclass(frozen=True)
class Params:
    # Seed B: 2-5% of total steps is the recommendation; its 10% warmup was part of
    # the oscillating plateau. 8% leaves room above 5% for rounding of ratio configs.
    warn_frac: float = 0.08
    # A quarter of the run spent warming up is a large share of the budget: stronger words.
    strong_frac: float = 0.25
    # A handful of warmup steps costs nothing whatever their share (tiny test runs).
    min_steps: int = 10


@rule(
    "warmup-too-long",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
    requires=("lr|fact:warmup_steps|fact:warmup_ratio",),
    uses=("lr",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Warmup well above the 2-5% of total steps that works for most runs.

    **What it does.** Measures warmup from the logged LR (steps until it first
    reaches 98% of its peak), else from `warmup_steps` / `warmup_ratio` x
    `max_steps`, and divides by the total steps (`max_steps`, else the last
    logged step). Warns at >= 8% (info while the loss keeps falling), with
    stronger wording at >= 25%.

    **Why it matters.** Seed B used 10% warmup (with LR 2e-4, linear decay) and got
    an oscillating plateau; the fix used 3%. A long warmup spends the steps where
    the model learns fastest at a low LR, slows convergence and gives a false look
    of stability; with linear decay it also leaves less of the run at the peak.

    **Known false positives.** 10% is a classic BERT-era default and harmless on
    short fine-tunes that converge; very large batches or very deep models
    sometimes need long warmups. Treat it as a tuning hint unless the curve
    also plateaus: below 25% of the run, a loss still clearly falling in the
    second half of the run (Theil-Sen drop >= 2%, significant) makes it info.

    **What to do.** Set warmup to 2-5% of total steps (e.g. `warmup_ratio=0.03`),
    and tune it together with peak LR and effective batch.
    """
    w = warmup(run)
    total = total_steps(run)
    if w is None or not total or w.steps < p.min_steps:
        return
    if not w.complete and not run.fact("max_steps"):
        return  # still warming up and no planned length: the share is unknown
    frac = w.steps / float(total)
    if frac < p.warn_frac:
        return
    strong = frac >= p.strong_frac
    # Below a quarter of the run, a long warmup on a curve that keeps falling is a
    # tuning hint (info): the docstring's "unless the curve also plateaus".
    loss = run.get("loss")
    c = curve(loss) if loss is not None else None
    converging = c is not None and c.converging
    severity = Severity.INFO if converging and not strong else Severity.WARNING
    yield Hit(
        title=(
            f"Warmup of {w.steps:.0f} steps is {100 * frac:.0f}% of the {total} total steps "
            "(2-5% is typical)"
        ),
        step=0,
        end_step=int(w.steps),
        evidence={
            "warmup_steps": w.steps,
            "total_steps": total,
            "warmup_frac": frac,
            "source": w.source,
            "complete": w.complete,
            "loss_converging": converging,
        },
        explanation=(
            ("A quarter or more of the run" if strong else "A large share of the run")
            + " is spent ramping the LR up, where the model would learn fastest. A long warmup "
            "slows convergence and gives a false look of stability (seed B: 10% warmup was part "
            "of the plateau; 3% fixed it)."
            + (" At this length most of the budget never sees the peak LR." if strong else "")
        ),
        prescription=(
            f"Shorten warmup to 2-5% of total steps (~{max(1, round(0.03 * total))} steps, "
            "warmup_ratio=0.03) and re-tune peak LR with it."
        ),
        severity=severity,
    )
