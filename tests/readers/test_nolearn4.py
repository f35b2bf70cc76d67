"""Reader cases from helper nolearn4: a printed (name, value) tuple is a metric."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _values(run, name: str) -> list[float]:
    return [float(v) for v in run.series[name].values]


def test_a_printed_name_value_tuple_is_that_metric(tmp_path: Path) -> None:
    # MXNet's `metric.get()` printed in a training loop: "('accuracy', 0.65625)"
    body = "".join(
        f"epoch {e} iter {i} metric ('accuracy', {v})\n"
        for e in range(2)
        for i, v in ((20, 0.65625), (40, 0.621875))
    )
    run = one_log(tmp_path, body)
    assert _values(run, "accuracy") == [0.65625, 0.621875, 0.65625, 0.621875]


def test_a_quoted_word_in_brackets_without_a_pair_is_no_key(tmp_path: Path) -> None:
    # a tuple that is not closed after the number is no (name, value) pair
    body = "epoch 0 iter 20 loss 1.25 ('train', 3 4)\nepoch 0 iter 40 loss 1.2 ('train', 3 4)\n"
    run = one_log(tmp_path, body)
    assert "train" not in run.series


def test_a_pandas_csv_header_with_an_unnamed_index_column(tmp_path: Path) -> None:
    # print(df.to_csv()) of a per-epoch DataFrame: the index column has no name
    body = ",epoch,train_loss,mIOU\n0,1,0.7261,0.0576\n1,2,0.6097,0.0630\n2,3,0.5578,0.0973\n"
    run = one_log(tmp_path, body)
    assert _values(run, "loss") == [0.7261, 0.6097, 0.5578]
