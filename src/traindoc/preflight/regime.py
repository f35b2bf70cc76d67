"""The model behind --model, and the training regime, from config and checkpoint.

Regimes (issue 5): pre-training from scratch, continued pre-training, full
fine-tune, LoRA, QLoRA. The rate rules' tables know three (model.REGIMES), so
the detailed regime is kept as `regime_detail` and mapped onto those for the
`regime` fact: QLoRA trains like LoRA; continued pre-training starts from
trained weights, so its LR scale is a fine-tune's, not a from-scratch run's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traindoc.model import Fact
from traindoc.model.params import params_from_config

TO_RULES = {
    "pretraining": "pretraining",
    "continued-pretraining": "full-finetune",
    "full-finetune": "full-finetune",
    "lora": "lora",
    "qlora": "lora",
}
_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
_WEIGHTS += ("pytorch_model.bin.index.json",)


@dataclass(frozen=True)
class ModelInfo:
    """What the memory estimate and the first-batch loss need to know of a model."""

    path: str
    config: dict[str, Any]
    has_weights: bool
    adapter: dict[str, Any] | None
    n_params: int | None

    @property
    def vocab_size(self) -> int | None:
        v = self.config.get("vocab_size")
        return int(v) if isinstance(v, int) else None

    def dim(self, *keys: str) -> int | None:
        for k in keys:
            v = self.config.get(k)
            if isinstance(v, int) and v > 0:
                return v
        return None

    @property
    def hidden(self) -> int | None:
        return self.dim("hidden_size", "n_embd", "d_model")

    @property
    def layers(self) -> int | None:
        return self.dim("num_hidden_layers", "n_layer", "num_layers")

    @property
    def dtype(self) -> str | None:
        d = self.config.get("dtype") or self.config.get("torch_dtype")
        return str(d).removeprefix("torch.") if d else None


def read_model(path: Path) -> ModelInfo:
    """config.json (and adapter_config.json) of a model dir or of a weights file's dir."""
    home = path if path.is_dir() else path.parent
    cfg = _json(home / "config.json") or {}
    adapter = _json(home / "adapter_config.json")
    if adapter and not cfg:  # an adapter dir: the base model's config may sit beside it
        base = adapter.get("base_model_name_or_path")
        if isinstance(base, str) and Path(base).is_dir():
            cfg = _json(Path(base) / "config.json") or {}
    has_weights = path.is_file() or any((home / w).is_file() for w in _WEIGHTS)
    return ModelInfo(str(path), cfg, has_weights, adapter, params_from_config(cfg))


def infer_regime(facts: dict[str, Fact], model: ModelInfo | None) -> dict[str, Fact]:
    """regime_detail and regime facts, with where each came from. Config beats model."""
    out: dict[str, Fact] = {}
    given = facts.get("regime")
    if given is not None and given.source.startswith("--"):
        return {"regime_detail": given}
    quant = facts.get("quantization")
    adapter = facts.get("adapter")
    detail, why = None, ""
    if adapter is not None:
        four = (quant is not None and "4" in str(quant.value)) or adapter.value == "qlora"
        detail = "qlora" if four else "lora"
        why = adapter.source + (f", {quant.source}" if quant else "")
    elif model is not None and model.adapter is not None:
        detail = "lora"
        why = f"{model.path}: adapter_config.json"
        qc = model.config.get("quantization_config") or {}
        if isinstance(qc, dict) and qc.get("load_in_4bit"):
            detail, why = "qlora", why + " + quantization_config.load_in_4bit"
    elif given is not None and given.value == "pretraining":
        detail, why = "pretraining", given.source
    elif facts.get("stage") is not None and facts["stage"].value == "pt":
        from_scratch = model is not None and not model.has_weights
        detail = "pretraining" if from_scratch else "continued-pretraining"
        why = facts["stage"].source + (": no weights in --model" if from_scratch else "")
    elif given is not None:
        detail, why = str(given.value), given.source
    elif model is not None:
        if model.has_weights:
            detail, why = "full-finetune", f"{model.path}: trained weights, no adapter"
        else:
            detail, why = "pretraining", f"{model.path}: config.json only (no weights)"
    if detail is None:
        return out
    out["regime_detail"] = Fact(detail, why)
    out["regime"] = Fact(TO_RULES.get(detail, detail), f"{why} ({detail})")
    return out


def _json(p: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None
