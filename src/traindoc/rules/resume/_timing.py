"""Wall-clock helpers for the progress rules (stalled-training, throughput-drop)."""

from __future__ import annotations

import numpy as np

from traindoc.model import Run, Series


def timed_series(run: Run) -> Series | None:
    """The series whose wall-clock times describe progress: the train loss if it has
    times (it is logged every logging step), else the timed series with most points."""
    loss = run.get("loss")
    if loss is not None and loss.times is not None:
        return loss
    timed = [s for s in run.series.values() if s.times is not None and len(s) >= 2]
    return max(timed, key=len) if timed else None


def intervals(s: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, times, dt) over points with a finite time; dt[i] is the gap after point i."""
    assert s.times is not None
    ok = np.isfinite(s.times)
    steps, times = s.steps[ok], s.times[ok]
    return steps, times, np.diff(times)


def longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of True in a boolean array."""
    if mask.size == 0 or not mask.any():
        return 0, 0
    m = np.r_[False, mask, False].astype(np.int8)
    d = np.diff(m)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k] - starts[k])
