"""HF Trainer + TraindocCallback on real tiny trainings."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from typer.testing import CliRunner

from tests.live.conftest import lm_data, tiny_gpt2
from traindoc.cli import app


def _trainer(model, out: Path, steps: int, callbacks: list, **kw):
    from transformers import Trainer, TrainingArguments

    args = TrainingArguments(
        output_dir=str(out),
        max_steps=steps,
        per_device_train_batch_size=2,
        learning_rate=kw.pop("lr", 3e-3),
        logging_steps=5,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
        **kw,
    )
    return Trainer(model=model, args=args, train_dataset=lm_data(), callbacks=callbacks)


def test_exploded_head_checkpoint_stops_at_step_1(tmp_path: Path) -> None:
    import torch
    from transformers import GPT2LMHeadModel

    from traindoc.integrations.hf import TraindocCallback

    model = tiny_gpt2(tie=False)
    with torch.no_grad():  # seed A: lm_head std 13.87 where GPT-2 initialises at 0.02
        model.lm_head.weight.normal_(0.0, 13.87)
    ckpt = tmp_path / "best"
    model.save_pretrained(ckpt)
    cb = TraindocCallback(regime="pretraining")
    trainer = _trainer(GPT2LMHeadModel.from_pretrained(ckpt), tmp_path / "out", 300, [cb])
    trainer.train()
    assert trainer.state.global_step == 1  # seed A's 300 wasted steps become one
    (f,) = [f for f in cb.findings if f.rule == "absurd-initial-loss"]
    assert f.step == 1 and f.evidence["vocab_size"] == 50257
    assert f.evidence["ratio"] > 2
    rec = [
        json.loads(x) for x in (tmp_path / "out/traindoc/findings.jsonl").read_text().splitlines()
    ]
    assert rec[0]["rule"] == "absurd-initial-loss" and rec[0]["action"] == "stop"
    # diagnose reads the run back, and says the monitor stopped it there
    res = CliRunner().invoke(app, ["diagnose", str(tmp_path / "out"), "--format", "json"])
    (report,) = json.loads(res.stdout)["runs"]
    (found,) = [f for f in report["findings"] if f["rule"] == "absurd-initial-loss"]
    assert found["evidence"]["live"]["action"] == "stop" and found["step"] == 1
    text = CliRunner().invoke(app, ["diagnose", str(tmp_path / "out")]).stdout
    assert "live monitor stopped training at step 1" in " ".join(text.split())


def test_nan_run_stops_at_the_nan_step(tmp_path: Path) -> None:
    from transformers import TrainerCallback

    from traindoc.integrations.hf import TraindocCallback

    class PoisonAt(TrainerCallback):  # a weight turns NaN right before step 6's forward
        def on_step_begin(self, args, state, control, model=None, **kw):
            if state.global_step + 1 == 6:
                model.transformer.h[0].mlp.c_fc.weight.data[0, 0] = math.nan

    cb = TraindocCallback()
    trainer = _trainer(tiny_gpt2(), tmp_path, 50, [PoisonAt(), cb])
    trainer.train()
    assert trainer.state.global_step == 6
    (f,) = [f for f in cb.findings if f.rule == "nonfinite-loss"]
    assert f.step == 6 and str(f.severity) == "error"


def test_healthy_run_finishes_untouched(tmp_path: Path) -> None:
    from traindoc.integrations.hf import TraindocCallback

    cb = TraindocCallback(sample_every=10)
    trainer = _trainer(tiny_gpt2(), tmp_path, 30, [cb])
    trainer.train()
    assert trainer.state.global_step == 30
    assert cb.monitor is not None and not cb.monitor.should_stop
    assert not [f for f in cb.findings if str(f.severity) == "error"], cb.findings
    lines = (tmp_path / "traindoc/metrics.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    steps = [r["step"] for r in recs if "loss" in r]
    assert steps == list(range(1, 31))
    sampled = [r for r in recs if any(k.startswith("update_ratio/") for k in r)]
    assert [r["step"] for r in sampled] == [10, 20, 30]
    assert any(k.startswith("dead_units/") for k in sampled[0])
    assert any(k.startswith("layer_grad_norm/transformer.h.0") for k in sampled[0])


def test_callback_bug_never_crashes_training(tmp_path: Path, caplog) -> None:
    from traindoc.integrations.hf import TraindocCallback

    cb = TraindocCallback()
    trainer = _trainer(tiny_gpt2(), tmp_path, 6, [cb])
    cb.on_step_end = _boom.__get__(cb)  # type: ignore[method-assign]
    trainer.train()
    assert trainer.state.global_step == 6


def _boom(self, *a, **k):
    from traindoc.live.guard import guard

    @guard
    def inner(self, *a, **k):
        raise RuntimeError("bug in traindoc")

    return inner(self, *a, **k)
