"""An LR-sweep arm judged against its siblings (fact `lr_sweep`, measure/sweep.py).

lr-too-low and lr-too-high share this reading, each on its own side of the sweep's best
LR: an arm whose loss at the common budget sits `SWEEP_GAP` or more above the best arm's
is too low below the best LR and too high above it, whatever its own curve says.
"""

from __future__ import annotations

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit

# 5% is ~10x the seed-to-seed spread of a validated LM loss, and beyond the flat basin
# around the best LR: arms within 2-3x of it sit 1-4% apart (TinyStories 17M, 10k steps:
# 1.386 at 1e-3, 1.411 at 3e-3, 1.418 at 1e-2; 1.369 at 1e-3, 1.411 at 6e-4), where an
# arm 10x off it is 10-50% worse (1.796 at 1e-4; 2.187 against 1.459 at 3e-3 in 3k steps).
SWEEP_GAP = 0.05


def sweep_hit(run: Run, above: bool, gap_line: float = SWEEP_GAP) -> Hit | None:
    """The finding for an arm `gap_line` or more worse than its sweep's best arm, on the
    given side of the best LR (`above`: a higher LR); None otherwise."""
    sw = run.fact("lr_sweep")
    if sw is None or sw["gap"] < gap_line or sw["lr"] == sw["best_lr"]:
        return None
    if (sw["lr"] > sw["best_lr"]) != above:
        return None
    what = sw["series"].replace("_", " ")
    loss = run.get(sw["series"])
    side = "higher" if not above else "lower"
    why = (
        "Above the sweep's best LR, the steps were too large for the model to settle "
        "where the smaller ones did."
        if above
        else "Below the sweep's best LR, the steps were too small to use the budget."
    )
    return Hit(
        title=(
            f"LR {fmt(sw['lr'])} ends {sw['gap']:.0%} worse than its sweep's best arm at "
            f"{fmt(sw['best_lr'])}"
        ),
        step=int(loss.steps[0]) if loss is not None else None,
        end_step=int(sw["step"]),
        evidence={
            "peak_lr": sw["lr"],
            "sweep_best_lr": sw["best_lr"],
            "sweep_best_run": sw["best_run"],
            "sweep_series": sw["series"],
            "sweep_step": sw["step"],
            "value": sw["value"],
            "best_value": sw["best_value"],
            "sweep_gap": sw["gap"],
            "sweep_arms": sw["arms"],
        },
        explanation=(
            f"Read with {sw['arms'] - 1} sibling runs of the same sweep at step {sw['step']}, "
            f"this arm's {what} is {fmt(sw['value'])} where the arm at the {side} LR "
            f"{fmt(sw['best_lr'])} ({sw['best_run']}) reached {fmt(sw['best_value'])}: "
            f"{sw['gap']:.0%} worse on the same budget. {why}"
        ),
        prescription=(
            f"Use the sweep's best LR, ~{fmt(sw['best_lr'])}, or sweep between it and "
            f"{fmt(sw['lr'])} if this LR was chosen for " + ("speed." if above else "stability.")
        ),
        severity=Severity.WARNING,
    )
