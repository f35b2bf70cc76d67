"""Facts from the files HF writes next to a trainer state (FORMATS.md 1.1, 1.5, 7.5).

Each file is taken from the first directory that has it (the output dir, then
the newest checkpoint). A broken side file is a Note, never an error: the
curves are what matters and they come from trainer_state.json.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from traindoc.model import Fact, Input
from traindoc.model.numbers import count
from traindoc.model.params import params_from_config
from traindoc.readers._base import Notes, ReadError, to_float
from traindoc.readers.configs import find_tool_config
from traindoc.readers.training_args import facts_from_args, load_args

_CLASSIFIER = ("ForSequenceClassification", "ForImageClassification", "ForAudioClassification")
_DEFAULT_LABEL = re.compile(r"LABEL_\d+$")
_CKPT_STEP = re.compile(r"checkpoint-(\d+)")
# set by the trainer state, which holds the resolved values; the args only fill gaps
_STATE_WINS = {"max_steps", "logging_steps", "eval_steps", "save_steps", "num_train_epochs"}


def _first(dirs: list[Path], name: str) -> Path | None:
    return next((d / name for d in dirs if (d / name).is_file()), None)


def _json(path: Path, notes: Notes) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        notes.add(path, f"not read: {exc}")
        return None
    if not isinstance(data, dict):
        notes.add(path, f"holds a JSON {type(data).__name__}, not an object; not read")
        return None
    return data


def read_all(dirs: list[Path], facts: dict[str, Fact], notes: Notes) -> list[Input]:
    inputs: list[Input] = []
    versions: dict[str, str] = {}
    if (p := _first(dirs, "training_args.bin")) is not None:
        try:
            args = load_args(p)
        except ReadError as exc:
            notes.add(p, f"not read: {exc.message}")
        else:
            inputs.append(Input(str(p), "hf-training-args"))
            for key, fact in facts_from_args(args, p.name).items():
                if key not in facts or key not in _STATE_WINS:
                    facts[key] = fact
            _resume(args, p, facts)
    if (p := _first(dirs, "config.json")) is not None and (cfg := _json(p, notes)) is not None:
        inputs.append(Input(str(p), "hf-config"))
        _config(cfg, p.name, facts, versions)
    p = _first(dirs, "adapter_config.json")
    if p is not None and (ad := _json(p, notes)) is not None:
        inputs.append(Input(str(p), "peft-adapter-config"))
        facts["regime"] = Fact("lora", f"{p.name}: a PEFT adapter")
        for key, fact in (("r", "lora_r"), ("lora_alpha", "lora_alpha")):
            if ad.get(key) is not None:
                facts[fact] = Fact(ad[key], f"{p.name}: {key}")
        if ad.get("base_model_name_or_path"):
            facts["base_model"] = Fact(ad["base_model_name_or_path"], f"{p.name}")
        if ad.get("task_type") in ("SEQ_CLS", "TOKEN_CLS"):  # a classification head's C
            facts.setdefault("task", Fact("classification", f"{p.name}: {ad['task_type']}"))
        if ad.get("peft_version"):
            versions["peft"] = str(ad["peft_version"])
    results: dict[str, float] = {}
    for name in ("train_results.json", "eval_results.json", "all_results.json"):
        if (p := _first(dirs[:1], name)) is not None and (res := _json(p, notes)) is not None:
            inputs.append(Input(str(p), "hf-results"))
            results |= {k: f for k, v in res.items() if (f := to_float(v)) is not None}
    if results:
        facts["results"] = Fact(results, "*_results.json")
    if "devices" not in facts:
        for d in dirs[1:2]:  # newest checkpoint: one rng state per rank
            ranks = list(d.glob("rng_state_*.pth"))
            n = len(ranks) or (1 if (d / "rng_state.pth").is_file() else 0)
            if n:
                facts["devices"] = Fact(n, f"{d.name}: {n} rng_state file(s), one per rank")
    if (tool := find_tool_config(dirs[0])) is not None:  # LLaMA-Factory / Axolotl
        p, found = tool
        inputs.append(Input(str(p), f"{found['tool'].value}-config"))
        for key, fact in found.items():  # the resolved TrainingArguments win over the YAML
            facts.setdefault(key, fact)
    if versions:
        facts["versions"] = Fact(versions, "config.json / adapter_config.json")
    return inputs


def _config(cfg: dict[str, Any], src: str, facts: dict[str, Fact], versions: dict) -> None:
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    vocab = cfg.get("vocab_size") or text.get("vocab_size")
    archs = cfg.get("architectures")
    arch = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    labels = cfg.get("id2label") if isinstance(cfg.get("id2label"), dict) else {}
    named = any(not _DEFAULT_LABEL.match(str(v)) for v in labels.values())
    if any(a.endswith(_CLASSIFIER) for a in arch) or (not arch and named):
        n = count(cfg.get("num_labels"), 1) or len(labels)
        if n:
            why = arch[0] if arch else "id2label"
            facts["num_classes"] = Fact(n, f"{src}: {len(labels) or n} labels ({why})")
        if isinstance(vocab, int):  # the token vocabulary is not the output space here
            facts["input_vocab_size"] = Fact(vocab, f"{src}: vocab_size")
    elif isinstance(vocab, int):
        facts["vocab_size"] = Fact(vocab, f"{src}: vocab_size")
    for key, fact in (("model_type", "model_type"), ("tie_word_embeddings", "tie_word_embeddings")):
        if cfg.get(key) is not None:
            facts[fact] = Fact(cfg[key], f"{src}: {key}")
    dtype_key = "dtype" if cfg.get("dtype") else "torch_dtype"
    if cfg.get(dtype_key):
        facts["model_dtype"] = Fact(str(cfg[dtype_key]), f"{src}: {dtype_key}")
    if arch:
        facts["architecture"] = Fact(arch[0], f"{src}: architectures")
    if "num_classes" not in facts and (n := params_from_config(cfg)):
        facts.setdefault("n_params", Fact(n, f"{src}: estimated from its dimensions"))
    if cfg.get("transformers_version"):
        versions["transformers"] = str(cfg["transformers_version"])


def _resume(args: dict[str, Any], p: Path, facts: dict[str, Fact]) -> None:
    ckpt = args.get("resume_from_checkpoint")
    if isinstance(ckpt, str) and (m := _CKPT_STEP.search(ckpt)) and count(m.group(1)) is not None:
        old = facts.get("resume_steps")
        steps = tuple(sorted({count(m.group(1)), *(old.value if old else ())}))
        src = f"{p.name}: resume_from_checkpoint={ckpt}" + (f"; {old.source}" if old else "")
        facts["resume_steps"] = Fact(steps, src)
