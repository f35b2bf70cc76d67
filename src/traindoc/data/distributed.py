"""The same audit on Dask, for corpora sharded over many files.

Each shard is scanned on a worker (read, extract, hash, MinHash, band keys:
the expensive, embarrassingly parallel part) and comes back as compact
per-row arrays; the driver concatenates them in file order and runs the very
same `summarise` as the single-machine path. Hashing is deterministic across
processes (crc32 word hashes, fixed permutation seeds), so both paths give the
same findings on the same data. Example rows are quoted by the driver, so
the shards must be readable from it too (a shared or network file system).

Why Dask (docs/data.md): pure pip install with no JVM (Spark) and no
separate runtime to operate (Ray); `LocalCluster` gives real worker
processes in a test; numpy arrays travel between processes without copies
through pickle protocol 5; and the same `Client` API scales to a cluster.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from traindoc.data.audit import Auditor, AuditResult, Options, Side, adopt, summarise
from traindoc.data.readers import DataError, Notes, discover


def scan_shard(path: str, opts: Options) -> dict[str, Any]:
    """Worker side: one shard's per-row arrays, counters, schema and notes."""
    notes = Notes(keep=1000)
    try:
        side = Auditor(opts).scan([Path(path)], notes)
    except DataError as exc:
        return {"error": str(exc)}
    return {
        "cols": {k: side.col(k) for k in side.cols},
        "labels": side.labels,
        "code": side.code,
        "scripts": side.scripts,
        "missing": side.missing,
        "schema": side.schemas.get(0),
        "notes": notes.messages,
        "malformed": notes.malformed,
    }


def _merge(files: list[Path], parts: list[dict[str, Any]], notes: Notes) -> Side:
    side = Side(files)
    first = None
    for fi, part in enumerate(parts):
        if "error" in part:
            raise DataError(part["error"])
        for msg in part["notes"]:
            notes.add(msg)
        notes.malformed += part["malformed"]
        if part["schema"] is None:
            continue
        first = adopt(side, fi, part["schema"], first, notes)
        cols = dict(part["cols"])
        if "file" in cols:
            cols["file"] = cols["file"] * 0 + fi
        for k, v in cols.items():
            side.cols.setdefault(k, []).append(v)
        side.labels.update(part["labels"])
        side.code += part["code"]
        side.scripts.update(part["scripts"])
        side.missing.update(part["missing"])
    return side


def audit_distributed(
    path: str | Path | list[Path],
    eval_path: str | Path | list[Path] | None = None,
    opts: Options | None = None,
    *,
    n_workers: int = 2,
    address: str | None = None,
) -> AuditResult:
    """Audit with one Dask task per shard; `address` joins an existing scheduler."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("--distributed needs dask[distributed]") from None
    o = opts or Options()
    t0 = time.perf_counter()
    files = path if isinstance(path, list) else discover(path)
    efiles = None
    if eval_path is not None:
        efiles = eval_path if isinstance(eval_path, list) else discover(eval_path)
    cluster = None
    if address is None:
        cluster = LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
    client = Client(address or cluster)
    try:
        notes = Notes()
        all_files = [*files, *(efiles or [])]
        futures = client.map(scan_shard, [str(f) for f in all_files], opts=o, pure=False)
        parts = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    tr = _merge(files, parts[: len(files)], notes)
    if len(tr) == 0:
        raise DataError(f"{path}: no records")
    ev = _merge(efiles, parts[len(files) :], notes) if efiles is not None else None
    return summarise(o, tr, ev, notes, time.perf_counter() - t0)


__all__ = ["audit_distributed", "scan_shard"]
