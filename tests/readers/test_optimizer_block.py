"""A config that nests the optimizer's settings in a block (a wandb sweep's
`optimizer: {method: sgd_torch, lr: 1e-5, bs: 4}`, OpenMMLab-style `optimizer: {type: SGD}`)
names the optimizer inside it: the block's name key is the run's `optim` fact."""

from __future__ import annotations

import pytest

from traindoc.readers.configs import facts_from


@pytest.mark.parametrize(
    ("block", "name"),
    [
        ({"method": "sgd_torch", "lr": 1e-5, "bs": 4}, "sgd_torch"),
        ({"type": "AdamW", "lr": 3e-4}, "AdamW"),
        ({"name": "lion", "lr": 1e-5}, "lion"),
    ],
)
def test_the_block_names_the_optimizer(block: dict, name: str) -> None:
    facts = facts_from({"optimizer": block, "epochs": 10}, "config.yaml")
    assert facts["optim"].value == name
    assert facts["optim"].source.startswith("config.yaml: optimizer.")
    assert facts["learning_rate"].value == block["lr"]


def test_a_block_without_a_name_lends_no_optimizer() -> None:
    # (a GAN's two optimizers, or a block of settings only: no one optimizer is named)
    facts = facts_from({"optimizer": {"lr": 1e-3, "betas": [0.9, 0.999]}}, "config.yaml")
    assert "optim" not in facts
    assert facts["learning_rate"].value == 1e-3


def test_a_name_outside_an_optimizer_block_is_not_an_optimizer() -> None:
    facts = facts_from({"model": {"type": "UNet"}, "lr": 1e-3}, "config.yaml")
    assert "optim" not in facts
