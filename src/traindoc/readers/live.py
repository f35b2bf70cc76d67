"""What a live traindoc monitor recorded while the run trained: <run>/traindoc/.

The monitor (traindoc.live) writes metrics.jsonl (read like any JSONL log) and
findings.jsonl: one Finding.to_dict() per line plus the wall time and what it
did ("stop", "warn", "log"). Reading the findings back lets `diagnose` show
what the logs alone cannot: a stall with the stack of the stuck thread, and
the step at which the monitor stopped training.
"""

from __future__ import annotations

import json
from pathlib import Path

from traindoc.model import Finding, Note
from traindoc.readers._base import Notes, to_float

DIRNAME = "traindoc"
METRICS = "metrics.jsonl"
FINDINGS = "findings.jsonl"
CONFIG = "run_config.json"


def findings_file(path: Path) -> Path | None:
    """The findings.jsonl of the run at `path` (a run dir, its traindoc/ dir, or a file in it)."""
    root = path if path.is_dir() else path.parent
    cand = root / FINDINGS if root.name == DIRNAME else root / DIRNAME / FINDINGS
    return cand if cand.is_file() else None


def record_for(run_dir: Path, up: int = 2) -> Path | None:
    """The traindoc/ record that monitored the run at `run_dir`, in it or above it.

    Lightning's callback writes to default_root_dir/traindoc/ while the
    CSVLogger writes to default_root_dir/lightning_logs/version_N/: the record
    names that folder (run_config.json "log_dir"). A record that names none
    (an older one) joins a run at most `up` levels below it: Lightning's
    root/lightning_logs/version_N is two.
    """
    run_dir = run_dir if run_dir.is_dir() else run_dir.parent
    if run_dir.name == DIRNAME or (run_dir / DIRNAME / FINDINGS).is_file():
        return run_dir if run_dir.name == DIRNAME else run_dir / DIRNAME
    here = run_dir.resolve()
    for anc in list(here.parents)[:up]:
        rec = anc / DIRNAME
        if not (rec / FINDINGS).is_file() and not (rec / METRICS).is_file():
            continue
        named = monitored(rec)
        if named is None or named == here:
            return rec
    return None


def monitored(record: Path) -> Path | None:
    """The logger folder a record says it monitored, resolved; None when it names none."""
    try:
        cfg = json.loads((record / CONFIG).read_text())
    except (OSError, ValueError):
        return None
    log_dir = cfg.get("log_dir") if isinstance(cfg, dict) else None
    if not isinstance(log_dir, str) or not log_dir:
        return None
    p = Path(log_dir)
    return (p if p.is_absolute() else record.parent / p).resolve()


def is_findings(path: Path) -> bool:
    """The monitor's findings log: a record per finding, never a metrics log."""
    return path.name == FINDINGS and path.parent.name == DIRNAME


def read(path: Path) -> tuple[tuple[Finding, ...], tuple[Note, ...]]:
    """Every recorded finding, with `evidence["live"]` = {action, time}; bad lines become notes.

    A last line cut by a crash mid-write is expected and said so; the lines
    before it are kept.
    """
    notes, out = Notes(), []
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        notes.add(path, f"not read: {exc.strerror or exc}")
        return (), notes.build()
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)  # small, and may hold NaN evidence: Python's json
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
            f = Finding.from_dict(rec)
        except ValueError as exc:
            cut = n == len(lines) and not raw.rstrip().endswith(b"}")
            what = "last line cut mid-write" if cut else f"unreadable finding ({exc})"
            notes.count(path, what, n)
            continue
        live = {"action": str(rec.get("action") or "log"), "time": to_float(rec.get("time"))}
        out.append(Finding.from_dict({**rec, "evidence": {**f.evidence, "live": live}}))
    return tuple(out), notes.build()
