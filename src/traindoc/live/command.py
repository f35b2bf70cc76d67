"""`traindoc watch RUN_DIR`: print a live run's new findings, then its stall."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from traindoc.live.watch import Update, Watcher
from traindoc.model import Finding, Severity


def watch(
    run_dir: Path, interval: float = 2.0, stall_after: float | None = None, once: bool = False
) -> int:
    """Follow run_dir until interrupted. Exit code: 0 nothing wrong, 1 an error-level
    finding or a stall was seen, 2 run_dir is not a directory."""
    if not Path(run_dir).is_dir():
        print(f"traindoc watch: {run_dir}: not a directory", file=sys.stderr)
        return 2
    watcher = Watcher(run_dir, stall_after)
    worst = 0
    print(f"watching {run_dir} (every {interval:g} s; Ctrl-C to stop)", flush=True)
    try:
        while True:
            update = watcher.poll()
            worst = max(worst, _show(update))
            if once:
                return worst
            time.sleep(interval)
    except KeyboardInterrupt:
        return worst


def _show(update: Update) -> int:
    code = 0
    if update.error:
        print(f"  (not readable yet: {update.error})", file=sys.stderr, flush=True)
    for f in (*update.findings, *((update.stall,) if update.stall else ())):
        print(_line(f), flush=True)
        if f.severity >= Severity.ERROR:
            code = 1
    return code


def _line(f: Finding) -> str:
    stamp = time.strftime("%H:%M:%S")
    where = f"step {f.step}" if f.step is not None else "run"
    return f"[{stamp}] {str(f.severity).upper():7} {f.rule} ({where}): {f.title}"
