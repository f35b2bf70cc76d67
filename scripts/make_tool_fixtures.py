#!/usr/bin/env python3
"""LLaMA-Factory- and Axolotl-shaped output dirs from REAL HF Trainer runs (FORMATS.md 2).

Neither tool is installed here (each pulls a large stack), so each case is a
real `transformers.Trainer` run of a tiny GPT-2 from a config (vocab 50257,
n_embd 32, 2 layers; stdlib source as UTF-8 bytes; floor ln V = 10.82) with:

* LLaMA-Factory: a TrainerCallback that appends trainer_log.jsonl exactly in
  LogCallback's schema (current_steps, total_steps, loss, lr, epoch,
  percentage, elapsed_time/remaining_time as str(timedelta); None dropped; no
  grad_norm), and the training YAML in the shape of examples/train_full/*.yaml.
* Axolotl: a Trainer subclass whose log() adds the keys axolotl's base trainer
  adds (ppl, memory/... (GiB), tokens/...; keys with spaces and parentheses),
  and the YAML in the shape of its examples (learning_rate as a string,
  micro_batch_size, lr_scheduler, datasets: [{path, type}]).

Kept: trainer_state.json, config.json, training_args.bin, *_results.json,
trainer_log.jsonl and the YAML (weights are deleted).

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_tool_fixtures.py
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import os
import shutil
import time
from datetime import timedelta
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
KEEP = {
    "trainer_state.json",
    "config.json",
    "training_args.bin",
    "all_results.json",
    "train_results.json",
    "trainer_log.jsonl",
    "expected.json",
}

LF_YAML = """\
### model
model_name_or_path: ./tiny-gpt2
trust_remote_code: true
train_from_scratch: true

### method
stage: pt
do_train: true
finetuning_type: full

### dataset
dataset: c4_demo
cutoff_len: 32
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 1
dataloader_num_workers: 0

### output
output_dir: saves/tiny-gpt2/full/pt
logging_steps: 1
save_steps: 500
plot_loss: true
overwrite_output_dir: true
save_only_model: false
report_to: none

### train
per_device_train_batch_size: 4
gradient_accumulation_steps: 1
learning_rate: {lr}
num_train_epochs: 1.0
max_steps: {steps}
lr_scheduler_type: {sched}
warmup_ratio: {warmup}
bf16: false
ddp_timeout: 180000000
resume_from_checkpoint: null
"""

AX_YAML = """\
base_model: ./tiny-gpt2
model_type: AutoModelForCausalLM
tokenizer_type: AutoTokenizer

load_in_8bit: false
load_in_4bit: false

datasets:
  - path: mhenrichsen/alpaca_2k_test
    type: alpaca
dataset_prepared_path:
val_set_size: 0
output_dir: ./outputs/tiny-gpt2

sequence_len: 32
sample_packing: false

wandb_project:
wandb_entity:

gradient_accumulation_steps: 1
micro_batch_size: 4
num_epochs: 1
max_steps: {steps}
optimizer: adamw_torch_fused
lr_scheduler: {sched}
learning_rate: {lr}
max_grad_norm: {clip}

bf16: false
fp16: false
tf32: false

gradient_checkpointing: false
resume_from_checkpoint:
logging_steps: 1
warmup_steps: {warmup}
saves_per_epoch: 1
weight_decay: 0.0
"""


class Chunks:
    def __init__(self) -> None:
        import torch

        mods = ["argparse", "textwrap", "string", "shlex", "calendar", "csv"]
        data = "\n".join(inspect.getsource(importlib.import_module(m)) for m in mods).encode()
        ids = torch.tensor(list(data), dtype=torch.long)
        self.x = ids[: len(ids) // 32 * 32].view(-1, 32)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict:
        return {"input_ids": self.x[i], "labels": self.x[i], "attention_mask": self.x[i] * 0 + 1}


def _model():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    return GPT2LMHeadModel(
        GPT2Config(
            vocab_size=50257,
            n_embd=32,
            n_layer=2,
            n_head=2,
            n_positions=64,
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
        )
    )


def _args(out: Path, steps: int, lr: float, sched: str, warmup: float, clip: float):
    from transformers import TrainingArguments

    return TrainingArguments(
        output_dir=str(out),
        max_steps=steps,
        learning_rate=lr,
        lr_scheduler_type=sched,
        warmup_steps=warmup,  # transformers 5: a float < 1 is a ratio
        per_device_train_batch_size=4,
        logging_steps=1,
        save_steps=10_000,
        report_to=[],
        use_cpu=True,
        max_grad_norm=clip,
        seed=0,
        dataloader_num_workers=0,
    )


class LogCallback:
    """trainer_log.jsonl as LLaMA-Factory's LogCallback writes it (callbacks.py)."""

    def __init__(self, out: Path) -> None:
        self.path, self.start = out / "trainer_log.jsonl", time.time()

    def __getattr__(self, name):  # every other TrainerCallback hook: do nothing
        if name.startswith("on_"):
            return lambda *a, **k: None
        raise AttributeError(name)

    def on_log(self, args, state, control, logs=None, **kw):
        logs = logs or {}
        elapsed = time.time() - self.start
        cur, total = state.global_step, state.max_steps
        rem = elapsed / cur * (total - cur) if cur else 0
        rec = dict(
            current_steps=cur,
            total_steps=total,
            loss=logs.get("loss"),
            eval_loss=logs.get("eval_loss"),
            lr=logs.get("learning_rate"),
            epoch=logs.get("epoch"),
            percentage=round(cur / total * 100, 2) if total else 100,
            elapsed_time=str(timedelta(seconds=int(elapsed))),
            remaining_time=str(timedelta(seconds=int(rem))),
        )
        rec = {k: v for k, v in rec.items() if v is not None}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")


