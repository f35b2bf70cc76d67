"""Which eval series are task metrics (rules/loss/_evalcurve.task_metrics)."""

from __future__ import annotations

from tests.rules.synth import build_run
from traindoc.rules.loss._evalcurve import task_metrics

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
