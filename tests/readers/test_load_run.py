"""load_run: autodetection and the one-line errors for unusable input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.readers.helpers import load_checked, state, train_entry, write_state
from traindoc.readers import ReadError, load_run


def test_missing_path() -> None:
    with pytest.raises(ReadError, match="no such file") as err:
        load_run("/nonexistent/run")
    assert err.value.path == "/nonexistent/run" and err.value.line is None


def test_empty_dir(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="directory is empty; supported: HF Trainer"):
        load_checked(tmp_path)


def test_nothing_recognisable_lists_the_formats(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello")
    (tmp_path / "train.jsonl").write_text('{"text": "a dataset line, not metrics"}\n')
    (tmp_path / "sub").mkdir()
    with pytest.raises(ReadError) as err:
        load_checked(tmp_path)
    msg = str(err.value)
    assert msg.startswith(str(tmp_path)) and "\n" not in msg
    assert "trainer_state.json" in msg and "metrics.csv" in msg and "JSONL" in msg


def test_unrecognised_file(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("just text\n")
    with pytest.raises(ReadError, match="not a recognised training log"):
        load_checked(f)


def test_empty_file(tmp_path: Path) -> None:
    f = tmp_path / "metrics.jsonl"
    f.touch()
    with pytest.raises(ReadError, match="empty"):
        load_checked(f)


def test_nested_one_level(tmp_path: Path) -> None:
    write_state(
        tmp_path / "out" / "checkpoint-4" / "trainer_state.json", state([train_entry(2, 1.0)], 4)
    )
    run = load_checked(tmp_path)
    assert run.fact("trainer") == "hf" and run.get("loss") is not None


def test_trainer_state_file_directly(tmp_path: Path) -> None:
    f = write_state(tmp_path / "trainer_state.json", state([train_entry(2, 1.0)], 2))
    assert load_checked(f).get("loss") is not None


def test_hf_dir_with_trainer_log_reads_both_as_llamafactory(tmp_path: Path) -> None:
    write_state(tmp_path / "trainer_state.json", state([train_entry(2, 1.0)], 2))
    (tmp_path / "trainer_log.jsonl").write_text(
        json.dumps({"current_steps": 2, "loss": 1.0, "elapsed_time": "0:00:03"}) + "\n"
    )
    run = load_checked(tmp_path)
    assert run.fact("trainer") == "llamafactory"
    assert {"hf-trainer-state", "llamafactory-log"} <= {i.kind for i in run.inputs}
    loss = run.get("loss")
    assert loss is not None and loss.times is not None and loss.times[0] == 3.0


def test_jsonl_with_any_extension_is_sniffed(tmp_path: Path) -> None:
    f = tmp_path / "train.log"
    f.write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.5}\n')
    assert load_checked(f).get("loss") is not None


CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.mark.parametrize(
    ("case", "source"),
    [
        ("schedule-restarted", "train_runtime summary"),
        ("console-hf-healthy/train.log", "train_runtime summary"),
        ("wandb-healthy", "exit record"),
    ],
)
def test_a_log_that_says_training_ended_gives_the_ended_fact(case: str, source: str) -> None:
    run = load_checked(CORPUS / case)
    assert run.fact("ended") is True and source in run.facts["ended"].source


def test_a_checkpoint_state_mid_run_has_not_ended(tmp_path: Path) -> None:
    mid = CORPUS / "schedule-restarted" / "checkpoint-150" / "trainer_state.json"
    assert load_checked(mid).fact("ended") is None
    assert load_checked(CORPUS / "jsonl-stalled").fact("ended") is None


def test_a_detector_is_told_by_its_loss_terms(tmp_path: Path) -> None:
    """Box / mask loss terms mark a detector: no ln(V) to judge its loss against."""
    from traindoc.pipeline import load

    rows = [
        {"iter": i, "loss": 2.0 - i / 100, "loss_cls": 0.5, "loss_bbox": 0.3, "lr": 0.02}
        for i in range(1, 50)
    ]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = load(tmp_path / "log.jsonl")
    assert run.fact("task") == "detection"
    assert "loss_bbox" in run.facts["task"].source
    rows = [{"iter": i, "loss": 2.0 - i / 100, "lr": 3e-4} for i in range(1, 50)]
    (tmp_path / "lm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load(tmp_path / "lm.jsonl").fact("task") is None


def test_runs_pasted_together_with_identical_losses_are_marked(tmp_path: Path) -> None:
    """An LR sweep pasted in one issue: the same losses at two LRs is evidence."""
    from traindoc.engine import diagnose
    from traindoc.pipeline import load_all

    losses = (0.36569, 0.37642, 0.37213)

    def block(lr: float, ls: tuple[float, ...]) -> str:
        return "".join(
            f"Epoch: {i + 1}, LR: {lr:.7f}, Training Loss: {v:.5f}\n" for i, v in enumerate(ls)
        )

    paste = tmp_path / "issue.txt"
    paste.write_text("lr = 1e-5\n" + block(1e-5, losses) + "lr = 0\n" + block(0.0, losses))
    runs = load_all(paste)
    assert len(runs) == 2
    assert all(r.fact("same_loss_as")["points"] == 3 for r in runs)
    found = [f for f in diagnose(runs[0]).findings if f.rule == "no-learning"]
    assert found and "the LR has no effect" in found[0].title
    # different losses (a real sweep): nothing is marked
    paste.write_text(block(1e-5, losses) + block(0.0, (0.36569, 0.36011, 0.35213)))
    assert not any("same_loss_as" in r.facts for r in load_all(paste))
