"""The heartbeat of a watched run: its newest numbers, at a steady pace.

A user watching a run wants to see it move (step, loss, LR) without a line per
logged step: one beat every `every` seconds, and never two for the same step
(a run that stopped advancing gets no beat; the stall check speaks for it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from traindoc.model import Run

# Shown in this order, when logged (canonical signal names).
SHOWN = ("loss", "lr", "grad_norm")
# Steps per second over at most this many of the newest records: the current pace,
# not the average since a slow start (compilation, data loading).
RATE_WINDOW = 50


@dataclass(frozen=True)
class Beat:
    step: int
    values: dict[str, float] = field(default_factory=dict)  # the newest of each of SHOWN
    steps_per_s: float | None = None


class Pacer:
    """Decides when a beat is due; `now` is the caller's clock (a test passes its own)."""

    def __init__(self, every: float) -> None:
        if not every > 0:
            raise ValueError(f"every must be > 0 seconds (got {every})")
        self.every = every
        self._at: float | None = None
        self._step: int | None = None
        self._seen: list[tuple[float, int]] = []  # (when the watcher saw it, step)

    def saw(self, now: float, step: int | None) -> None:
        """A new read of the run: remembered for the pace when the log records no time."""
        if step is not None and (not self._seen or step > self._seen[-1][1]):
            self._seen = [*self._seen[-RATE_WINDOW:], (now, step)]

    def due(self, now: float, step: int | None) -> bool:
        if step is None or (self._step is not None and step <= self._step):
            return False
        if self._at is not None and now - self._at < self.every:
            return False
        self._at, self._step = now, step
        return True

    def beat(self, run: Run) -> Beat | None:
        step = run.last_step
        if step is None:
            return None
        values = {}
        for name in SHOWN:
            s = run.get(name)
            if s is not None and len(s):
                values[name] = float(s.values[-1])
        return Beat(step, values, _rate(run) or self._own_rate())

    def _own_rate(self) -> float | None:
        if len(self._seen) < 2:
            return None
        (t0, s0), (t1, s1) = self._seen[0], self._seen[-1]
        return (s1 - s0) / (t1 - t0) if t1 > t0 else None


def _rate(run: Run) -> float | None:
    """Steps per second from the times the log records (the series reaching furthest)."""
    timed = [s for s in run.series.values() if s.times is not None and len(s) >= 2]
    if not timed:
        return None
    s = max(timed, key=lambda s: (int(s.steps[-1]), len(s)))
    steps, times = s.steps[-RATE_WINDOW:], s.times[-RATE_WINDOW:]  # type: ignore[index]
    ok = [i for i in range(len(times)) if math.isfinite(float(times[i]))]
    if len(ok) < 2:
        return None
    dt = float(times[ok[-1]] - times[ok[0]])
    ds = float(steps[ok[-1]] - steps[ok[0]])
    return ds / dt if dt > 0 and ds > 0 else None
