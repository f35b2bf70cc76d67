"""Sharded checkpoints (`*.index.json`) and the process pool every large read goes through.

Work is split into byte-balanced pieces of contiguous tensors and spread over
one process per core; each process maps the file itself, so nothing is
pickled across but names and statistics. Small reads stay in-process: a
pool costs ~0.1 s to start.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from traindoc import progress
from traindoc.ckpt.safetensors import CheckpointError
from traindoc.ckpt.stats import Entry, Streamer, scan
from traindoc.model.checkpoint import TensorStats

# Below this many bytes one process is faster than starting a pool.
PARALLEL_MIN_BYTES = 256 << 20
# One in-process read reports progress this often (scan() maps the file per call: cheap).
PROGRESS_SLICE = 64 << 20

Job = tuple[str, list[Entry]]


def read_index(index: str) -> tuple[dict[str, str], list[str]]:
    """weight_map (tensor -> shard path) and notes; a missing shard is an error."""
    p = Path(index)
    try:
        doc = json.loads(p.read_text())
        wmap = doc["weight_map"]
        if not isinstance(wmap, dict):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(index, f"unreadable index ({type(exc).__name__}: {exc})") from None
    shards = sorted(set(wmap.values()))
    missing = [s for s in shards if not (p.parent / s).is_file()]
    if missing:
        raise CheckpointError(
            index,
            f"{len(missing)} of {len(shards)} shards listed in the index are missing: "
            + ", ".join(missing[:5]),
        )
    return {k: str(p.parent / v) for k, v in wmap.items()}, []


def check_against_index(
    index: str, wmap: dict[str, str], found: dict[str, list[Entry]]
) -> list[str]:
    """Cross-check shard headers against the index: a tensor the index promises must exist."""
    notes = []
    names = {e.name: shard for shard, es in found.items() for e in es}
    absent = [k for k, shard in wmap.items() if names.get(k) != shard]
    if absent:
        raise CheckpointError(
            index,
            f"{len(absent)} tensors listed in the index are not in their shard "
            f"(first: {absent[0]!r} in {Path(wmap[absent[0]]).name})",
        )
    extra = [k for k in names if k not in wmap]
    if extra:
        notes.append(
            f"{index}: {len(extra)} tensors in the shards are not in the index (read anyway)"
        )
    return notes


def compute(jobs: Sequence[Job], workers: int | None = None) -> dict[str, list[TensorStats]]:
    """Statistics for every job's entries, keyed by file path, in each job's entry order."""
    total = sum(e.end - e.begin for _, es in jobs for e in es)
    n = workers or os.cpu_count() or 1
    name = Path(jobs[0][0]).parent.name if jobs else ""
    with progress.task(f"checking tensors of {name}", total=total, unit="bytes") as bar:
        if n <= 1 or total < PARALLEL_MIN_BYTES:
            st = Streamer()
            res: dict[str, list[TensorStats]] = {}
            for path, es in jobs:  # in slices, so one multi-GB file still moves the bar
                res[path] = []
                # scan() returns its entries by offset: slice them in that order
                for part in _slices(sorted(es, key=lambda e: e.begin), PROGRESS_SLICE):
                    res[path] += scan(path, part, st)
                    bar.advance(sum(e.end - e.begin for e in part))
            return res
        pieces = _split(jobs, total / (n * 2))
        ctx = mp.get_context("fork" if _fork_safe() else "spawn")
        out: dict[str, dict[str, TensorStats]] = {path: {} for path, _ in jobs}
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
            futures = {pool.submit(_scan_piece, path, es): (path, es) for path, es in pieces}
            for fut in as_completed(futures):
                path, es = futures[fut]
                for t in fut.result():
                    out[path][t.name] = t
                bar.advance(sum(e.end - e.begin for e in es))
        return {path: [out[path][e.name] for e in es] for path, es in jobs}


def _slices(entries: Sequence[Entry], size: int) -> Iterator[list[Entry]]:
    """Consecutive entries of about `size` bytes, in their order."""
    cur: list[Entry] = []
    got = 0
    for e in entries:
        cur.append(e)
        got += e.end - e.begin
        if got >= size:
            yield cur
            cur, got = [], 0
    if cur:
        yield cur


def _scan_piece(path: str, entries: list[Entry]) -> list[TensorStats]:
    return scan(path, entries)


def _split(jobs: Sequence[Job], target: float) -> list[Job]:
    """Contiguous runs of tensors of about `target` bytes (sequential I/O per piece)."""
    pieces: list[Job] = []
    for path, es in jobs:
        cur: list[Entry] = []
        size = 0
        for e in sorted(es, key=lambda e: e.begin):
            cur.append(e)
            size += e.end - e.begin
            if size >= target:
                pieces.append((path, cur))
                cur, size = [], 0
        if cur:
            pieces.append((path, cur))
    # Largest first, so the pool does not end waiting on one big straggler.
    return sorted(pieces, key=lambda p: -sum(e.end - e.begin for e in p[1]))


def _fork_safe() -> bool:
    return "fork" in mp.get_all_start_methods() and threading.active_count() == 1
