"""Follow a run that another process is writing: new findings, a heartbeat, stalls, the end.

Polling, not inotify: it works on network filesystems and on every OS. Each
poll stats the log files (trainer_state.json, *.jsonl, metrics.csv, TensorBoard
event files, console logs); only when one changed is the run re-read and
diagnosed. The stall clock is the watcher's own: when the files last changed,
against the usual interval between changes - so it works for formats that
record no time. A run that says it ended is finished, not stalled.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from traindoc.engine import STALL, Diagnosis, diagnose
from traindoc.live.beat import Beat, Pacer
from traindoc.model import Fact, Finding, Run
from traindoc.readers import ReadError, load_run
from traindoc.rules.api import Hit
from traindoc.rules.registry import load_all
from traindoc.settings import Settings, resolve

_PATTERNS = ("trainer_state.json", "*.jsonl", "metrics.csv", "events.out.tfevents*", "*.log")
# Without stall_after: a silence of 10x the usual interval between file changes,
# and at least 30 s (a poll sees writes in bursts; checkpoint saves pause logs).
STALL_FACTOR = 10.0
STALL_FLOOR_S = 30.0
MIN_CHANGES = 3
# Seconds between heartbeats by default: often enough to see a run move, rarely
# enough that the findings stay readable between them.
EVERY_S = 30.0
# Lightning prints this when fit ends (max_steps / max_epochs reached, early stop);
# only the tail of a console log is read for it.
_LIGHTNING_END = b"`Trainer.fit` stopped"
_TAIL = 64 * 1024


@dataclass(frozen=True)
class Finished:
    step: int | None
    how: str  # what says so: the source of the fact, or the line


@dataclass(frozen=True)
class Update:
    findings: tuple[Finding, ...] = ()
    stall: Finding | None = None
    last_step: int | None = None
    error: str | None = None  # a re-read failed: said once, again when it changes
    waiting: bool = False  # nothing readable written yet (no step logged)
    beat: Beat | None = None
    finished: Finished | None = None


class Watcher:
    """Follows `path` (a run dir or a log file; it may not exist yet).

    `settings`: a Settings, a settings file, or None for the file found upward from
    `path` (as `traindoc diagnose` does); select / ignore and thresholds apply.
    """

    def __init__(
        self,
        path: str | Path,
        stall_after: float | None = None,
        *,
        settings: Settings | str | Path | None = None,
        every: float = EVERY_S,
    ) -> None:
        self.root = Path(path)
        self.stall_after = stall_after
        self.settings = resolve(settings, self.root)
        self.rules = {s.id: s for s in self.settings.apply(load_all().values())}
        self.pacer = Pacer(every)
        self.last: Diagnosis | None = None  # the newest diagnosis, for the final verdict
        self._sig: tuple = ()
        self._changes: list[float] = []
        self._seen: set[tuple[str, int | None]] = set()
        self._stalled = False
        self._last_step: int | None = None
        self._finished: Finished | None = None
        self._error: str | None = None  # the last poll's read error

    def _files(self) -> Iterator[Path]:
        if self.root.is_file():
            yield self.root
        elif self.root.is_dir():
            for pat in _PATTERNS:
                yield from self.root.rglob(pat)

    def _signature(self) -> tuple:
        out = []
        for p in self._files():
            try:
                st = p.stat()
            except OSError:
                continue
            if st.st_size:
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
        if sig and sig != self._sig:
            self._sig = sig
            self._changes.append(now)
            self._stalled = False
            update = self._diagnose(now)
        else:
            update = self._idle(now)
        beat = None
        if self.last is not None and self.pacer.due(now, self._last_step):
            beat = self.pacer.beat(self.last.run)
        waiting = self._last_step is None
        # A file still mid-write at the next look: the same error, said once already.
        error = update.error if update.error != self._error else None
        self._error = update.error
        return replace(update, last_step=self._last_step, beat=beat, waiting=waiting, error=error)

    def _idle(self, now: float) -> Update:
        # Before the first step a long silence is normal (loading the model, the
        # data); after the end it is the end.
        limit = self.threshold()
        if self._last_step is None or self._finished is not None:
            return Update(finished=self._finished)
        if limit is None or self._stalled or not self._changes:
            return Update()
        silence = now - self._changes[-1]
        if silence < limit:
            return Update()
        self._stalled = True
        return Update(stall=self._stall_finding(silence, limit))

    def _diagnose(self, now: float) -> Update:
        try:
            run = load_run(self.root)
        except ReadError as exc:  # not written yet, or caught mid-write: next poll
            return Update(error=str(exc))
        run = self.settings.override(run)
        run = replace(run, facts={**run.facts, "now": Fact(now, "watcher clock")})
        self._last_step = run.last_step
        self.pacer.saw(now, run.last_step)
        d = diagnose(run, list(self.rules.values()))
        self.last = d
        self._finished = self._finished or _finished(run, list(self._files()))
        new = []
        for f in d.findings:
            key = (f.id, f.step)
            if key not in self._seen:
                self._seen.add(key)
                new.append(f)
        return Update(findings=tuple(new), finished=self._finished)

    def _stall_finding(self, silence: float, limit: float) -> Finding:
        """The watcher's own stall (its clock: when the files last changed), as a
        stalled-training finding stamped by that rule's spec."""
        gaps = [b - a for a, b in zip(self._changes, self._changes[1:], strict=False)]
        usual = statistics.median(gaps) if gaps else None
        return self.rules[STALL].finding(
            Hit(
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
        )

    def follow(self, interval: float = 2.0) -> Iterator[Update]:
        while True:
            yield self.poll()
            time.sleep(interval)


def _finished(run: Run, files: list[Path]) -> Finished | None:
    """What says the run ended: the readers' `ended` fact (HF's train_runtime summary,
    W&B's exit record, an ETA reaching 0), the planned last step reached, or Lightning's
    end-of-fit line in a console log."""
    step = run.last_step
    done = run.fact("global_step")  # HF: where the trainer was, past the last log line
    if isinstance(done, int) and not isinstance(done, bool):
        step = max(step or 0, done)
    ended = run.facts.get("ended")
    if ended is not None and ended.value:
        return Finished(step, ended.source)
    plan = run.fact("max_steps")
    if isinstance(plan, int) and plan > 0 and step is not None and step >= plan:
        return Finished(step, f"step {step} of max_steps {plan}")
    for p in files:
        if p.suffix == ".log" and (line := _tail_match(p)):
            return Finished(step, f"{p.name}: {line}")
    return None


def _tail_match(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - _TAIL))
            tail = f.read()
    except OSError:
        return None
    start = tail.rfind(_LIGHTNING_END)
    if start < 0:
        return None
    end = tail.find(b"\n", start)
    return tail[start : end if end >= 0 else None].decode("utf-8", "replace").strip()