def _axolotl_trainer():
    from transformers import Trainer

    class AxolotlLikeTrainer(Trainer):
        """Adds the log keys axolotl's core/trainers/base.py adds (FORMATS.md 2.2)."""

        def log(self, logs, start_time=None):
            if "loss" in logs:
                logs["ppl"] = round(math.exp(min(logs["loss"], 50)), 5)
                logs["memory/max_active (GiB)"] = 0.01
                logs["memory/max_allocated (GiB)"] = 0.01
                logs["tokens/train_per_sec_per_gpu"] = 4 * 32 / 0.05
            super().log(logs, start_time)

    return AxolotlLikeTrainer


def run(
    name: str,
    tool: str,
    *,
    steps: int,
    lr: float,
    sched: str,
    warmup: float,
    clip: float,
    expect: list[str],
    story: str,
    also: list[str] | None = None,
) -> None:
    import torch
    from transformers import Trainer

    torch.set_num_threads(1)
    case = CORPUS / name
    shutil.rmtree(case, ignore_errors=True)
    out = case / "output"
    out.mkdir(parents=True)
    args = _args(out, steps, lr, sched, warmup, clip)
    if tool == "llamafactory":
        lr_text = f"{lr:.1e}"  # LLaMA-Factory's examples write 1.0e-4
        (case / "tiny_pt.yaml").write_text(
            LF_YAML.format(lr=lr_text, steps=steps, sched=sched, warmup=warmup)
        )
        t = Trainer(model=_model(), args=args, train_dataset=Chunks(), callbacks=[LogCallback(out)])
    else:
        (case / "axolotl.yml").write_text(
            AX_YAML.format(lr=f'"{lr:g}"', steps=steps, clip=clip, warmup=int(warmup), sched=sched)
        )
        t = _axolotl_trainer()(model=_model(), args=args, train_dataset=Chunks())
    res = t.train()
    t.save_metrics("train", res.metrics)
    t.save_metrics("all", res.metrics)
    t.save_state()
    t.model.config.to_json_file(str(out / "config.json"))
    for p in sorted(out.rglob("*"), reverse=True):
        if p.is_file() and p.name not in KEEP:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    hist = json.loads((out / "trainer_state.json").read_text())["log_history"]
    losses = [h["loss"] for h in hist if "loss" in h]
    exp = {
        "expect": expect,
        "healthy": not expect,
        "story": story,
        "numbers": {
            "loss_first": losses[0],
            "loss_last": losses[-1],
            "loss_max": max(v for v in losses if math.isfinite(v)),
        },
    }
    if also:
        exp["also_applies"] = also
    (case / "expected.json").write_text(json.dumps(exp, indent=2) + "\n")
    print(f"[{name}] loss {losses[0]:.3f} -> {losses[-1]:.3f}")


CASES = {
    "llamafactory-healthy": dict(
        tool="llamafactory",
        steps=150,
        lr=2e-3,
        sched="cosine",
        warmup=0.03,
        clip=1.0,
        expect=[],
        story="LLaMA-Factory-shaped pt/full run (train_from_scratch), real HF Trainer: "
        "LR 2.0e-3 cosine, warmup_ratio 0.03, batch 4, 150 steps; trainer_log.jsonl + "
        "trainer_state.json + tiny_pt.yaml in the parent.",
    ),
    "llamafactory-divergence": dict(
        tool="llamafactory",
        steps=120,
        lr=1.0,
        sched="constant",
        warmup=0.0,
        clip=0.0,
        expect=["divergence"],
        also=[
            "lr-too-high",
            "warmup-too-short",
            "grad-explosion",
            "absurd-initial-loss",
            "grad-spike",
            "loss-spike",
        ],
        story="LLaMA-Factory-shaped run, real HF Trainer: learning_rate 1.0e+00 constant, no "
        "warmup, clipping off: the loss blows up.",
    ),
    "axolotl-healthy": dict(
        tool="axolotl",
        steps=150,
        lr=2e-3,
        sched="cosine",
        warmup=5,
        clip=1.0,
        expect=[],
        story="Axolotl-shaped run, real HF Trainer with axolotl's extra log keys (ppl, memory/* "
        '(GiB), tokens/*): learning_rate "0.002", cosine, 5 warmup steps, micro_batch_size 4.',
    ),
    "axolotl-divergence": dict(
        tool="axolotl",
        steps=120,
        lr=1.0,
        sched="constant",
        warmup=1,
        clip=0.0,
        expect=["divergence"],
        also=[
            "lr-too-high",
            "warmup-too-short",
            "grad-explosion",
            "absurd-initial-loss",
            "grad-spike",
            "loss-spike",
        ],
        story='Axolotl-shaped run, real HF Trainer: learning_rate "1" (a string), '
        "lr_scheduler constant, 1 warmup step, max_grad_norm 0: the loss blows up.",
    ),
}

if __name__ == "__main__":
    import sys

    for n, spec in CASES.items():
        if len(sys.argv) < 2 or n in sys.argv[1:]:
            run(n, **spec)
