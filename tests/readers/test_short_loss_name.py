"""A loss printed under a name cut to three letters (helper nolearn5): Alibaba's QE Brain
expert model (tensorflow/nmt's status line) prints `exp-los 34.4890`. The last word `los`
is the loss; names that merely contain the letters stay what they were."""

from __future__ import annotations

from pathlib import Path

from traindoc.model.signals import kind
from traindoc.readers import load_run

# tests/real/no_learning_qebrain_nmt_expert_bleu_0_exp_loss_35_outputs_last_vocab_word
_QEBRAIN = (
    "  step 6100 lr 0.00168035 step-time 0.08s exp-los 34.4890 gN 243.20 BLEU 0.00, "
    "Sat May 25 18:23:57 2019\n"
    "  step 6200 lr 0.00166674 step-time 0.08s exp-los 35.5610 gN 256.42 BLEU 0.00, "
    "Sat May 25 18:24:05 2019\n"
    "  step 6300 lr 0.00165346 step-time 0.08s exp-los 35.6490 gN 258.22 BLEU 0.00, "
    "Sat May 25 18:24:13 2019\n"
)


def test_exp_los_is_the_loss(tmp_path: Path) -> None:
    path = tmp_path / "paste.log"
    path.write_text(_QEBRAIN, encoding="utf-8")
    run = load_run(path)
    assert kind("exp-los") == "component_loss"
    assert list(run.get("loss").values) == [34.4890, 35.5610, 35.6490]


def test_names_containing_los_are_not_losses() -> None:
    # near-misses: `los` inside a word, or not the last word, is not the loss
    for name in ("close", "los_angeles_share", "pos", "los_rate"):
        assert kind(name) not in ("loss", "component_loss"), name
