"""A run folder holding only its loop's metrics CSV (Keras' CSVLogger training_log.csv,
a history.csv) is read as the same file named on its own is; a dataset's CSV is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_checked
from traindoc.api import diagnose
from traindoc.readers import ReadError, discover_runs, load_run

KERAS = (
    "epoch,accuracy,loss,val_accuracy,val_loss\n"
    "0,0.61,1.12,0.70,0.91\n1,0.75,0.80,0.77,0.74\n2,0.81,0.62,0.79,0.69\n"
)


@pytest.mark.parametrize("name", ["training_log.csv", "train_log.csv", "history.csv", "log.csv"])
def test_a_folder_with_a_lone_training_log_csv_is_read(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(KERAS)
    run = load_checked(tmp_path)
    assert run.inputs[0].path.endswith(name)
    assert run.get("loss").values.tolist() == [1.12, 0.80, 0.62]
    assert run.get("eval_loss").values.tolist() == [0.91, 0.74, 0.69]
    file_run = load_run(tmp_path / name)
    assert file_run.get("loss").values.tolist() == run.get("loss").values.tolist()
    assert diagnose(tmp_path).runs  # `traindoc diagnose <dir>` reads it


def test_loss_columns_by_other_names_and_an_empty_first_row(tmp_path: Path) -> None:
    # TrainLoss / ValLoss; a PPO loop's first row is logged before any update
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "log.csv").write_text("Epoch,TrainLoss,ValLoss\n1,0.9,1.0\n2,0.5,0.7\n")
    assert load_run(tmp_path / "a").get("loss") is not None
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.csv").write_text("ep_rew_mean,total_loss\n16.5,\n23.4,1.10\n37.7,0.83\n")
    assert load_run(tmp_path / "b").get("reward") is not None


def test_a_folder_with_a_dataset_csv_is_not_read_as_a_log(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("text,label\nhello world,1\nbad movie,0\n")
    (tmp_path / "test.csv").write_text("id,text\n1,a film\n2,the plot\n")
    with pytest.raises(ReadError, match="no training log recognised"):
        load_run(tmp_path)
    # a column named for a loss whose cells hold no number (a label list) is no log
    (tmp_path / "train.csv").write_text("sentence,loss_type\nhi,focal\nyo,ce\n")
    with pytest.raises(ReadError):
        load_run(tmp_path)


def test_a_dataset_csv_beside_a_log_is_not_taken(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("text,label\nhello world,1\n")
    (tmp_path / "training_log.csv").write_text(KERAS)
    run = load_run(tmp_path)
    assert run.inputs[0].path.endswith("training_log.csv")


def test_a_parent_of_csv_run_folders_finds_each(tmp_path: Path) -> None:
    for name in ("run_a", "run_b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "training_log.csv").write_text(KERAS)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.csv").write_text("text,label\nhello world,1\n")
    assert discover_runs(tmp_path) == [tmp_path / "run_a", tmp_path / "run_b"]
