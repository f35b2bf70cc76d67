"""Reader cases from helper nolearn8: TF's tf.Print metric lines (`name[value]`)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log

_TF = "2018-09-15 13:15:04.59580{i}: I tensorflow/core/kernels/logging_ops.cc:79] "


def test_a_tf_print_metric_line_is_a_name_value_pair(tmp_path: Path) -> None:
    # TF-Slim's evaluation prints each metric with tf.Print: "eval/Accuracy[0.001]"
    body = _TF.format(i=1) + "eval/Accuracy[0.001]\n" + _TF.format(i=2) + "eval/Recall_5[0.005]\n"
    run = one_log(tmp_path, body)
    assert [float(v) for v in run.series["eval/accuracy"].values] == [0.001]
    assert [float(v) for v in run.series["eval/recall_5"].values] == [0.005]


def test_a_tf_print_of_a_whole_tensor_is_not_one_value(tmp_path: Path) -> None:
    # near miss: tf.Print of a vector ("logits[0.1 0.7 0.2]") is no scalar metric
    body = "".join(
        f"step {s} loss {v}\n" + _TF.format(i=s) + "logits[0.1 0.7 0.2]\n"
        for s, v in ((1, 2.0), (2, 1.9), (3, 1.8))
    )
    run = one_log(tmp_path, body)
    assert "logits" not in run.series
    assert [float(v) for v in run.series["loss"].values] == [2.0, 1.9, 1.8]
