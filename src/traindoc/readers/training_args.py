"""HF `training_args.bin`, read without importing or executing anything.

The file is a pickled `TrainingArguments` (a torch zip holding `data.pkl`, or a
legacy torch/plain pickle). `torch.load(weights_only=True)` refuses it and a
full unpickle runs arbitrary code, so `find_class` here hands back inert stub
classes: calling one (REDUCE, NEWOBJ) only records the arguments, BUILD only
records the state. `os.system("...")` in a hostile file becomes a stub holding
a string. Enums come back as stubs carrying their value (FORMATS.md 1.5).
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

from traindoc.model import Fact
from traindoc.readers._base import ReadError

_MAX_PICKLE = 16 << 20  # a TrainingArguments pickle is ~4 KB; anything huge is not one
_TORCH_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


class _Stub:
    """Stands in for any class or callable the pickle names; holds data only."""

    module = ""
    qualname = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> _Stub:
        obj = object.__new__(cls)
        obj.__dict__["_args"] = args
        obj.__dict__["_state"] = None
        obj.__dict__["_items"] = []
        return obj

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__["_args"] = args

    def __setstate__(self, state: Any) -> None:
        self.__dict__["_state"] = state

    def __setitem__(self, key: Any, value: Any) -> None:
        self.__dict__["_items"].append((key, value))

    def append(self, value: Any) -> None:
        self.__dict__["_items"].append(value)

    def extend(self, values: Any) -> None:
        self.__dict__["_items"].extend(values)


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        # A fresh inert class per name; the real module is never imported.
        return type(name.rsplit(".", 1)[-1], (_Stub,), {"module": module, "qualname": name})

    def persistent_load(self, pid: Any) -> Any:
        return ("storage", pid)  # tensor storages: never needed for the args


def _plain(obj: Any, depth: int = 0) -> Any:
    """Stub graph -> dicts, lists and scalars (enums become their value)."""
    if depth > 20:
        return None
    if isinstance(obj, _Stub):
        state = obj.__dict__["_state"]
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict):
            state = state[0]  # (dict, slotstate)
        if state is not None:
            return _plain(state, depth + 1)
        args = obj.__dict__["_args"]
        if len(args) == 1:
            return _plain(args[0], depth + 1)
        return [_plain(a, depth + 1) for a in args] if args else None
    if isinstance(obj, dict):
        return {str(k): _plain(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v, depth + 1) for v in obj]
    return obj


def _pickle_bytes(path: Path) -> tuple[bytes, bool]:
    """The pickle stream and whether it is the legacy torch multi-pickle layout."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            names = [i for i in zf.infolist() if i.filename.rsplit("/", 1)[-1] == "data.pkl"]
            if not names:
                raise ReadError(path, "torch zip file without data.pkl")
            if names[0].file_size > _MAX_PICKLE:
                raise ReadError(path, "data.pkl is too large to be training arguments")
            return zf.read(names[0]), False
    if path.stat().st_size > _MAX_PICKLE:
        raise ReadError(path, "file is too large to be training arguments")
    return path.read_bytes(), True


def load_args(path: str | Path) -> dict[str, Any]:
    """All fields of a pickled TrainingArguments as plain data. Raises ReadError."""
    path = Path(path)
    try:
        data, maybe_legacy = _pickle_bytes(path)
        stream = io.BytesIO(data)
        obj = _SafeUnpickler(stream).load()
        if maybe_legacy and obj == _TORCH_LEGACY_MAGIC:
            # legacy torch.save: magic, protocol, sys_info, then the object
            for _ in range(3):
                obj = _SafeUnpickler(stream).load()
        args = _plain(obj)
    except ReadError:
        raise
    except Exception as exc:  # hostile or broken bytes: any failure means unreadable
        raise ReadError(path, f"not a readable pickle ({type(exc).__name__}: {exc})") from None
    if not isinstance(args, dict):
        raise ReadError(path, f"pickle holds {type(args).__name__}, not TrainingArguments")
    return args


# TrainingArguments field -> run fact
_FIELDS = {
    "learning_rate": "learning_rate",
    "lr_scheduler_type": "lr_scheduler",
    "warmup_steps": "warmup_steps",
    "warmup_ratio": "warmup_ratio",
    "per_device_train_batch_size": "per_device_batch",
    "gradient_accumulation_steps": "grad_accum",
    "max_grad_norm": "max_grad_norm",
    "num_train_epochs": "num_train_epochs",
    "max_steps": "max_steps",
    "logging_steps": "logging_steps",
    "eval_steps": "eval_steps",
    "save_steps": "save_steps",
    "resume_from_checkpoint": "resume_from_checkpoint",
    "logging_nan_inf_filter": "logging_nan_inf_filter",
    "optim": "optim",
    "weight_decay": "weight_decay",
    "seed": "seed",
}


def facts_from_args(args: dict[str, Any], source: str) -> dict[str, Fact]:
    out: dict[str, Fact] = {}
    for field, fact in _FIELDS.items():
        value = args.get(field)
        if value is None or (field == "max_steps" and value == -1):
            continue  # -1 = "derive from epochs"; trainer_state holds the resolved value
        if field == "warmup_ratio" and not value:
            continue  # HF's default 0.0 says nothing; warmup_steps carries the intent
        if field == "warmup_steps" and isinstance(value, float) and 0 < value < 1:
            # transformers 5 folds warmup_ratio into warmup_steps: a float < 1 is a ratio.
            out["warmup_ratio"] = Fact(value, f"{source}: warmup_steps (a ratio below 1)")
            continue
        out[fact] = Fact(value, f"{source}: {field}")
    if "bf16" in args or "fp16" in args:
        precision = "bf16" if args.get("bf16") else "fp16" if args.get("fp16") else "fp32"
        out["precision"] = Fact(
            precision, f"{source}: bf16={args.get('bf16')}, fp16={args.get('fp16')}"
        )
    state = args.get("distributed_state")
    if isinstance(state, dict) and isinstance(state.get("num_processes"), int):
        out["devices"] = Fact(state["num_processes"], f"{source}: distributed_state.num_processes")
    return out
