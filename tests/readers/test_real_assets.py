"""Tiny real runs (assets/hf_tiny, assets/lightning_tiny), read end to end."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from tests.readers.helpers import ASSETS, load_checked


def test_real_hf_run() -> None:
    run = load_checked(ASSETS / "hf_tiny")
    loss, ev = run.get("loss"), run.get("eval_loss")
    assert loss is not None and ev is not None
    assert loss.steps.tolist() == list(range(2, 21, 2))  # eval_steps == logging_steps: same steps
    assert ev.steps.tolist() == list(range(2, 21, 2))
    assert abs(loss.values[0] - math.log(50257)) < 0.5
    assert run.fact("vocab_size") == 50257 and run.fact("effective_batch") == 8
    assert run.fact("precision") == "fp32" and run.fact("lr_scheduler") == "linear"
    assert run.fact("devices") == 1 and run.regime == "pretraining" and run.fact("task") == "lm"
    assert "resume_steps" not in run.facts and not run.notes


def test_real_hf_checkpoint_only_after_a_crash(tmp_path: Path) -> None:
    """No top-level state (the run died before save_state): the checkpoint still reads."""
    shutil.copytree(ASSETS / "hf_tiny" / "checkpoint-10", tmp_path / "checkpoint-10")
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [2, 4, 6, 8, 10]


def test_real_lightning_run() -> None:
    run = load_checked(ASSETS / "lightning_tiny")
    loss, ev, lr = run.get("loss"), run.get("eval_loss"), run.get("lr")
    assert loss is not None and ev is not None and lr is not None
    assert loss.source == "lightning: train_loss_step" and len(loss) == 8
    assert ev.steps.tolist() == [7, 15]
    assert run.fact("learning_rate") == 0.01 and run.fact("per_device_batch") == 16
