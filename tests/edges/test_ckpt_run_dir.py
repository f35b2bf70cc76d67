"""`ckpt RUN_DIR` on an HF output_dir: the final model beside its checkpoint-* folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import traindoc

ASSETS = Path(__file__).parents[1] / "ckpt" / "assets"


def test_run_dir_with_final_model_reads_its_checkpoint_folders(tmp_path: Path) -> None:
    run = tmp_path / "out"
    shutil.copytree(ASSETS / "healthy-run", run)
    # what Trainer.save_model() leaves at the top of output_dir after training
    for f in ("model.safetensors", "config.json"):
        shutil.copy(run / "checkpoint-40" / f, run / f)
    d = traindoc.ckpt(run)
    names = [c.name for c in d.runs[0].run.checkpoints]
    assert "checkpoint-20" in names and "checkpoint-40" in names and "out" in names
    assert len(names) == 3
