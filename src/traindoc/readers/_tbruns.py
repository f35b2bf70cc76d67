"""Which directories hold one TensorBoard run, and in what order its files are read.

A run is a directory with event files, its sub-writers included (up to
DEPTH levels down). Two layouts spread one run over sibling dirs: Keras's
`train/` and `validation/`, and a resume that opens a new dated dir
(`runs/<%b%d_%H-%M-%S>_<host>`, SummaryWriter's and HF Trainer's default):
the later dir is read with the ones it continues.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from traindoc.readers._tbevents import decode_fast
from traindoc.readers._tfrecord import split

DEPTH = 4  # how deep find_runs looks for runs, and a run for its sub-writers
_TS = re.compile(r"tfevents\.(\d+)")
# SummaryWriter's and HF's default log dir: runs/<%b%d_%H-%M-%S>_<host>
_DATED = re.compile(r"[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_")
_HEAD = 1 << 18  # bytes read to learn a writer dir's first step


def is_event_file(p: Path) -> bool:
    return "tfevents" in p.name and p.is_file()


def find_runs(root: str | Path) -> list[Path]:
    """Each directory whose event files form one run (its sub-directories belong to it)."""
    root, runs = Path(root), []

    def walk(d: Path, depth: int) -> None:
        try:
            entries = sorted(d.iterdir(), key=_by_name)
        except OSError:
            return
        if any(is_event_file(e) for e in entries) or _is_keras(d):
            runs.append(d)
            return
        for e in entries:
            if depth < DEPTH and e.is_dir() and not e.is_symlink() and e.name[:1] != ".":
                walk(e, depth + 1)

    if root.is_file():
        return [root] if is_event_file(root) else []
    walk(root, 0)
    # A resume writes a new dated dir: only the newest of a chain is a run.
    chains: dict[Path, list[list[Path]]] = {}
    for r in runs:
        if _DATED.match(r.name) and r.parent not in chains:
            chains[r.parent] = _chains(r.parent)
    found = set(runs)
    resumed = {d for cs in chains.values() for c in cs if c[-1] in found for d in c[:-1]}
    return [r for r in runs if r not in resumed]


def chain(run: Path) -> list[Path]:
    """The dated writer dirs read as one run with `run`: those it resumes, then itself."""
    if not run.is_dir() or not _DATED.match(run.name):
        return [run]
    mine = next((c for c in _chains(run.parent) if run in c), [run])
    return mine[: mine.index(run) + 1]


def _chains(parent: Path) -> list[list[Path]]:
    """Dated writer dirs of `parent` in start order, cut where a fresh run begins.

    SummaryWriter and HF Trainer name their dir by the start time, so a run
    resumed from a checkpoint continues in a sibling dir. A sibling continues
    the chain when its first logged step comes after the first step of the
    one before it; one that starts again from the same step is a fresh run.
    """
    chains: list[list[Path]] = []
    last: int | None = None
    dated = (p for p in parent.iterdir() if p.is_dir() and _DATED.match(p.name))
    for d in sorted(dated, key=_started):
        first = first_step(d)
        if chains and first is not None and last is not None and first > last:
            chains[-1].append(d)
        else:
            chains.append([d])
        last = first
    return chains


def _is_keras(d: Path) -> bool:
    """Keras's TensorBoard callback: <log_dir>/train/ and <log_dir>/validation/ writers."""
    try:
        return any(is_event_file(p) for p in (d / "train").iterdir())
    except OSError:  # no train/ here, or not readable
        return False


def _started(d: Path) -> tuple[int, str]:
    stamps = [int(m.group(1)) for p in d.glob("*tfevents*") if (m := _TS.search(p.name))]
    return (min(stamps, default=0), d.name)


def first_step(d: Path) -> int | None:
    """The step of the first summary in the oldest event file of a writer dir, from its head."""
    files = event_files(d)
    if not files:
        return None
    try:
        with files[0].open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    offs, lens, _ = split(head)  # the cut tail is expected here
    if not offs.size:
        return None
    fast = decode_fast(head, offs, lens)
    return int(fast["step"][np.argmin(fast["idx"])]) if fast["idx"].size else None


def event_files(run: Path) -> list[Path]:
    if run.is_file():
        return [run]
    found = [p for p in run.rglob("*tfevents*") if len(p.relative_to(run).parts) <= DEPTH]
    return sorted((p for p in found if p.is_file()), key=_file_key)


def _file_key(p: Path) -> tuple[str, int, str]:
    m = _TS.search(p.name)
    return (str(p.parent), int(m.group(1)) if m else 0, p.name)


def _by_name(p: Path) -> str:
    """Sort key of one directory's entries: their names (Path.__lt__ is 5x slower, and
    a folder of 20,000 files is sorted several times)."""
    return p.name
