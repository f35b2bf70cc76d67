"""LLaMA-Factory / Axolotl output dirs and YAMLs (scripts/make_tool_fixtures.py: real HF
Trainer runs in each tool's shapes) and TRL-shaped trainer states (keys as TRL logs them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.readers.helpers import load_checked, state, write_state
from traindoc.engine import diagnose
from traindoc.readers import load_run
from traindoc.readers.configs import tool_facts

CORPUS = Path(__file__).parents[1] / "corpus"


def test_llamafactory_log_merged_with_state() -> None:
    run = load_checked(CORPUS / "llamafactory-healthy")
    loss, gn = run.get("loss"), run.get("grad_norm")
    assert loss is not None and gn is not None and len(loss) == len(gn) == 150
    assert loss.times is not None and loss.times[-1] >= loss.times[0]  # elapsed_time
    assert run.fact("trainer") == "llamafactory" and run.fact("tool") == "llamafactory"
    assert run.fact("regime") == "pretraining"  # train_from_scratch: true
    assert run.fact("stage") == "pt" and run.fact("max_seq_len") == 32
    assert run.fact("learning_rate") == 2e-3 and run.fact("dataset") == "c4_demo"
    kinds = {i.kind for i in run.inputs}
    assert {"llamafactory-log", "llamafactory-config", "hf-trainer-state"} <= kinds
    assert not any("not read" in n.message for n in run.notes)


def test_llamafactory_log_alone(tmp_path: Path) -> None:
    src = (CORPUS / "llamafactory-healthy" / "output" / "trainer_log.jsonl").read_text()
    lines = src.splitlines()
    extra = [
        '{"current_steps": 5, "total_steps": 150, "percentage": 3.33, '
        '"elapsed_time": "1 day, 0:00:01", "remaining_time": "0:00:09"}',  # progress only
        "{not json",
    ]
    (tmp_path / "trainer_log.jsonl").write_text("\n".join([*lines, *extra]) + "\n")
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None and len(loss) == 150 and run.get("grad_norm") is None
    assert run.fact("max_steps") == 150  # from total_steps
    assert any("truncated last line" in n.message for n in run.notes)
    one = load_run(tmp_path / "trainer_log.jsonl")
    assert len(one.get("lr") or ()) == 150


def test_llamafactory_yaml_lora_and_resume() -> None:
    text = """
model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct
stage: sft
finetuning_type: lora
lora_rank: 8
lora_target: all
dataset: identity,alpaca_en_demo
template: llama3
cutoff_len: 2048
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 1.0e-4
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
resume_from_checkpoint: saves/llama3-8b/lora/sft/checkpoint-500
"""
    f = tool_facts(yaml.safe_load(text), "llama3_lora_sft.yaml")
    got = {k: v.value for k, v in f.items()}
    assert got["regime"] == "lora" and got["lora_r"] == 8 and got["tool"] == "llamafactory"
    assert got["learning_rate"] == 1e-4 and got["precision"] == "bf16"
    assert got["per_device_batch"] == 1 and got["grad_accum"] == 8
    assert got["lr_scheduler"] == "cosine" and got["warmup_ratio"] == 0.1
    assert got["resume_steps"] == (500,) and got["max_seq_len"] == 2048
    assert "finetuning_type" in f["regime"].source


def test_axolotl_yaml_strings_defaults_and_adapter() -> None:
    text = """
base_model: NousResearch/Llama-3.2-1B
adapter: qlora
lora_r: 32
lora_alpha: 16
datasets:
  - path: teknium/GPT4-LLM-Cleaned
    type: alpaca
sequence_len: 2048
micro_batch_size: 2
gradient_accumulation_steps: 4
num_epochs: 1
learning_rate: 2e-4
warmup_steps: 10
bf16: auto
"""
    got = {k: v.value for k, v in tool_facts(yaml.safe_load(text), "qlora.yml").items()}
    assert got["tool"] == "axolotl" and got["regime"] == "lora" and got["lora_r"] == 32
    assert got["learning_rate"] == 2e-4  # YAML reads "2e-4" as a string
    assert got["lr_scheduler"] == "cosine"  # axolotl's default when unset
    assert got["per_device_batch"] == 2 and got["dataset"] == "teknium/GPT4-LLM-Cleaned"
    assert "precision" not in got  # bf16: auto says nothing
    assert tool_facts({"lr": 0.1, "batch_size": 3}, "hparams.yaml") == {}


def test_axolotl_real_run_keeps_odd_keys() -> None:
    run = load_checked(CORPUS / "axolotl-healthy")
    assert run.get("memory/max_active (gib)") is not None and run.get("ppl") is not None
    assert run.fact("tool") == "axolotl" and run.fact("dataset") == "mhenrichsen/alpaca_2k_test"
    assert any(i.kind == "axolotl-config" for i in run.inputs)


def test_unrelated_yaml_in_parent_is_ignored(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "healthy-pretrain-cosine", tmp_path / "run")
    (tmp_path / "docker-compose.yml").write_text("services:\n  web:\n    image: x\n")
    run = load_checked(tmp_path / "run")
    assert run.fact("tool") is None


def _grpo(step: int, std: float, gn: float) -> dict:
    return {
        "step": step,
        "epoch": step / 50,
        "loss": 0.0,
        "grad_norm": gn,
        "learning_rate": 1e-6,
        "reward": 0.5,
        "reward_std": std,
        "kl": 0.001 * step,
        "completions/mean_length": 31.0,
        "rewards/accuracy_reward/mean": 0.5,
        "rewards/accuracy_reward/std": std,
        "entropy": 2.1,
        "num_tokens": 512.0 * step,
    }


def test_trl_grpo_state_reward_signals_and_rl_no_signal(tmp_path: Path) -> None:
    hist = [_grpo(s, 0.0, 0.0) for s in range(1, 41)]
    write_state(tmp_path / "trainer_state.json", state(hist, global_step=40, max_steps=40))
    run = load_checked(tmp_path)
    assert run.get("reward") is not None and run.get("reward_std") is not None
    assert run.get("kl") is not None and run.get("rewards/accuracy_reward/std") is not None
    assert run.fact("task") == "rl"
    assert "rl-no-signal" in {f.rule for f in diagnose(run).findings}


def test_trl_dpo_state(tmp_path: Path) -> None:
    hist = [
        {
            "step": s,
            "loss": 0.69 - 0.01 * s,
            "grad_norm": 1.0,
            "learning_rate": 5e-7,
            "rewards/chosen": 0.01 * s,
            "rewards/rejected": -0.01 * s,
            "rewards/accuracies": 0.6,
            "rewards/margins": 0.02 * s,
            "logps/chosen": -80.0,
        }
        for s in range(1, 21)
    ]
    write_state(tmp_path / "trainer_state.json", json.dumps(state(hist)))
    run = load_checked(tmp_path)
    # rewards/chosen is DPO's implicit reward, not an RL reward: the DPO loss is a real
    # logistic loss (ln 2 at the start), so the run is not judged as RL
    assert run.get("reward") is None and run.get("rewards/chosen") is not None
    assert run.get("rewards/margins") is not None and run.get("logps/chosen") is not None
    assert not run.is_rl
