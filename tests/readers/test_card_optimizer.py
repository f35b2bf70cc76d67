"""An HF model card names its optimizer in words: the name is the run's `optim` fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log as _one
from traindoc.readers.logs.profiles import setting

_TABLE = (
    "### Training results\n\n"
    "| Training Loss | Epoch | Step | Validation Loss |\n"
    "|:-------------:|:-----:|:----:|:---------------:|\n"
    + "".join(
        f"| {2.9 - e / 5:.4f}        | {e}.0   | {100 * e} | {3.0 - e / 6:.4f}          |\n"
        for e in range(1, 5)
    )
)


def _card(optimizer: str) -> str:
    return (
        "This model is a fine-tuned version of [bert-base-cased](https://huggingface.co/bert-base-cased) "
        "on an unknown dataset.\n\n"
        "The following hyperparameters were used during training:\n"
        "- learning_rate: 0.0003\n- train_batch_size: 16\n- seed: 42\n"
        f"- optimizer: {optimizer}\n- lr_scheduler_type: linear\n- num_epochs: 4\n\n" + _TABLE
    )


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Adam with betas=(0.9,0.999) and epsilon=1e-08", "adam"),
        (
            "Use adamw_torch with betas=(0.9,0.999) and epsilon=1e-08 and optimizer_args=No additional optimizer arguments",
            "adamw_torch",
        ),
        ("Use OptimizerNames.ADAMW_TORCH with betas=(0.9,0.999) and epsilon=1e-08", "adamw_torch"),
        ("Adafactor", "adafactor"),
    ],
)
def test_card_optimizer_in_words_is_the_optim_fact(tmp_path: Path, line: str, name: str) -> None:
    run = _one(tmp_path, _card(line), "README.md")
    assert run.fact("optim") == name
    assert run.fact("learning_rate") == pytest.approx(3e-4)
    assert run.get("loss") is not None and len(run.get("loss")) == 4
    assert "epsilon" not in run.series and "betas" not in run.series


def test_a_linked_optimizer_name_or_a_dict_is_not_read_as_words() -> None:
    assert setting(b"- optimizer: [8-bit Adam](https://github.com/x/bitsandbytes)") == []
    assert setting(b"optimizer: {'name': 'Adam', 'learning_rate': 5e-05}")[0] == (
        "optimizer",
        "Adam",
    )
