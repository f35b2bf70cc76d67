"""A loop that calls Keras' `fit(epochs=1)` once per outer iteration prints "Epoch 1/1"
and one finished bar each time: every call is one more epoch, not the same one written
over. A real paste it must read, and near misses it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log
from traindoc.readers import load_run

REAL = Path(__file__).resolve().parents[1] / "real"
_DEEPSCRIPT = REAL / "no_learning_keras_deepscript_clamm_val_acc_0p357_identical_four_epochs"


def _bar(loss: float) -> str:
    return f"360/360 [==============================] - 11s 31ms/step - loss: {loss:.4f}\n"


def test_repeated_epoch_1_of_1_fits_are_successive_epochs() -> None:
    run = load_run(_DEEPSCRIPT / "log_excerpt.txt")
    loss = run.get("loss")
    assert [float(s) for s in loss.steps] == [360.0, 720.0, 1080.0, 1440.0, 1800.0]
    assert [float(v) for v in loss.values] == [1.1237, 1.0820, 1.0603, 1.0549, 1.0464]


def test_a_normal_epoch_heading_sequence_is_unchanged(tmp_path: Path) -> None:
    body = "".join(f"Epoch {e}/3\n" + _bar(1.0 - e / 10) for e in range(1, 4))
    run = one_log(tmp_path, body)
    assert [float(s) for s in run.get("loss").steps] == [360.0, 720.0, 1080.0]


def test_unfinished_bars_under_one_heading_are_not_renumbered(tmp_path: Path) -> None:
    body = "Epoch 1/1\n" + "".join(
        f"{n}/360 [=====>........................] - ETA: 9s - loss: 1.{n}\n"
        for n in (100, 200, 300)
    )
    run = one_log(tmp_path, body)
    assert [float(s) for s in run.get("loss").steps] == [100.0, 200.0, 300.0]
