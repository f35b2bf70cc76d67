"""Two table/record shapes of small trainers' own printouts.

Flair's loss.tsv has a TIMESTAMP column ("21:09:11"): a wall clock, never a value, so the
row's numbers map onto the other columns. mlpack's example prints one metric as a heading
and a value per split ("3 - accuracy: train = 97.6%, valid = 96.5%"): each split word names
that split's metric."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log

_TSV = (
    "EPOCH\tTIMESTAMP\tBAD_EPOCHS\tLEARNING_RATE\tTRAIN_LOSS\tDEV_LOSS\tDEV_F1\n"
    "1\t21:09:11\t0\t0.1000\t4.8707\t0.3634\t0.9989\n"
    "2\t21:16:12\t0\t0.1000\t0.7479\t0.2315\t0.9994\n"
    "3\t21:23:14\t1\t0.1000\t0.5149\t0.2152\t0.9994\n"
)


def test_timestamp_column_is_a_clock_not_a_value(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TSV)
    assert run.get("loss").values.tolist() == pytest.approx([4.8707, 0.7479, 0.5149])
    assert run.get("eval_loss").values.tolist() == pytest.approx([0.3634, 0.2315, 0.2152])
    assert run.get("dev_f1").values.tolist() == pytest.approx([0.9989, 0.9994, 0.9994])
    assert run.get("loss").steps.tolist() == [1, 2, 3]


def test_near_miss_table_without_a_clock_reads_as_before(tmp_path: Path) -> None:
    body = "".join(
        "\t".join(c for i, c in enumerate(line.split("\t")) if i != 1) + "\n"
        for line in _TSV.splitlines()
    )
    run = one_log(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([4.8707, 0.7479, 0.5149])
    assert run.get("dev_f1").values.tolist() == pytest.approx([0.9989, 0.9994, 0.9994])


def test_split_values_under_a_metric_heading(tmp_path: Path) -> None:
    body = (
        "1 - accuracy: train = 95.4524%, valid = 94.9286%\n"
        "2 - accuracy: train = 96.9974%, valid = 96.0952%\n"
        "3 - accuracy: train = 97.6481%, valid = 96.5%\n"
    )
    run = one_log(tmp_path, body)
    assert run.get("train_accuracy").values.tolist() == pytest.approx([95.4524, 96.9974, 97.6481])
    assert run.get("valid_accuracy").values.tolist() == pytest.approx([94.9286, 96.0952, 96.5])
    assert run.get("valid") is None and run.get("train") is None


def test_near_miss_metric_with_its_own_value_is_no_heading(tmp_path: Path) -> None:
    """ "accuracy: 91.5%, train = 1": the metric has its value after the colon, so it heads
    nothing and the split word after it is not made that metric's train split."""
    body = "".join(
        f"step {i} - accuracy: {90 + i}.5%, train = {i}, loss = 2.{9 - i}\n" for i in range(1, 6)
    )
    run = one_log(tmp_path, body)
    assert run.get("accuracy").values.tolist() == pytest.approx([91.5, 92.5, 93.5, 94.5, 95.5])
    assert run.get("train_accuracy") is None
