"""What a resume checkpoint holds: its step and the state saved beside the weights.

Read without torch and without executing anything: trainer_state.json is JSON;
scheduler.pt, optimizer.pt and training_args.bin go through the restricted
walker of traindoc.safepickle (inert data only), and the one number
needed from optimizer.pt, Adam's step count, is read from its raw storage
bytes in the zip. The counter simulation itself is the rule's
(rules/resume/resume_step_mismatch.py), so it is the same code offline and here.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from traindoc.model import Fact
from traindoc.model.numbers import count, loads
from traindoc.readers import ReadError
from traindoc.readers.training_args import load_args

_NAME_STEP = re.compile(r"(?:checkpoint|step|global_step|iter|ckpt)[-_]?(\d+)$", re.I)
# Keys a custom loop's checkpoint dict uses for its step counter.
_STEP_KEYS = ("global_step", "step", "iter_num", "iteration", "global_steps")
_DTYPES = {"FloatStorage": ("<f", 4), "DoubleStorage": ("<d", 8), "LongStorage": ("<q", 8)}
# Tools whose loops count optimizer steps (their step conditions are safe at any step).
SAFE_COUNTERS = {"hf", "axolotl", "llamafactory", "lightning", "trl"}


def read_resume(path: Path) -> tuple[dict[str, Fact], list[str]]:
    """(facts, notes): resume_step, resume_state and, when known, resume_counter."""
    notes: list[str] = []
    home = path if path.is_dir() else path.parent
    src = str(path)
    state: dict[str, Any] = {}
    step: int | None = None
    why = ""
    named = _NAME_STEP.search(path.name if path.is_dir() else path.stem)
    ts = _json(home / "trainer_state.json")
    if ts and count(ts.get("global_step")) is not None:
        step, why = count(ts["global_step"]), f"{home.name}/trainer_state.json: global_step"
        for k in ("logging_steps", "eval_steps", "save_steps"):
            if count(ts.get(k)) is not None:
                state[f"saved_{k}"] = count(ts[k])
    if path.is_file() and path.suffix in (".pt", ".pth", ".ckpt"):
        try:
            doc = load_args(path)  # any dict pickle; tensors stay placeholders
        except ReadError as exc:
            notes.append(str(exc))
            doc = {}
        for k in _STEP_KEYS:
            if count(doc.get(k)) is not None:
                step, why = count(doc[k]), f"{path.name}: {k}"
                break
        state["optimizer"] = "optimizer" in doc or "optimizer_states" in doc
        state["scheduler"] = any(k in doc for k in ("lr_scheduler", "scheduler", "lr_schedulers"))
    if named and count(named.group(1)) is not None:
        state["name_step"] = count(named.group(1))
        if step is None:
            step, why = count(named.group(1)), f"{path.name}: name"
    if step is None:
        notes.append(f"{path}: no step found (no trainer_state.json, no checkpoint-N name)")
        return {}, notes
    if path.is_dir():
        state["optimizer"] = (home / "optimizer.pt").is_file() or any(home.glob("global_step*"))
        state["scheduler"] = (home / "scheduler.pt").is_file() or any(home.glob("global_step*"))
        state["rng"] = any(home.glob("rng_state*.pth"))
        sched = _safe_load(home / "scheduler.pt", notes)
        if isinstance(sched, dict) and count(sched.get("last_epoch")) is not None:
            state["scheduler_step"] = count(sched["last_epoch"])
        opt_step = _adam_step(home / "optimizer.pt", notes)
        if opt_step is not None:
            state["optimizer_step"] = opt_step
        args = _safe_load(home / "training_args.bin", notes)
        if isinstance(args, dict) and count(args.get("gradient_accumulation_steps"), 1):
            state["saved_grad_accum"] = count(args["gradient_accumulation_steps"], 1)
    facts = {
        "resume_step": Fact(int(step), why),
        "resume_state": Fact(state, src),
    }
    if ts is not None:  # written by HF Trainer (or a tool built on it): counts optimizer steps
        facts["resume_counter"] = Fact("optimizer", f"{home.name}/trainer_state.json (HF Trainer)")
    return facts, notes


def _safe_load(p: Path, notes: list[str]) -> Any:
    if not p.is_file():
        return None
    try:
        return load_args(p)
    except ReadError as exc:
        notes.append(str(exc))
        return None


def _adam_step(p: Path, notes: list[str]) -> int | None:
    """The first parameter's `step` in optimizer.pt (a 0-d tensor), from its storage bytes."""
    doc = _safe_load(p, notes)
    if not isinstance(doc, dict) or not isinstance(doc.get("state"), dict):
        return None
    for per_param in doc["state"].values():
        if not isinstance(per_param, dict) or "step" not in per_param:
            continue
        v = per_param["step"]
        if isinstance(v, (int, float)):
            return count(v)
        return _scalar_from_zip(p, v)
    return None


def _scalar_from_zip(p: Path, rebuilt: Any) -> int | None:
    """A 0-d tensor's value: rebuilt = [[ 'storage', [tag, StorageClass, key, loc, n]], offset, ...]."""
    try:
        pid = rebuilt[0][1]
        storage_cls, key, offset = pid[1], str(pid[2]), count(rebuilt[1])
        if offset is None:
            return None
        fmt, size = _DTYPES[str(storage_cls).rsplit(".", 1)[-1]]  # "torch.FloatStorage"
        with zipfile.ZipFile(p) as zf:
            member = next(n for n in zf.namelist() if n.endswith(f"/data/{key}"))
            raw = zf.read(member)
        return count(struct.unpack_from(fmt, raw, offset * size)[0])
    except (IndexError, KeyError, TypeError, ValueError, StopIteration, struct.error, OSError):
        return None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError):
        return None


def _json(p: Path) -> dict | None:
    if not p.is_file():  # absent, or a FIFO whose open() would wait for a writer
        return None
    try:
        doc = loads(p.read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None
