"""Lightning + TraindocCallback on real tiny trainings."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from tests.live.conftest import lm_data, tiny_gpt2


def _fit(tmp_path: Path, cb, steps: int, poison_at: int | None = None, explode: bool = False):
    import lightning as L
    import torch

    class LM(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.model = tiny_gpt2(tie=not explode)
            if explode:
                with torch.no_grad():
                    self.model.lm_head.weight.normal_(0.0, 13.87)

        def training_step(self, batch, i):
            if poison_at is not None and self.global_step + 1 == poison_at:
                self.model.transformer.h[0].mlp.c_fc.weight.data[0, 0] = math.nan
            return self.model(**batch).loss

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=3e-3)

    data = torch.utils.data.DataLoader(lm_data(), batch_size=2)
    trainer = L.Trainer(
        max_steps=steps,
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(tmp_path),
        callbacks=[cb],
    )
    trainer.fit(LM(), data)
    return trainer


def test_lightning_stops_exploded_head_at_step_1(tmp_path: Path) -> None:
    from traindoc.integrations.lightning import TraindocCallback

    cb = TraindocCallback()
    trainer = _fit(tmp_path, cb, 200, explode=True)
    assert trainer.global_step == 1
    assert [f.rule for f in cb.findings if f.rule == "absurd-initial-loss"]
    assert (tmp_path / "traindoc/findings.jsonl").is_file()


def test_lightning_nan_stops_at_the_nan_step(tmp_path: Path) -> None:
    from traindoc.integrations.lightning import TraindocCallback

    cb = TraindocCallback(vocab_size=50257)
    trainer = _fit(tmp_path, cb, 50, poison_at=4)
    assert trainer.global_step == 4
    (f,) = [f for f in cb.findings if f.rule == "nonfinite-loss"]
    assert f.step == 4


def test_lightning_healthy_run_untouched(tmp_path: Path) -> None:
    from traindoc.integrations.lightning import TraindocCallback

    cb = TraindocCallback(vocab_size=50257, sample_every=5)
    trainer = _fit(tmp_path, cb, 20)
    assert trainer.global_step == 20
    assert cb.monitor is not None and not cb.monitor.should_stop
