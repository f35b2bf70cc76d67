"""The evidence every loss-spike reading reports about its largest spike: where it is,
how high it went, the level it rose from and the relative jump (one shape for the JSON
report, whichever reading found it)."""

from __future__ import annotations


def largest(step: int, value: float, baseline: float) -> dict[str, float | int]:
    """`largest_step`, `largest_value`, `largest_baseline` and `largest_rel` of a spike
    to `value` from `baseline` at `step`."""
    return {
        "largest_step": step,
        "largest_value": value,
        "largest_baseline": baseline,
        "largest_rel": value / baseline - 1,
    }
