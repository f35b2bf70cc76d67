"""Text-log layouts that were read half: tacotron2's loss printed with its iteration between
the name and the value, a detector's mAP over an IoU range ("mAP@0.50:0.95") and a bare
mAP as an eval result, an eval printed before the first train line (MiniLLM), and
PaddlePaddle's batch timings named "cost". The lines are as the tools print them (taken
from the dev cases in tests/real named in each test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.measure.metrics import task_metrics
from traindoc.model.signals import kind

# -- NVIDIA tacotron2's train.py ----------------------------------------------------------
# print("Train loss {} {:.6f} Grad Norm {:.6f} {:.2f}s/it".format(iteration, ...)) and
# print("Validation loss {}: {:9f}  ".format(iteration, val_loss))
# (healthy_nvidia_tacotron2_ljspeech_3gpu_train_48_to_0p30_val_0p32_issue)
TACOTRON2 = """Epoch: 0
Train loss 0 48.220909 Grad Norm 13.484264 5.71s/it
Validation loss 0: 37.061010 \x20
Saving model and optimizer state at iteration 0 to /data/models/checkpoint_0
Train loss 1 35.229748 Grad Norm 25.020286 3.79s/it
Train loss 2 16.508032 Grad Norm 17.146819 3.99s/it
Train loss 3 9.564240 Grad Norm 13.827114 3.99s/it
Validation loss 1000:  0.325403 \x20
Train loss 1000 0.302735 Grad Norm 0.958112 4.36s/it
"""


def test_tacotron2_train_loss_is_read_at_its_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, TACOTRON2)
    assert run.get("loss").steps.tolist() == [0, 1, 2, 3, 1000]
    assert values(run, "loss") == pytest.approx(
        [48.220909, 35.229748, 16.508032, 9.56424, 0.302735]
    )
    assert values(run, "grad_norm")[0] == pytest.approx(13.484264)


def test_tacotron2_validation_loss_is_an_eval_at_its_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, TACOTRON2)
    assert run.get("eval_loss").steps.tolist() == [0, 1000]
    assert values(run, "eval_loss") == pytest.approx([37.06101, 0.325403])


def test_near_miss_a_loss_with_one_value_keeps_it(tmp_path: Path) -> None:
    # no iteration between the name and the value: the one number is the loss
    body = "".join(f"step {i} Train loss {2.0 - i / 10:.4f}\n" for i in range(1, 5))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([1.9, 1.8, 1.7, 1.6])


# -- YOLOv6's evaluation line ---------------------------------------------------------------
# (no_learning_yolov6_iou_dfl_loss_exactly_0_map_0_for_50_epochs)
YOLOV6 = """     Epoch  iou_loss  dfl_loss  cls_loss
      0/99         0         0    0.5756: 100%|##########| 106/106 [00:17<00:00,
Evaluating mAP by pycocotools.
Epoch: 0 | mAP@0.5: 0.012 | mAP@0.50:0.95: 0.004

     Epoch  iou_loss  dfl_loss  cls_loss
      1/99         0         0    0.1631: 100%|##########| 106/106 [00:17<00:00,
