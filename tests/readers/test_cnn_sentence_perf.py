"""Yoon Kim's CNN_sentence (conv_net_sentence.py) prints one line an epoch,
`print('epoch: %i, training time: %.2f secs, train perf: %.2f %%, val perf: %.2f %%' %
(epoch, time.time()-start_time, train_perf * 100., val_perf*100.))`, its perf being
1 - the error rate: the train and validation accuracy in percent, the percent sign
printed after a space."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

_LINE = "epoch: %i, training time: %.2f secs, train perf: %.2f %%, val perf: %.2f %%\n"


def test_train_and_val_perf_are_the_accuracies(tmp_path: Path) -> None:
    body = "... training\n" + "".join(
        _LINE % (e, 254.16, 55.0 + 4 * e, 55.0 + 3 * e) for e in range(1, 6)
    )
    run = one_log(tmp_path, body)
    assert values(run, "train_acc") == [59.0, 63.0, 67.0, 71.0, 75.0]
    assert values(run, "eval_acc") == [58.0, 61.0, 64.0, 67.0, 70.0]
    assert [int(s) for s in run.get("eval_acc").steps] == [1, 2, 3, 4, 5]


def test_val_perf_without_its_colon(tmp_path: Path) -> None:
    body = "".join(
        f"epoch: {e}, training time: 12.3 secs, train perf: {71.2 + e:.1f} %, "
        f"val perf {70.1 + e:.1f} %\n"
        for e in range(1, 4)
    )
    run = one_log(tmp_path, body)
    assert values(run, "train_acc") == [72.2, 73.2, 74.2]
    assert values(run, "eval_acc") == [71.1, 72.1, 73.1]


def test_near_miss_a_perf_without_a_split_is_no_accuracy(tmp_path: Path) -> None:
    body = "".join(f"epoch: {e}, loss: {1.0 / e:.3f}, perf: {e * 10} %\n" for e in range(1, 4))
    run = one_log(tmp_path, body)
    assert run.get("train_acc") is None and run.get("eval_acc") is None
    assert values(run, "loss") == [1.0, 0.5, 0.333]
