"""Loss lines as hand-written loops print them, NaN included: a statistic word before the
name, a scalar in its array type's repr, a sentence that says the loss went NaN, and
YAML's `.nan` spelling."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log
from traindoc.readers.logs.lines import scalar_wrapper_value
from traindoc.readers.logs.numbers import nonfinite_text, parse, to_num


def _loss(tmp_path: Path, text: str) -> list[float]:
    return list(one_log(tmp_path, text).get("loss").values)


def test_a_statistic_word_before_the_loss_is_still_the_loops_loss(tmp_path: Path) -> None:
    for word in ("Average loss", "Mean Training loss :", "Running loss", "Epoch mean loss"):
        sep = "" if word.endswith(":") else ":"
        vals = _loss(tmp_path, f"{word}{sep} 2.1\n{word}{sep} 1.9\n{word}{sep} nan\n")
        assert vals[:2] == [2.1, 1.9] and np.isnan(vals[2]), word


def test_a_named_scalar_in_its_arrays_repr_is_that_names_value(tmp_path: Path) -> None:
    assert scalar_wrapper_value(b"loss: Array(nan, dtype=float32)") == b"loss: nan"
    assert scalar_wrapper_value(b"'loss': DeviceArray(2.3, dtype=float32)") == b"'loss': 2.3"
    assert scalar_wrapper_value(b"loss: tf.Tensor(2.3, shape=(), dtype=float32)") == b"loss: 2.3"
    assert scalar_wrapper_value(b"loss np.float32(0.5)") == b"loss 0.5"
    assert scalar_wrapper_value(b"loss: tensor(0.69, device='cuda:0')") == b"loss: 0.69"
    # unnamed, or an array of several values: nothing says it is a logged value
    assert scalar_wrapper_value(b"tensor(0.5)") == b"tensor(0.5)"
    assert scalar_wrapper_value(b"x: Array([0.1, 0.2], dtype=float32)").startswith(b"x: Array([")
    vals = _loss(
        tmp_path,
        "step 1 loss: Array(2.301, dtype=float32)\nstep 2 loss: Array(nan, dtype=float32)\n",
    )
    assert vals[0] == 2.301 and np.isnan(vals[1])


def test_a_sentence_that_says_the_loss_went_nan_is_a_nonfinite_loss(tmp_path: Path) -> None:
    for line in (
        "Loss has become NaN. Stopping training.",
        "Detected NaN loss at step 100",
        "Encountered NaN loss, skipping batch",
        "The loss value is nan",
        "Epoch 5: loss went to nan",
        "AssertionError: loss become infinite or NaN!",
    ):
        run = one_log(tmp_path, line + "\n")
        assert [e.kind for e in run.events] == ["nonfinite-loss"], line
    # near-misses: words that start like a non-finite value, and a reporter's prose
    for line in ("the loss is information-theoretic", "I got a nan loss after 250 iterations"):
        text = "epoch 1 loss 2.1\nepoch 2 loss 1.9\n" + line + "\n"
        assert [e.kind for e in one_log(tmp_path, text).events] == [], line


def test_yaml_nonfinite_spellings(tmp_path: Path) -> None:
    assert np.isnan(to_num(".nan")) and to_num("-.inf") == -np.inf and parse(".inf") == np.inf
    assert nonfinite_text(".nan") and nonfinite_text("-.Inf") and not nonfinite_text(".5")
    vals = _loss(tmp_path, "loss: 2.1\nloss: .nan\nloss: -.inf\n")
    assert vals[0] == 2.1 and np.isnan(vals[1]) and vals[2] == -np.inf
