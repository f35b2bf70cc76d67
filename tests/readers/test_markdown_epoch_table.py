"""A markdown table pasted into an issue, one row per epoch: the epoch column is the step
and the loss columns are read by their header names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values


def test_markdown_table_with_epoch_column_is_read_per_epoch(tmp_path: Path) -> None:
    body = "| epoch | train_loss | val_loss |\n|---|---|---|\n"
    body += "".join(f"| {i} | {1 - i * 0.1:.2f} | {1.1 - i * 0.1:.2f} |\n" for i in range(1, 7))
    run = one_log(tmp_path, body)
    assert values(run, "loss")[:3] == pytest.approx([0.9, 0.8, 0.7])
    assert values(run, "eval_loss")[:2] == pytest.approx([1.0, 0.9])
    assert [int(s) for s in run.get("loss").steps][:3] == [1, 2, 3]
