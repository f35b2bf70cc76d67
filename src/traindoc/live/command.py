"""`traindoc watch PATH`: a live run's new findings, a heartbeat, its stall or its end."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import IO

from traindoc.live.beat import Beat
from traindoc.live.watch import EVERY_S, Update, Watcher
from traindoc.model import Finding
from traindoc.outcome import InputError, exit_status
from traindoc.settings import Settings

_CLEAR = "\r\x1b[K"


def watch(
    path: Path,
    interval: float = 2.0,
    stall_after: float | None = None,
    once: bool = False,
    *,
    every: float = EVERY_S,
    settings: Settings | None = None,
    out: IO[str] | None = None,
) -> int:
    """Follow path until the run finishes or is interrupted. Exit code: 0 nothing reached
    the settings' fail-on, 1 a finding that did or a stall was seen, 2 unusable
    arguments or settings (or --once on a path that is not there)."""
    out = out or sys.stdout
    path = Path(path)
    if once and not path.exists():
        print(f"traindoc watch: {path}: no such file or directory", file=sys.stderr)
        return 2
    try:
        watcher = Watcher(path, stall_after, settings=settings, every=every)
    except (InputError, ValueError) as exc:
        print(f"traindoc watch: {exc}", file=sys.stderr)
        return 2
    show = _Printer(out, watcher.settings.fail_on)
    try:
        while True:
            update = watcher.poll()
            if show.first:
                show.start(path, interval, every, update.waiting)
            show.update(update)
            if update.finished is not None:
                return show.finish(update, watcher)
            if once:
                return show.worst
            time.sleep(interval)
    except KeyboardInterrupt:
        return show.worst
    finally:
        show.close()


class _Printer:
    """Plain lines when piped; on a terminal the heartbeat is one status line,
    cleared before anything else is printed."""

    def __init__(self, out: IO[str], fail_on: str) -> None:
        self.out = out
        self.fail_on = fail_on
        self.tty = out.isatty()
        self.first = True
        self.worst = 0
        self._status = False
        self._error: str | None = None

    def start(self, path: Path, interval: float, every: float, waiting: bool) -> None:
        self.first = False
        if waiting:
            self.line(f"waiting for {path} to be written… (Ctrl-C to stop)")
        else:
            self.line(
                f"watching {path} (every {interval:g} s, a heartbeat every {every:g} s; "
                "Ctrl-C to stop)"
            )

    def update(self, u: Update) -> None:
        if u.error and not u.waiting and u.error != self._error:
            self.clear()
            print(f"  (not readable yet: {u.error})", file=sys.stderr, flush=True)
        self._error = u.error
        for f in (*u.findings, *((u.stall,) if u.stall else ())):
            self.line(_line(f))
            self.worst = max(self.worst, exit_status([f], self.fail_on))
        if u.beat is not None:
            text = f"[{time.strftime('%H:%M:%S')}] {beat_text(u.beat)}"
            if self.tty:
                self.out.write(_CLEAR + text)
                self.out.flush()
                self._status = True
            else:
                self.line(text)

    def finish(self, u: Update, watcher: Watcher) -> int:
        from traindoc.report.console import make_console
        from traindoc.report.terminal import verdict_line

        done = u.finished
        assert done is not None
        at = f" at step {done.step}" if done.step is not None else ""
        self.line(f"[{time.strftime('%H:%M:%S')}] finished{at} ({done.how})")
        if watcher.last is not None:
            make_console(file=self.out).print(verdict_line(watcher.last))
        return self.worst

    def line(self, text: str) -> None:
        self.clear()
        print(text, file=self.out, flush=True)

    def clear(self) -> None:
        if self._status:
            self.out.write(_CLEAR)
            self._status = False

    def close(self) -> None:
        """The last status line stays on screen, ended."""
        if self._status:
            print(file=self.out, flush=True)
            self._status = False


def beat_text(b: Beat) -> str:
    """step 1200  loss 2.314  lr 3e-04  grad_norm 0.82  4.1 steps/s"""
    parts = [f"step {b.step}"]
    for name, v in b.values.items():
        parts.append(f"{name} {_num(v, name)}")
    if b.steps_per_s is not None:
        parts.append(f"{b.steps_per_s:.3g} steps/s")
    return "  ".join(parts)


def _num(v: float, name: str) -> str:
    if not math.isfinite(v):
        return str(v)
    return f"{v:.2e}" if name == "lr" else f"{v:.4g}"


def _line(f: Finding) -> str:
    stamp = time.strftime("%H:%M:%S")
    where = f"step {f.step}" if f.step is not None else "run"
    return f"[{stamp}] {str(f.severity).upper():7} {f.id} ({where}): {f.title}"
