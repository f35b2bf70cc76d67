"""Reader misreads reported by other helpers, fixed by helper readers28: an eval line after
a moved carried line, PyTorch's ReduceLROnPlateau message, regression errors as losses,
Keras' heading epochs as an epoch series, and a quoted literal's number.

Each fix is built on lines as the framework prints them (sources quoted) and has a near
miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import values
from traindoc.readers import load_runs

# https://github.com/flairNLP/flair/issues/1429 (verbatim, as the corpus case stores it)
_FLAIR = (
    "2020-02-16 09:39:56,016 epoch 28 - iter 1/1 - loss 15.28764820 - samples/sec: 30.19\n"
    "2020-02-16 09:39:56,076 " + "-" * 100 + "\n"
    "2020-02-16 09:39:56,077 EPOCH 28 done: loss 15.2876 - lr 0.0016\n"
    "2020-02-16 09:39:56,143 DEV : loss 10.322088241577148 - score 0.0\n"
    "2020-02-16 09:39:56,146 BAD EPOCHS (no improvement): 3\n"
    "2020-02-16 09:40:00,204 " + "-" * 100 + "\n"
    "2020-02-16 09:40:01,075 epoch 29 - iter 1/1 - loss 15.28552628 - samples/sec: 36.85\n"
    "2020-02-16 09:40:01,128 " + "-" * 100 + "\n"
    "2020-02-16 09:40:01,129 EPOCH 29 done: loss 15.2855 - lr 0.0016\n"
    "2020-02-16 09:40:01,188 DEV : loss 10.319738388061523 - score 0.0\n"
)
_PLATEAU = "Epoch    29: reducing learning rate of group 0 to 7.8125e-04.\n"

# https://github.com/MIC-DKFZ/nnUNet/issues/2140 (the first epochs, verbatim; the dice
# lists cut to their first values)
_NNUNET = (
    "2024-04-26 09:39:10.910043: Epoch 0\n"
    "2024-04-26 09:39:10.914042: Current learning rate: 0.01\n"
    "using pin_memory on device 0\n"
    "using pin_memory on device 0\n"
    "2024-04-26 09:41:39.493872: train_loss 0.7088\n"
    "2024-04-26 09:41:39.498914: val_loss 0.4628\n"
    "2024-04-26 09:41:39.501914: Pseudo dice [0.0, 0.0, 0.0002, 0.0]\n"
    "2024-04-26 09:41:39.505914: Epoch time: 148.59 s\n"
    "2024-04-26 09:41:39.507914: Yayy! New best EMA pseudo Dice: 0.0\n"
    "2024-04-26 09:41:40.302549:\n"
    "2024-04-26 09:41:40.307418: Epoch 1\n"
    "2024-04-26 09:41:40.311464: Current learning rate: 0.00999\n"
    "2024-04-26 09:43:54.932336: train_loss 0.4043\n"
    "2024-04-26 09:43:54.939337: val_loss 0.3847\n"
    "2024-04-26 09:43:54.943336: Pseudo dice [0.0, 0.0, 0.1611, 0.0]\n"
    "2024-04-26 09:43:54.947495: Epoch time: 134.63 s\n"
    "2024-04-26 09:43:54.949496: Yayy! New best EMA pseudo Dice: 0.0005\n"
    "2024-04-26 09:43:55.812661:\n"
    "2024-04-26 09:43:55.816868: Epoch 2\n"
    "2024-04-26 09:43:55.821115: Current learning rate: 0.00998\n"
    "2024-04-26 09:46:11.813500: train_loss 0.357\n"
    "2024-04-26 09:46:11.823500: val_loss 0.3453\n"
)


def _runs(tmp_path: Path, body: str, name: str = "train.log"):
    p = tmp_path / name
    p.write_text(body)
    return load_runs(p)


def test_flair_dev_line_after_a_moved_epoch_line_is_the_same_run(tmp_path: Path) -> None:
    # before: "EPOCH 29 done" moved a step on, its DEV line stayed behind: two runs
    (run,) = _runs(tmp_path, _FLAIR)
    assert values(run, "eval_loss") == [10.322088241577148, 10.319738388061523]
    assert values(run, "loss")[-1] == 15.2855


def test_reduce_lr_on_plateau_message_is_no_cut_nor_run(tmp_path: Path) -> None:
    (run,) = _runs(tmp_path, _FLAIR + _PLATEAU)
    assert len(run.get("eval_loss")) == 2
    body = "epoch 1 - loss 2.0\nepoch 2 - loss 1.9\n"
    for message in (_PLATEAU, "Epoch 00029: reducing learning rate of group 0 to 1.0000e-04.\n"):
        (run,) = _runs(tmp_path, body + message + "epoch 3 - loss 1.8\n", "a.log")
        assert "paste_cuts" not in run.facts
        assert values(run, "loss") == [2.0, 1.9, 1.8]
    # near miss: a sentence about reducing the rate is still prose, a cut in the paste
    said = "So at epoch 29 I tried reducing the learning rate of group 0 to 1e-4 by hand.\n"
    (run,) = _runs(tmp_path, body + said + "epoch 3 - loss 1.8\n", "b.log")
    assert "paste_cuts" in run.facts


def test_nnunet_epoch_losses_stay_at_their_epoch(tmp_path: Path) -> None:
    # before: epoch 0's train_loss moved to epoch 1 (the "Epoch 0" heading was taken for a
    # record of its shape), its val_loss left behind: two runs, epoch 1's loss overwritten
    (run,) = _runs(tmp_path, _NNUNET)
    loss, ev = run.get("loss"), run.get("eval_loss")
    assert [int(s) for s in loss.steps] == [0, 1, 2]
    assert values(run, "loss") == [0.7088, 0.4043, 0.357]
    assert [int(s) for s in ev.steps] == [0, 1, 2]


# Keras model.fit of a regression model compiled with loss="mse", metrics=["mae"] whose
# log names only the metrics (a callback prints them without the loss)
_KERAS_MSE = "".join(
    f"Epoch {e}/3\n"
    f"100/100 [==============================] - 1s 5ms/step - mse: {m} - mae: {a}"
    f" - val_mse: {vm} - val_mae: {va}\n"
    for e, m, a, vm, va in (
        (1, 0.9, 0.8, 1.0, 0.9),
        (2, 0.7, 0.7, 0.8, 0.8),
        (3, 0.5, 0.6, 0.6, 0.7),
    )
)


def test_regression_errors_alone_are_the_losses(tmp_path: Path) -> None:
    (run,) = _runs(tmp_path, _KERAS_MSE)
    assert values(run, "loss") == [0.9, 0.7, 0.5]  # mse, never mse + mae
    assert values(run, "eval_loss") == [1.0, 0.8, 0.6]
    body = "epoch 1 train_mse 0.9 val_mse 1.0\nepoch 2 train_mse 0.7 val_mse 0.8\n"
    (run,) = _runs(tmp_path, body, "b.log")
    assert values(run, "loss") == [0.9, 0.7]
    assert values(run, "eval_loss") == [1.0, 0.8]


def test_regression_error_beside_a_loss_stays_an_extra(tmp_path: Path) -> None:
    # near miss: the printed loss is the loss; the mae beside it is no term of it
    body = _KERAS_MSE.replace("- mse:", "- loss: 1.5 - mse:")
    (run,) = _runs(tmp_path, body)
    assert values(run, "loss") == [1.5, 1.5, 1.5]


def test_keras_heading_epochs_become_the_epoch_series(tmp_path: Path) -> None:
    (run,) = _runs(tmp_path, _KERAS_MSE)
    assert values(run, "epoch") == [1.0, 2.0, 3.0]
    assert [int(s) for s in run.get("epoch").steps] == [100, 200, 300]
    # near miss: an epoch printed on the line is the one read
    (run,) = _runs(tmp_path, "epoch 1 loss 0.9\nepoch 2 loss 0.7\n", "b.log")
    assert values(run, "epoch") == [1.0, 2.0]


# https://github.com/DetectionTeamUCAS/FCOS_Tensorflow/issues/1 (as the corpus stores it)
_BYTES = (
    " 2019-04-27 22:02:27: step90    image_name:b'70844.jpg' |\t loc_loss:11.512925148010254 |\t \n"
    "                                            cls_loss:nan |\t cnt_loss:0.6479541063308716 |"
    "\ttotal_loss:nan |\n"
    "                                            per_cost_time:8.343699216842651s\n"
)


def test_a_quoted_literal_is_text_not_a_metric(tmp_path: Path) -> None:
    body = "".join(
        f"{{'loss': {v}, 'img': b'{7084 + i}.jpg', 'step': {i + 1}}}\n"
        for i, v in enumerate((2.3, 2.1, 1.9))
    )
    (run,) = _runs(tmp_path, body)
    assert "b" not in run.series and "img" not in run.series
    assert values(run, "loss") == [2.3, 2.1, 1.9]
    # the wrapped record of the FCOS issue: no series `b` (70844 is the file's name)
    (run,) = _runs(tmp_path, _BYTES, "c.log")
    assert "b" not in run.series
    assert math.isnan(values(run, "cls_loss")[0])
    # near miss: a quoted key with its number after it is a metric ('b' is a name there),
    # and a quoted number alone a value
    body = "".join(
        f"{{'loss': {v}, 'b': {v / 2}, 'step': {i + 1}}}\n" for i, v in enumerate((2.3, 2.1))
    )
    (run,) = _runs(tmp_path, body, "b.log")
    assert values(run, "b") == [1.15, 1.05]
    assert math.isclose(values(run, "loss")[1], 2.1)
