"""Keras' ModelCheckpoint message glued onto the progress bar's last redraw ("... - loss:
1.6080Epoch 00001: val_loss improved from inf to 1.55635, saving model to ..."): the
message goes, the bar is read as any bar (lines.drop_keras_stop). Verbatim lines 5-12 of
tests/real/overfitting_keras_yolov2_3class_val_loss_min_epoch2_1p5285_then_1p5861_train_falls/log_excerpt.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values

_CASE = (
    Path(__file__).parents[1]
    / "real"
    / "overfitting_keras_yolov2_3class_val_loss_min_epoch2_1p5285_then_1p5861_train_falls"
)


def _lines(a: int, b: int) -> str:
    text = (_CASE / "log_excerpt.txt").read_text(encoding="utf-8")
    return "".join(text.splitlines(keepends=True)[a - 1 : b])


def test_a_glued_improved_message_costs_the_bar_nothing(tmp_path: Path) -> None:
    run = one_log(tmp_path, _lines(5, 12))
    # each epoch's last redraw (12299, glued to the message) and its finished bar (12300)
    assert run.get("loss").steps.tolist()[:4] == [12299, 12300, 24599, 24600]
    assert values(run, "loss")[:4] == pytest.approx([1.608, 1.608, 1.5306, 1.5307])
    assert values(run, "eval_loss") == pytest.approx([1.5564, 1.5285, 1.551])
    (inp,) = [i for i in run.inputs if i.series is not None]
    assert not inp.lines_not_understood, inp.first_not_understood


def test_near_miss_a_checkpoint_message_on_its_own_line_is_no_bar(tmp_path: Path) -> None:
    body = (
        "step 1 loss 2.5\n"
        "Epoch 00001: val_loss improved from inf to 1.55635, saving model to best.h5\n"
        "step 2 loss 2.4\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([2.5, 2.4])
