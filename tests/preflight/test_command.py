"""preflight end to end: real tiny models and checkpoints, faulty and healthy for each check."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from tests.preflight.conftest import ASSETS, SEED_A, needs_torch
from traindoc.commands.preflight import preflight
from traindoc.engine import diagnose
from traindoc.outcome import InputError
from traindoc.preflight import first_batch
from traindoc.preflight.setup import build_run, specs
from traindoc.report.render import Output
from traindoc.settings import Settings


def _ids(model=None, config=None, data=None, gpu=None, gpu_mem=None, resume=None, **flags):
    run, extra = build_run(model, config, data, gpu, gpu_mem, resume, **flags)
    d = diagnose(run, specs(run))
    assert not d.errors, d.errors
    return {f.rule: f for f in d.findings}, run, extra


# --- first-batch loss (seed A) -------------------------------------------------------------


@needs_torch
def test_seed_a_exploded_head_gives_absurd_first_loss() -> None:
    t0 = time.perf_counter()
    found, _run, extra = _ids(SEED_A / "best")
    assert time.perf_counter() - t0 < 30  # seconds on one CPU thread
    fb = extra["first_batch"]
    assert fb["loss"] > 2 * math.log(256)
    assert found["absurd-initial-loss"].caused_by == (found["exploded-weights"].id,)
    assert str(found["exploded-weights"].severity) == "error"


@needs_torch
def test_seed_a_clean_checkpoint_is_at_or_below_the_floor(tmp_path: Path) -> None:
    found, _, extra = _ids(SEED_A / "checkpoint-30")
    assert "absurd-initial-loss" not in found and "exploded-weights" not in found
    assert extra["first_batch"]["ratio"] < 1.02  # random tokens: at the floor
    # the data it was trained on (next token = token + 1): far below ln(V)
    data = tmp_path / "ids.jsonl"
    data.write_text(
        "\n".join(json.dumps({"input_ids": [(s + i) % 256 for i in range(16)]}) for s in range(64))
    )
    _, _, extra = _ids(SEED_A / "checkpoint-30", data=data)
    assert extra["first_batch"]["tokens"].startswith("data")
    assert extra["first_batch"]["loss"] < math.log(256)


@needs_torch
def test_gpt2_vocab_fresh_model_starts_at_ln_v(tiny_gpt2: Path) -> None:
    found, run, extra = _ids(tiny_gpt2)
    assert abs(extra["first_batch"]["loss"] - math.log(50257)) < 0.1  # 10.82
    assert run.fact("regime") == "pretraining"  # weights still at init
    assert "absurd-initial-loss" not in found


@needs_torch
def test_gpt2_with_exploded_head_far_above_10_82(tiny_gpt2: Path, tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    d = tmp_path / "broken"
    d.mkdir()
    (d / "config.json").write_text((tiny_gpt2 / "config.json").read_text())
    sd = load_file(str(tiny_gpt2 / "model.safetensors"))
    g = torch.Generator().manual_seed(0)
    sd["transformer.wte.weight"] = (
        torch.randn(sd["transformer.wte.weight"].shape, generator=g) * 13.9
    )
    save_file(sd, str(d / "model.safetensors"), metadata={"format": "pt"})
    found, _, extra = _ids(d)
    assert extra["first_batch"]["loss"] > 2 * 10.82
    assert "absurd-initial-loss" in found


def test_without_torch_everything_else_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_batch, "available", lambda: False)
    found, run, extra = _ids(SEED_A / "best", learning_rate=1e-6, regime="pretraining")
    assert "first_batch" not in extra
    assert "exploded-weights" in found and "lr-too-low" in found
    assert any("traindoc[torch]" in n.message for n in run.notes)


# --- rate, schedule, batch, precision -------------------------------------------------------


def test_seed_a_lr_for_pretraining() -> None:
    found, _, _ = _ids(learning_rate=1e-6, regime="pretraining")
    assert found["lr-too-low"].evidence["peak_lr"] == 1e-6
    found, _, _ = _ids(learning_rate=3e-4, regime="pretraining", warmup_ratio=0.03, max_steps=10000)
    assert not {"lr-too-low", "lr-too-high", "warmup-too-long", "warmup-too-short"} & set(found)


def test_seed_b_setup_and_its_fix() -> None:
    bad = dict(regime="lora", learning_rate=5e-4, lr_scheduler="linear", warmup_ratio=0.1)
    found, _, _ = _ids(**bad, max_steps=1500, per_device_batch=2, grad_accum=2)
    assert {"warmup-too-long", "linear-schedule", "small-effective-batch"} <= set(found)
    assert "lr-too-high" not in found  # 5e-4 LoRA: only a curve could accuse it
    found, _, _ = _ids(regime="lora", learning_rate=3e-3, warmup_ratio=0.03, max_steps=1500)
    assert str(found["lr-too-high"].severity) == "info"
    good = dict(regime="lora", learning_rate=5e-5, lr_scheduler="cosine", warmup_ratio=0.03)
    found, _, _ = _ids(**good, max_steps=1500, per_device_batch=4, grad_accum=8)
    assert not found


def test_warmup_too_short_from_config() -> None:
    found, _, _ = _ids(regime="pretraining", learning_rate=6e-4, warmup_steps=0, max_steps=5000)
    assert "warmup-too-short" in found
    found, _, _ = _ids(regime="pretraining", learning_rate=6e-4, warmup_steps=100, max_steps=5000)
    assert "warmup-too-short" not in found


def test_large_batch_and_total_steps() -> None:
    found, _, _ = _ids(
        regime="lora", per_device_batch=16, devices=8, grad_accum=4, dataset_size=2000
    )
    assert str(found["large-effective-batch"].severity) == "warning"
    # steps counted in micro-batches: 10,000 samples / (4 x 2) x 1 epoch = 1250 micro, 78 optimizer steps
    found, _, _ = _ids(
        regime="lora",
        per_device_batch=8,
        grad_accum=16,
        dataset_size=10000,
        epochs=1,
        max_steps=1250,
    )
    assert "accumulation" in found["total-steps-mismatch"].evidence["cause"]
    found, _, _ = _ids(
        regime="lora", per_device_batch=8, grad_accum=16, dataset_size=10000, epochs=1, max_steps=79
    )
    assert "total-steps-mismatch" not in found


def test_precision_against_the_gpu() -> None:
    cfg = ASSETS / "hf-training-args.json"  # fp16
    found, _, _ = _ids(config=cfg, gpu="A100")
    assert str(found["precision-suboptimal"].severity) == "info"
    found, _, _ = _ids(config=cfg, gpu="T4")
    assert "precision-suboptimal" not in found  # no bf16 there: fp16 is right
    found, _, _ = _ids(config=cfg, gpu="A100", vocab_size=32000)
    _found_llama, run, _ = _ids(config=ASSETS / "llamafactory-pt.yaml", gpu="H100")
    assert run.fact("precision") == "fp16"


@needs_torch
def test_fp16_on_a_bf16_model_is_a_warning(tmp_path: Path) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=256,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(tmp_path)
    found, _run, _ = _ids(tmp_path, precision="fp16", gpu="RTX 4090")
    assert str(found["precision-suboptimal"].severity) == "warning"


# --- resume ----------------------------------------------------------------------------------


@needs_torch
def test_seed_a_resume_custom_loop(tmp_path: Path) -> None:
    import torch

    ckpt = tmp_path / "ckpt_300.pt"
    torch.save({"model": {"w": torch.zeros(2)}, "optimizer": {}, "step": 300}, ckpt)
    found, _, _ = _ids(resume=ckpt, grad_accum=16, logging_steps=10)
    f = found["resume-step-mismatch"]
    assert "never-fires" in f.evidence["problems"]
    assert f.evidence["conditions"]["logging_steps"]["next_as_restored"] is None
    assert f.evidence["conditions"]["logging_steps"]["next_correct"] == 310
    found, _, _ = _ids(resume=ckpt, grad_accum=16, logging_steps=10, step_counter="micro")
    assert str(found["resume-step-mismatch"].severity) == "error"
    ok = tmp_path / "ckpt_320.pt"
    torch.save({"model": {}, "optimizer": {}, "scheduler": {}, "step": 320}, ok)
    found, _, _ = _ids(resume=ok, grad_accum=16, logging_steps=10)
    assert "resume-step-mismatch" not in found


@needs_torch
def test_hf_checkpoint_state_consistent(hf_checkpoint: Path) -> None:
    found, run, _ = _ids(resume=hf_checkpoint, grad_accum=16, logging_steps=10)
    assert run.fact("resume_state")["scheduler_step"] == 300
    assert run.fact("resume_state")["optimizer_step"] == 300
    assert "resume-step-mismatch" not in found  # HF counts optimizer steps: 300 is fine


@needs_torch
def test_hf_checkpoint_scheduler_stepped_per_micro_batch(
    hf_checkpoint: Path, tmp_path: Path
) -> None:
    import shutil

    import torch

    d = tmp_path / "checkpoint-300"
    shutil.copytree(hf_checkpoint, d)
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    for _ in range(300 * 4):
        opt.step()
        sched.step()
    torch.save(sched.state_dict(), d / "scheduler.pt")
    (d / "optimizer.pt").unlink()
    found, _, _ = _ids(resume=d, grad_accum=4)
    f = found["resume-step-mismatch"]
    assert "scheduler-per-micro-batch" in f.evidence["problems"] and str(f.severity) == "error"
    assert "state-missing" in f.evidence["problems"]
    # the title says what happened in plain words, not the evidence's kinds
    assert "optimizer.pt was not restored" in f.title
    assert "the scheduler stepped every micro-batch" in f.title
    assert "state-missing" not in f.title and "per-micro-batch" not in f.title


# --- memory ----------------------------------------------------------------------------------


def _llama7b(tmp_path: Path) -> Path:
    cfg = {
        "model_type": "llama",
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return tmp_path


def test_7b_full_finetune_on_24gb_does_not_fit(tmp_path: Path) -> None:
    m = _llama7b(tmp_path)
    found, run, _extra = _ids(
        m,
        gpu="RTX 4090",
        regime="full-finetune",
        precision="bf16",
        per_device_batch=4,
        seq_len=2048,
        learning_rate=2e-5,
    )
    f = found["memory-insufficient"]
    assert str(f.severity) == "error" and f.evidence["cheapest_fix"].endswith(
        "LoRA (r=16) on the frozen base instead of full training"
    )
    assert 6.5e9 < run.fact("n_params") < 6.9e9  # LLaMA-7B: 6.74e9
    found, _, _ = _ids(
        m,
        gpu="RTX 4090",
        regime="qlora",
        precision="bf16",
        per_device_batch=1,
        seq_len=2048,
        gradient_checkpointing=True,
        learning_rate=1e-4,
    )
    assert "memory-insufficient" not in found


def test_memory_cheapest_fix_is_checkpointing_when_that_suffices(tmp_path: Path) -> None:
    m = _llama7b(tmp_path)
    found, _, _extra = _ids(
        m,
        gpu_mem="24GB",
        regime="lora",
        precision="bf16",
        per_device_batch=2,
        seq_len=4096,
        learning_rate=1e-4,
    )
    assert found["memory-insufficient"].evidence["cheapest_fix"] == "gradient checkpointing"


# --- the command -----------------------------------------------------------------------------


def test_exit_codes_and_json(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(first_batch, "available", lambda: False)

    def run(fmt: str = "terminal", **args) -> int:
        return preflight(Settings(), Output(), fmt=fmt, **args)

    rc = run("json", model=SEED_A / "best")
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "broken"
    assert run("json", model=SEED_A / "checkpoint-30") == 0
    # unusable input: the CLI's one line and exit 2
    for bad in ({"model": Path("/nope")}, {"gpu": "Voodoo 3"}, {"regime": "x"}):
        with pytest.raises(InputError):
            run(**bad)


def test_data_counts(tmp_path: Path) -> None:
    data = tmp_path / "train.jsonl"
    data.write_text("\n".join(json.dumps({"text": "hi" if i % 50 else "  "}) for i in range(200)))
    found, run, _ = _ids(data=data)
    assert run.fact("dataset_size") == 200
    assert found["empty-samples"].evidence["empty"] == 4
    assert "dataset-too-small" in found


def test_data_counts_without_the_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traindoc.preflight import dataset

    monkeypatch.setattr(dataset, "_audit", lambda data, notes: None)
    data = tmp_path / "train.jsonl"
    data.write_text("\n".join(json.dumps({"text": "hi" if i % 50 else "  "}) for i in range(200)))
    found, run, _ = _ids(data=data)
    assert run.fact("dataset_size") == 200
    assert found["empty-samples"].evidence["empty"] == 4 and "dataset-too-small" in found
    data.write_text("\n".join(json.dumps({"text": f"sample {i}"}) for i in range(1500)))
    found, _, _ = _ids(data=data)
    assert not {"empty-samples", "dataset-too-small"} & set(found)
