"""Find every run under a folder, so `traindoc diagnose PARENT` can diagnose each.

A run is what `load_run` reads as one: an HF output dir, a Lightning version
dir, an ultralytics run dir, a wandb run dir, an MLflow run dir (or an mlflow.db), a metrics JSONL
file, a captured console log, a TensorBoard run (readers.tensorboard.find_runs).
The walk stops at a run's root, so a checkpoint-N/ or an HF dir's own wandb/
and runs/ folders are never counted twice.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import live, mlflow, tensorboard, wandb
from traindoc.readers.detect import console_named, is_console, is_metrics_jsonl, log_csvs
from traindoc.readers.ultralytics import RESULTS, is_results_csv

_DEPTH = 5
# folders inside a run or a tracker's bookkeeping: never a separate run
_CONSOLE = {".log", ".txt", ".out"}
_SKIP = {"files", "logs", "tmp", "artifacts", "metrics", "params", "tags", "__pycache__"}


def discover_runs(root: str | Path) -> list[Path]:
    root = Path(root)
    if root.is_file():
        return [root]
    found: list[Path] = []

    def visit(d: Path, depth: int) -> None:
        if (
            _is_hf(d)
            or _is_lightning(d)
            or _is_ultralytics(d)
            or wandb.is_run_dir(d)
            or mlflow.is_run_dir(d)
        ):
            found.append(d)
            return
        try:
            entries = sorted(d.iterdir(), key=_by_name)
        except OSError:
            return
        files = [e for e in entries if e.is_file()]
        jsonl = [e for e in files if e.suffix == ".jsonl" and not live.is_findings(e)]
        jsonl = [e for e in jsonl if is_metrics_jsonl(e)]
        logs = [e for e in files if _console(e) and d.name != "wandb" and is_console(e)]
        if len(jsonl) == 1 and len(logs) == 1:
            found.append(d)  # a loop's metrics.jsonl and its console: one run, read together
        else:
            found.extend(e for e in files if e.name == "mlflow.db")
            found.extend([*jsonl, *logs])
        # a run folder holding only its loop's metrics CSV (training_log.csv): the
        # folder is the run, read as detect_dir reads it
        if not jsonl and not logs and d != root and log_csvs(d):
            found.append(d)
            return
        for e in entries:
            if (
                depth < _DEPTH
                and e.is_dir()
                and not e.is_symlink()
                and e.name[:1] != "."
                and e.name not in _SKIP
            ):
                visit(e, depth + 1)

    visit(root, 0)
    for tb in tensorboard.find_runs(root):
        if not any(tb == r or tb.is_relative_to(r) or r.is_relative_to(tb) for r in found):
            found.append(tb)
    return _join_records(sorted(set(found)))


def _console(p: Path) -> bool:
    """A console capture's name: .log/.txt/.out, or an extensionless log name ("log")."""
    return p.suffix in _CONSOLE or (not p.suffix and console_named(p))


def _join_records(found: list[Path]) -> list[Path]:
    """Drop a live record's metrics.jsonl when the run it monitored is also found.

    One training is one run: Lightning with its CSVLogger leaves
    lightning_logs/version_N/ and the callback's traindoc/ beside it; the
    record is read as part of that run (readers._with_live), not as a second.
    """
    records = {
        p.parent.resolve(): p
        for p in found
        if p.parent.name == live.DIRNAME and p.name == live.METRICS
    }
    if not records:
        return found
    joined = set()
    for r in found:
        if r not in records.values() and (rec := live.record_for(r)) is not None:
            joined.add(records.get(rec.resolve()))
    return [p for p in found if p not in joined]


def _is_hf(d: Path) -> bool:
    if (d / "trainer_state.json").is_file() or (d / "trainer_log.jsonl").is_file():
        return True
    return any(d.glob("checkpoint-*/trainer_state.json"))


def _is_lightning(d: Path) -> bool:
    return (d / "metrics.csv").is_file()


def _is_ultralytics(d: Path) -> bool:
    return is_results_csv(d / RESULTS)


def _by_name(p: Path) -> str:
    """Sort key of one directory's entries: their names (Path.__lt__ is 5x slower, and
    a folder of 20,000 files is sorted several times)."""
    return p.name
