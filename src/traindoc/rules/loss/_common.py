"""Helpers shared by the loss-curve rules (private: not loaded as a rule)."""

from __future__ import annotations

from traindoc.model import Series


def starts_mid_run(loss: Series) -> bool:
    """True when the log is a late window of a longer run (resumed, truncated head)."""
    if not len(loss):
        return False  # nothing finite logged: no window to place
    first, last = int(loss.steps[0]), int(loss.steps[-1])
    return first > 50 and first > 0.25 * max(last - first, 1)
