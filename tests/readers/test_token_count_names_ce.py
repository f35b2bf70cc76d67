"""A plain loop that counts the tokens it trains on (`ntokens`, `tokens_processed`) reads
token sequences: its loss is a per-token cross-entropy, whose floor ln(V) applies though
the log names no trainer or vocabulary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import read_log
from traindoc.engine import diagnose
from traindoc.measure import floor as fl
from traindoc.model import Run, Series
from traindoc.readers.derived import finalize

# a from-scratch LM pretraining loop's print (Barber0/LLM-pretrain train.log, a custom fp16
# loss scaler): 4.5x ln(256k) and flat
_LOSSES = (55.84, 54.75, 54.75, 54.75, 54.75, 54.75, 54.75)
_NTOKENS = (618.06, 667.06, 653.36, 740.26, 748.96, 661.98, 645.76)


def _log(counted: bool, losses: tuple[float, ...] = _LOSSES) -> str:
    rows = []
    for i, (loss, n) in enumerate(zip(losses, _NTOKENS, strict=False)):
        tokens = f" ntokens: {n}/1024," if counted else ""
        rows.append(f"batch: {i * 10 + 9}, time: 25.32,{tokens} loss: {loss}")
    return "\n".join(rows) + "\n"


def test_a_token_count_makes_the_loss_a_cross_entropy(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _log(counted=True))
    run = finalize(run)
    assert fl.token_count(run) is not None
    assert fl.cross_entropy(run)
    found = {f.rule: f for f in diagnose(run).findings}
    assert found["absurd-initial-loss"].severity.name == "ERROR"


def test_without_the_count_the_same_loss_is_not_judged(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _log(counted=False))
    run = finalize(run)
    assert fl.token_count(run) is None
    assert not fl.cross_entropy(run)
    assert "absurd-initial-loss" not in {f.rule for f in diagnose(run).findings}


def test_a_token_counting_loop_at_ln_v_is_a_sane_start(tmp_path: Path) -> None:
    # near miss: the same loop restarted later, 11.16 at its first print (ln 32k-ish)
    (run,) = read_log(tmp_path, _log(counted=True, losses=(11.16, 10.95, 10.95)))
    run = finalize(run)
    assert fl.cross_entropy(run)
    assert "absurd-initial-loss" not in {f.rule for f in diagnose(run).findings}


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("ntokens", True),
        ("tokens_processed", True),
        ("num_tokens", True),
        ("trained_tokens", True),
        ("tokens/sec", True),
        ("train/tokens_per_second", True),
        ("mean_token_accuracy", False),
        ("eval_num_tokens", False),
        ("tokenizer_len", False),
    ],
)
def test_which_names_count_tokens(name: str, counts: bool) -> None:
    one = np.array([1.0])
    run = Run("r", {n: Series(n, one, one) for n in ("loss", name)})
    assert (fl.token_count(run) == name) is counts
