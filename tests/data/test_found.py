"""The dataset found with a run: where diagnose looks, what it skips, and that it
audits without writing into the run directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from traindoc.data import found
from traindoc.engine import diagnose
from traindoc.model import Fact
from traindoc.pipeline import load

CORPUS = Path(__file__).parents[1] / "corpus"


def _rows(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _snapshot(d: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in d.rglob("*")}


def test_data_folder_in_the_run_dir_is_audited_and_names_the_overfitting_cause() -> None:
    d = CORPUS / "data-duplicates-overfitting"
    before = _snapshot(d)
    diag = diagnose(load(d))
    assert diag.run.data is not None and diag.run.data.rows == 240
    assert diag.run.data.eval_rows == 48
    by = {f.rule: f for f in diag.findings}
    assert by["duplicate-samples"].severity.name == "WARNING"
    assert "duplicate-samples" in by["overfitting"].caused_by
    assert _snapshot(d) == before  # nothing written into the user's run dir


def test_label_conflicts_in_the_run_dir_are_reported() -> None:
    diag = diagnose(load(CORPUS / "data-label-conflicts"))
    ids = {f.rule for f in diag.findings}
    assert "label-conflicts" in ids


def test_trainer_outputs_beside_the_logs_are_not_data(tmp_path: Path) -> None:
    (tmp_path / "train_results.json").write_text('{"train_loss": 1.0}')
    (tmp_path / "trainer_state.json").write_text('{"log_history": []}')
    (tmp_path / "metrics.jsonl").write_text('{"step": 1, "loss": 2.0}\n')
    assert found.find(tmp_path, {}) is None
    (tmp_path / "train.json").write_text('{"not": "an array"}')
    assert found.find(tmp_path, {}) is None  # an object beside the logs is not data
    _rows(tmp_path / "train.jsonl", [{"text": "a"}])
    _rows(tmp_path / "validation.jsonl", [{"text": "b"}])
    f = found.find(tmp_path, {})
    assert f is not None
    assert [p.name for p in f.train] == ["train.jsonl"]
    assert [p.name for p in f.eval] == ["validation.jsonl"]


def test_a_path_named_by_the_config_wins_and_resolves_against_the_parent(tmp_path: Path) -> None:
    run = tmp_path / "outputs" / "run1"
    run.mkdir(parents=True)
    _rows(tmp_path / "outputs" / "sft.jsonl", [{"text": "x"}, {"text": "y"}])
    _rows(run / "data" / "other.jsonl", [{"text": "z"}])
    f = found.find(run, {"dataset": Fact("sft.jsonl", "config.yaml: datasets[].path")})
    assert f is not None and [p.name for p in f.train] == ["sft.jsonl"]
    assert "config.yaml" in f.source


def test_a_hub_name_is_skipped_and_the_run_dir_is_tried(tmp_path: Path) -> None:
    facts = {"dataset": Fact("tatsu-lab/alpaca", "--dataset_name")}
    assert found.find(tmp_path, facts) is None
    _rows(tmp_path / "data" / "train.jsonl", [{"text": "z"}])
    f = found.find(tmp_path, facts)
    assert f is not None and f.source.startswith("data/")


def test_llamafactory_dataset_is_looked_up_in_dataset_info(tmp_path: Path) -> None:
    _rows(tmp_path / "data" / "my_sft.jsonl", [{"instruction": "q", "output": "a"}])
    info = {"my_sft": {"file_name": "my_sft.jsonl"}, "hub": {"hf_hub_url": "org/x"}}
    (tmp_path / "data" / "dataset_info.json").write_text(json.dumps(info))
    facts = {
        "dataset": Fact("my_sft,hub", "train.yaml: dataset"),
        "dataset_dir": Fact("data", "train.yaml: dataset_dir"),
    }
    f = found.find(tmp_path, facts)
    assert f is not None and [p.name for p in f.train] == ["my_sft.jsonl"]


def test_data_too_large_for_diagnose_becomes_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CORPUS / "data-label-conflicts", tmp_path / "run")
    monkeypatch.setattr(found, "MAX_BYTES", 1000)
    run = load(tmp_path / "run")
    assert run.data is None
    assert any("traindoc data" in n.message for n in run.notes)
    assert run.get("loss") is not None  # the curves are still read


def test_malformed_data_is_a_note_not_a_crash(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "data-label-conflicts", tmp_path / "run")
    (tmp_path / "run" / "data" / "train.jsonl").write_bytes(b"\x00\xff not json\n")
    run = load(tmp_path / "run")
    assert run.get("loss") is not None and run.data is None
    assert any("data not audited" in n.message and "no records" in n.message for n in run.notes)


_TEMPLATES = [f"sentence number {i} says something mildly {w}" for i in range(40) for w in "ab"]


def _csv(path: Path, header: str, lines: list[str]) -> None:
    path.write_text(header + "\n" + "".join(line + "\n" for line in lines))


def _trainer_state(d: Path) -> None:
    """A HF trainer_state.json whose loss falls smoothly to exactly 0 (memorisation)."""
    losses = [0.9 * 0.5**k for k in range(12)] + [0.0] * 40
    history = [{"step": 10 * (i + 1), "epoch": i / 52, "loss": v} for i, v in enumerate(losses)]
    (d / "trainer_state.json").write_text(json.dumps({"log_history": history}))


def test_a_dataset_beside_the_log_with_heavy_duplication_is_the_cause(tmp_path: Path) -> None:
    """The DEV case's shape: a classification CSV of few distinct sentences repeated
    many times, committed beside a trainer_state.json whose loss reaches 0."""
    _trainer_state(tmp_path)
    rows = [f'"{_TEMPLATES[i % len(_TEMPLATES)]}",{i % len(_TEMPLATES) % 3}' for i in range(3000)]
    _csv(tmp_path / "abuse_sentences_dataset.csv", "text,label", rows)
    diag = diagnose(load(tmp_path))
    by = {f.rule: f for f in diag.findings}
    dup = by["duplicate-samples"]
    assert dup.severity.name == "WARNING"
    assert (
        "abuse_sentences_dataset.csv" in dup.title
        and "80 distinct samples in 3000 rows" in dup.title
    )
    assert dup.id in by["degenerate-loss"].caused_by


def test_a_clean_dataset_beside_the_log_is_audited_without_duplicates(tmp_path: Path) -> None:
    _trainer_state(tmp_path)
    _rows(
        tmp_path / "reviews.jsonl",
        [{"review": t, "label": i % 2} for i, t in enumerate(_TEMPLATES)],
    )
    diag = diagnose(load(tmp_path))
    assert diag.run.data is not None and diag.run.data.rows == 80
    assert "duplicate-samples" not in {f.rule for f in diag.findings}


def test_a_few_duplicates_under_the_threshold_are_info_only(tmp_path: Path) -> None:
    lines = [f'"{t} in corpus part {k}",{k % 2}' for k in range(3) for t in _TEMPLATES]
    lines += lines[:1]  # 1 repeat in 241 rows: under 1%
    _csv(tmp_path / "tweets.csv", "tweet,label", lines)
    _trainer_state(tmp_path)
    by = {f.rule: f for f in diagnose(load(tmp_path)).findings}
    assert by["duplicate-samples"].severity.name != "WARNING"


@pytest.mark.parametrize(
    ("name", "header", "line"),
    [
        ("metrics.csv", "epoch,step,train_loss,val_loss,val_acc", "0,100,0.52,0.61,0.81"),
        ("training.log.csv", "epoch,accuracy,loss,val_accuracy,val_loss", "3,0.9,0.2,0.88,0.3"),
        (
            "results.csv",
            "  epoch,  train/box_loss,  metrics/mAP50(B),  val/box_loss,  lr/pg0",
            "1,1.2,0.3,1.4,0.001",
        ),
        ("train_log.csv", "Epoch,TrainLoss,ValLoss,ValAcc", "1,5.82,1.46,0.70"),
        ("history.csv", "name,state,notes,loss", "run one,finished,lr 1e-4 sweep best,0.3"),
    ],
)
def test_metrics_logs_beside_a_run_are_not_data(
    tmp_path: Path, name: str, header: str, line: str
) -> None:
    """Loggers write CSVs too (Lightning metrics.csv, Keras CSVLogger, YOLO results.csv):
    numbers under metric names are a log, never a dataset to audit."""
    _csv(tmp_path / name, header, [line] * 50)
    assert found.find(tmp_path, {}) is None


def test_a_table_of_short_class_names_is_not_data(tmp_path: Path) -> None:
    """No column of prose: a label map or a config table, not samples."""
    _csv(tmp_path / "classes.csv", "id,name", [f"{i},cat{i % 3}" for i in range(50)])
    assert found.find(tmp_path, {}) is None