Evaluating mAP by pycocotools.
Epoch: 1 | mAP@0.5: 0.031 | mAP@0.50:0.95: 0.011
"""


def test_yolov6_map_over_an_iou_range_is_one_name(tmp_path: Path) -> None:
    run = one_log(tmp_path, YOLOV6)
    assert values(run, "eval_map@0.50-0.95") == pytest.approx([0.004, 0.011])
    assert values(run, "eval_map@0.5") == pytest.approx([0.012, 0.031])
    assert not [k for k in run.series if k.endswith(":") or k == "eval_map@0.50"]


def test_a_bare_detection_map_is_an_eval_task_metric(tmp_path: Path) -> None:
    run = one_log(tmp_path, YOLOV6)
    assert {"eval_map@0.5", "eval_map@0.50-0.95"} <= {s.name for s, _ in task_metrics(run)}


def test_near_miss_a_split_named_map_keeps_its_split(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch: {e} | loss: {1.0 - e / 10:.3f} | train_mAP: {0.1 * e:.3f}\n" for e in range(1, 4)
    )
    run = one_log(tmp_path, body)
    assert run.get("train_map") is not None
    assert not [k for k in run.series if k.startswith("eval_")]


def test_a_clock_is_still_no_range(tmp_path: Path) -> None:
    body = "".join(f"12:3{i}:05 step {i} loss {2.0 - i / 10:.2f}\n" for i in range(1, 4))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([1.9, 1.8, 1.7])


# -- MiniLLM's SFT console -----------------------------------------------------------------
# (overfitting_minillm_gpt2_large_sft_dolly_dev_loss_min_epoch0_rises_2p17_to_2p52_rougel_up)
MINILLM = """============================== EXP at 2023-07-24 11:19:35 ==============================
dev | avg_loss: 2.50592041015625 | {'exact_match': 0.0, 'rougeL': 7.2973}
......
[2023-07-24 11:53:25] train | epoch   0 | Iter:   1428/ 14290 | global iter:   1428/ 14290 | loss: 1.8361 | ds_loss: 0.0000 | lr: 4.8781e-05 | scale:  2048.0000 | micro time: 1.180 | step time: 1.187
dev | avg_loss: 2.17413330078125 | {'exact_match': 2.6, 'rougeL': 19.8483}
......
[2023-07-24 12:26:31] train | epoch   1 | Iter:   2856/ 14290 | global iter:   2856/ 14290 | loss: 1.5378 | ds_loss: 0.0000 | lr: 4.5241e-05 | scale:  4096.0000 | micro time: 1.203 | step time: 1.194
dev | avg_loss: 2.283782958984375 | {'exact_match': 3.7, 'rougeL': 23.8785}
......
"""


def test_an_eval_before_the_first_train_line_is_the_one_before_the_first_eval(
    tmp_path: Path,
) -> None:
    run = one_log(tmp_path, MINILLM)
    assert run.get("eval_avg_loss").steps.tolist() == [0, 1428, 2856]
    assert values(run, "eval_avg_loss") == pytest.approx([2.50592, 2.17413, 2.28378], abs=1e-5)
    assert values(run, "eval_rougel") == pytest.approx([7.2973, 19.8483, 23.8785])


def test_near_miss_one_eval_after_gives_no_interval(tmp_path: Path) -> None:
    # one eval after the first train line: no interval to step back by, the early eval
    # keeps the step it had (the later eval of that step wins)
    body = "\n".join(MINILLM.splitlines()[:5]) + "\n"
    run = one_log(tmp_path, body)
    assert run.get("eval_avg_loss").steps.tolist() == [1428]


# -- PaddlePaddle's batch timings ----------------------------------------------------------
# (no_learning_paddleseg_binary_miou_0p5_class_iou_1_0_loss_0p1503_frozen_two_evals)
PADDLESEG = """2021-07-20 22:38:36 [INFO]\t[TRAIN] epoch: 7, iter: 1300/90000, loss: 0.1503, lr: 0.001296, batch_cost: 0.5659, reader_cost: 0.14579, ips: 7.0680 samples/sec | ETA 13:56:38
2021-07-20 22:39:33 [INFO]\t[TRAIN] epoch: 8, iter: 1400/90000, loss: 0.1503, lr: 0.001265, batch_cost: 0.5714, reader_cost: 0.15179, ips: 7.0003 samples/sec | ETA 14:03:46
2021-07-20 22:39:33 [INFO]\tStart evaluating (total_samples: 200, total_iters: 200)...
200/200 [==============================] - 6s 29ms/step - batch_cost: 0.0289 - reader cost: 0.001
2021-07-20 22:39:39 [INFO]\t[EVAL] #Images: 200 mIoU: 0.5000 Acc: 1.0000 Kappa: nan\x20
"""


def test_paddle_batch_and_reader_cost_are_timings() -> None:
    assert kind("batch_cost") == "time"
    assert kind("reader_cost") == "time"
    assert kind("reader cost") == "time"
    assert kind("cost") == "component_loss"  # a bare cost stays PaddlePaddle's loss


def test_paddleseg_eval_bar_timings_are_no_train_series(tmp_path: Path) -> None:
    run = one_log(tmp_path, PADDLESEG)
    assert run.get("cost") is None
    assert values(run, "batch_cost") == pytest.approx([0.5659, 0.5714])  # the train lines'
    assert values(run, "eval_miou") == pytest.approx([0.5])


# -- mmpose 1.x's CocoMetric ---------------------------------------------------------------
# (healthy_mmpose_rtmpose_ear210_cpu_partial_mmengine_log)
_T = "2023/06/05 20:1{}:{}0 - mmengine - INFO - "
_TRAIN = "Epoch(train)  [{e}][{i}/6]  lr: 4.000000e-04  eta: 4:59:11  time: 0.978710  data_time: 0.013012  loss: {loss:.6f}  loss_kpt: {loss:.6f}  acc_pose: 0.007440"
_VAL = "Epoch(val) [{e}][6/6]    coco/AP: {ap:.6f}  coco/AP .5: 0.375361  coco/AP .75: 0.000000  coco/AP (M): -1.000000  coco/AP (L): {ap:.6f}  coco/AR: 0.100000  coco/AR .5: 0.523810  coco/AR .75: 0.000000  coco/AR (M): -1.000000  coco/AR (L): 0.100000  PCK: 0.538549  AUC: 0.012868  NME: 0.115868  data_time: 1.156611  time: 1.242001"


def _mmpose_log() -> str:
    out = []
    for e in (1, 2):
        for i in range(1, 7):
            out.append(_T.format(e, i) + _TRAIN.format(e=e, i=i, loss=0.42 - 0.01 * (6 * e + i)))
        out.append(_T.format(e, 9) + _VAL.format(e=e, ap=0.05 * e))
    return "\n".join(out) + "\n"


def test_mmpose_coco_aps_are_the_eval_keypoint_maps(tmp_path: Path) -> None:
    run = one_log(tmp_path, _mmpose_log())
    assert values(run, "eval_pose_map50_95") == pytest.approx([0.05, 0.1])
    assert values(run, "eval_pose_map50") == pytest.approx([0.375361] * 2)
    assert values(run, "eval_pose_map75") == pytest.approx([0.0] * 2)
    assert run.get("eval_pose_map50_95").steps.tolist() == [6, 12]
    assert not [k for k in run.series if k.startswith("coco/")]
    assert "eval_pose_map50_95" in {s.name for s, _ in task_metrics(run)}


def test_mmpose_scalars_json_names_the_same_maps(tmp_path: Path) -> None:
    from traindoc.readers._coco import named

    assert named("coco/AP") == "eval_pose_map50_95"
    assert named("coco/AP .5") == "eval_pose_map50"
    assert named("coco/AP .75") == "eval_pose_map75"
    assert named("coco/AP (M)") is None  # a per-area AP is left as it is
    assert named("coco/bbox_mAP") is None  # mmdet's names are read elsewhere


# -- mmcv / mmengine: an epoch's eval line sits at that epoch's end --------------------------
# (bad_lr_schedule_mmcls_step_policy_step200_equals_max_epochs_lr_const_1e3_issue: mmcls
# 0.x logs every 100 of 239 batches, then the eval of the epoch)
_BAR = "[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>] 192/192, 440.4 task/s, elapsed: 0s, ETA:     0s"  # fmt: skip
MMCLS = f"""{_BAR}2022-07-28 17:51:50,587 - mmcls - INFO - Epoch(val) [3][12] accuracy_top-1: 77.6042, accuracy_top-5: 100.0000
2022-07-28 17:51:55,785 - mmcls - INFO - Epoch [4][100/239]     lr: 1.000e-03, eta: 0:30:58, time: 0.052, data_time: 0.021, memory: 68, loss: 0.0885
2022-07-28 17:51:58,906 - mmcls - INFO - Epoch [4][200/239]     lr: 1.000e-03, eta: 0:30:11, time: 0.031, data_time: 0.000, memory: 68, loss: 0.0808
2022-07-28 17:52:00,093 - mmcls - INFO - Saving checkpoint at 4 epochs
{_BAR}2022-07-28 17:52:00,605 - mmcls - INFO - Epoch(val) [4][12] accuracy_top-1: 86.4583, accuracy_top-5: 100.0000
2022-07-28 17:52:05,861 - mmcls - INFO - Epoch [5][100/239]     lr: 1.000e-03, eta: 0:30:01, time: 0.052, data_time: 0.021, memory: 68, loss: 0.0672
2022-07-28 17:52:09,013 - mmcls - INFO - Epoch [5][200/239]     lr: 1.000e-03, eta: 0:29:28, time: 0.032, data_time: 0.000, memory: 68, loss: 0.0636
2022-07-28 17:52:10,187 - mmcls - INFO - Saving checkpoint at 5 epochs
{_BAR}2022-07-28 17:52:10,694 - mmcls - INFO - Epoch(val) [5][12] accuracy_top-1: 79.1667, accuracy_top-5: 100.0000
"""


def test_an_epoch_eval_sits_at_the_end_of_its_epoch(tmp_path: Path) -> None:
    run = one_log(tmp_path, MMCLS)
    assert run.get("loss").steps.tolist() == [817, 917, 1056, 1156]  # (epoch - 1) x 239 + i
    # epoch 3 ends where epoch 4 starts (3 x 239); epochs 4 and 5 at 4 x 239, 5 x 239
    assert run.get("eval_accuracy_top-1").steps.tolist() == [717, 956, 1195]


def test_near_miss_an_epoch_eval_before_batches_that_print_their_own_step(
    tmp_path: Path,
) -> None:
    # the train lines print the run's step: no epoch x batches frame, the eval keeps the
    # step of the line before it
    body = "".join(
        f"Epoch [{e}][{i}/239] step: {(e - 1) * 239 + i}, loss: 0.5\n"
        for e in (4, 5)
        for i in (100, 200)
    )
    body = body.replace(
        "Epoch [5][100/239]", "Epoch(val) [4][12] accuracy_top-1: 80.0\nEpoch [5][100/239]"
    )
    run = one_log(tmp_path, body)
    assert run.get("eval_accuracy_top-1").steps.tolist() == [917]
