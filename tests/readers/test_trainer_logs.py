"""Console logs of trainers the generic key/value reading got wrong or only half read:
Caffe's glog net outputs, OpenNMT-py's `xent` and validation lines, timm's `Train:` /
`Test:` lines, the val `all` row under a YOLOv5/v7 table (read by logs/layouts.py), and
PaddleOCR / TF estimator / TF Object Detection lines, which it reads as they are. The
real excerpts are under assets/trainers/, each with its source in a `.source.txt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers import ReadError
from traindoc.readers.logs import text

ASSETS = Path(__file__).parent / "assets" / "trainers"


def _asset(name: str):
    (run,) = text.read(ASSETS / name)
    return run


def _one(tmp_path: Path, body: str):
    p = tmp_path / "train.log"
    p.write_text(body, encoding="utf-8")
    (run,) = text.read(p)
    return run


def test_every_asset_names_its_source() -> None:
    logs = sorted(ASSETS.glob("*.log"))
    assert len(logs) >= 9
    for log in logs:
        src = log.with_suffix(".source.txt").read_text()
        assert src.startswith("https://github.com/")


# -- Caffe ---------------------------------------------------------------------------------
def test_caffe_test_net_outputs_are_evals_at_the_testing_iteration() -> None:
    run = _asset("caffe_tsn.log")
    assert run.get("eval_accuracy").steps.tolist() == [1000]
    assert run.get("eval_accuracy").values.tolist() == pytest.approx([0.685882])
    assert run.get("eval_loss").values.tolist() == pytest.approx([1.75962])
    assert run.get("loss").steps.tolist() == [940, 960, 980, 1000, 1020]
    assert run.get("loss").values[3] == pytest.approx(4.31525)  # not the test net's 1.76
    assert run.get("lr").values.tolist() == pytest.approx([0.001] * 5)


def test_caffe_train_net_outputs_are_train_values_of_their_iteration() -> None:
    run = _asset("caffe_captioner.log")
    assert run.get("loss").values.tolist()[:3] == pytest.approx([184.354, 1746.73, 1746.73])
    xent = run.get("cross_entropy_loss")
    assert xent.steps.tolist() == [0, 100, 200]
    assert xent.values.tolist() == pytest.approx([9.21768, 87.3365, 87.3365])
    assert run.get("accuracy").values.tolist() == pytest.approx([0, 1, 1])
    assert not any(k.startswith("eval_") for k in run.series)


# jixing0415/caffe-mobilenet-v3#1 (tests/real/uniform_plateau_caffe_mobilenetv3_imagenet_
# loss_ln1000, verbatim): the solver's loss is smoothed over `average_loss` iterations, the
# `loss` output under it iteration N's own, pinned at ln(1000) = 6.90776
_CAFFE_MOBILENET = (
    "I0515 11:05:31.873651 37636 solver.cpp:239] Iteration 0 (-nan iter/s, 26.7698s/20 iters), loss = 6.91161\n"
    "I0515 11:05:31.873690 37636 solver.cpp:258]     Train net output #0: loss = 6.91161 (* 1 = 6.91161 loss)\n"
    "I0515 11:05:31.873761 37636 sgd_solver.cpp:112] Iteration 0, lr = 0.01\n"
    "I0515 11:05:51.320263 37636 solver.cpp:239] Iteration 20 (1.02848 iter/s, 19.4461s/20 iters), loss = 6.90501\n"
    "I0515 11:05:51.320302 37636 solver.cpp:258]     Train net output #0: loss = 6.90776 (* 1 = 6.90776 loss)\n"
    "I0515 11:05:51.320356 37636 sgd_solver.cpp:112] Iteration 20, lr = 0.01\n"
    "I0515 11:06:10.302816 37636 solver.cpp:239] Iteration 40 (1.05363 iter/s, 18.9821s/20 iters), loss = 6.90635\n"
    "I0515 11:06:10.303040 37636 solver.cpp:258]     Train net output #0: loss = 6.90776 (* 1 = 6.90776 loss)\n"
    "I0515 11:06:10.303057 37636 sgd_solver.cpp:112] Iteration 40, lr = 0.01\n"
)
# tests/real/nan_inf_caffe_dxy_faster_rcnn_loss_nan_iter20_cls_loss_87 (verbatim): four
# weighted outputs, the terms of the loss, beside an unweighted accuracy
_CAFFE_FRCNN = (
    "I0115 14:49:27.785917 12606 solver.cpp:224] Iteration 0 (-1.27518e-43 iter/s, 0.804229s/20 iters), loss = 5.06628  [ 0 / 70000 ] -> [ -1:60 (H:M) ]\n"
    "I0115 14:49:27.786006 12606 solver.cpp:243]     Train net output #0: bbox_accuracy = 0.046875\n"
    "I0115 14:49:27.786028 12606 solver.cpp:243]     Train net output #1: bbox_loss = 0.369181 (* 1 = 0.369181 loss)\n"
    "I0115 14:49:27.786036 12606 solver.cpp:243]     Train net output #2: cls_loss = 3.12335 (* 1 = 3.12335 loss)\n"
    "I0115 14:49:27.786043 12606 solver.cpp:243]     Train net output #3: rpn_cls_loss = 0.895593 (* 1 = 0.895593 loss)\n"
    "I0115 14:49:27.786051 12606 solver.cpp:243]     Train net output #4: rpn_loss_bbox = 1.12812 (* 1 = 1.12812 loss)\n"
    "I0115 14:49:27.786078 12606 sgd_solver.cpp:105] Iteration 0, lr = 0.001\n"
)


def test_caffe_train_net_loss_output_is_the_unsmoothed_loss_of_its_iteration(
    tmp_path: Path,
) -> None:
    run = _one(tmp_path, _CAFFE_MOBILENET)
    loss = run.get("loss")
    assert loss.steps.tolist() == [0, 20, 40]
    assert loss.values.tolist() == pytest.approx([6.91161, 6.90776, 6.90776])
    assert run.get("lr").values.tolist() == pytest.approx([0.01] * 3)
    assert not any(k.startswith("eval_") for k in run.series)


def test_caffe_weighted_train_outputs_sum_to_the_loss(tmp_path: Path) -> None:
    run = _one(tmp_path, _CAFFE_FRCNN)
    assert run.get("loss").values.tolist() == [
        5.51624
    ]  # 6 digits, as Caffe prints; not the solver's 5.07
    assert run.get("cls_loss").values.tolist() == pytest.approx([3.12335])
    # a loss weight scales the term: 20 x 9.21768 (caffe_captioner.log)
    assert _asset("caffe_captioner.log").get("loss").values[0] == pytest.approx(184.354)


# tests/real/no_learning_pspnet_3class_loss_87p3365_aux_stuck_122p271 (verbatim): a main
# and an auxiliary head at loss weight 0.4, both pinned at 87.3365
_CAFFE_PSPNET = (
    "I1010 16:55:58.493882 142934 solver.cpp:229] Iteration 0, loss = 92.0984\n"
    "I1010 16:55:58.493952 142934 solver.cpp:245]     Train net output #0: loss = 87.3365 (* 1 = 87.3365 loss)\n"
    "I1010 16:55:58.493966 142934 solver.cpp:245]     Train net output #1: loss_aux = 11.9047 (* 0.4 = 4.7619 loss)\n"
    "I1010 16:55:58.494001 142934 sgd_solver.cpp:106] Iteration 0, lr = 0.0001\n"
    "I1010 16:56:19.944349 142934 solver.cpp:229] Iteration 20, loss = 122.271\n"
    "I1010 16:56:19.944444 142934 solver.cpp:245]     Train net output #0: loss = 87.3365 (* 1 = 87.3365 loss)\n"
    "I1010 16:56:19.944473 142934 solver.cpp:245]     Train net output #1: loss_aux = 87.3365 (* 0.4 = 34.9346 loss)\n"
    "I1010 16:56:19.944577 142934 sgd_solver.cpp:106] Iteration 20, lr = 0.0001\n"
)


def test_caffe_summed_loss_keeps_the_digits_caffe_prints(tmp_path: Path) -> None:
    # the sum of the weighted terms is the solver's own total, digit for digit
    run = _one(tmp_path, _CAFFE_PSPNET)
    assert run.get("loss").values.tolist() == [92.0984, 122.271]
    assert run.get("loss_aux").values.tolist() == pytest.approx([11.9047, 87.3365])


def test_caffe_unweighted_train_outputs_leave_the_solver_loss(tmp_path: Path) -> None:
    # near miss: an accuracy output carries no "(* w = v loss)": no term of the loss
    lines = _CAFFE_FRCNN.splitlines(keepends=True)
    run = _one(tmp_path, "".join(lines[:2] + lines[-1:]))
    assert run.get("loss").values.tolist() == pytest.approx([5.06628])
    assert run.get("bbox_accuracy").values.tolist() == pytest.approx([0.046875])


def test_a_net_output_line_outside_glog_is_not_read(tmp_path: Path) -> None:
    body = "Test net output #0: accuracy = 0.5\nstep 1 loss 2.0\nstep 2 loss 1.9\n"
    run = _one(tmp_path, body)
    assert "eval_accuracy" not in run.series
    assert run.get("loss").steps.tolist() == [1, 2]


# -- OpenNMT-py ----------------------------------------------------------------------------
def test_opennmt_xent_is_the_loss_and_validation_lines_are_evals() -> None:
    run = _asset("onmt_966.log")
    loss = run.get("loss")
    assert loss.steps.tolist() == [380000, 509900, 509950, 510000]
    assert loss.values.tolist() == pytest.approx([4.01, 4.02, 3.98, 3.96])
    assert run.get("eval_ppl").steps.tolist() == [380000, 510000]
    assert run.get("eval_ppl").values.tolist() == pytest.approx([56.168, 56.168])
    assert run.get("eval_accuracy").values.tolist() == pytest.approx([35.9623, 35.9623])
    assert run.get("acc").values[0] == pytest.approx(42.02)


def test_xent_without_opennmt_lines_keeps_its_name(tmp_path: Path) -> None:
    # near miss: another tool's xent next to its own loss is not renamed
    body = "step 1 loss 2.0 xent 1.5\nstep 2 loss 1.9 xent 1.4\n"
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([2.0, 1.9])
    assert run.get("xent").values.tolist() == pytest.approx([1.5, 1.4])


# -- timm ----------------------------------------------------------------------------------
# timm train.py's format strings (no real log in the search corpora): `Train: {epoch}
# [{batch_idx:>4d}/{len(loader)} ({pct:>3.0f}%)]  Loss: {val} ({avg}) ...` and
# `Test: [{batch_idx:>4d}/{last_idx}]  ...  Acc@1: {val} ({avg})`
_TIMM = (
    "Train: 0 [   0/1251 (  0%)]  Loss: 6.931 (6.931)  Time: 3.1s,  330.0/s  "
    "(3.1s,  330.0/s)  LR: 1.000e-06  Data: 2.5 (2.5)\n"
    "Train: 0 [1250/1251 (100%)]  Loss: 6.921 (6.926)  Time: 0.3s, 3300.0/s  "
    "(0.3s, 3300.0/s)  LR: 1.000e-06  Data: 0.1 (0.1)\n"
    "Test: [   0/48]  Time: 1.0 (1.0)  Loss:  6.8 (6.8)  Acc@1:   0.0 ( 0.0)  Acc@5:   0.5 ( 0.5)\n"
    "Test: [  48/48]  Time: 1.0 (1.0)  Loss:  6.8 (6.85)  Acc@1:   0.1 ( 0.12)  Acc@5:   0.5 ( 0.6)\n"
    "Train: 1 [   0/1251 (  0%)]  Loss: 6.831 (6.831)  Time: 3.1s,  330.0/s  "
    "(3.1s,  330.0/s)  LR: 2.000e-04  Data: 2.5 (2.5)\n"
)


def test_timm_train_lines_are_numbered_by_epoch_and_batch(tmp_path: Path) -> None:
    run = _one(tmp_path, _TIMM)
    assert run.get("loss").steps.tolist() == [0, 1250, 1251]
    assert run.get("loss").values.tolist() == pytest.approx([6.931, 6.921, 6.831])
    assert run.get("lr").values.tolist() == pytest.approx([1e-6, 1e-6, 2e-4])


def test_timm_last_test_line_is_the_eval(tmp_path: Path) -> None:
    run = _one(tmp_path, _TIMM)
    assert run.get("eval_loss").steps.tolist() == [1250]
    assert run.get("eval_loss").values.tolist() == pytest.approx([6.85])  # the mean
    assert run.get("eval_acc1").values.tolist() == pytest.approx([0.12])
    assert "test" not in run.series and "train" not in run.series


def test_timm_test_lines_before_a_train_line_are_no_eval(tmp_path: Path) -> None:
    # near miss: a validate-only run has no train step to put its eval at
    body = _TIMM.split("Test:", 1)[1].split("Train:", 1)[0]
    with pytest.raises(ReadError):
        _one(tmp_path, "Test:" + body)


# -- YOLOv5 / YOLOv7 -----------------------------------------------------------------------
def test_yolov7_val_rows_are_evals_of_the_epoch_before_them() -> None:
    run = _asset("yolov7_849.log")
    assert run.get("loss").steps.tolist() == [32, 33]
    assert run.get("box_loss").values.tolist() == pytest.approx([0.05461, 0.05069])
    # the first `all` row is epoch 31's, printed before any train row here: not read
    assert run.get("eval_map50").steps.tolist() == [32, 33]
    assert run.get("eval_map50").values.tolist() == pytest.approx([0.00909, 0.0118])
    assert run.get("eval_precision").values.tolist() == pytest.approx([0.874, 0.882])


def test_yolov5_val_row() -> None:
    run = _asset("yolov5_5050.log")
    assert run.get("loss").values.tolist() == pytest.approx([0.09476])
    assert run.get("eval_map50_95").steps.tolist() == [14]
    assert run.get("eval_map50_95").values.tolist() == pytest.approx([0.218])
    assert run.get("eval_recall").values.tolist() == pytest.approx([0.562])


def test_an_all_row_without_a_yolo_table_is_not_an_eval(tmp_path: Path) -> None:
    body = "step 1 loss 2.0\n    all   66   66   0.5   0.5   0.4   0.2\nstep 2 loss 1.9\n"
    run = _one(tmp_path, body)
    assert not any(k.startswith("eval_") for k in run.series)
    assert run.get("loss").steps.tolist() == [1, 2]


# -- read as they are ----------------------------------------------------------------------
def test_paddleocr_lines() -> None:
    run = _asset("paddleocr_9740.log")
    assert run.get("loss").steps.tolist() == [100, 200]
    assert run.get("loss").values.tolist() == pytest.approx([115.099876, 119.360352])
    assert run.get("lr").values.tolist() == [0.0, 0.0]
    run = _asset("paddleocr_13159.log")
    assert run.get("loss").steps.tolist() == [172, 180, 190]
    assert run.get("epoch").values.tolist() == [4, 5, 5]  # "[4/500]" is the epoch


def test_tf_object_detection_v2_lines_printed_twice() -> None:
    run = _asset("tfod_v2.log")
    loss = run.get("loss")
    assert loss.steps.tolist() == [100, 200, 300, 400, 500, 600, 700, 800, 900]
    assert loss.values.tolist()[:3] == pytest.approx([1.396, 1.192, 1.346])


def test_tf_slim_global_step_lines() -> None:
    run = _asset("tf_slim_2980.log")
    assert run.get("loss").steps.tolist() == list(range(1, 9))
    assert run.get("loss").values[0] == pytest.approx(79.3501)
    assert not any("step/sec" in k or k == "global_step/sec" for k in run.series)


def test_tf_estimator_loss_line(tmp_path: Path) -> None:
    # from the estimator's LoggingTensorHook format ("loss = %s, step = %s (%.3f sec)")
    body = "".join(
        f"INFO:tensorflow:loss = {0.7 - i / 10:.2f}, step = {i * 100} (10.0 sec)\n"
        "INFO:tensorflow:global_step/sec: 10.0\n"
        for i in range(1, 4)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [100, 200, 300]
    assert run.get("loss").values.tolist() == pytest.approx([0.6, 0.5, 0.4])


def test_torch7_err_is_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch: [11][{i}/10000] Time 0.675 Err {e} Top1-%: 0.00 LR 1e-02 DataLoadingTime 0.015\n"
        for i, e in ((1383, 6.9076), (1384, 6.9091), (1385, 6.9048))
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([6.9076, 6.9091, 6.9048])
    assert run.get("err") is None and run.fact("trainer") == "torch7"


def test_near_miss_an_err_column_elsewhere_keeps_its_name(tmp_path: Path) -> None:
    body = "".join(
        f"step {i} | loss {2.0 - i / 10:.2f} | err {0.5 - i / 100:.2f}\n" for i in range(1, 5)
    )
    run = _one(tmp_path, body)
    assert run.get("err") is not None and len(run.get("loss")) == 4


def test_swin_epoch_and_batch_fractions_number_one_run(tmp_path: Path) -> None:
    line = (
        "[2021-04-25 05:35:19 swin_base_patch4_window7_224](main.py 225): INFO Train: "
        "[{e}/300][{i}/5004]\teta 0:17:06 lr 0.000500\ttime 1.1737 (1.0765)\tloss {x:.4f} "
        "({x:.4f})\tgrad_norm 1.0323 (1.1000)\tmem 8000MB\n"
    )
    body = "".join(
        line.format(e=e, i=i, x=6.9 - 0.5 * e - 1e-4 * i) for e in range(3) for i in (0, 2500, 5000)
    )
    p = tmp_path / "log_rank0.txt"
    p.write_text(body)
    (run,) = text.read(p)  # one run, not one per epoch
    assert run.get("loss").steps.tolist() == [0, 2500, 5000, 5004, 7504, 10004, 10008, 12508, 15008]


def test_near_miss_two_fractions_apart_are_not_epoch_and_batch(tmp_path: Path) -> None:
    body = "".join(f"step {s}/300 | tokens 12/40 | loss {2.0 - s / 100:.2f}\n" for s in range(1, 6))
    p = tmp_path / "log.txt"
    p.write_text(body)
    (run,) = text.read(p)
    assert run.get("loss").steps.tolist() == [1, 2, 3, 4, 5]
