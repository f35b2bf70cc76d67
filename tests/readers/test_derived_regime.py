"""The regime read off the first loss against ln(V): only what the first log can show."""

from __future__ import annotations

import math

import numpy as np

from traindoc.model import Fact, Run, Series
from traindoc.readers.derived import finalize


def _run(first_step: int, first: float, vocab: int = 10000) -> Run:
    steps = np.arange(first_step, first_step + 200, 10)
    loss = Series("loss", steps, np.linspace(first, first * 0.7, steps.size))
    return Run("r", {"loss": loss}, {"vocab_size": Fact(vocab, "config.json: vocab_size")})


def test_a_first_loss_near_ln_v_is_pretraining() -> None:
    assert finalize(_run(10, 0.97 * math.log(10000))).fact("regime") == "pretraining"


def test_a_first_log_after_updates_at_the_unigram_level_is_no_regime() -> None:
    # cs336 TinyStories from scratch: 5.17 at step 10, 0.56 ln(V): a from-scratch LM
    # reaches its unigram level within tens of steps, so this says nothing of the start
    assert finalize(_run(10, 0.56 * math.log(10000))).fact("regime") is None


def test_the_same_ratio_logged_at_step_1_is_a_fine_tune() -> None:
    # near miss: before any update, 0.56 ln(V) is a model that already predicts
    assert finalize(_run(1, 0.56 * math.log(10000))).fact("regime") == "full-finetune"


def test_a_first_log_well_under_half_ln_v_is_a_fine_tune_at_any_step() -> None:
    assert finalize(_run(50, 0.25 * math.log(10000))).fact("regime") == "full-finetune"


def test_a_first_log_after_updates_still_at_80_percent_of_ln_v_is_pretraining() -> None:
    # Lightning GPT on WikiText-2 from scratch: 9.57 at step 50, 0.885 ln(50258); a
    # pretrained LM meets new text at under half of ln(V)
    assert finalize(_run(50, 0.885 * math.log(50258), 50258)).fact("regime") == "pretraining"


def test_the_same_80_percent_at_step_1_needs_the_pretraining_ratio() -> None:
    # near miss: at step 1 the untrained model sits at ln(V) itself; 0.85 there is no proof
    assert finalize(_run(1, 0.85 * math.log(50258), 50258)).fact("regime") is None
