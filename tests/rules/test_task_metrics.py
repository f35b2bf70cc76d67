"""rules/loss/_evalcurve: which eval series are task metrics, and levels at a step."""

from __future__ import annotations

import numpy as np

from tests.rules.synth import build_run
from traindoc.model.run import Series
from traindoc.rules.loss._evalcurve import level_at, task_metrics

EVALS = {"every": 100, "segments": [{"values": [1.6, 1.5, 1.4]}]}


def _names(*extra: str) -> list[str]:
    series = {"loss": EVALS, "eval_loss": EVALS} | {n: EVALS for n in extra}
    return [s.name for s, _ in task_metrics(build_run({"series": series}))]


def test_rouge_and_bleu_variants_logged_with_the_evals_are_task_metrics() -> None:
    # a model card's Rouge1 / Rouge2 / Rougel / Rougelsum columns, and BLEU-4
    assert _names("rouge1", "rougel", "rougelsum", "bleu4") == [
        "rouge1",
        "rougel",
        "rougelsum",
        "bleu4",
    ]


def test_a_word_that_only_starts_like_a_metric_is_not_one() -> None:
    assert _names("rougeness", "bleus") == []


def test_level_at_a_step_before_the_first_log_is_the_first_point() -> None:
    # an LR logged from step 100 read at eval step 50: the first LR, not an empty median
    lr = Series("lr", np.array([100, 200, 300]), np.array([1e-4, 2e-4, 3e-4]))
    assert level_at(lr, 50, k=1) == 1e-4
    assert level_at(lr, 250, k=1) == 2e-4
    assert level_at(lr, 900, k=1) == 3e-4


def _headline(*extra: str) -> list[str]:
    from traindoc.measure.metrics import headline_metrics

    series = {"loss": EVALS, "eval_loss": EVALS} | {n: EVALS for n in extra}
    return [s.name for s, _ in headline_metrics(build_run({"series": series}))]


def test_a_top_k_beside_its_top_1_is_not_a_headline_metric() -> None:
    # Ultralytics, timm and Swin spellings: the top-1 stays, its top-5 goes
    assert _headline("metrics/accuracy_top1", "metrics/accuracy_top5") == ["metrics/accuracy_top1"]
    assert _headline("eval_acc1", "eval_acc5") == ["eval_acc1"]
    assert _headline("val_Acc@1", "val_Acc@5") == ["val_Acc@1"]


def test_a_top_k_alone_or_beside_another_metric_stays() -> None:
    assert _headline("metrics/accuracy_top5") == ["metrics/accuracy_top5"]
    assert _headline("eval_f1", "eval_acc5") == ["eval_f1", "eval_acc5"]
