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


def test_a_dot_between_split_and_name_is_a_separator(tmp_path: Path) -> None:
    # deep_avsr: "Step: 182 || Tr.Loss: 3.239813  Val.Loss: 3.226672 || ..." - the train and
    # the validation loss, not two loss terms summed into one
    body = "".join(
        f"Step: {s} || Tr.Loss: {a}  Val.Loss: {b} || Tr.WER: 1.000  Val.WER: 1.000\n"
        for s, a, b in (
            (182, 3.239813, 3.226672),
            (183, 3.24149, 3.22143),
            (184, 3.240253, 3.238177),
        )
    )
    run = one_log(tmp_path, body)
    assert [float(v) for v in run.series["loss"].values] == [3.239813, 3.24149, 3.240253]
    assert [float(v) for v in run.series["eval_loss"].values] == [3.226672, 3.22143, 3.238177]


def test_a_dotted_stage_prefix_stays_a_loss_term(tmp_path: Path) -> None:
    # near miss: mmdet's cascade stage terms "s0.loss_cls" are no train / eval split
    body = "".join(
        f"Epoch [1][{i}/86]\tlr: 1.0e-03, s0.loss_cls: {c}, s0.loss_bbox: 0.1, loss: {t}\n"
        for i, c, t in ((20, 0.18, 0.70), (40, 0.15, 0.56), (60, 0.16, 0.64))
    )
    run = one_log(tmp_path, body)
    assert [float(v) for v in run.series["loss"].values] == [0.70, 0.56, 0.64]
    assert "eval_loss" not in run.series
