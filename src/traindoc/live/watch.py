"""Follow a run that another process is writing: new findings, and stalls.

Polling, not inotify: it works on network filesystems and on every OS. Each
poll stats the log files (trainer_state.json, *.jsonl, metrics.csv, TensorBoard
event files); only when one changed is the run re-read and diagnosed. The
stall clock is the watcher's own: when the files last changed, against the
usual interval between changes - so it works for formats that record no time.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from traindoc.engine import diagnose
from traindoc.model import Fact, Finding, Severity
from traindoc.readers import ReadError, load_run
from traindoc.rules.registry import load_all

_PATTERNS = ("trainer_state.json", "*.jsonl", "metrics.csv", "events.out.tfevents*", "*.log")
# Without stall_after: a silence of 10x the usual interval between file changes,
# and at least 30 s (a poll sees writes in bursts; checkpoint saves pause logs).
STALL_FACTOR = 10.0
STALL_FLOOR_S = 30.0
MIN_CHANGES = 3


@dataclass(frozen=True)
class Update:
    findings: tuple[Finding, ...] = ()
    stall: Finding | None = None
    last_step: int | None = None
    error: str | None = None


class Watcher:
    def __init__(self, run_dir: str | Path, stall_after: float | None = None) -> None:
        self.root = Path(run_dir)
        self.stall_after = stall_after
        self.rules = load_all()
        self._sig: tuple = ()
        self._changes: list[float] = []
        self._seen: set[tuple[str, int | None]] = set()
        self._stalled = False
        self._last_step: int | None = None

    def _signature(self) -> tuple:
        out = []
        for pat in _PATTERNS:
            for p in self.root.rglob(pat):
                try:
                    st = p.stat()
                except OSError:
                    continue
                out.append((str(p), st.st_size, st.st_mtime_ns))
        return tuple(sorted(out))

    def threshold(self) -> float | None:
        if self.stall_after is not None:
            return self.stall_after if self._changes else None
        if len(self._changes) < MIN_CHANGES:
            return None
        gaps = [b - a for a, b in zip(self._changes, self._changes[1:], strict=False)]
        return max(STALL_FACTOR * statistics.median(gaps), STALL_FLOOR_S)

    def poll(self, now: float | None = None) -> Update:
        now = time.time() if now is None else now
        sig = self._signature()
        if sig != self._sig:
            self._sig = sig
            self._changes.append(now)
            self._stalled = False
            return self._diagnose()
        limit = self.threshold()
        if limit is None or self._stalled or not self._changes:
            return Update(last_step=self._last_step)
        silence = now - self._changes[-1]
        if silence < limit:
            return Update(last_step=self._last_step)
        self._stalled = True
        return Update(stall=self._stall_finding(silence, limit), last_step=self._last_step)

    def _diagnose(self) -> Update:
        try:
            run = load_run(self.root)
        except ReadError as exc:  # a file caught mid-write: try again next poll
            return Update(error=str(exc))
        run = replace(run, facts={**run.facts, "now": Fact(time.time(), "watcher clock")})
        self._last_step = run.last_step
        d = diagnose(run, list(self.rules.values()))
        new = []
        for f in d.findings:
            key = (f.rule, f.step)
            if key not in self._seen:
                self._seen.add(key)
                new.append(f)
        return Update(findings=tuple(new), last_step=self._last_step)

    def _stall_finding(self, silence: float, limit: float) -> Finding:
        gaps = [b - a for a, b in zip(self._changes, self._changes[1:], strict=False)]
        usual = statistics.median(gaps) if gaps else None
        return Finding(
            rule="stalled-training",
            family="resume",
            severity=Severity.ERROR,
            title=f"Logs stopped advancing after step {self._last_step}: nothing written for "
            f"{silence:.0f} s" + (f" (usual {usual:.1f} s between writes)" if usual else ""),
            step=self._last_step,
            evidence={
                "stalled_after_step": self._last_step,
                "gap_s": round(silence, 3),
                "usual_interval_s": usual,
                "threshold_s": limit,
                "ended_in_stall": True,
            },
            explanation="The training process has not written to its logs for far longer than "
            "usual: a hang, or a step condition that never fires after a resume (GPU at 0%, "
            "log frozen, no error).",
            prescription="Check the process: alive with GPU at 0% is a hang (py-spy dump "
            "--pid); after a resume, check the step arithmetic against gradient "
            "accumulation and whether data skipping explains the wait.",
        )

    def follow(self, interval: float = 2.0) -> Iterator[Update]:
        while True:
            yield self.poll()
            time.sleep(interval)
