"""Reader cases from helper nolearn11: a digit inside a metric's name under the
digit-blind key cache."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log

_TF = "2018-09-15 13:15:04.59580{i}: I tensorflow/core/kernels/logging_ops.cc:79] "


def test_names_differing_by_a_digit_stay_apart(tmp_path: Path) -> None:
    # TF-Slim's eval prints Recall_4, Accuracy, Recall_5, Recall_3 one per line: the lines
    # differ only in digits, but Recall_5 is not a second value of Recall_4
    body = "".join(
        _TF.format(i=i) + f"eval/{name}[{v}]\n"
        for i, (name, v) in enumerate(
            (("Recall_4", 0.004), ("Accuracy", 0.001), ("Recall_5", 0.005), ("Recall_3", 0.003))
        )
    )
    run = one_log(tmp_path, body)
    for name, v in (("recall_4", 0.004), ("recall_5", 0.005), ("recall_3", 0.003)):
        assert [float(x) for x in run.series[f"eval/{name}"].values] == [v]


def test_plain_name_value_lines_with_a_digit_in_the_name(tmp_path: Path) -> None:
    # the same without tf.Print: "eval/Recall_1=0.41" then "eval/Recall_5=0.72" lines (read
    # before as one series 0.41, 0.72, 0.43, 0.75)
    body = "eval/Recall_1=0.41\neval/Recall_5=0.72\neval/Recall_1=0.43\neval/Recall_5=0.75\n"
    run = one_log(tmp_path, body)
    assert [float(x) for x in run.series["eval/recall_1"].values] == [0.41, 0.43]
    assert [float(x) for x in run.series["eval/recall_5"].values] == [0.72, 0.75]


def test_one_name_repeated_is_still_one_series(tmp_path: Path) -> None:
    # near miss: the same name with new values (the cache's purpose) stays one series
    body = "".join(_TF.format(i=i) + f"eval/Accuracy[0.{i + 1}]\n" for i in range(3))
    run = one_log(tmp_path, body)
    assert [float(x) for x in run.series["eval/accuracy"].values] == [0.1, 0.2, 0.3]
