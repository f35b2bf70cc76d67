"""Keras' `json.dump(history.history, f)` writes the History dict on ONE line
({"loss": [..], "val_loss": [..], "accuracy": [..]}): a line that parses as a JSON object,
so detection took the file for a JSONL log of one record, and the JSONL reader found no
number in it (every value a list): no series. The same dict pretty-printed was read as a
column block, one record an epoch (test_json_epoch_columns). A file whose only line is
an object of equally long lists is that block, whatever its name (.json, .jsonl, .txt).

Near misses: a JSONL log of several records whose first record holds a list (per-group
LRs) stays JSONL; a one-line object of lists that name no loss is no log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_log, values
from traindoc.readers.detect import detect_file

# as json.dump writes it: one line, ", " and ": " separators, no trailing newline
_HISTORY = (
    '{"loss": [0.6931, 0.5402, 0.4478, 0.3911], "accuracy": [0.5012, 0.7325, 0.8101, 0.8450],'
    ' "val_loss": [0.6512, 0.5207, 0.4893, 0.5120], "val_accuracy": [0.6100, 0.7500, 0.7800,'
    " 0.7750]}"
)


@pytest.mark.parametrize("name", ["history.json", "history.jsonl", "history.txt"])
def test_a_one_line_history_dict_is_read_per_epoch(tmp_path: Path, name: str) -> None:
    # before: the JSONL reader took the line as one record of lists and read no series
    run = load_log(tmp_path, _HISTORY, name=name)
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0, 4.0]
    assert values(run, "loss") == [0.6931, 0.5402, 0.4478, 0.3911]
    assert values(run, "eval_loss") == [0.6512, 0.5207, 0.4893, 0.5120]


def test_a_one_line_history_dict_with_a_trailing_newline_is_the_same(tmp_path: Path) -> None:
    run = load_log(tmp_path, _HISTORY + "\n", name="history.json")
    assert values(run, "loss") == [0.6931, 0.5402, 0.4478, 0.3911]


def test_a_jsonl_log_whose_records_hold_a_list_stays_jsonl(tmp_path: Path) -> None:
    # near miss: several records a line each, the first holding per-group LRs as a list
    p = tmp_path / "metrics.jsonl"
    p.write_text(
        '{"step": 1, "loss": 2.31, "lr": [0.001, 0.0001]}\n'
        '{"step": 2, "loss": 2.05, "lr": [0.001, 0.0001]}\n'
    )
    src = detect_file(p)
    assert src is not None and src.kind == "jsonl"


def test_a_one_line_object_of_lists_naming_no_loss_is_not_a_history(tmp_path: Path) -> None:
    # near miss: a config dumped on one line (equally long lists, no loss among them)
    p = tmp_path / "config.json"
    p.write_text('{"image_size": [150, 150], "betas": [0.9, 0.999]}')
    src = detect_file(p)
    assert src is None or src.kind != "console"
