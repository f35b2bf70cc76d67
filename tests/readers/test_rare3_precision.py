"""A precision the user says they set, beside a pasted Keras log (keras-team/keras#4032:
"Setting the config to `float16` alone introduces numerical issues.")."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers import console

KERAS = (
    "Epoch 1/12\n"
    "60000/60000 [==============================] - 25s - loss: 0.0049 - acc: 0.0987"
    " - val_loss: 0.0000e+00 - val_acc: 0.0980\n"
    "Epoch 2/12\n"
    "60000/60000 [==============================] - 24s - loss: 0.0000e+00 - acc: 0.0987"
    " - val_loss: 0.0000e+00 - val_acc: 0.0980\n"
)


@pytest.mark.parametrize(
    ("said", "precision"),
    [
        ("Setting the config to `float16` alone introduces numerical issues.", "fp16"),
        ("I switched the dtype to fp16 and the loss went to 0.", "fp16"),
        ("K.set_floatx('float16')", "fp16"),
        ("Should I try float16 instead?", None),  # a question, not the run's setting
    ],
)
def test_stated_precision(tmp_path: Path, said: str, precision: str | None) -> None:
    p = tmp_path / "log_excerpt.txt"
    p.write_text(said + "\n\n" + KERAS)
    run = console.read(p)
    assert run.fact("precision") == precision
    assert run.get("loss").values.tolist() == [0.0049, 0.0]
