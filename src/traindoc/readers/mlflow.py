"""MLflow tracking data without mlflow: the file store and the SQLite store (FORMATS.md 5.2).

File store: mlruns/<experiment>/<run>/metrics/<key> (a key with '/' is nested
dirs), one "<timestamp_ms> <value> <step>" line per point, NaN written as
`nan`; params/<key> hold the value as text; meta.yaml the run name and status.
Each run dir is one run. SQLite store (mlflow.db, the default since 3.7): the
`metrics` table, where NaN is value=0 with is_nan=1; opened read-only and
immutable so not even a -wal/-shm file appears next to it. Both are plain data:
reading them with mlflow itself would cost a heavy dependency that, since 3.13,
refuses the file store without MLFLOW_ALLOW_FILE_STORE.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from traindoc.model import Fact, Input, Run, Series
from traindoc.model.numbers import count
from traindoc.model.signals import canonical
from traindoc.readers import configs
from traindoc.readers._base import Notes, ReadError, to_float

_STATUS = {1: "RUNNING", 2: "SCHEDULED", 3: "FINISHED", 4: "FAILED", 5: "KILLED"}
_SKIP = {".trash", "models", ".git"}


def is_run_dir(p: Path) -> bool:
    return (p / "meta.yaml").is_file() and ((p / "metrics").is_dir() or (p / "params").is_dir())


def run_dirs(root: Path) -> list[Path]:
    """MLflow runs under root (a run, an experiment, mlruns/, or its parent); newest first."""
    if is_run_dir(root):
        return [root]
    if (root / "mlflow.db").is_file():
        return [root / "mlflow.db"]
    found: list[Path] = []
    for base in (root, root / "mlruns"):
        exps = [base] + [e for e in _subdirs(base) if (e / "meta.yaml").is_file()]
        found += [r for e in exps for r in _subdirs(e) if is_run_dir(r)]
    return sorted(set(found), key=_start, reverse=True)


def _subdirs(p: Path) -> list[Path]:
    if not p.is_dir():
        return []
    return [d for d in p.iterdir() if d.is_dir() and d.name not in _SKIP]


def _meta(run: Path) -> dict[str, Any]:
    try:
        data = configs.safe_yaml((run / "meta.yaml").read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _start(run: Path) -> tuple[float, str]:
    return (to_float(_meta(run).get("start_time")) or 0.0, run.name)


def read(path: str | Path) -> Run:
    path = Path(path)
    if path.is_file():
        return read_db(path)
    if not is_run_dir(path):
        raise ReadError(path, "not an MLflow run dir (meta.yaml with metrics/ or params/)")
    notes = Notes()
    series: dict[str, Series] = {}
    raw: dict[str, Series] = {}
    mdir = path / "metrics"
    for f in sorted(p for p in mdir.rglob("*") if p.is_file()) if mdir.is_dir() else []:
        key = f.relative_to(mdir).as_posix()
        if (s := _metric_file(f, key, notes)) is not None:
            raw[key] = s
    series = _name(raw)
    params = {}
    pdir = path / "params"
    for f in sorted(p for p in pdir.rglob("*") if p.is_file()) if pdir.is_dir() else []:
        params[f.relative_to(pdir).as_posix()] = _param(f.read_text(errors="replace").strip())
    meta = _meta(path)
    if not meta:
        notes.add(path / "meta.yaml", "not read (empty or invalid YAML)")
    facts = _facts(params, meta.get("status"), "params/")
    if not series:
        notes.add(mdir, "no metric points in this run")
    name = str(meta.get("run_name") or path.name)
    inputs = (Input(str(path), "mlflow-run"),)
    return Run(name, series, facts, inputs, notes.build())


def _metric_file(f: Path, key: str, notes: Notes) -> Series | None:
    try:
        data = f.read_bytes()
    except OSError as exc:
        notes.add(f, f"not read: {exc.strerror or exc}")
        return None
    tokens = data.split()
    try:  # fast path: every line is three numbers
        if len(tokens) % 3:
            raise ValueError
        arr = np.array(tokens).astype(np.float64).reshape(-1, 3)
    except ValueError:
        rows = []
        for i, line in enumerate(data.split(b"\n"), 1):
            parts = line.split()
            vals = [to_float(p.decode(errors="replace")) for p in parts]
            if len(vals) == 3 and None not in vals:
                rows.append(vals)
            elif parts:
                notes.count(f, "malformed line", i, "not '<timestamp_ms> <value> <step>'")
        arr = np.asarray(rows, dtype=np.float64).reshape(-1, 3)
    if not arr.size:
        return None
    return Series.from_arrays(key, arr[:, 2], arr[:, 1], arr[:, 0] / 1000.0, f"mlflow: {key}")


def _name(raw: dict[str, Series]) -> dict[str, Series]:
    """Canonical names; when two keys map to one, the exact spelling wins, the other stays."""
    out: dict[str, Series] = {}
    for key in sorted(raw, key=lambda k: (canonical(k) != k.lower(), k)):
        s = raw[key]
        name = canonical(key) if canonical(key) not in out else key.strip().lower()
        out[name] = Series(name, s.steps, s.values, s.times, s.source)
    return out


def _param(text: str) -> Any:
    f = to_float(text)
    if f is None or text.lower() in ("nan", "inf", "-inf", "infinity"):
        return text
    whole = math.isfinite(f) and f.is_integer() and "." not in text and "e" not in text.lower()
    return int(f) if whole else f


def _facts(params: dict[str, Any], status: Any, src: str) -> dict[str, Fact]:
    facts = configs.facts_from(params, f"mlflow {src}")
    facts["trainer"] = Fact("mlflow", "MLflow tracking")
    if (st := to_float(status)) is not None or isinstance(status, str):
        label = _STATUS.get(count(st), str(status)) if st is not None else str(status)
        facts["mlflow_status"] = Fact(label, "mlflow run status")
    return facts


def read_db(path: Path) -> Run:
    """The newest run of an MLflow SQLite store (the others are named in a note)."""
    notes = Notes()
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        raise ReadError(path, f"cannot open as SQLite: {exc}") from None
    try:
        runs = con.execute(
            "SELECT run_uuid, name, status, start_time FROM runs ORDER BY start_time DESC"
        ).fetchall()
        if not runs:
            raise ReadError(path, "no runs in this MLflow store")
        uuid, name, status, _ = runs[0]
        if len(runs) > 1:
            others = ", ".join(str(r[1] or r[0]) for r in runs[1:6])
            notes.add(path, f"read the newest of {len(runs)} runs ({name}); not read: {others}")
        rows = con.execute(
            "SELECT key, step, value, timestamp, is_nan FROM metrics WHERE run_uuid=? "
            "ORDER BY key, timestamp",
            (uuid,),
        ).fetchall()
        params = dict(con.execute("SELECT key, value FROM params WHERE run_uuid=?", (uuid,)))
    except sqlite3.DatabaseError as exc:
        raise ReadError(path, f"not an MLflow store: {exc}") from None
    finally:
        con.close()
    raw: dict[str, Series] = {}
    keys = [r[0] for r in rows]
    for key in dict.fromkeys(keys):
        lo, hi = keys.index(key), len(keys) - keys[::-1].index(key)
        arr = np.array([r[1:] for r in rows[lo:hi]], dtype=np.float64)
        vals = np.where(arr[:, 3] > 0, np.nan, arr[:, 1])  # NaN is stored as 0 + is_nan
        raw[key] = Series.from_arrays(key, arr[:, 0], vals, arr[:, 2] / 1000.0, f"mlflow: {key}")
    facts = _facts({k: _param(str(v)) for k, v in params.items()}, status, "params")
    return Run(
        str(name or uuid), _name(raw), facts, (Input(str(path), "mlflow-db"),), notes.build()
    )
