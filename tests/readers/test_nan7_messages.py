"""Non-finite values as frameworks print them, read by the console reader (helper nan7):
MSVC's `1.#QNAN` / `-1.#IND` / `1.#INF`, TensorFlow's check_numerics errors ("LossTensor is
inf or nan : Tensor had NaN values", "Found Inf or NaN global norm"), TensorFlow's
"Nan in summary histogram for: <variable>", MindSpore's "Invalid loss, terminating
training", each with the near-miss the reader must not take for one (the message quoted in
code or a node's message="..."). Lines verbatim from issue pastes (cited) or as the
frameworks' code formats them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log
from traindoc.readers.logs.numbers import parse, to_num


def _kinds(run) -> list[str]:
    return [e.kind for e in run.events]


def test_msvc_nan_and_inf_spellings_parse() -> None:
    for raw in ("1.#QNAN", "-1.#QNAN", "1.#IND", "-1.#IND00", "1.#QNAN0", "1.#SNAN"):
        assert math.isnan(parse(raw)), raw
        assert math.isnan(to_num(raw.encode())), raw
    assert parse("1.#INF") == math.inf and parse("1.#INF00") == math.inf
    assert parse("-1.#INF") == -math.inf
    assert parse("1.#FOO") is None


# Caffe on Windows (solver.cpp's "Iteration N ..., loss = X" with MSVC's printf of NaN)
_CAFFE_WIN = "".join(
    f"I0312 10:0{i}:00.000000  1234 solver.cpp:218] Iteration {i * 100} "
    f"(1.5 iter/s, 66.6s/100 iters), loss = {v}\n"
    for i, v in enumerate(("2.3012", "2.1012", "1.#QNAN", "1.#QNAN"), 1)
)


def test_caffe_windows_qnan_loss_is_nan_not_one(tmp_path: Path) -> None:
    loss = one_log(tmp_path, _CAFFE_WIN).get("loss")
    assert list(loss.steps) == [100, 200, 300, 400]
    assert np.isfinite(loss.values[:2]).all() and np.isnan(loss.values[2:]).all()


# darknet's per-iteration line on Windows (detector.c: "%ld: %f, %f avg loss, %f rate, ...")
_DARKNET_WIN = (
    " 1: 1458.270508, 1458.270508 avg loss, 0.000000 rate, 5.021000 seconds, 64 images\n"
    " 2: 1450.123047, 1457.455811 avg loss, 0.000000 rate, 4.921000 seconds, 128 images\n"
    " 3: -1.#IND00, -1.#IND00 avg loss, 0.000000 rate, 4.900000 seconds, 192 images\n"
    " 4: 1.#INF00, 1.#QNAN0 avg loss, 0.000000 rate, 4.900000 seconds, 256 images\n"
)


def test_darknet_windows_ind_and_inf_keep_their_lines(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DARKNET_WIN)
    loss = run.get("loss")
    assert list(loss.steps) == [1, 2, 3, 4]
    assert math.isnan(loss.values[2]) and loss.values[3] == math.inf


# tensorflow/models#5516, verbatim
# (tests/real/nan_inf_tf_object_detection_loss_tensor_nan_after_first_step_loss_12p6)
_TF_LOSS_TENSOR = (
    "INFO:tensorflow:global step 1: loss = 12.6485 (3.511 sec/step)\n"
    "INFO:tensorflow:Error reported to Coordinator: <class 'tensorflow.python.framework."
    "errors_impl.InvalidArgumentError'>, LossTensor is inf or nan. : Tensor had NaN values\n"
    '\t [[Node: CheckNumerics = CheckNumerics[T=DT_FLOAT, message="LossTensor is inf or nan.", '
    '_device="/job:localhost/replica:0/task:0/device:CPU:0"](total_loss)]]\n'
)


def test_tf_check_numerics_on_the_loss_is_one_nan_loss_after_the_last_step(
    tmp_path: Path,
) -> None:
    run = one_log(tmp_path, _TF_LOSS_TENSOR)
    assert _kinds(run) == ["nonfinite-loss"]  # once, not again for the node's message="..."
    loss = run.get("loss")
    assert list(loss.steps) == [1, 2] and math.isnan(loss.values[1])


# the call quoted in a traceback's source line, and a node description: no event
_TF_QUOTED = (
    "INFO:tensorflow:global step 1: loss = 12.6485 (3.511 sec/step)\n"
    '  File "trainer.py", line 323, in train\n'
    "    total_loss = tf.check_numerics(total_loss, 'LossTensor is inf or nan.')\n"
    "    grads, norm = tf.clip_by_global_norm(grads, 10.0)\n"
    '    "Found Inf or NaN global norm.")\n'
)


def test_tf_check_numerics_quoted_in_source_is_no_event(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TF_QUOTED)
    assert _kinds(run) == []


# Grzego/handwriting-generation#13, verbatim (the progress line's loss glued to the error)
_TF_GLOBAL_NORM = (
    "[  904/ 1000] loss = -4.0903835296630862019-05-24 13:48:54.633530: E tensorflow/core/"
    "kernels/check_numerics_op.cc:185] abnormal_detected_host @0x1020dc06000 = {1, 0} "
    "Found Inf or NaN global norm.\n"
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: Found Inf or NaN global "
    "norm. : Tensor had NaN values\n"
)


def test_tf_clip_by_global_norm_check_is_a_nan_gradient_norm(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TF_GLOBAL_NORM)
    assert set(_kinds(run)) == {"nonfinite-gradients"}
    gn = run.get("grad_norm")
    assert gn is not None and np.isnan(gn.values).all()
    assert run.get("loss") is None or np.isfinite(run.get("loss").values).all()


# tensorflow/models#3613, verbatim
# (tests/real/nan_inf_tf_deeplab_cityscapes_batch1_nan_in_summary_histogram_step1420)
_TF_HISTOGRAM = (
    "INFO:tensorflow:global step 1420: loss = 6.7608 (0.420 sec/step)\n"
    "INFO:tensorflow:Error reported to Coordinator: Nan in summary histogram for: "
    "image_pooling/BatchNorm/moving_variance_1\n"
)


def test_tf_nan_in_summary_histogram_of_a_variable_is_a_nan_loss_after_it(
    tmp_path: Path,
) -> None:
    run = one_log(tmp_path, _TF_HISTOGRAM)
    assert _kinds(run) == ["nonfinite-loss"]
    loss = run.get("loss")
    assert list(loss.steps) == [1420, 1421] and math.isnan(loss.values[-1])


# a gradient's histogram (tf.summary.histogram over compute_gradients' output) is a gradient
_TF_GRAD_HISTOGRAM = (
    "INFO:tensorflow:global step 300: loss = 0.7310 (0.210 sec/step)\n"
    "InvalidArgumentError: Nan in summary histogram for: gradients/conv1/weights_0\n"
)


def test_tf_nan_in_a_gradient_histogram_is_a_nan_gradient(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TF_GRAD_HISTOGRAM)
    assert _kinds(run) == ["nonfinite-gradients"]
    assert np.isfinite(run.get("loss").values).all()


# MindSpore's LossMonitor (mindspore/train/callback/_loss_monitor.py raises
# ValueError("epoch: {} step: {}. Invalid loss, terminating training.")) after its
# "epoch: E step: S, loss is X" lines; its format string quoted in a traceback is no event
_MINDSPORE = (
    "epoch: 1 step: 100, loss is 2.3025851\n"
    "epoch: 1 step: 200, loss is 2.2102349\n"
    "ValueError: epoch: 1 step: 201. Invalid loss, terminating training.\n"
)
_MINDSPORE_QUOTED = (
    "epoch: 1 step: 100, loss is 2.3025851\n"
    "epoch: 1 step: 200, loss is 2.2102349\n"
    '    raise ValueError("epoch: {} step: {}. Invalid loss, terminating training.".format(\n'
)


def test_mindspore_invalid_loss_stop_is_a_nan_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MINDSPORE)
    assert _kinds(run) == ["nonfinite-loss"]
    assert math.isnan(run.get("loss").values[-1])
    (tmp_path / "q").mkdir()
    quoted = one_log(tmp_path / "q", _MINDSPORE_QUOTED)
    assert _kinds(quoted) == []
    assert np.isfinite(quoted.get("loss").values).all()


# PaddlePaddle's tutorials print "loss is: {}".format(avg_loss.numpy()): a one-value array
_PADDLE_IS = (
    "epoch: 0, batch_id: 0, loss is: [2.4925375], acc is: [0.0625]\n"
    "epoch: 0, batch_id: 100, loss is: [0.5472305], acc is: [0.8125]\n"
    "epoch: 0, batch_id: 200, loss is: [nan], acc is: [0.0625]\n"
)
# ... and a user's "Total loss is :[X]" print (tensorflow/models#6416, verbatim)
_TOTAL_IS = (
    "Total loss is :[5.13572121]\nTotal loss is :[5.00604486]\nTotal loss is :[4.87157393]\n"
)
# prose with "is:" keeps no metric ("the loss is: ..." after a word, not a clause start)
_PROSE_IS = "After a while the loss is: 2.3 and then 2.1\n"


def test_name_is_colon_value_clause_is_a_metric(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PADDLE_IS)
    loss = run.get("loss")
    assert len(loss) == 3 and math.isnan(loss.values[-1])
    assert loss.values[0] == 2.4925375
    (tmp_path / "t").mkdir()
    total = one_log(tmp_path / "t", _TOTAL_IS).get("loss")
    assert list(total.values) == [5.13572121, 5.00604486, 4.87157393]


def test_prose_loss_is_colon_is_no_metric(tmp_path: Path) -> None:
    import pytest

    from traindoc.readers import ReadError

    with pytest.raises(ReadError):
        one_log(tmp_path, _PROSE_IS)


# Megatron-LM's training_log (megatron/training/training.py: "number of nan iterations:"
# counts the interval's iterations whose loss was NaN/Inf, left out of the averaged lm loss)
def _megatron(nan_at: dict[int, int]) -> str:
    return "".join(
        f" iteration {it:8d}/  500000 | consumed samples: {it * 512:12d} | elapsed time per "
        f"iteration (ms): 1000.0 | learning rate: 1.000E-04 | global batch size:   512 | "
        f"lm loss: {7.0 - it / 1000:.6E} | loss scale: 1.0 | grad norm: 1.234 | number of "
        f"skipped iterations: {nan_at.get(it, 0):3d} | number of nan iterations: "
        f"{nan_at.get(it, 0):3d} |\n"
        for it in range(100, 1100, 100)
    )


def test_megatron_nan_iterations_count_is_a_nan_loss_in_its_interval(tmp_path: Path) -> None:
    loss = one_log(tmp_path, _megatron({700: 3, 800: 1})).get("loss")
    bad = loss.steps[~np.isfinite(loss.values)]
    assert list(bad) == [701, 801]  # after the line whose interval had them
    assert np.isfinite(loss.values[np.isin(loss.steps, np.arange(100, 1100, 100))]).all()


def test_megatron_zero_nan_iterations_is_no_event(tmp_path: Path) -> None:
    run = one_log(tmp_path, _megatron({}))
    assert _kinds(run) == []
    assert np.isfinite(run.get("loss").values).all()


# Lightning's parameter check (pytorch_lightning/utilities/finite_checks.py):
# raise ValueError(f"Detected nan and/or inf values in `{name}`. Check your forward pass ...")
_LIGHTNING_PARAMS = (
    "Epoch 0:  30%|███       | 30/100 [00:03<00:07,  9.50it/s, loss=2.1, v_num=0]\n"
    "ValueError: Detected nan and/or inf values in `c_d1.bias`. Check your forward pass for "
    "numerically unstable operations.\n"
)
# fairseq/trainer.py: raise FloatingPointError("gradients are Nan/Inf")
_FAIRSEQ_GRADS = (
    "2021-03-01 10:00:00 | INFO | train_inner | epoch 001:    100 / 1000 loss=9.1, "
    "nll_loss=8.9, ppl=478.2, wps=30000, ups=3, wpb=10000, bsz=300, num_updates=100, "
    "lr=1e-04, gnorm=2.1, train_wall=30, wall=35\n"
    "FloatingPointError: gradients are Nan/Inf\n"
)
# jax_debug_nans (jax/_src/dispatch.py): FloatingPointError(f"invalid value (nan) encountered in {name}")
_JAX_NANS = (
    "step 100, loss 2.31\n"
    "step 200, loss 2.05\n"
    "FloatingPointError: invalid value (nan) encountered in mul\n"
)


def test_lightning_nan_parameter_check_is_a_nan_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LIGHTNING_PARAMS)
    assert _kinds(run) == ["nonfinite-loss"]
    assert math.isnan(run.get("loss").values[-1])


def test_fairseq_nan_gradients_error_is_a_nan_gradient_norm(tmp_path: Path) -> None:
    run = one_log(tmp_path, _FAIRSEQ_GRADS)
    assert _kinds(run) == ["nonfinite-gradients"]
    assert math.isnan(run.get("grad_norm").values[-1])


def test_jax_debug_nans_error_is_a_nan_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _JAX_NANS)
    assert _kinds(run) == ["nonfinite-loss"]
    loss = run.get("loss")
    assert list(loss.steps) == [100, 200, 201] and math.isnan(loss.values[-1])
