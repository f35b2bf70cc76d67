"""PEFT adapters: adapter_config.json plus adapter_model.safetensors (or .bin).

Only the adapter's own tensors are in the file (`...lora_A.weight` [r, in],
`...lora_B.weight` [out, r]); `lora_B` starts at exactly zero with PEFT's
default init, which is what the untrained-adapter rule looks for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONFIG = "adapter_config.json"
WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")
_KEEP = (
    "peft_type",
    "r",
    "lora_alpha",
    "target_modules",
    "use_rslora",
    "use_dora",
    "init_lora_weights",
    "base_model_name_or_path",
    "task_type",
    "modules_to_save",
)


def is_adapter_dir(d: Path) -> bool:
    return (d / CONFIG).is_file() and any((d / w).is_file() for w in WEIGHTS)


def weights_file(d: Path) -> Path:
    for w in WEIGHTS:
        if (d / w).is_file():
            return d / w
    raise FileNotFoundError(d / WEIGHTS[0])


def read_config(d: Path) -> tuple[dict[str, Any], list[str]]:
    """The adapter facts the rules use, and notes (an unreadable config is a note)."""
    try:
        doc = json.loads((d / CONFIG).read_text())
    except (OSError, ValueError) as exc:
        return {}, [f"{d / CONFIG}: unreadable ({type(exc).__name__})"]
    out = {k: doc[k] for k in _KEEP if k in doc}
    r, alpha = out.get("r"), out.get("lora_alpha")
    if isinstance(r, (int, float)) and r and isinstance(alpha, (int, float)):
        out["scale"] = alpha / (r**0.5 if out.get("use_rslora") else r)
    return out, []
