"""Keras' History.history printed rather than dumped (collect23): `print(history.history)`
or `str()` of it into a .txt is the same per-epoch column block json.dump writes, in
Python's repr: names quoted with ', a non-finite value a bare nan / inf.

Built on the real file's line (RecStu14/Sign-Language-Detector, Model-Training/
try1-overfitting/training_history.txt, shortened to three epochs), with near misses it
must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import load_log, one_log, values
from traindoc.readers.detect import detect_file
from traindoc.readers.logs.text import json_array_lines

_PRINTED = (
    "{'loss': [2.994567394256592, 2.1732594966888428, 1.5146218538284302], "
    "'categorical_accuracy': [0.1388888955116272, 0.36375662684440613, 0.5489418506622314], "
    "'val_loss': [2.7139625549316406, 2.0827934741973877, 1.6818069219589233], "
    "'val_categorical_accuracy': [0.236111119389534, 0.347222238779068, 0.4930555522441864]}"
)


def test_a_printed_history_dict_is_read_one_record_an_epoch(tmp_path: Path) -> None:
    # before: one 'loss' point read from nowhere and the line not understood
    run = one_log(tmp_path, _PRINTED, name="training_history.txt")
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert values(run, "loss") == [2.994567394256592, 2.1732594966888428, 1.5146218538284302]
    assert values(run, "eval_loss") == [
        2.7139625549316406,
        2.0827934741973877,
        1.6818069219589233,
    ]


def test_the_printed_dict_is_detected_by_its_content(tmp_path: Path) -> None:
    p = tmp_path / "training_history.txt"
    p.write_text(_PRINTED)
    src = detect_file(p)
    assert src is not None and src.kind == "console"


def test_a_bare_nan_in_the_printed_dict_is_a_nan_loss(tmp_path: Path) -> None:
    body = "{'loss': [2.31, nan, nan], 'val_loss': [2.2, nan, inf]}"
    run = load_log(tmp_path, body, name="history.txt")
    got = values(run, "loss")
    assert got[0] == 2.31 and all(math.isnan(v) for v in got[1:])
    assert math.isinf(values(run, "eval_loss")[2])


def test_a_printed_dict_of_settings_is_no_log(tmp_path: Path) -> None:
    # near miss: printed settings (strings, no equally long loss columns) are not a log
    p = tmp_path / "args.txt"
    p.write_text("{'optimizer': 'adam', 'betas': [0.9, 0.999], 'image_size': [150, 150]}")
    assert detect_file(p) is None


def test_a_printed_dict_with_a_quote_inside_a_string_is_not_made_columns(tmp_path: Path) -> None:
    # near miss: a value like "don't" cannot be turned into JSON; no columns are guessed
    # (the line is left to the line reader, as any printed dict was before)
    p = tmp_path / "notes.txt"
    p.write_text("{'note': \"don't\", 'loss': [1.0, 0.5], 'val_loss': [1.1, 0.9]}")
    assert json_array_lines(p) is None
