"""Facts from a free-form run config (Lightning hparams.yaml, a loop's run_config.json).

Such files have no schema, so only well-known spellings (and the FACTS names
themselves) are taken, numbers only, at the top level or one level down.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from traindoc.model import Fact
from traindoc.model.signals import FACTS, REGIMES
from traindoc.readers._base import Notes

# config key (lower-cased) -> run fact
ALIASES = {
    **dict.fromkeys(("lr", "learning_rate", "peak_lr", "max_lr"), "learning_rate"),
    **dict.fromkeys(
        ("batch_size", "train_batch_size", "per_device_train_batch_size", "micro_batch_size"),
        "per_device_batch",
    ),
    **dict.fromkeys(
        (
            "accumulate_grad_batches",
            "gradient_accumulation_steps",
            "grad_accum",
            "gradient_accumulation",
        ),
        "grad_accum",
    ),
    **dict.fromkeys(("max_epochs", "num_train_epochs", "epochs"), "num_train_epochs"),
    **dict.fromkeys(
        ("gradient_clip_val", "max_grad_norm", "grad_clip", "clip_grad_norm"), "max_grad_norm"
    ),
    **dict.fromkeys(("num_classes", "num_labels", "n_classes"), "num_classes"),
    **dict.fromkeys(("devices", "num_devices", "world_size", "n_gpus"), "devices"),
    **dict.fromkeys(("max_steps", "max_iters", "total_steps", "num_steps"), "max_steps"),
    **dict.fromkeys(("vocab_size", "n_vocab"), "vocab_size"),
    **dict.fromkeys(("warmup_steps", "warmup_iters"), "warmup_steps"),
    **dict.fromkeys(("lr_scheduler", "lr_scheduler_type", "scheduler"), "lr_scheduler"),
}
_TEXT = {"lr_scheduler", "regime", "task", "precision", "loss_dtype", "base_model"}
_PRECISION = {
    "bf16": "bf16",
    "16": "fp16",
    "fp16": "fp16",
    "32": "fp32",
    "fp32": "fp32",
    "64": "fp64",
}
_PRECISION |= {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "half": "fp16"}


def load(path: Path, notes: Notes) -> dict[str, Any] | None:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        notes.add(path, f"not read: {first}")
        return None
    return data if isinstance(data, dict) else None


def facts_from(data: dict[str, Any], source: str) -> dict[str, Fact]:
    flat: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                flat.setdefault(str(sub).lower(), (f"{key}.{sub}", v))
        else:
            flat[str(key).lower()] = (str(key), value)
    out: dict[str, Fact] = {}
    for key, (name, value) in flat.items():
        fact = ALIASES.get(key, key if key in FACTS else None)
        if fact is None or fact in out:
            continue
        if fact == "precision":
            prec = _PRECISION.get(str(value).lower().split("-")[0].removeprefix("torch."))
            if prec:
                out[fact] = Fact(prec, f"{source}: {name}={value}")
        elif fact in _TEXT:
            if isinstance(value, str) and (fact != "regime" or value in REGIMES):
                out[fact] = Fact(value, f"{source}: {name}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[fact] = Fact(value, f"{source}: {name}")
    return out
