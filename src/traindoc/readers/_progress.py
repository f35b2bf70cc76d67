"""A file read as one progress task (traindoc.progress): readers report bytes read so far.

Readers wrap a file read in `progress(path)` and call what it yields with the bytes
read so far; the bar itself (terminal only, after ~2 s) is `traindoc.progress`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from traindoc import progress as bars


@contextmanager
def progress(path: Path, total: int | None = None) -> Iterator[Callable[[int], None]]:
    try:
        size = total if total is not None else os.path.getsize(path)
    except OSError:
        size = None
    with bars.task(f"reading {path.name}", total=size, unit="bytes") as bar:

        def seen(done: int) -> None:
            bar.advance(done - bar.done)

        yield seen
