"""Lightning with its CSVLogger and TraindocCallback: one training, one run."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from tests.live.conftest import lm_data, tiny_gpt2


@pytest.fixture(scope="module")
def lightning_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import lightning as L
    import torch
    from lightning.pytorch.loggers import CSVLogger

    from traindoc.integrations.lightning import TraindocCallback

    torch.set_num_threads(1)
    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("pl")

    class LM(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.model = tiny_gpt2()

        def training_step(self, batch, i):
            loss = self.model(**batch).loss
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=3e-3)

    trainer = L.Trainer(
        max_steps=30,
        accelerator="cpu",
        devices=1,
        logger=CSVLogger(str(root)),
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(root),
        callbacks=[TraindocCallback()],
    )
    trainer.fit(LM(), torch.utils.data.DataLoader(lm_data(), batch_size=2))
    assert (root / "lightning_logs/version_0/metrics.csv").is_file()
    assert (root / "traindoc/metrics.jsonl").is_file()
    return root


def test_csv_logger_and_live_record_are_one_run(lightning_run: Path) -> None:
    import traindoc
    from traindoc.readers import discover_runs

    assert discover_runs(lightning_run) == [lightning_run / "lightning_logs/version_0"]
    d = traindoc.diagnose(lightning_run)
    assert len(d.runs) == 1
    run = d.runs[0].run
    kinds = {i.kind for i in run.inputs}
    assert "traindoc-live" in kinds and any("lightning" in k or "csv" in k for k in kinds), kinds
    assert run.fact("vocab_size") is not None  # given to the monitor, not in the CSV


def test_html_takes_the_one_run(lightning_run: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from traindoc.cli import app

    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["diagnose", str(lightning_run), "--html", str(out)])
    assert "takes one run" not in res.output, res.output
    assert out.is_file() and "<html" in out.read_text()[:500].lower()


def test_the_record_joins_only_the_version_it_names(lightning_run: Path, tmp_path: Path) -> None:
    """Two trainings in one root (version_0 then version_1): the record names its own."""
    import json
    import shutil

    from traindoc.readers import discover_runs, load_run

    root = tmp_path / "root"
    shutil.copytree(lightning_run, root)
    logs = root / "lightning_logs"
    shutil.copytree(logs / "version_0", logs / "version_1")
    cfg = root / "traindoc" / "run_config.json"
    doc = json.loads(cfg.read_text())
    assert doc["log_dir"] == "lightning_logs/version_0"  # relative: a moved run still joins
    doc["log_dir"] = "lightning_logs/version_1"  # as the callback writes it for a second fit
    cfg.write_text(json.dumps(doc))
    assert discover_runs(root) == [logs / "version_0", logs / "version_1"]
    kinds = lambda p: {i.kind for i in load_run(p).inputs}  # noqa: E731
    assert "traindoc-live" in kinds(logs / "version_1")
    assert "traindoc-live" not in kinds(logs / "version_0")
