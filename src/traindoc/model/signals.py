"""Canonical signal names and the spellings each log format uses for them.

Readers map whatever key a tool wrote onto these names, so rules only ever
see one vocabulary. Anything unknown is kept under its own (normalised) name
as an extra series rather than dropped.
"""

from __future__ import annotations

from enum import Enum


class Signal(str, Enum):
    LOSS = "loss"
    EVAL_LOSS = "eval_loss"
    GRAD_NORM = "grad_norm"
    LR = "lr"
    EPOCH = "epoch"
    THROUGHPUT = "throughput"
    REWARD = "reward"
    REWARD_STD = "reward_std"

    def __str__(self) -> str:
        return self.value


# Key spellings seen in the wild (HF Trainer, Lightning, nanoGPT-style JSONL,
# W&B-style slash names). Lookup is on the lower-cased key.
ALIASES: dict[str, Signal] = {
    **dict.fromkeys(
        [
            "loss",
            "train_loss",
            "train/loss",
            "training_loss",
            "train_loss_step",
            "lm_loss",
            "lm loss",
            "loss_step",
            "train/loss_step",
        ],
        Signal.LOSS,
    ),
    **dict.fromkeys(
        [
            "eval_loss",
            "val_loss",
            "valid_loss",
            "validation_loss",
            "eval/loss",
            "val/loss",
            "validation/loss",
            "val_loss_epoch",
            "test_loss",
        ],
        Signal.EVAL_LOSS,
    ),
    **dict.fromkeys(
        [
            "grad_norm",
            "gradient_norm",
            "train/grad_norm",
            "grad norm",
            "grad_norm_step",
            "grad/norm",
        ],
        Signal.GRAD_NORM,
    ),
    **dict.fromkeys(
        [
            "lr",
            "learning_rate",
            "train/learning_rate",
            "learning rate",
            "lr_step",
            "train/lr",
            "lr-adamw",
            "lr-adam",
            "lr-sgd",
        ],
        Signal.LR,
    ),
    **dict.fromkeys(["epoch", "train/epoch"], Signal.EPOCH),
    **dict.fromkeys(
        [
            "throughput",
            "tokens_per_second",
            "train_tokens_per_second",
            "tokens_per_sec",
            "tok/s",
            "samples_per_second",
            "it/s",
            "steps_per_second",
            "tps",
        ],
        Signal.THROUGHPUT,
    ),
    **dict.fromkeys(["reward", "rewards/mean", "train/reward", "rewards/chosen"], Signal.REWARD),
    **dict.fromkeys(["reward_std", "train/reward_std", "rewards/std"], Signal.REWARD_STD),
}

# Keys that carry the step counter in generic logs, in order of preference.
STEP_KEYS = (
    "step",
    "global_step",
    "iter",
    "iteration",
    "_step",
    "current_steps",
    "trainer/global_step",
)
# Keys that carry wall-clock time (seconds since the epoch, or relative seconds).
TIME_KEYS = ("time", "timestamp", "wall_time", "_timestamp", "walltime")

REGIMES = ("pretraining", "full-finetune", "lora")


def canonical(key: str) -> str:
    """The canonical name for a logged key; unknown keys keep their own name."""
    low = key.strip().lower()
    sig = ALIASES.get(low)
    return sig.value if sig else low


# Run facts: the names readers fill and rules read (value types in brackets).
# Each is stored as a Fact(value, source) so a report can say where it came from.
FACTS = {
    "vocab_size": "[int] tokens in the output vocabulary (config.json, tokenizer, --vocab-size)",
    "n_params": "[int] model parameters (checkpoint tensors, else estimated from config.json)",
    "num_classes": "[int] classes of a classifier (ln(C) is its floor)",
    "regime": "[str] pretraining | full-finetune | lora",
    "task": "[str] lm | classification | rl",
    "trainer": "[str] which tool wrote the log: hf | lightning | jsonl | ...",
    "max_steps": "[int] planned optimizer steps",
    "ended": "[bool] the log records that training ended (HF's train_runtime summary, W&B's exit record)",
    "num_train_epochs": "[float] planned epochs",
    "per_device_batch": "[int] micro-batch per device",
    "devices": "[int] data-parallel world size",
    "grad_accum": "[int] gradient accumulation steps",
    "effective_batch": "[int] per_device_batch x devices x grad_accum",
    "max_grad_norm": "[float] clipping threshold; 0 or None = no clipping",
    "precision": "[str] fp32 | bf16 | fp16",
    "learning_rate": "[float] configured peak LR",
    "lr_scheduler": "[str] linear | cosine | constant | constant_with_warmup | ...",
    "warmup_steps": "[int] configured warmup steps",
    "warmup_ratio": "[float] configured warmup as a fraction of max_steps",
    "logging_steps": "[int]",
    "eval_steps": "[int]",
    "save_steps": "[int]",
    "resume_steps": "[tuple[int, ...]] steps at which the run was resumed",
    "trainable_params": "[int] number of trainable parameters",
    "dataset_size": "[int] training samples",
    "loss_dtype": "[str] bf16 | fp16 | fp32: precision of the logged loss, for quantisation",
    "versions": "[dict[str, str]] library versions found (transformers, torch, ...)",
    "base_model": "[str] model the run started from",
}
