"""Settings (traindoc.toml / [tool.traindoc]) in live mode: watch, Monitor, callbacks."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import traindoc
from traindoc.cli import app
from traindoc.live.watch import Watcher
from traindoc.model import Severity
from traindoc.settings import Settings, SettingsError


def _nan_log(run: Path) -> None:
    run.mkdir(parents=True, exist_ok=True)
    with (run / "metrics.jsonl").open("w") as f:
        for step in range(1, 6):
            f.write(json.dumps({"step": step, "loss": 2.0 if step == 1 else math.nan}) + "\n")


def test_watch_honours_the_settings_file_found_upward_and_the_flags(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "a"
    _nan_log(run)
    cli = CliRunner()
    plain = cli.invoke(app, ["watch", str(run), "--once"])
    assert plain.exit_code == 1 and "nonfinite-loss" in plain.stdout
    flag = cli.invoke(app, ["watch", str(run), "--once", "--ignore", "nonfinite-loss"])
    assert flag.exit_code == 0 and "nonfinite-loss" not in flag.stdout
    (tmp_path / "traindoc.toml").write_text('ignore = ["nonfinite-loss"]\n')
    found = cli.invoke(app, ["watch", str(run), "--once"])
    assert found.exit_code == 0 and "nonfinite-loss" not in found.stdout
    # --config names another file instead; --select narrows to a family
    other = tmp_path / "other.toml"
    other.write_text('fail-on = "never"\n')
    named = cli.invoke(app, ["watch", str(run), "--once", "--config", str(other)])
    assert named.exit_code == 0 and "nonfinite-loss" in named.stdout
    rate = cli.invoke(app, ["watch", str(run), "--once", "--config", str(other), "-s", "rate"])
    assert "nonfinite-loss" not in rate.stdout


def test_watch_with_a_bad_settings_file_is_one_error_listing_the_choices(tmp_path: Path) -> None:
    _nan_log(tmp_path / "run")
    (tmp_path / "traindoc.toml").write_text('ignore = ["nonfinite-los"]\n')
    res = CliRunner().invoke(app, ["watch", str(tmp_path / "run"), "--once"])
    assert res.exit_code == 2
    assert "nonfinite-los" in res.stderr and "did you mean 'nonfinite-loss'" in res.stderr
    assert "Traceback" not in res.stderr
    with pytest.raises(SettingsError):
        Watcher(tmp_path / "run")


def test_an_ignored_rule_is_not_reported_live(tmp_path: Path) -> None:
    (tmp_path / "traindoc.toml").write_text('ignore = ["nonfinite-loss"]\n')
    with traindoc.Monitor(vocab_size=50257, output_dir=tmp_path / "out") as m:
        for step in range(1, 30):  # would raise TrainingStopped at step 10
            m.step(step, loss=math.nan if step >= 10 else 10.8 - 0.01 * step)
    assert "nonfinite-loss" not in {f.rule for f in m.findings}
    assert m.watchdog is not None  # stalled-training is still selected
    # the same loop without the file is stopped, so the file is what changed it
    with (
        traindoc.Monitor(vocab_size=50257, settings=Settings(), watchdog=False) as m2,
        pytest.raises(traindoc.TrainingStopped),
    ):
        for step in range(1, 30):
            m2.step(step, loss=math.nan if step >= 10 else 10.8 - 0.01 * step)


def test_ignoring_stalled_training_starts_no_watchdog(tmp_path: Path) -> None:
    m = traindoc.Monitor(settings=traindoc.settings.load(ignore=["stalled-training"]))
    assert m.watchdog is None and "stalled-training" not in m.rules
    m.close()


def test_a_params_override_changes_a_threshold_live(tmp_path: Path) -> None:
    cfg = tmp_path / "traindoc.toml"
    cfg.write_text("[rules.absurd-initial-loss]\nratio_error = 5.0\n")

    def first_findings(**kw: object) -> list:
        m = traindoc.Monitor(vocab_size=50257, watchdog=False, raise_on_stop=False, **kw)
        for step in range(1, 4):  # 30 / ln(50257) = 2.8x the floor
            m.step(step, loss=30.0)
        return [f for f in m.findings if f.rule == "absurd-initial-loss"]

    (default,) = first_findings(settings=Settings())
    assert default.severity == Severity.ERROR
    (relaxed,) = first_findings(settings=cfg)  # a path to the file
    assert relaxed.severity == Severity.WARNING  # 2.8x < 5x: only the warning band
    (found,) = first_findings(output_dir=tmp_path / "out")  # found upward from output_dir
    assert found.severity == Severity.WARNING


def test_vocab_size_from_the_settings_and_an_argument_wins(tmp_path: Path) -> None:
    (tmp_path / "traindoc.toml").write_text('vocab-size = 32000\nregime = "lora"\n')
    m = traindoc.Monitor(output_dir=tmp_path / "a", watchdog=False)
    assert m.facts["vocab_size"] == 32000 and m.facts["regime"] == "lora"
    m.close()
    m = traindoc.Monitor(50257, output_dir=tmp_path / "b", watchdog=False)
    assert m.facts["vocab_size"] == 50257
    m.close()


def test_a_wrong_rule_name_fails_at_construction(tmp_path: Path) -> None:
    bad = tmp_path / "traindoc.toml"
    bad.write_text('ignore = ["loss-spik"]\n[rules.lr-too-lo]\nflag_at = 1\n')
    with pytest.raises(SettingsError) as err:
        traindoc.Monitor(output_dir=tmp_path / "out", watchdog=False)
    assert len(err.value.errors) == 2  # both problems, at once
    assert "did you mean 'loss-spike'" in str(err.value)
    assert "`traindoc rules` lists the rule ids" in str(err.value)
    with pytest.raises(SettingsError):
        traindoc.Monitor(settings=tmp_path / "missing.toml", watchdog=False)
    assert not (tmp_path / "out").exists()  # failed before writing anything


def test_hf_callback_settings_fail_at_construction_and_never_in_a_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("transformers")
    from transformers import Trainer, TrainingArguments

    from tests.live.conftest import lm_data, tiny_gpt2
    from traindoc.integrations.hf import TraindocCallback

    bad = tmp_path / "bad.toml"
    bad.write_text('select = ["nonsense"]\n')
    with pytest.raises(SettingsError, match="nonsense"):
        TraindocCallback(settings=bad)
    # A bad file found only in the output dir when training begins: one warning, the
    # callback off, and the training runs to its end.
    out = tmp_path / "out"
    out.mkdir()
    (out / "traindoc.toml").write_text('ignore = ["nonsense"]\n')
    cb = TraindocCallback()
    args = TrainingArguments(
        output_dir=str(out),
        max_steps=3,
        per_device_train_batch_size=2,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=tiny_gpt2(), args=args, train_dataset=lm_data(), callbacks=[cb])
    with caplog.at_level(logging.WARNING, "traindoc"):
        trainer.train()
    assert trainer.state.global_step == 3 and cb.disabled
    (msg,) = [r.getMessage() for r in caplog.records if "disabled" in r.getMessage()]
    assert "nonsense" in msg


def test_hf_callback_applies_a_settings_ignore(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import torch
    from transformers import Trainer, TrainingArguments

    from tests.live.conftest import lm_data, tiny_gpt2
    from traindoc.integrations.hf import TraindocCallback

    def train(cb: TraindocCallback) -> list[str]:
        model = tiny_gpt2(tie=False)
        with torch.no_grad():  # seed A's exploded head: absurd-initial-loss at step 1
            model.lm_head.weight.normal_(0.0, 13.87)
        args = TrainingArguments(
            output_dir=str(tmp_path / "out"),
            max_steps=3,
            per_device_train_batch_size=2,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            disable_tqdm=True,
            dataloader_num_workers=0,
        )
        Trainer(model=model, args=args, train_dataset=lm_data(), callbacks=[cb]).train()
        return [f.rule for f in cb.findings]

    assert "absurd-initial-loss" in train(TraindocCallback(write=False, settings=Settings()))
    ignored = traindoc.settings.load(ignore=["absurd-initial-loss"])
    assert "absurd-initial-loss" not in train(TraindocCallback(write=False, settings=ignored))
