"""Reader gaps seen on healthy console pastes (healthy10): mmocr's score-threshold sweep
rows read as a curve (the last, most extreme threshold's recall 0 stood as the epoch's
metric), `hmean` (text detection's F-measure) not known as a metric, and `cur_lr`
(RLlib, MindYOLO) not known as the learning rate.

Each fix is built on the real lines (sources quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

# https://github.com/open-mmlab/mmocr/issues/750 (verbatim)
_MMOCR = (
    "2022-01-24 16:17:01,420 - mmocr - INFO - thr 0.50, recall: 0.487, precision: 0.778, "
    "hmean: 0.599\n"
    "2022-01-24 16:17:07,435 - mmocr - INFO - thr 0.60, recall: 0.399, precision: 0.836, "
    "hmean: 0.540\n"
    "2022-01-24 16:17:10,498 - mmocr - INFO - thr 0.70, recall: 0.220, precision: 0.849, "
    "hmean: 0.350\n"
    "2022-01-24 16:17:11,040 - mmocr - INFO - thr 0.80, recall: 0.029, precision: 0.822, "
    "hmean: 0.056\n"
    "2022-01-24 16:17:11,282 - mmocr - INFO - thr 0.90, recall: 0.000, precision: 0.000, "
    "hmean: 0.000\n"
    "2022-01-24 16:17:11,286 - mmocr - INFO - Exp name: initial_training_dbnet.py\n"
    "2022-01-24 16:17:11,286 - mmocr - INFO - Epoch(val) [3][1000]\t0_hmean-iou:recall: 0.4868, "
    "0_hmean-iou:precision: 0.7777, 0_hmean-iou:hmean: 0.5988\n"
    "2022-01-24 16:17:41,746 - mmocr - INFO - Epoch [4][5/500]\tlr: 6.984e-03, eta: 4 days, "
    "16:01:15, time: 6.029, data_time: 5.565, memory: 3991, loss_prob: 2.0281, loss_db: 0.3785, "
    "loss_thr: 0.7601, loss: 3.1667\n"
    "2022-01-24 16:17:44,475 - mmocr - INFO - Epoch [4][10/500]\tlr: 6.984e-03, eta: 4 days, "
    "15:56:56, time: 0.545, data_time: 0.093, memory: 3991, loss_prob: 1.4776, loss_db: 0.2431, "
    "loss_thr: 0.6414, loss: 2.3620\n"
)


def test_threshold_sweep_rows_are_not_a_curve(tmp_path: Path) -> None:
    # before: "recall" / "precision" series whose point at epoch 3 was the thr 0.90 row (0.0)
    run = one_log(tmp_path, _MMOCR)
    assert "recall" not in run.series and "precision" not in run.series
    assert "thr" not in run.series


def test_the_evaluators_summary_line_is_the_point(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MMOCR)
    assert values(run, "eval_recall") == [0.4868]
    assert values(run, "eval_hmean") == [0.5988]  # before: "hmean", no metric
    assert values(run, "loss") == [3.1667, 2.362]


def test_a_train_line_with_a_threshold_key_stays_a_record(tmp_path: Path) -> None:
    # near miss: a trainer that prints its decision threshold beside the loss on each step
    body = "".join(
        f"step {s} loss {loss} threshold: 0.5, f1: {f1}\n"
        for s, loss, f1 in ((10, 0.9, 0.41), (20, 0.7, 0.52), (30, 0.6, 0.58))
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.9, 0.7, 0.6]


# https://github.com/mindspore-lab/mindyolo/issues/370 (verbatim)
_MINDYOLO = (
    "2024-10-18 10:02:35,266 [INFO] Epoch 1/500, Step 970/1516, imgsize (640, 640), loss: 9.6070, "
    "lbox: 4.5452, lcls: 3.3673, dfl: 1.6945, cur_lr: 0.07888522744178772\n"
    "2024-10-18 10:02:35,268 [INFO] Epoch 1/500, Step 970/1516, step time: 92.90 ms\n"
    "2024-10-18 10:02:36,216 [INFO] Epoch 1/500, Step 980/1516, imgsize (640, 640), loss: 10.5624, "
    "lbox: 4.9831, lcls: 3.3926, dfl: 2.1867, cur_lr: 0.0786675438284874\n"
    "2024-10-18 10:02:36,218 [INFO] Epoch 1/500, Step 980/1516, step time: 94.93 ms\n"
)


def test_cur_lr_is_the_learning_rate(tmp_path: Path) -> None:
    # before: a "cur_lr" series of kind other; the run had no LR
    run = one_log(tmp_path, _MINDYOLO)
    assert values(run, "lr") == [0.07888522744178772, 0.0786675438284874]
    assert values(run, "loss") == [9.607, 10.5624]
