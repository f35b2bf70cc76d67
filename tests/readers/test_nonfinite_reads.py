"""NaN losses printed in forms the reader missed on fresh issue pastes (helper nan5):
GluonCV's SSD box loss as an mx.metric named after its loss function (`SmoothL1=nan`) and
pytorch-yolo2's region-loss line, whose loss is the `total` after its terms. Each with a
near-miss the reader must keep reading as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from traindoc.model.signals import kind
from traindoc.readers import load_run


def one_log(tmp_path: Path, body: str):
    """load_run of a pasted log: derived.py's loss (the sum of its parts) included."""
    path = tmp_path / "paste.log"
    path.write_text(body, encoding="utf-8")
    return load_run(path)


# https://github.com/dmlc/gluon-cv/issues/142 (verbatim)
_GLUONCV_SSD = (
    "Start training from [Epoch 0]\n"
    "[Epoch 0][Batch 99], Speed: 31.855627 samples/sec, CrossEntropy=12.250115, SmoothL1=nan\n"
    "[Epoch 0][Batch 199], Speed: 31.908488 samples/sec, CrossEntropy=12.212773, SmoothL1=nan\n"
    "[Epoch 0][Batch 299], Speed: 31.279352 samples/sec, CrossEntropy=12.199556, SmoothL1=nan\n"
)


def test_gluoncv_smoothl1_nan_makes_the_loss_nan(tmp_path: Path) -> None:
    run = one_log(tmp_path, _GLUONCV_SSD)
    assert kind("smoothl1") == "component_loss"
    assert np.isnan(run.get("loss").values).all()  # CrossEntropy + SmoothL1, the SSD objective
    assert list(run.get("crossentropy").values) == [12.250115, 12.212773, 12.199556]


# tests/real/healthy_gluoncv_faster_rcnn_r50_voc_20ep_map_0p40_to_0p777_mxnet_log (verbatim)
_GLUONCV_FRCNN = (
    "[Epoch 0][Batch 99], Speed: 11.735 samples/sec, RPN_Conf=0.655,RPN_SmoothL1=0.050,"
    "RCNN_CrossEntropy=0.773,RCNN_SmoothL1=0.345,RPNAcc=0.877,RPNL1Loss=0.392,RCNNAcc=0.845,"
    "RCNNL1Loss=2.392\n"
    "[Epoch 0][Batch 199], Speed: 12.458 samples/sec, RPN_Conf=0.503,RPN_SmoothL1=0.051,"
    "RCNN_CrossEntropy=0.668,RCNN_SmoothL1=0.364,RPNAcc=0.907,RPNL1Loss=0.400,RCNNAcc=0.851,"
    "RCNNL1Loss=2.422\n"
    "[Epoch 0][Batch 299], Speed: 12.679 samples/sec, RPN_Conf=0.387,RPN_SmoothL1=0.053,"
    "RCNN_CrossEntropy=0.609,RCNN_SmoothL1=0.367,RPNAcc=0.919,RPNL1Loss=0.403,RCNNAcc=0.854,"
    "RCNNL1Loss=2.403\n"
)


def test_a_bare_l1_is_a_score_and_gluoncv_frcnn_sums_its_four_head_terms(tmp_path: Path) -> None:
    # an L1 distance is also an evaluation score; GluonCV Faster R-CNN's objective is its
    # four head terms (RPN_Conf + RPN_SmoothL1 + RCNN_CrossEntropy + RCNN_SmoothL1), and
    # its RPNL1Loss / RCNNL1Loss are metrics printed beside them, not terms
    assert kind("l1") != "component_loss"
    assert kind("rpn_smoothl1") == "component_loss"
    assert kind("RPNL1Loss") != "component_loss"
    run = one_log(tmp_path, _GLUONCV_FRCNN)
    assert "rpn_smoothl1" in run.series
    assert run.get("loss").source == (
        "derived: sum of rpn_conf + rpn_smoothl1 + rcnn_crossentropy + rcnn_smoothl1"
    )
    np.testing.assert_allclose(run.get("loss").values, [1.823, 1.586, 1.416], atol=1e-9)


