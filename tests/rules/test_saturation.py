"""measure/saturation.py: the loss of a classifier whose every output sits at a clip."""

from __future__ import annotations

import numpy as np

from traindoc.measure.saturation import CLAMPS, on_clamp_line, saturated_tail


def test_keras_relu_output_bce_is_on_the_1e7_line() -> None:
    # a Keras MLP with a ReLU output and BCE: loss 7.8306 at acc 0.5142 (16.1181 x 0.4858)
    loss = np.array([6.4472, 7.4283, 7.8642, 7.9277])
    acc = np.array([0.6, 0.5391, 0.5121, 0.5081])
    sat = saturated_tail(loss, acc, 5e-4)
    assert sat is not None and sat.points == 4 and sat.clamp.startswith("Keras / TF epsilon")


def test_the_trailing_run_stops_at_the_first_log_off_the_line() -> None:
    loss = np.array([2.2, 1.4, 87.3365, 87.3365])
    acc = np.array([0.2, 0.5, 0.0, 0.0])
    sat = saturated_tail(loss, acc, 5e-4)
    assert (
        sat is not None
        and sat.points == 2
        and sat.cost == CLAMPS["float32 FLT_MIN (Caffe softmax)"]
    )


def test_a_loss_off_every_line_and_a_solved_accuracy_are_not_read() -> None:
    assert saturated_tail(np.array([1.89618]), np.array([0.882549]), 5e-4) is None  # 0.16% off
    assert not on_clamp_line(0.0, 1.0, 16.1181, 5e-4)  # nothing wrong: no line to be on
    assert not on_clamp_line(float("nan"), 0.5, 16.1181, 5e-4)
