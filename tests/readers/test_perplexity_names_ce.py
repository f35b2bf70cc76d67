"""A plain loop's printed perplexity, equal to exp(loss), says its loss is an LM's
cross-entropy: the floor ln(V) applies though the log names no trainer or vocabulary."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.readers.helpers import read_log
from traindoc.engine import diagnose
from traindoc.measure import floor as fl
from traindoc.readers.derived import finalize

# a from-scratch LM's default-init start (lexical_lab's print, with the ppl columns
# PyTorch's word language model prints beside its loss)
_CURVE = ((38.99, 29.89), (27.73, 25.51), (24.0, 22.24), (20.92, 19.41), (11.44, 11.04))


def _log(ppl: bool, scale: float = 1.0) -> str:
    rows = []
    for i, (loss, val) in enumerate(_CURVE):
        extra = f" ppl: {math.exp(loss * scale):.2f}" if ppl else ""
        rows.append(f"step: {(i + 1) * 100} train loss: {loss:.4f}{extra} val loss: {val:.4f}")
    return "\n".join(rows) + "\n"


def test_a_ppl_equal_to_exp_loss_makes_the_loss_a_cross_entropy(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _log(ppl=True))
    run = finalize(run)
    assert fl.perplexity_of_loss(run) == "ppl"
    assert fl.cross_entropy(run)
    found = {f.rule: f for f in diagnose(run).findings}
    assert found["absurd-initial-loss"].severity.name == "ERROR"


def test_without_the_ppl_a_plain_loops_loss_39_is_not_judged(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _log(ppl=False))
    run = finalize(run)
    assert not fl.cross_entropy(run)
    assert "absurd-initial-loss" not in {f.rule for f in diagnose(run).findings}


def test_a_ppl_of_something_else_says_nothing(tmp_path: Path) -> None:
    # near miss: the printed perplexity is exp of half the loss (a loss summed over two
    # terms, a ppl of one of them)
    (run,) = read_log(tmp_path, _log(ppl=True, scale=0.5))
    run = finalize(run)
    assert fl.perplexity_of_loss(run) is None
    assert not fl.cross_entropy(run)


@pytest.mark.parametrize(
    ("key", "judged"), [("lm_loss", True), ("lm loss", True), ("nll_loss", False)]
)
def test_a_loss_key_naming_an_lm_loss_makes_it_a_cross_entropy(
    tmp_path: Path, key: str, judged: bool
) -> None:
    rows = [
        f"step {(i + 1) * 100} | {key}: {loss:.4f} | time 31ms"
        for i, (loss, _) in enumerate(_CURVE)
    ]
    (run,) = read_log(tmp_path, "\n".join(rows) + "\n")
    run = finalize(run)
    assert (fl.named_cross_entropy(run) is not None) is judged
    assert ("absurd-initial-loss" in {f.rule for f in diagnose(run).findings}) is judged
