"""Every training-config kind preflight reads, turned into run facts.

One entry point, `read_config(path)`, sniffs the kind by file and keys:

- HF `TrainingArguments`: a JSON/YAML dump of its fields, or `training_args.bin`
  through the restricted unpickler of readers/training_args.py (never executed);
- TRL configs (`SFTConfig`, `DPOConfig`, `trl ... --config x.yaml`): TrainingArguments
  plus `max_length`, `packing`, `use_peft`, `load_in_4bit`, ...;
- Axolotl and LLaMA-Factory YAMLs (readers/configs.tool_facts);
- Lightning `hparams.yaml` and other free-form configs (readers/configs.facts_from).

Then the keys only preflight needs (sequence length, gradient checkpointing,
optimizer, quantisation, adapter rank, logging/eval/save intervals) are added
from any of them, without overriding what the shared readers found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traindoc.model import Fact
from traindoc.model.numbers import count, finite, number
from traindoc.readers import Notes, ReadError
from traindoc.readers.configs import facts_from, load, tool_facts, tool_of
from traindoc.readers.training_args import facts_from_args, load_args

# Keys that only an HF TrainingArguments dump (or a subclass: TRL) carries together.
_HF_KEYS = {"per_device_train_batch_size", "output_dir", "lr_scheduler_type", "logging_steps"}
_TRL_KEYS = {
    "max_length",
    "max_seq_length",
    "packing",
    "dataset_text_field",
    "use_peft",
    "beta",
    "max_prompt_length",
    "completion_only_loss",
    "assistant_only_loss",
    "num_generations",
}
# key -> preflight fact; first spelling present wins.
_EXTRA: dict[str, tuple[str, ...]] = {
    "max_seq_len": (
        "max_seq_len",
        "cutoff_len",
        "sequence_len",
        "max_seq_length",
        "max_length",
        "block_size",
        "seq_len",
        "context_length",
        "max_position_embeddings_train",
    ),
    "gradient_checkpointing": ("gradient_checkpointing", "activation_checkpointing"),
    "optim": ("optim", "optimizer"),
    "lora_r": ("lora_r", "lora_rank", "r"),
    "logging_steps": ("logging_steps", "log_every_n_steps", "log_interval"),
    "eval_steps": ("eval_steps", "eval_interval", "val_check_interval"),
    "save_steps": ("save_steps", "save_interval", "checkpoint_interval"),
    "num_train_epochs": ("num_train_epochs", "num_epochs", "max_epochs", "epochs"),
    "dataset_size": ("dataset_size", "num_train_samples", "train_samples"),
}
_BOOL_FACTS = {"gradient_checkpointing"}
_INT_FACTS = {"max_seq_len", "lora_r", "logging_steps", "eval_steps", "save_steps", "dataset_size"}


def read_config(path: str | Path) -> tuple[str, dict[str, Fact], list[str]]:
    """(kind, facts, notes) for one config file. Raises ReadError when unusable."""
    p = Path(path)
    if not p.is_file():
        raise ReadError(p, "no such config file")
    src = p.name
    if p.suffix in (".bin", ".pt", ".pkl") or p.name == "training_args.bin":
        args = load_args(p)  # restricted unpickler: nothing in the file runs
        facts = facts_from_args(args, src)
        _add_extras(facts, args, src)
        _regime_from_hf(facts, args, src)
        _hf_defaults(facts, src)
        return "hf-training-args-bin", facts, []
    notes = Notes()
    data = load(p, notes)
    if data is None:
        why = "; ".join(str(n) for n in notes.build()) or "not a mapping of config keys"
        raise ReadError(p, f"not a usable config ({why})")
    tool = tool_of(data)
    if tool is not None:
        facts = tool_facts(data, src)
        kind = tool
        if data.get("bf16") == "auto" and "precision" not in facts:
            facts["precision"] = Fact("bf16", f"{src}: bf16: auto")
        _axolotl_quant(facts, data, src)
    elif _HF_KEYS & set(data) and (
        "learning_rate" in data or "per_device_train_batch_size" in data
    ):
        facts = facts_from_args(data, src)
        kind = "trl-config" if _TRL_KEYS & set(data) else "hf-training-args"
        _regime_from_hf(facts, data, src)
        _hf_defaults(facts, src)
    elif _TRL_KEYS & set(data) and "model_name_or_path" in data:
        facts = facts_from(data, src)  # trl CLI yaml: model + dataset + trainer args mixed
        kind = "trl-config"
        _regime_from_hf(facts, data, src)
    else:
        facts = facts_from(data, src)
        kind = "lightning-hparams" if p.name == "hparams.yaml" else "generic-config"
        _lightning(facts, data, src)
    _add_extras(facts, data, src)
    if "base_model" not in facts and isinstance(data.get("model_name_or_path"), str):
        facts["base_model"] = Fact(data["model_name_or_path"], f"{src}: model_name_or_path")
    return kind, facts, [str(n) for n in notes.build()]


def _flat(data: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """Lower-cased keys at the top level and one level down (model:, trainer:, ...)."""
    out: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                out.setdefault(str(sub).lower(), (f"{key}.{sub}", v))
    for key, value in data.items():
        if not isinstance(value, dict):
            out[str(key).lower()] = (str(key), value)
    return out


def _add_extras(facts: dict[str, Fact], data: dict[str, Any], src: str) -> None:
    flat = _flat(data)
    for fact, keys in _EXTRA.items():
        if fact in facts:
            continue
        for key in keys:
            if key not in flat:
                continue
            name, value = flat[key]
            v = _coerce(fact, value)
            if v is not None:
                facts[fact] = Fact(v, f"{src}: {name}")
                break
    for key in ("load_in_4bit", "load_in_8bit"):
        if flat.get(key, ("", None))[1] is True:
            facts.setdefault("quantization", Fact(key.removeprefix("load_in_"), f"{src}: {key}"))
    qb = flat.get("quantization_bit", ("", None))[1]  # LLaMA-Factory
    if qb in (4, 8):
        facts.setdefault("quantization", Fact(f"{qb}bit", f"{src}: quantization_bit={qb}"))
    if flat.get("use_peft", ("", None))[1] is True:
        facts.setdefault("adapter", Fact("lora", f"{src}: use_peft"))
    ad = flat.get("adapter", ("", None))[1]
    if ad in ("lora", "qlora"):
        facts.setdefault("adapter", Fact(ad, f"{src}: adapter"))
    if flat.get("finetuning_type", ("", None))[1] == "lora":
        facts.setdefault("adapter", Fact("lora", f"{src}: finetuning_type"))
    for key in ("deepspeed", "fsdp"):
        v = flat.get(key, ("", None))[1]
        if v:
            facts.setdefault("sharding", Fact(str(v), f"{src}: {key}"))


def _coerce(fact: str, value: Any) -> Any:
    if fact in _BOOL_FACTS:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "unsloth"):
            return value.lower() != "false"
        return None
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return None
    if fact in _INT_FACTS:
        num = number(value)
        return count(num, 1) if num is not None and float(num).is_integer() else None
    if fact == "num_train_epochs":
        num = finite(value)
        return num if num is not None and num > 0 else None
    return str(value) if isinstance(value, str) and value.strip() else None


def _regime_from_hf(facts: dict[str, Fact], data: dict[str, Any], src: str) -> None:
    """TRL/HF dumps say LoRA only through peft keys; the rest is decided from the model."""
    if data.get("use_peft") is True or data.get("lora_r"):
        facts.setdefault("adapter", Fact("lora", f"{src}: use_peft"))


def _axolotl_quant(facts: dict[str, Fact], data: dict[str, Any], src: str) -> None:
    if data.get("adapter") == "qlora":
        facts.setdefault("quantization", Fact("4bit", f"{src}: adapter: qlora"))


def _lightning(facts: dict[str, Fact], data: dict[str, Any], src: str) -> None:
    """Lightning's `precision: bf16-mixed` / `16-mixed` and `accumulate_grad_batches`."""
    flat = _flat(data)
    prec = flat.get("precision", ("", None))[1]
    if prec is not None and "precision" not in facts:
        text = str(prec).lower()
        value = "bf16" if "bf16" in text else "fp16" if text.startswith("16") else None
        value = value or ("fp32" if text.startswith("32") else None)
        if value:
            facts["precision"] = Fact(value, f"{src}: precision={prec}")


def _hf_defaults(facts: dict[str, Fact], src: str) -> None:
    """TrainingArguments' own defaults where the dump left a field out (or at 0)."""
    ws = facts.get("warmup_steps")
    if ws is not None and isinstance(ws.value, float) and 0 < ws.value < 1:
        # transformers 5 dropped warmup_ratio: a float below 1 in warmup_steps is the ratio
        del facts["warmup_steps"]
        facts["warmup_ratio"] = Fact(ws.value, f"{ws.source} < 1: a ratio (transformers 5)")
    if "warmup_steps" not in facts and "warmup_ratio" not in facts:
        facts["warmup_steps"] = Fact(0, f"{src}: no warmup set (HF default 0)")
    facts.setdefault("lr_scheduler", Fact("linear", f"{src}: HF default lr_scheduler_type"))
