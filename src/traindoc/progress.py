"""One progress bar for long reads and audits: on a terminal's stderr, after ~2 s, never piped.

    with progress.task("auditing rows", total=None, unit="rows") as bar:
        for batch in batches:
            ...
            bar.advance(len(batch))

    # a reader that counts bytes hands the bar's `advance` on as its callback:
    with progress.task(f"reading {path.name}", total=path.stat().st_size, unit="bytes") as bar:
        read(path, on_bytes=bar.advance)

Nothing is drawn until the work has taken `DELAY_S` (most reads end before
that, and a bar that flashes for 0.3 s is noise), and nothing ever when
stderr is not a terminal: piped or redirected output, CI logs and `--format
json` consumers see no bar. TRAINDOC_PROGRESS=0 turns it off on a terminal,
=always draws it even when piped (for `2>progress.log`), without the delay;
TRAINDOC_PROGRESS_DELAY sets the delay in seconds (tests use 0).

A leaf module (imports nothing from traindoc), so readers/, ckpt/ and data/
can all use it; rich is imported only once a bar is actually drawn.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any

DELAY_S = 2.0  # "more than ~2 s": shorter work never shows a bar
ENV = "TRAINDOC_PROGRESS"


class Task:
    """Counts work; starts drawing a rich bar once DELAY_S has passed (if allowed)."""

    def __init__(
        self,
        what: str,
        total: float | None,
        unit: str | None,
        stream: IO[str] | None,
        delay: float,
    ) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.done = 0.0
        self._stream = stream
        self._bar: Any = None
        self._id: Any = None
        self._lock = threading.Lock()
        self._closed = False
        # A timer, not a check in advance(): a phase that reports nothing until
        # it ends (an LSH pass, a pool of workers) still gets its spinner.
        self._timer = None
        if stream is not None:
            self._timer = threading.Timer(delay, self._start)
            self._timer.daemon = True
            self._timer.start()

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def advance(self, n: float = 1) -> None:
        self.done += n
        bar = self._bar
        if bar is not None:
            bar.update(self._id, completed=self.done)

    def _start(self) -> None:
        with self._lock:
            if self._closed or self._bar is not None:
                return
            try:
                self._draw()
            except Exception:  # a bar must never break the work it reports on
                self._bar = None

    def _draw(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(file=self._stream, force_terminal=True, stderr=True)
        count = DownloadColumn() if self.unit == "bytes" else MofNCompleteColumn()
        cols: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
        if self.total:
            cols += [BarColumn(), count, TimeRemainingColumn()]
        elif self.unit:
            cols += [TextColumn(f"{{task.completed:,.0f}} {self.unit}"), TimeElapsedColumn()]
        else:  # a phase that cannot count: a spinner and the time it has taken
            cols += [TimeElapsedColumn()]
        bar = Progress(*cols, console=console, transient=True)
        self._id = bar.add_task(self.what, total=self.total, completed=self.done)
        bar.start()
        self._bar = bar

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()


def _stream() -> IO[str] | None:
    mode = os.environ.get(ENV, "").strip().lower()
    if mode in ("0", "off", "no", "false"):
        return None
    if mode == "always":
        return sys.stderr
    isatty = getattr(sys.stderr, "isatty", None)
    return sys.stderr if isatty is not None and isatty() else None


@contextmanager
def task(
    what: str,
    total: float | None = None,
    unit: str | None = "items",
    *,
    stream: IO[str] | None = None,
    delay: float | None = None,
) -> Iterator[Task]:
    """A progress task for `what`; drawn on a terminal's stderr once it has run DELAY_S.

    `stream` (a terminal-like file) and `delay` override the defaults, for
    tests; TRAINDOC_PROGRESS=always uses a delay of 0. `unit=None`: work that
    cannot count its progress (a spinner and the elapsed time).
    """
    out = stream if stream is not None else _stream()
    if delay is None:
        delay = 0.0 if os.environ.get(ENV, "").strip().lower() == "always" else DELAY_S
        with suppress(ValueError):
            delay = float(os.environ.get(f"{ENV}_DELAY", delay))
    t = Task(what, total, unit, out, delay)
    try:
        yield t
    finally:
        t.close()
