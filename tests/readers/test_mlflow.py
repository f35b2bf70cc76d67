"""MLflow file-store runs written by mlflow-skinny 3.17 (scripts/make_mlflow_fixtures.py),
broken copies of them, and a SQLite store in the schema of mlflow's dbmodels."""

from __future__ import annotations

import math
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.readers.helpers import listing, load_checked
from traindoc.readers import ReadError, load_run
from traindoc.readers.mlflow import run_dirs

CORPUS = Path(__file__).parents[1] / "corpus"


def _run_dir(case: str) -> Path:
    return run_dirs(CORPUS / case)[0]


@pytest.mark.parametrize("case", ["mlflow-healthy", "mlflow-nonfinite"])
def test_real_runs(case: str) -> None:
    run = load_checked(CORPUS / case)
    loss, lr, gn = run.get("loss"), run.get("lr"), run.get("grad_norm")
    assert loss is not None and lr is not None and gn is not None
    assert loss.steps[0] == 1 and loss.times is not None and loss.times[0] > 1.7e9
    assert run.fact("trainer") == "mlflow" and run.fact("mlflow_status") == "FINISHED"
    assert run.fact("per_device_batch") == 4 and run.fact("lr_scheduler") == "constant"
    assert not run.notes
    if case == "mlflow-nonfinite":
        assert math.isnan(loss.values[-1]) and run.fact("learning_rate") == 3.0


def test_paths() -> None:
    d = _run_dir("mlflow-healthy")
    for p in (d, d.parent, d.parent.parent):  # run, experiment, mlruns/
        assert len(load_checked(p).get("loss") or ()) == 150


def test_malformed_lines_and_empty_metric(tmp_path: Path) -> None:
    d = tmp_path / "run"
    shutil.copytree(_run_dir("mlflow-healthy"), d)
    loss = d / "metrics" / "train" / "loss"
    lines = loss.read_text().splitlines()
    lines[3] = "1795977050189 not-a-number 4"
    loss.write_text("\n".join(lines) + "\n1795977050189 2.5")  # + a truncated last line
    (d / "metrics" / "grad_norm").write_text("")
    run = load_run(d)
    s = run.get("loss")
    assert s is not None and len(s) == 149 and run.get("grad_norm") is None
    assert any("2 malformed lines" in n.message and n.line == 4 for n in run.notes)


def test_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "meta.yaml").write_text("name: x\n")
    (tmp_path / "metrics").mkdir()
    run = load_run(tmp_path)
    assert not run.series and any("no metric points" in n.message for n in run.notes)


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE runs (run_uuid TEXT PRIMARY KEY, name TEXT, status TEXT, start_time INTEGER);
        CREATE TABLE metrics (key TEXT, value FLOAT, timestamp INTEGER, step INTEGER,
                              is_nan BOOLEAN, run_uuid TEXT);
        CREATE TABLE params (key TEXT, value TEXT, run_uuid TEXT);
        """
    )
    con.executemany(
        "INSERT INTO runs VALUES (?,?,?,?)",
        [("a", "old", "FINISHED", 1), ("b", "new", "FAILED", 2)],
    )
    rows = [("train/loss", 10.0 - s, 1_700_000_000_000 + s, s, 0, "b") for s in range(5)]
    rows += [("train/loss", 0.0, 1_700_000_000_010, 5, 1, "b"), ("lr", 1e-3, 1, 0, 0, "b")]
    rows += [("train/loss", 1.0, 1, 0, 0, "a")]
    con.executemany("INSERT INTO metrics VALUES (?,?,?,?,?,?)", rows)
    con.executemany("INSERT INTO params VALUES (?,?,?)", [("learning_rate", "0.001", "b")])
    con.commit()
    con.close()
    return path


def test_sqlite_store(tmp_path: Path) -> None:
    db = _db(tmp_path / "mlflow.db")
    before = listing(tmp_path)
    for p in (db, tmp_path):
        run = load_run(p)
        loss = run.get("loss")
        assert loss is not None and loss.steps.tolist() == [0, 1, 2, 3, 4, 5]
        assert math.isnan(loss.values[-1]) and loss.values[0] == 10.0  # is_nan honoured
        assert run.fact("learning_rate") == 0.001 and run.fact("mlflow_status") == "FAILED"
        assert any("newest of 2 runs" in n.message for n in run.notes)
    assert listing(tmp_path) == before  # no -wal/-shm/journal next to the store


def test_sqlite_not_mlflow(tmp_path: Path) -> None:
    p = tmp_path / "x.db"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE metrics (a INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(ReadError, match="not an MLflow store"):
        load_run(p)
