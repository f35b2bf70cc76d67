"""Where warmup ends, for the grads rules (not a rule module).

The spike detector they share with the numerics rules is traindoc.measure.grads.
"""

from __future__ import annotations

import numpy as np

from traindoc.model import Run


def lr_peak_step(run: Run) -> int | None:
    """Where warmup ends: first step at the LR maximum, else the warmup facts."""
    lr = run.get("lr")
    if lr is not None:
        f = lr.finite()
        if len(f) and float(f.values.max()) > 0:
            top = float(f.values.max())
            return int(f.steps[int(np.argmax(f.values >= 0.98 * top))])
    ws = run.fact("warmup_steps")
    if ws:
        return int(ws)
    wr, ms = run.fact("warmup_ratio"), run.fact("max_steps")
    if wr and ms:
        return int(float(wr) * int(ms))
    return None
