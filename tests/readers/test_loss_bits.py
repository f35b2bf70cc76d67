"""A loss logged in bits (fairseq) is compared with log2(V), not ln(V).

fairseq divides every criterion's loss by ln 2, so a translation model that guesses
uniformly over 43,978 target types logs 15.42, not 10.69; compared with ln(V), every
healthy early fairseq loss reads as "above the uniform floor"."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.readers.helpers import read_log
from traindoc.measure import floor as fl
from traindoc.model import Fact, Run, Series
from traindoc.readers.derived import finalize

# fairseq-py 0.1 (facebookresearch/fairseq#41), as pasted
_FAIRSEQ_2017 = (
    "| [en] dictionary: 43881 types\n"
    "| [fr] dictionary: 43978 types\n"
    "| data-bin train 35482842 examples\n"
    "| epoch 001  1000 / 331737 loss=9.57 (10.94), wps=18515, wpb=31259, bsz=861, lr=1.25, "
    "clip=100%, gnorm=2.0540\n"
    "| epoch 001  2000 / 331737 loss=8.61 (9.91), wps=18466, wpb=31229, bsz=877, lr=1.25, "
    "clip=100%, gnorm=1.7149\n"
)


def test_fairseq_dictionary_is_the_target_vocab_and_its_loss_is_in_bits(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _FAIRSEQ_2017)
    run = finalize(run)
    assert run.vocab_size == 43978  # the target side: the last dictionary printed
    assert run.fact("trainer") == "fairseq"
    assert run.loss_base == 2
    assert math.isclose(run.floor or 0, math.log2(43978))
    # 9.57 bits at update 1000 is 62% of log2(V): no regime claimed (it was "pretraining"
    # when 9.57 was read against ln(V) = 10.69)
    assert run.fact("regime") is None


def _ppl_run(base: float) -> Run:
    steps = np.arange(100, 1100, 100)
    nll = np.linspace(9.0, 5.0, steps.size)
    series = {
        "nll_loss": Series("nll_loss", steps, nll),
        "ppl": Series("ppl", steps, np.round(base**nll, 2)),
    }
    return Run("r", series, {"vocab_size": Fact(32000, "config.json: vocab_size")})


def test_a_perplexity_of_2_to_the_loss_says_the_loss_is_in_bits() -> None:
    run = finalize(_ppl_run(2.0))
    assert run.loss_base == 2 and "2^nll_loss" in run.facts["loss_base"].source
    assert math.isclose(run.floor or 0, math.log2(32000))


def test_a_perplexity_of_e_to_the_loss_keeps_nats() -> None:
    # near miss: OpenNMT, HF and PyTorch's word LM print exp(loss)
    run = finalize(_ppl_run(math.e))
    assert "loss_base" not in run.facts and run.loss_base == math.e
    assert math.isclose(run.floor or 0, math.log(32000))


def test_a_flat_loss_at_log2_of_a_tokenizer_is_its_floor_in_bits() -> None:
    level = math.log2(50257)  # 15.617: a fairseq LM with GPT-2's BPE guessing uniformly
    bits = Run("r", {}, {"loss_base": Fact(2, "fairseq")})
    got = fl.infer(level, 0.0, bits)
    assert got is not None and got.count == 50257 and math.isclose(got.value, level)
    # in nats the same level is exp(15.6) = 6M tokens: no known vocabulary
    assert fl.infer(level, 0.0, Run("r", {}, {})) is None
