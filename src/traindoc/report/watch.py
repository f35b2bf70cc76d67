"""`traindoc watch`: the words of a followed run, as they come.

One line per new finding or stall, time-stamped; a heartbeat (step, loss, LR,
pace) every so often, which a terminal shows as one status line rewritten in
place and a pipe as plain lines; the end of the run and its verdict. Plain
text, flushed at once (a terminal, a pipe into `grep`, a CI log): "[12:00:03]"
is the time, not markup.

The watcher's updates are read by shape (the protocols below): report/ sits
beside live/ and never imports it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from traindoc.model import Finding
from traindoc.report.line import finding_line

if TYPE_CHECKING:
    from traindoc.model.diagnosis import Diagnosis
    from traindoc.report.render import Output


class Beat(Protocol):
    """A heartbeat (traindoc.live.beat.Beat): the newest numbers of the run."""

    @property
    def step(self) -> int: ...
    @property
    def values(self) -> Mapping[str, float]: ...
    @property
    def steps_per_s(self) -> float | None: ...


class Finished(Protocol):
    """What says the run ended (traindoc.live.watch.Finished)."""

    @property
    def step(self) -> int | None: ...
    @property
    def how(self) -> str: ...


class Update(Protocol):
    """One look at the run (traindoc.live.watch.Update): what is new since the last."""

    @property
    def findings(self) -> Sequence[Finding]: ...
    @property
    def stall(self) -> Finding | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def waiting(self) -> bool: ...
    @property
    def beat(self) -> Beat | None: ...


def header(path: Path, interval: float, every: float, *, waiting: bool) -> str:
    """The first line: a run not written yet is waited for quietly, not reported unreadable."""
    if waiting:
        return f"waiting for {path} to be written… (Ctrl-C to stop)"
    return f"watching {path} (every {interval:g} s, a heartbeat every {every:g} s; Ctrl-C to stop)"


def line(f: Finding, stamp: str | None = None) -> str:
    """`[12:00:03] ERROR   nonfinite-loss: Loss is non-finite from step 2`."""
    stamp = stamp or _now()
    return f"[{stamp}] {str(f.severity).upper():7} {f.id}: {finding_line(f)}"


def beat_text(b: Beat) -> str:
    """`step 1200  loss 2.314  lr 3.00e-04  grad_norm 0.82  4.1 steps/s`"""
    parts = [f"step {b.step}"]
    parts += [f"{name} {_num(v, name)}" for name, v in b.values.items()]
    if b.steps_per_s is not None:
        parts.append(f"{b.steps_per_s:.3g} steps/s")
    return "  ".join(parts)


def render(update: Update, out: Output) -> None:
    """The update's new findings, then its stall, then its heartbeat; a run that cannot
    be read yet on stderr (not while nothing is written: then the wait says it)."""
    if update.error and not update.waiting:
        out.clear_status()
        out.err.write(f"  (not readable yet: {update.error})\n")
        out.err.flush()
    for f in (*update.findings, *((update.stall,) if update.stall else ())):
        out.write(line(f))
    if update.beat is not None:
        out.status(f"[{_now()}] {beat_text(update.beat)}")


def finish(done: Finished, last: Diagnosis | None, out: Output) -> None:
    """The run's end, what says so, and the verdict of its last diagnosis."""
    from traindoc.report.terminal import verdict_line

    at = f" at step {done.step}" if done.step is not None else ""
    out.write(f"[{_now()}] finished{at} ({done.how})")
    if last is not None:
        out.console.print(verdict_line(last))


def _now() -> str:
    return time.strftime("%H:%M:%S")


def _num(v: float, name: str) -> str:
    if not math.isfinite(v):
        return str(v)
    return f"{v:.2e}" if name == "lr" else f"{v:.4g}"
