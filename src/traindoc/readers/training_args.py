"""HF `training_args.bin`, read without importing or executing anything.

The file is a pickled `TrainingArguments` (a torch zip holding `data.pkl`, or a
legacy torch/plain pickle). `torch.load(weights_only=True)` refuses it and a
full unpickle runs arbitrary code, so it goes through traindoc.safepickle: calling
a class (REDUCE, NEWOBJ) only records the arguments, BUILD only records the
state. `os.system("...")` in a hostile file becomes inert data holding a string.
Enums come back as their value (FORMATS.md 1.5).
"""

from __future__ import annotations

import pickletools
import zipfile
from pathlib import Path
from typing import Any

from traindoc import safepickle
from traindoc.model import Fact
from traindoc.readers._base import ReadError
from traindoc.safepickle import PickleError

_MAX_PICKLE = 16 << 20  # a TrainingArguments pickle is ~4 KB; anything huge is not one
# ~1,000 opcodes in a TrainingArguments, ~30 a parameter in an optimizer.pt (what
# preflight --resume reads with it); reading one costs ~10 us, so a 16 MB pickle of
# repeated calls would take a minute: refused past this many.
_MAX_OPS = 100_000
_TORCH_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


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


def _stop(data: bytes) -> int:
    """The offset of the STOP that ends the first pickle in data."""
    try:
        for op, _arg, pos in pickletools.genops(data):
            if op.name == "STOP":
                return pos
    except ValueError as exc:
        raise PickleError(f"ValueError: {exc}") from None
    raise PickleError("no STOP opcode (truncated)")


def load_args(path: str | Path) -> dict[str, Any]:
    """All fields of a pickled TrainingArguments as plain data. Raises ReadError."""
    path = Path(path)
    try:
        data, maybe_legacy = _pickle_bytes(path)
        obj = safepickle.load(data, max_ops=_MAX_OPS)
        if maybe_legacy and obj == _TORCH_LEGACY_MAGIC:
            # legacy torch.save: magic, protocol, sys_info, then the object, one after
            # the other: each pickle ends at its STOP, the next starts right after it
            for _ in range(3):
                data = data[_stop(data) + 1 :]
                obj = safepickle.load(data, max_ops=_MAX_OPS)
        args = safepickle.plain(obj)
    except PickleError as exc:  # hostile or broken bytes: unreadable, never retried
        raise ReadError(path, f"not a readable pickle ({exc})") from None
    except safepickle.ZIP_ERRORS as exc:
        raise ReadError(path, f"broken zip archive ({type(exc).__name__})") from None
    except PermissionError:
        raise ReadError(path, "permission denied") from None
    except OSError as exc:  # a zip whose offsets point before the file's start (EINVAL)
        raise ReadError(path, f"not readable ({exc.strerror or type(exc).__name__})") from None
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
