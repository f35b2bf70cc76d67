"""A loop that prints only its loss, one value per line, with no step counter."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from traindoc.readers import ReadError, load_runs

LOOP = """\
2018-03-23 15:29:33,355:INFO: train loss:1.10886
2018-03-23 15:31:41,870:INFO: train loss:1.53702
2018-03-23 15:33:53,753:INFO: train loss:0.866067
2018-03-23 15:40:22,720:INFO: train loss:nan
"""


def test_lone_loss_lines_are_records_in_line_order(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    p.write_text(LOOP)
    (run,) = load_runs(p)
    loss = run.get("loss")
    assert loss is not None
    assert loss.steps.tolist() == [1, 2, 3, 4]
    assert loss.values[:3].tolist() == [1.10886, 1.53702, 0.866067]
    assert math.isnan(loss.values[3])  # the NaN is evidence, kept


@pytest.mark.parametrize(
    "line",
    [
        "Dataset causing Loss=0",  # prose around the number
        "{'loss': 0.09",  # a printed dict cut short before an excerpt gap
        "learning_rate: 0.001",  # a setting, not a loss
    ],
)
def test_a_lone_number_in_words_or_a_setting_is_no_record(tmp_path: Path, line: str) -> None:
    p = tmp_path / "paste.txt"
    p.write_text(f"{line}\n{line}\n{line}\n")
    try:
        runs = load_runs(p)
    except ReadError:
        return  # nothing to read: the right answer
    assert all(r.get("loss") is None for r in runs)


def test_a_loss_line_inside_a_step_block_stays_in_its_block(tmp_path: Path) -> None:
    """NeMo prints `Step: N` and then `Loss: x` on the next line: one record per step."""
    p = tmp_path / "nemo.log"
    p.write_text(
        "2020-01-20 10:56:56,094 - INFO - Step: 2100\n"
        "2020-01-20 10:56:56,099 - INFO - Loss: 100.46\n"
        "2020-01-20 10:58:09,265 - INFO - Step: 2200\n"
        "2020-01-20 10:58:09,271 - INFO - Loss: 148.91\n"
    )
    (run,) = load_runs(p)
    assert run.get("loss").steps.tolist() == [2100, 2200]


def test_settings_logged_behind_a_logger_prefix_are_config(tmp_path: Path) -> None:
    """A script that logs its arguments one per line through `logging`."""
    p = tmp_path / "record.log"
    p.write_text(
        "12/11/2023 05:14:10 - INFO - __main__ -   lr_scheduler_type: cosine\n"
        "12/11/2023 05:14:10 - INFO - __main__ -   warmup_ratio: 0.03\n"
        "{'loss': 1.52, 'learning_rate': 0.0001, 'epoch': 0.02}\n"
        "{'loss': 1.31, 'learning_rate': 0.0001, 'epoch': 0.05}\n"
    )
    (run,) = load_runs(p)
    assert run.fact("lr_scheduler") == "cosine"
    assert run.fact("warmup_ratio") == 0.03


def test_a_bulleted_loss_in_a_results_list_is_no_train_record(tmp_path: Path) -> None:
    """A model card: "It achieves the following results on the evaluation set: - Loss: nan"."""
    p = tmp_path / "README.md"
    p.write_text(
        "It achieves the following results on the evaluation set:\n"
        "- Loss: nan\n"
        "- Bleu: 0.0\n\n"
        "| Training Loss | Epoch | Step | Validation Loss | Bleu |\n"
        "|:---:|:---:|:---:|:---:|:---:|\n"
        "| No log | 1.0 | 38 | nan | 0.0 |\n"
        "| No log | 2.0 | 76 | nan | 0.0 |\n"
    )
    for run in load_runs(p):
        assert run.get("loss") is None
