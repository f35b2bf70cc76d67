"""`traindoc diagnose PARENT` on a folder of runs: each report, one summary, worst exit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.readers.helpers import listing
from tests.test_cli import traindoc
from traindoc.readers import discover_runs

CORPUS = Path(__file__).parent / "corpus"


def _folder(tmp: Path, *cases: str) -> Path:
    root = tmp / "runs"
    for c in cases:
        shutil.copytree(CORPUS / c, root / c, ignore=shutil.ignore_patterns("expected.json"))
    return root


def test_discover_runs_finds_each_format_once(tmp_path: Path) -> None:
    cases = (
        "wandb-healthy",
        "mlflow-nonfinite",
        "jsonl-healthy",
        "divergence",
        "lightning-healthy",
    )
    root = _folder(tmp_path, *cases)
    found = [p.relative_to(root).parts[0] for p in discover_runs(root)]
    assert sorted(found) == sorted(cases)
    assert discover_runs(root / "divergence") == [root / "divergence"]  # one run: itself
    two = root / "lightning-healthy" / "lightning_logs"
    shutil.copytree(two / "version_0", two / "version_1")
    assert len(discover_runs(root / "lightning-healthy")) == 2


def test_terminal_reports_then_summary(tmp_path: Path) -> None:
    root = _folder(tmp_path, "wandb-healthy", "mlflow-nonfinite", "jsonl-healthy")
    before = listing(root)
    r = traindoc("diagnose", str(root))
    assert r.returncode == 1, r.stderr  # the NaN run is broken
    out = r.stdout
    assert "3 runs" in out and out.index("3 runs") > out.index("nonfinite-loss")
    assert "BROKEN" in out and "HEALTHY" in out
    assert listing(root) == before
    assert traindoc("diagnose", str(root), "--fail-on", "never").returncode == 0


def test_json_runs_and_summary(tmp_path: Path) -> None:
    root = _folder(tmp_path, "wandb-healthy", "mlflow-nonfinite")
    bad = root / "broken-run"
    bad.mkdir()
    (bad / "trainer_state.json").write_text('{"log_history": [')  # truncated
    r = traindoc("diagnose", str(root), "--format", "json")
    assert r.returncode == 2  # worst over runs: one is unreadable
    doc = json.loads(r.stdout)
    assert len(doc["runs"]) == len(doc["summary"]) == 3
    by_run = {s["run"].split("/")[0]: s for s in doc["summary"]}
    assert by_run["broken-run"]["verdict"] == "unreadable" and by_run["broken-run"]["error"]
    assert by_run["wandb-healthy"]["verdict"] == "healthy"
    nan = by_run["mlflow-nonfinite"]
    assert nan["verdict"] == "broken" and nan["root_causes"] == ["lr-too-high"]
    ok = [rep for rep in doc["runs"] if rep["verdict"] != "unreadable"]
    assert any(f["rule"] == "nonfinite-loss" for rep in ok for f in rep["findings"])
    assert all({"inputs", "run", "findings", "notes"} <= set(rep) for rep in ok)


@pytest.mark.parametrize("fmt", ["markdown"])
def test_markdown_summary(tmp_path: Path, fmt: str) -> None:
    root = _folder(tmp_path, "wandb-healthy", "jsonl-healthy")
    r = traindoc("diagnose", str(root), "-f", fmt)
    assert r.returncode == 0 and "## Summary" in r.stdout and "| run | verdict" in r.stdout


def test_a_run_with_no_metric_yet_is_listed_as_such(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "trainer_state.json").write_text('{"log_history": [], "max_steps": 9}')
    shutil.copytree(Path(__file__).parent / "corpus" / "jsonl-healthy", tmp_path / "ok")
    p = traindoc("diagnose", str(tmp_path), "--format", "json")
    rows = {r["run"]: r["verdict"] for r in json.loads(p.stdout)["summary"]}
    assert rows == {"empty": "no metrics", "ok/metrics.jsonl": "healthy"}
