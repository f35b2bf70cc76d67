"""Reader fixes found on real cases (issue 12, readers9): lone `Test loss=` lines under
an `[Epoch N]` record, Keras pastes that start at epoch 39 and end mid-name, MXNet's
`Time cost=`, and fairseq's `best` on its valid lines.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.readers import load_run

REAL = Path(__file__).resolve().parents[1] / "real"


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. a lone "Test loss=0.90" / "Accuracy=0.65" under "[Epoch N] Train Loss=..." -------

_GRU = REAL / "no_learning_pytorch_gru_sentiment_one_class_output_test_loss_identical_9_epochs"


def test_gru_test_loss_and_accuracy_are_evals_at_their_epoch() -> None:
    run = load_run(_GRU)
    # nine epochs printed; the excerpt ends inside the ninth's "Test" line
    assert _steps(run, "loss") == [float(e) for e in range(1, 10)]
    assert _steps(run, "eval_loss") == [float(e) for e in range(1, 9)]
    assert set(values(run, "eval_loss")) == {0.90144944190979}
    assert _steps(run, "eval_accuracy") == [float(e) for e in range(1, 9)]
    assert set(values(run, "eval_accuracy")) == {0.65}
    # "Output Distribution={2: 1120}" counts predictions per class: not a metric
    assert not any("distribution" in n.lower() for n in run.series)


def test_a_lone_accuracy_without_a_test_line_is_not_an_eval(tmp_path: Path) -> None:
    body = "".join(
        f"[Epoch {e}] Train Loss={1 - e / 10} T=207.7s\nAccuracy={0.6 + e / 100}\n"
        for e in (1, 2, 3)
    )
    run = one_log(tmp_path, body)
    assert "eval_accuracy" not in run.series
    assert "eval_loss" not in run.series
    assert _steps(run, "loss") == [1.0, 2.0, 3.0]


def test_a_lone_test_loss_without_an_epoch_record_is_not_placed(tmp_path: Path) -> None:
    body = "".join(f"step {s} loss {1 - s / 10}\nTest loss={0.9 - s / 100}\n" for s in (1, 2, 3))
    run = one_log(tmp_path, body)
    # the record above prints no epoch: no epoch to put the eval at (read as before: none)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0]
    assert "eval_loss" not in run.series


# -- 2. Keras "Epoch 39/200" headers; a paste that ends mid-name --------------------------

_KERAS = REAL / "divergence_keras_cifar10_200ep_train_loss_0p77_at_ep45_rises_to_1p17_by_ep184"


def test_keras_paste_is_numbered_by_its_headers_and_reads_val_loss() -> None:
    run = load_run(_KERAS)
    epochs = [*range(39, 50), *range(174, 185)]  # the line after the gap is epoch 174's
    assert [s / 1562 for s in _steps(run, "loss")] == [float(e) for e in epochs]
    # every full line's val_loss; the two lines cut at "- val" / "- val_lo" give none
    ev = [s / 1562 for s in _steps(run, "eval_loss")]
    assert ev == [float(e) for e in epochs if e not in (49, 184)]
    assert values(run, "eval_loss")[:2] == [0.6673, 0.66]
    assert 0.7657 not in values(run, "eval_loss")  # epoch 49's train loss, cut at "- val"
    assert values(run, "loss")[10] == 0.7657


def test_keras_headers_from_zero_and_whole_lines_are_unchanged(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch {e}/3\n100/100 [====] - 5s - loss: {0.9 - e / 10} - val_loss: {1 - e / 10}\n"
        for e in (0, 1, 2)
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [100.0, 200.0, 300.0]  # counted from epoch 0
    assert _steps(run, "eval_loss") == [100.0, 200.0, 300.0]


def test_an_epoch_printed_on_the_line_still_counts_from_the_first_seen() -> None:
    # "Train Epoch: 65 [128/316 (41%)]": the line's own epoch, not a heading's; a later
    # "epoch : 65" config line does not make it one
    run = load_run(REAL / "no_learning_attnsleep_predicts_majority_class_epoch65_acc_0p42_f1_0p12")
    assert _steps(run, "loss") == [0.0, 128.0, 256.0]


def test_a_trailing_word_after_a_dash_is_kept_off_a_non_keras_line(tmp_path: Path) -> None:
    run = one_log(tmp_path, "step 1 - loss: 0.9 - done\nstep 2 - loss: 0.8 - done\n")
    assert values(run, "loss") == [0.9, 0.8]
    assert "eval_loss" not in run.series


# -- 3. MXNet "Epoch[5] Time cost=1.147": a duration ----------------------------------------


def test_mxnet_time_cost_is_not_a_metric() -> None:
    for case in sorted(REAL.glob("*mxnet*")):
        run = load_run(case)
        assert not any("cost" in n for n in run.series), case.name
    run = load_run(REAL / "no_learning_mxnet_mnist_mlp_gpu_train_acc_0p1_chance_7_epochs_cpu_0p9")
    assert set(values(run, "validation_accuracy")) == {0.098029}


def test_a_cost_that_is_not_a_time_stays(tmp_path: Path) -> None:
    body = "Epoch[1] Batch [100] Train-accuracy=0.5 cost=1.1\n"
    body += "Epoch[1] Batch [200] Train-accuracy=0.6 cost=1.0\n"
    run = one_log(tmp_path, body)
    assert values(run, "cost") == [1.1, 1.0]
    timed = one_log(tmp_path, body.replace(" cost=", " Time cost="))
    assert "cost" not in timed.series
    assert values(timed, "train_accuracy") == [0.5, 0.6]


# -- 4. fairseq's "best 4.46376" on a valid line: the best valid loss so far ----------------

_FAIRSEQ = (
    REAL
    / "fp16_instability_fairseq_scaling_nmt_loss_scale_0p5_to_min_crash_valid_8p30_vs_best_4p46"
)


def test_fairseq_valid_best_is_the_best_eval_loss() -> None:
    run = load_run(_FAIRSEQ)
    assert "best" not in run.series
    assert values(run, "eval_best_loss") == [4.46376]
    assert values(run, "eval_loss") == [8.30118]
    assert _steps(run, "eval_best_loss") == _steps(run, "eval_loss")


def test_a_best_beside_no_eval_loss_keeps_its_name(tmp_path: Path) -> None:
    body = "| epoch 001 | loss 6.3 | best 3.2 | num_updates 100\n"
    body += "| epoch 002 | loss 6.1 | best 3.1 | num_updates 200\n"
    run = one_log(tmp_path, body)
    assert "eval_best_loss" not in run.series
    assert values(run, "best") == [3.2, 3.1]


def test_train_loss_eq_and_val_loss_eq_on_one_line_are_two_splits(tmp_path: Path) -> None:
    """`k=v` keys are one word each, but "Train" before one is part of it: "Train Loss=..,
    Val Loss=.." (a custom loop's f-string) is a train and an eval loss, not two evals of
    a line that mentions "Val"."""
    body = "".join(
        f"2023-05-15 22:50:17,398 INFO:Epoch {e}: Train Loss={0.07 - e / 1000:.4f}, "
        f"Val Loss={0.08 - e / 1000:.4f}\n"
        for e in range(1, 7)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.069, 0.068, 0.067, 0.066, 0.065, 0.064]
    assert values(run, "eval_loss") == [0.079, 0.078, 0.077, 0.076, 0.075, 0.074]
    assert not any(n.startswith("eval_loss_") for n in run.series)
