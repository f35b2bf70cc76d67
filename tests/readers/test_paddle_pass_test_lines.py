"""PaddlePaddle's book examples print a line per batch and one per test pass. The v2
API's event handler: `print "Pass %d, Batch %d, Cost %f, %s" % (event.pass_id,
event.batch_id, event.cost, event.metrics)` and `print "Test with Pass %d, Cost %f, %s\\n"
% (event.pass_id, result.cost, result.metrics)` (the metrics a dict); the fluid
examples: "Pass:0, Batch:400, Cost:0.19532, Accuracy:0.94531" and "Test:0,
Cost:0.26778, Accuracy:0.92138". The test line's Cost is the test set's loss, its
Accuracy the test accuracy, its counter the pass evaluated."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import load_log, one_log, values


def test_fluid_test_lines_are_the_evals_loss_and_accuracy(tmp_path: Path) -> None:
    body = ""
    for p, (cost, acc, tcost, tacc) in enumerate(
        [(0.40671, 0.875, 0.26778, 0.92138), (0.27148, 0.92188, 0.15462, 0.95738)]
    ):
        for b in (0, 100, 200):
            body += f"Pass:{p}, Batch:{b}, Cost:{cost:.5f}, Accuracy:{acc:.5f}\n"
        body += f"Test:{p}, Cost:{tcost:.5f}, Accuracy:{tacc:.5f}\n"
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [0.40671] * 3 + [0.27148] * 3
    assert values(run, "accuracy") == [0.875] * 3 + [0.92188] * 3
    assert values(run, "eval_loss") == [0.26778, 0.15462]
    assert values(run, "eval_accuracy") == [0.92138, 0.95738]
    assert run.get("test") is None  # the counter is the pass, not a metric


def test_v2_test_with_pass_cost_is_the_eval_loss(tmp_path: Path) -> None:
    body = ""
    for p, (cost, err, tcost, terr) in enumerate(
        [(0.635356, 0.2, 0.326364, 0.0924), (0.194421, 0.06, 0.126364, 0.0424)]
    ):
        for b in (0, 100):
            body += (
                f"Pass {p}, Batch {b}, Cost {cost:f}, {{'classification_error_evaluator': {err}}}\n"
            )
        body += (
            f"Test with Pass {p}, Cost {tcost:f}, {{'classification_error_evaluator': {terr}}}\n\n"
        )
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [0.635356] * 2 + [0.194421] * 2
    assert values(run, "classification_error_evaluator") == [0.2] * 2 + [0.06] * 2
    assert values(run, "eval_loss") == [0.326364, 0.126364]
    assert values(run, "eval_classification_error_evaluator") == [0.0924, 0.0424]


def test_a_line_reporting_both_splits_keeps_its_names(tmp_path: Path) -> None:
    body = "".join(
        f"Test: {a:.4f}, train acc: {a + 0.05:.4f}, val acc: {a:.4f}\n" for a in (0.5, 0.6, 0.7)
    )
    run = one_log(tmp_path, body)
    assert run.get("epoch") is None


def test_an_eval_loops_batch_counter_is_no_pass(tmp_path: Path) -> None:
    body = "".join(
        f"Test:  [{b:>3}/196]  eta: 0:01:00  loss: 0.42{b % 7} (0.41)  acc1: 81.25 (82.10)  "
        "time: 0.1792  data: 0.1121  max mem: 8738\n"
        for b in (0, 10, 20, 30)
    )
    run = one_log(tmp_path, body)
    assert run.get("epoch") is None
