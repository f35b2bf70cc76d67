"""A progress bar for long reads: on a terminal only, after ~2 s, in one place.

Readers wrap a file read in `progress(path)` and call what it yields with the bytes
read so far. Nothing is drawn when stderr is not a TTY (pipes, CI, tests) or for
reads that end within the delay, so a fast read never flickers a bar.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DELAY = 2.0  # seconds before a bar appears: shorter reads show nothing


@contextmanager
def progress(path: Path, total: int | None = None) -> Iterator[Callable[[int], None]]:
    if not sys.stderr.isatty():
        yield _nothing
        return
    try:
        size = total if total is not None else os.path.getsize(path)
    except OSError:
        size = None
    t0, bar = time.monotonic(), None
    state: dict[str, Any] = {}

    def seen(done: int) -> None:
        nonlocal bar
        if bar is None:
            if time.monotonic() - t0 < DELAY:
                return
            from rich.progress import Progress  # lazily: only reads this long pay for it

            bar = Progress(transient=True, console=_console())
            bar.start()
            state["task"] = bar.add_task(f"reading {path.name}", total=size)
        bar.update(state["task"], completed=done)

    try:
        yield seen
    finally:
        if bar is not None:
            bar.stop()


def _nothing(done: int) -> None:
    pass


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)
