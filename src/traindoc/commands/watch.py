"""`traindoc watch PATH`: follow a run being written: new findings, a heartbeat, its
stall or its end (report/watch.py says each in words)."""

from __future__ import annotations

import time
from pathlib import Path

from traindoc.live.watch import EVERY_S, Watcher
from traindoc.outcome import InputError, exit_status
from traindoc.report.render import Output, render
from traindoc.report.watch import finish, header
from traindoc.settings import Settings


def watch(
    path: Path,
    out: Output,
    *,
    interval: float = 2.0,
    stall_after: float | None = None,
    once: bool = False,
    every: float = EVERY_S,
    settings: Settings | None = None,
) -> int:
    """Follow path (a run dir or a log file, perhaps not written yet) until the run
    finishes or is interrupted, or look once with `once`. The exit status: 1 when a
    finding or a stall reached the settings' fail-on, else 0. InputError for a path
    that `once` cannot find, or unusable settings or arguments."""
    path = Path(path)
    if once and not path.exists():
        raise InputError(f"{path}: no such file or directory")
    try:
        watcher = Watcher(path, stall_after, settings=settings, every=every)
    except ValueError as exc:  # a bad argument; a SettingsError is an InputError already
        raise InputError(str(exc)) from exc
    worst, started = 0, False
    try:
        while True:
            update = watcher.poll()
            if not started:
                out.write(header(path, interval, every, waiting=update.waiting))
                started = True
            render(update, "terminal", out, kind="watch")
            seen = (*update.findings, *((update.stall,) if update.stall else ()))
            worst = max(worst, exit_status(seen, watcher.settings.fail_on))
            if update.finished is not None:
                finish(update.finished, watcher.last, out)
                return worst
            if once:
                return worst
            time.sleep(interval)
    except KeyboardInterrupt:
        return worst
    finally:
        out.end_status()
