"""A from-scratch LM's log names its vocabulary in words; V read from it gives the floor
ln(V), so a first loss of 39 is judged though the loop names no trainer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log
from traindoc.readers.derived import finalize

# lexical_lab's plain-loop print (a default-init LM: 39 at step 100, V = 32768)
_ROWS = (
    "step: 100 train loss: 38.988750 val loss: 29.887267 step time: 162.50ms\n"
    "step: 200 train loss: 27.733750 val loss: 25.507024 step time: 31.63ms\n"
    "step: 300 train loss: 24.002500 val loss: 22.240289 step time: 31.99ms\n"
)


@pytest.mark.parametrize(
    ("header", "vocab"),
    [
        ("Vocabulary size: 32768", 32768),
        ("Tokenizer vocab size: 32000", 32000),
        ("vocab: 50257", 50257),
        # nanoGPT's train.py
        ("found vocab_size = 65 (inside data/shakespeare_char/meta.pkl)", 65),
        ("defaulting to vocab_size of GPT-2 to 50304 (50257 rounded up for efficiency)", 50304),
        # a config dataclass's repr (`print(config)`), read as an argparse Namespace is
        ("GPTConfig(block_size=256, vocab_size=32768, n_layer=10, bias=False)", 32768),
        ("ModelArgs(dim=256, n_layers=10, vocab_size=32000, norm_eps=1e-05)", 32000),
    ],
)
def test_the_vocabulary_printed_in_words_is_v(tmp_path: Path, header: str, vocab: int) -> None:
    run = finalize(one_log(tmp_path, header + "\n" + _ROWS))
    assert run.vocab_size == vocab
    assert len(run.series["loss"]) == 3


@pytest.mark.parametrize(
    "header",
    [
        "vocab: data/vocab.txt",  # a path, not a size
        "Namespace(vocab='bpe.model', lr=0.001)",
        "Loaded 32768 sentences",
        # a module's repr is no config: its out_features is the head's width, read elsewhere
        "Embedding(32768, 256)",
    ],
)
def test_a_vocab_that_is_no_count_is_no_v(tmp_path: Path, header: str) -> None:
    run = finalize(one_log(tmp_path, header + "\n" + _ROWS))
    assert run.vocab_size is None
    assert len(run.series["loss"]) == 3


def test_a_config_reprs_lr_is_the_runs_lr(tmp_path: Path) -> None:
    run = finalize(one_log(tmp_path, "TrainConfig(lr=0.0003, batch_size=128, epochs=3)\n" + _ROWS))
    assert run.fact("learning_rate") == 0.0003
    assert len(run.series["loss"]) == 3 and "lr" not in run.series


def test_a_config_nested_one_level_down_is_read_after_the_top_level(tmp_path: Path) -> None:
    # OLMo prints its whole TrainConfig on one line, the model's and optimizer's inside it
    line = (
        "TrainConfig(run_name='OLMo-1B', seed=6198, lr=0.001, "
        "model=ModelConfig(d_model=2048, n_layers=16, vocab_size=50280, embedding_size=50304), "
        "optimizer=OptimizerConfig(name='adamw', learning_rate=0.0003, weight_decay=0.1), "
        "evaluators=[EvaluatorConfig(label='v2', batch_size=7)])\n"
    )
    run = finalize(one_log(tmp_path, line + _ROWS))
    assert run.vocab_size == 50280
    assert run.fact("learning_rate") == 0.001  # the top level's own wins
    assert run.fact("per_device_batch") is None  # an evaluator's batch, inside a list
