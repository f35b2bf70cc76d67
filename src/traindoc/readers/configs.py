"""Facts from a free-form run config (Lightning hparams.yaml, a loop's run_config.json).

Such files have no schema, so only well-known spellings (and the fact names declared
`from_config` in model/facts.py) are taken, numbers only, at the top level or one level down.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from traindoc.model import Fact
from traindoc.model.facts import CONFIG_NAMES
from traindoc.model.numbers import MAX_STEP, count, loads
from traindoc.model.params import params_from_config
from traindoc.model.signals import REGIMES
from traindoc.readers._base import Notes, to_float

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
    # fairseq's `--max-epoch` (and the scripts built on its options) names the plan too
    **dict.fromkeys(
        ("max_epochs", "max_epoch", "num_train_epochs", "epochs", "num_epochs"), "num_train_epochs"
    ),
    **dict.fromkeys(
        ("gradient_clip_val", "max_grad_norm", "grad_clip", "clip_grad_norm", "clip"),
        "max_grad_norm",
    ),
    # (PaddleClas / PaddleOCR's class_num, DeiT / timm's nb_classes, the nclass of many
    # segmentation repos: one setting, spelled per codebase)
    **dict.fromkeys(
        (
            "num_classes",
            "num_labels",
            "n_classes",
            "num_class",
            "class_num",
            "nclass",
            "nclasses",
            "n_class",
            "nb_classes",
            "number_of_classes",
        ),
        "num_classes",
    ),
    **dict.fromkeys(("devices", "num_devices", "world_size", "n_gpus"), "devices"),
    # (training_steps, lr_scheduler_warmup_*, total_train_batch_size, mixed_precision_training:
    # the names HF Trainer's model card lists its hyperparameters under)
    **dict.fromkeys(
        # fairseq's planned update count is max_update (its hydra config dict, its argparse
        # Namespace)
        # (and detectron2's SOLVER.MAX_ITER, echoed as "  MAX_ITER: 90000" under "Running with
        # full config:")
        (
            "max_steps",
            "max_iters",
            "max_iter",
            "total_steps",
            "num_steps",
            "training_steps",
            "max_update",
        ),
        "max_steps",
    ),
    # (a from-scratch LM's own print names it in words: "Vocabulary size: 32768",
    # "Tokenizer vocab size: 32000", "vocab: 50257")
    **dict.fromkeys(
        ("vocab_size", "n_vocab", "vocabulary_size", "tokenizer_vocab_size", "vocab"),
        "vocab_size",
    ),
    **dict.fromkeys(("warmup_steps", "warmup_iters", "lr_scheduler_warmup_steps"), "warmup_steps"),
    **dict.fromkeys(("warmup_ratio", "lr_scheduler_warmup_ratio"), "warmup_ratio"),
    # (detectron2's SOLVER.IMS_PER_BATCH: the images of one step over all GPUs)
    **dict.fromkeys(("total_train_batch_size", "ims_per_batch"), "effective_batch"),
    **dict.fromkeys(
        # (Keras' keras.json `floatx`: the dtype of every layer, float16 = pure fp16)
        ("mixed_precision", "mixed_precision_training", "training_precision", "floatx"),
        "precision",
    ),
    **dict.fromkeys(("lr_scheduler", "lr_scheduler_type", "scheduler"), "lr_scheduler"),
    # (a Keras model card's optimizer dict gives both: profiles.keras_optimizer)
    **dict.fromkeys(("optim", "optimizer", "opt", "optim_alg"), "optim"),
    "weight_decay": "weight_decay",
    **dict.fromkeys(
        (
            "train_file",
            "data_path",
            "dataset_path",
            "train_data_path",
            "train_data",
            "data_files",
            "data",
            "data_dir",
            "dataset",
        ),
        "dataset",
    ),
    **dict.fromkeys(("validation_file", "eval_file", "eval_data_path", "val_file"), "eval_dataset"),
}
# Keys that name the network (an argparse `--model`, nanoGPT's `init_from`): the run's base
# model only when the value names a pretrained family (`model='gpt2'`), not when it is an
# architecture built from scratch (`model='LSTM'`, `arch='UNet'`), whose loss may be
# anything (a Dice loss) where a named base model says the loss is a cross-entropy.
_MODEL_KEYS = ("model", "arch", "architecture", "model_name", "init_from")
_PRETRAINED = re.compile(
    r"(?i)^(?:[\w.\-]+/)*(?:gpt2|gpt-?neox?|gpt-?j|pythia|opt-\d|llama|meta-llama|tinyllama"
    r"|mistral|mixtral|qwen|gemma|phi-\d|falcon|bloom|t5|mt5|flan-t5|bart|mbart|bert|roberta"
    r"|xlm-roberta|deberta|distilbert|albert|electra|smollm|whisper|wav2vec2|stablelm|olmo"
    r"|internlm|baichuan|chatglm|deepseek)(?![a-z])"
)
# `warmup`: a count of steps when whole, a share of them when a fraction.
_WARMUP = "warmup"
# Every key a printed settings dump (an argparse Namespace, a config module's lines) is
# read for: the rest of such a dump is not a run fact.
SETTING_KEYS = frozenset(ALIASES) | frozenset(_MODEL_KEYS) | {_WARMUP}


def pretrained(name: object) -> bool:
    """`name` names a known pretrained model family (`gpt2`, `bert-base-uncased`,
    `meta-llama/Llama-2-7b-hf`)."""
    return isinstance(name, str) and _PRETRAINED.match(name.strip()) is not None


# The keys an optimizer's block names the optimizer under.
_OPTIM_NAME = ("type", "name", "method", "class", "algorithm")
_TEXT = {"lr_scheduler", "regime", "task", "precision", "loss_dtype", "base_model", "optim"}
_TEXT |= {"dataset", "eval_dataset", "dataset_dir"}
_TEXT |= {"env_id"}  # an RL run's environment (CleanRL's args, a run config)
_PRECISION = {
    "bf16": "bf16",
    "16": "fp16",
    "fp16": "fp16",
    "32": "fp32",
    "fp32": "fp32",
    "64": "fp64",
}
_PRECISION |= {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "half": "fp16"}
# HF's model card writes `mixed_precision_training: Native AMP` (or `Apex, opt level O1`)
# only when TrainingArguments.fp16 is set (transformers modelcard.py): both are fp16.
_PRECISION |= {"native amp": "fp16", "apex": "fp16"}
# A Keras card's `training_precision` is the dtype policy's name: mixed_float16 computes
# in fp16 with a loss scale, mixed_bfloat16 in bf16 (keras mixed_precision.Policy).
_PRECISION |= {"mixed_float16": "fp16", "mixed_bfloat16": "bf16"}


# libyaml when PyYAML was built with it: linear in the input and refusing nesting past
# 1000 levels, where the pure-Python scanner is quadratic in the flow depth (a 20 KB
# `[[[[...` took 4 s before its composer's RecursionError).
_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SAFE):
    """The safe loader, with Python-object tags read as opaque values instead of refused.

    Lightning's `save_hyperparameters` dumps whatever the module got: a class-weight
    tensor becomes `!!python/object/apply:torch._utils._rebuild_tensor_v2`, a dict an
    `OrderedDict`. safe_load refuses the whole file over that one key, losing its
    num_classes and lr. Here such a node is None (a tuple a list): nothing is imported
    or called, as under safe_load, and the keys beside it are read.
    """


def _opaque(loader: Any, suffix: str, node: yaml.Node) -> Any:
    if suffix == "tuple" and isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return None


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _opaque)
_LOADER = _Loader


def safe_yaml(text: str) -> Any:
    """yaml.safe_load, on libyaml where it is there. Raises yaml.YAMLError, RecursionError.

    PyYAML's constructors raise whatever their converters do on a scalar that
    parses but does not convert (int() of 5,000 digits, a !!timestamp its regex
    does not match: AttributeError): bad input all the same, so a YAMLError.
    """
    try:
        return yaml.load(text, Loader=_LOADER)
    except (ValueError, TypeError, AttributeError, OverflowError, KeyError, IndexError) as exc:
        raise yaml.YAMLError(f"{type(exc).__name__}: {str(exc)[:100]}") from None


def load(path: Path, notes: Notes) -> dict[str, Any] | None:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
        data = loads(text) if path.suffix == ".json" else safe_yaml(text)
    except RecursionError:  # PyYAML composes nested nodes recursively
        notes.add(path, "not read: nested too deeply")
        return None
    except (OSError, ValueError, yaml.YAMLError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        notes.add(path, f"not read: {first}")
        return None
    return data if isinstance(data, dict) else None


# Planned lengths whose non-positive value is the trainer's "not set" sentinel, not a
# plan: TrainingArguments' max_steps=-1 (the default: train for num_train_epochs),
# Lightning's max_steps=-1 / max_epochs=-1 (no limit). Read as a plan of -1 steps, the
# run would be past its end at every step.
_PLANNED = frozenset({"max_steps", "num_train_epochs"})


def _unset(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    num = value if isinstance(value, (int, float)) else to_float(str(value)) if value else None
    return num is not None and num <= 0


def facts_from(data: dict[str, Any], source: str) -> dict[str, Fact]:
    flat: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            if ALIASES.get(str(key).lower()) == "optim":
                # an optimizer's own block names it under one of these (a wandb sweep's
                # `optimizer: {method: sgd_torch, lr: 1e-5}`, `optimizer: {type: AdamW}`)
                name = next((s for s in _OPTIM_NAME if isinstance(value.get(s), str)), None)
                if name is not None:
                    flat.setdefault(str(key).lower(), (f"{key}.{name}", value[name]))
            for sub, v in value.items():
                flat.setdefault(str(sub).lower(), (f"{key}.{sub}", v))
        else:
            flat[str(key).lower()] = (str(key), value)
    out: dict[str, Fact] = {}
    for key, (name, value) in flat.items():
        fact = ALIASES.get(key, key if key in CONFIG_NAMES else None)
        if fact is None or fact in out:
            continue
        if fact in _PLANNED and _unset(value):
            continue  # HF's `max_steps=-1` (train for the epochs), Lightning's `max_epochs=-1`
        if fact == "precision":
            low = str(value).lower().split("-")[0].split(",")[0].strip()
            prec = _PRECISION.get(low.removeprefix("torch."))
            if prec:
                out[fact] = Fact(prec, f"{source}: {name}={value}")
        elif fact in _TEXT:
            if isinstance(value, str) and (fact != "regime" or value in REGIMES):
                out[fact] = Fact(value, f"{source}: {name}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[fact] = Fact(value, f"{source}: {name}")
        elif isinstance(value, str) and value.strip() and (num := to_float(value)) is not None:
            whole = value.strip().lstrip("+-").isdigit()
            num = count(num, -MAX_STEP) if whole and count(num, -MAX_STEP) is not None else num
            out[fact] = Fact(num, f"{source}: {name}={value!r}")
    for key in _MODEL_KEYS:
        if "base_model" not in out and key in flat and pretrained(flat[key][1]):
            out["base_model"] = Fact(flat[key][1].strip(), f"{source}: {flat[key][0]}")
    if _WARMUP in flat:
        name, v = flat[_WARMUP]
        if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            out.setdefault("warmup_steps", Fact(v, f"{source}: {name}"))
        elif isinstance(v, float) and 0 < v < 1:
            out.setdefault("warmup_ratio", Fact(v, f"{source}: {name}"))
    for flag in ("bf16", "fp16"):  # TrainingArguments' flags (`--bf16 True`)
        if "precision" not in out and flag in flat and _true(flat[flag][1]):
            out["precision"] = Fact(flag, f"{source}: {flat[flag][0]}={flat[flag][1]}")
    if "n_params" not in out and "num_classes" not in out:
        # a from-scratch LM's own dimensions (d_model, num_layers, vocab_size): its size,
        # which the rate rules' LR-by-size table reads
        n = params_from_config({k: v for k, (_, v) in flat.items()})
        if n:
            out["n_params"] = Fact(n, f"{source}: estimated from its dimensions")
    base = data.get("finetuned_from")  # a model card: "a fine-tuned version of X"
    if isinstance(base, str) and base:
        out.setdefault("base_model", Fact(base, f"{source}: fine-tuned version of {base}"))
        if "regime" not in out:
            lora = str(data.get("adapter", "")).lower() in ("lora", "qlora")  # a PEFT card
            why = f"{source}: a fine-tuned version of {base}" + (
                ", with a PEFT adapter" if lora else ", no PEFT adapter named"
            )
            out["regime"] = Fact("lora" if lora else "full-finetune", why)

    return out


# LLaMA-Factory (examples/train_*/*.yaml) and Axolotl (utils/schemas) training YAMLs:
# FORMATS.md 2. Recognised by keys only those tools use; anything else is not theirs.
_LF_KEYS = {"finetuning_type", "stage", "template", "cutoff_len", "lora_rank"}
_AX_KEYS = {"micro_batch_size", "adapter", "sequence_len", "num_epochs", "datasets", "lora_r"}
_TOOL_FACTS = {
    "lora_rank": "lora_r",
    "lora_r": "lora_r",
    "lora_alpha": "lora_alpha",
    "model_name_or_path": "base_model",
    "base_model": "base_model",
    "cutoff_len": "max_seq_len",
    "sequence_len": "max_seq_len",
    "stage": "stage",
    "num_epochs": "num_train_epochs",
    "warmup_ratio": "warmup_ratio",
    "dataset": "dataset",
    "dataset_dir": "dataset_dir",
}
_CKPT_STEP = re.compile(r"checkpoint-(\d+)")


def tool_of(data: dict[str, Any]) -> str | None:
    keys = set(data)
    if len(keys & _LF_KEYS) >= 2 or ("model_name_or_path" in keys and keys & _LF_KEYS):
        return "llamafactory"
    if "base_model" in keys and keys & _AX_KEYS:
        return "axolotl"
    return None


def tool_facts(data: dict[str, Any], source: str) -> dict[str, Fact]:
    """Facts from a LLaMA-Factory or Axolotl YAML (empty when it is neither)."""
    tool = tool_of(data)
    if tool is None:
        return {}
    out = facts_from(data, source)
    for key, fact in _TOOL_FACTS.items():
        v = data.get(key)
        if v is not None and fact not in out and not isinstance(v, (dict, list, bool)):
            out[fact] = Fact(to_float(v) if fact == "num_train_epochs" else v, f"{source}: {key}")
    if isinstance(data.get("datasets"), list):  # axolotl: [{path, type}, ...]
        paths = [str(d.get("path")) for d in data["datasets"] if isinstance(d, dict)]
        out["dataset"] = Fact(", ".join(paths), f"{source}: datasets[].path")
    for flag in ("bf16", "fp16"):
        if _true(data.get(flag)) and "precision" not in out:
            out["precision"] = Fact(flag, f"{source}: {flag}: true")
    ft, adapter = data.get("finetuning_type"), data.get("adapter")
    if data.get("train_from_scratch") is True:
        out["regime"] = Fact("pretraining", f"{source}: train_from_scratch: true")
    elif ft in ("lora", "full", "freeze") or adapter in ("lora", "qlora"):
        # Axolotl without an adapter may be pre-training too: left to the loss-vs-ln(V) test.
        lora = ft == "lora" or adapter in ("lora", "qlora")
        why = f"finetuning_type: {ft}" if ft else f"adapter: {adapter or '(none)'}"
        out["regime"] = Fact("lora" if lora else "full-finetune", f"{source}: {why}")
    if tool == "axolotl" and "lr_scheduler" not in out:
        out["lr_scheduler"] = Fact("cosine", f"{source}: lr_scheduler not set (axolotl default)")
    if data.get("stage") in ("ppo",):
        out["task"] = Fact("rl", f"{source}: stage: {data['stage']}")
    ckpt = data.get("resume_from_checkpoint")
    if isinstance(ckpt, str) and (m := _CKPT_STEP.search(ckpt)) and count(m.group(1)) is not None:
        out["resume_steps"] = Fact((count(m.group(1)),), f"{source}: resume_from_checkpoint")
    out["tool"] = Fact(tool, f"{source}: {tool} config")
    return out


def find_tool_config(run_dir: Path) -> tuple[Path, dict[str, Fact]] | None:
    """The LLaMA-Factory/Axolotl YAML in the run dir or its parent, if one is there."""
    for d in (run_dir, run_dir.parent):
        for p in sorted([*d.glob("*.yaml"), *d.glob("*.yml")]):
            if p.is_file() and p.stat().st_size < 1 << 20:
                data = load(p, Notes())
                if data and (facts := tool_facts(data, p.name)):
                    return p, facts
    return None


def _true(value: Any) -> bool:
    """True, or its spelling on a command line (`--bf16 True`)."""
    return value is True or (isinstance(value, str) and value.lower() in ("true", "1", "yes"))
