"""Helpers shared by the loss-curve rules (private: not loaded as a rule)."""

from __future__ import annotations

import numpy as np

from traindoc.model import Series


def starts_mid_run(loss: Series) -> bool:
    """True when the log is a late window of a longer run (resumed, truncated head)."""
    if not len(loss):
        return False  # nothing finite logged: no window to place
    first, last = int(loss.steps[0]), int(loss.steps[-1])
    if len(loss) >= 2 and first <= float(np.median(np.diff(loss.steps))):
        return False  # the first log one interval in: a run logged from its start
    return first > 50 and first > 0.25 * max(last - first, 1)