# https://github.com/Bohao-Lee/CME/issues/30 (verbatim): pytorch-yolo2's region loss
_YOLO2 = (
    "64: nGT 42, recall 1, proposals 35613, loss: x 27.029242, y 28.630236, w 177730.062500, "
    "h 1531226.000000, conf 2786.200684, cls 108.162247, class_contrast 0.000000, "
    "total 1711906.125000\n"
    "coord_mask: tensor(27.0292, device='cuda:0')\n"
    "80: nGT 40, recall 13, proposals 39993, loss: x 23.945053, y 22.210649, w 2029862.625000, "
    "h 16542059.000000, conf nan, cls 111.281578, class_contrast 0.000000, total nan\n"
    "coord_mask: tensor(23.9451, device='cuda:0')\n"
    "96: nGT 30, recall 0, proposals 0, loss: x nan, y nan, w nan, h nan, conf nan, cls nan, "
    "class_contrast nan, total nan\n"
)


def test_pytorch_yolo2_total_is_the_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _YOLO2)
    loss = run.get("loss")
    assert list(loss.steps) == [64, 80, 96]
    assert loss.values[0] == 1711906.125
    assert np.isnan(loss.values[1:]).all()


def test_a_total_outside_the_region_loss_line_is_not_the_loss(tmp_path: Path) -> None:
    body = "".join(f"step {s}: loss {1.0 - s / 100:.2f}, total {500 + s}\n" for s in (10, 20, 30))
    run = one_log(tmp_path, body)
    assert list(run.get("loss").values) == [0.9, 0.8, 0.7]


# https://github.com/keras-team/keras/issues/6747 (verbatim): Keras' TerminateOnNaN message
def test_keras_terminate_on_nan_message_is_a_nan_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, "Batch 6: Invalid loss, terminating training\n")
    assert np.isnan(run.get("loss").values).all()
    assert [e.kind for e in run.events] == ["nonfinite-loss"]


def test_the_callbacks_format_string_quoted_is_no_nan(tmp_path: Path) -> None:
    # keras/callbacks.py (Keras 2) quoted in a paste, beside a finite loss
    body = (
        "            print('Batch %d: Invalid loss, terminating training' % (batch))\n"
        "step 1 loss: 0.9\nstep 2 loss: 0.8\n"
    )
    run = one_log(tmp_path, body)
    assert np.isfinite(run.get("loss").values).all()
    assert not any(e.kind == "nonfinite-loss" for e in run.events)


# https://github.com/jayleicn/recurrent-transformer/issues/5 (verbatim): autograd anomaly mode
_ANOMALY = (
    '  File "src/train.py", line 131, in train_epoch\n'
    "    loss.backward()\n"
    "RuntimeError: Function 'LogSoftmaxBackward' returned nan values in its 0th output. \n"
)


def test_autograd_anomaly_message_is_a_nan_gradient(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ANOMALY)
    assert np.isnan(run.get("grad_norm").values).all()
    assert run.get("loss") is None  # the loss itself is not said to be NaN


def test_autograd_engine_source_quoted_is_no_nan_gradient(tmp_path: Path) -> None:
    # torch/csrc/autograd/engine.cpp's message template quoted in a paste, beside a run
    body = (
        'ss << "Function \'" << fn.name() << "\' returned nan values in its " << i << "th output.";\n'
        "step 1 loss: 0.9 grad_norm: 1.2\nstep 2 loss: 0.8 grad_norm: 1.1\n"
    )
    run = one_log(tmp_path, body)
    assert np.isfinite(run.get("grad_norm").values).all()


# MXNet Module.fit's epoch lines, as a public progress monitor quotes them (verbatim)
_MXNET_MODULE = (
    "Epoch[0] Time cost=50.885\n"
    "Epoch[0] Batch [70]\tSpeed: 1.08 samples/sec\taccuracy=0.000000\n"
    "Epoch[0] Train-accuracy=0.116071\n"
    "Epoch[0] Train-cross-entropy=2.297981\n"
    "Epoch[0] Time-cost=565.757 seconds\n"
    "Epoch[0] Validation-accuracy=0.113854\n"
    "Epoch[0] Validation-cross-entropy=2.301194\n"
)


def test_mxnet_module_train_cross_entropy_is_the_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MXNET_MODULE)
    assert list(run.get("loss").values) == [2.297981]
    nan = one_log(tmp_path, _MXNET_MODULE.replace("=2.297981", "=nan"))
    assert np.isnan(nan.get("loss").values).all()


def test_mxnet_validation_cross_entropy_is_not_the_train_loss(tmp_path: Path) -> None:
    body = _MXNET_MODULE.replace("Epoch[0] Train-cross-entropy=2.297981\n", "")
    run = one_log(tmp_path, body)
    assert run.get("loss") is None
    assert kind("validation-cross-entropy") != "component_loss"
