"""The HF trainer_state reader as it was before streaming (json.load of each whole file),
kept verbatim as the reference the streamed reader must match (test_hf_stream.py) and
the baseline of bench/trainer_state_bench.py. Not used by traindoc itself.

Original docstring: log_history is merged across all states by (step, key), never by
position: checkpoints first in step order, the top-level state last, so for a step both
hold the final state wins, and steps only a checkpoint kept (lost to a resume) survive.
"""

from __future__ import annotations

import json
import re
from itertools import compress, count, repeat
from pathlib import Path
from typing import Any

from traindoc.model import Fact, Input, Run, numbers
from traindoc.readers import _sidefiles
from traindoc.readers._base import Notes, ReadError, loads_json, to_float
from traindoc.readers._columns import Columns

STATE = "trainer_state.json"
_CKPT = re.compile(r"checkpoint-(\d+)$")
# trainer_state key -> run fact
_STATE_FACTS = {
    "max_steps": "max_steps",
    "logging_steps": "logging_steps",
    "eval_steps": "eval_steps",
    "save_steps": "save_steps",
    "num_train_epochs": "num_train_epochs",
    "global_step": "global_step",
    "best_metric": "best_metric",
    "best_model_checkpoint": "best_model_checkpoint",
    "best_global_step": "best_global_step",
}


def checkpoints(root: Path) -> list[tuple[int, Path]]:
    found = [(int(m.group(1)), p) for p in root.glob("checkpoint-*") if (m := _CKPT.search(p.name))]
    return sorted(d for d in found if d[1].is_dir())


def read(path: str | Path) -> Run:
    path = Path(path)
    root = path.parent if path.is_file() else path
    ckpts = [] if path.is_file() else checkpoints(root)
    files = [d / STATE for _, d in ckpts if (d / STATE).is_file()]
    if path.is_file() or (root / STATE).is_file():
        files.append(path if path.is_file() else root / STATE)
    if not files:
        raise ReadError(root, f"no {STATE} at the top or in checkpoint-*/")
    notes = Notes()
    cols = Columns(str(files[-1]), notes, unit="log_history")
    states: list[tuple[Path, dict[str, Any]]] = []
    errors: list[ReadError] = []
    for f in files:
        try:
            state = _load_state(f)
        except ReadError as exc:
            errors.append(exc)
            notes.add(f, f"not read: {exc.message}", exc.line)
            continue
        states.append((f, state))
        _add_history(f, state, cols, notes)
    if not states:
        raise errors[-1]
    series, facts = cols.finish("hf")
    last_path, last = states[-1]
    facts["trainer"] = Fact("hf", f"{last_path.name}: HF Trainer state")
    if any(isinstance(e, dict) and "train_runtime" in e for e in _history(last)):
        facts["ended"] = Fact(True, f"{_rel(last_path, root)}: the train_runtime summary")
    for key, fact in _STATE_FACTS.items():
        value = last.get(key)
        if value is not None and not isinstance(value, (dict, list)):
            if isinstance(value, float):
                value = to_float(value)  # a NaN best_metric comes back as NaN
            facts[fact] = Fact(value, f"{_rel(last_path, root)}: {key}")
    if isinstance(last.get("train_batch_size"), int):
        facts["per_device_batch"] = Fact(last["train_batch_size"], f"{STATE}: train_batch_size")
    _divergence(states, ckpts, facts, root)
    side_dirs = [root] + [d for _, d in reversed(ckpts)]
    inputs = [Input(str(f), "hf-trainer-state") for f, _ in states]
    inputs += _sidefiles.read_all(side_dirs, facts, notes)
    return Run(root.name, series, facts, tuple(inputs), notes.build())


def _rel(p: Path, root: Path) -> str:
    return str(p.relative_to(root)) if p.is_relative_to(root) else p.name


def _load_state(f: Path) -> dict[str, Any]:
    try:
        raw = f.read_bytes()
    except OSError as exc:
        raise ReadError(f, f"cannot read: {exc.strerror or exc}") from None
    if not raw.strip():
        raise ReadError(f, "file is empty")
    try:  # Python's json: it takes the bare NaN / Infinity tokens HF writes
        state = loads_json(raw)
    except json.JSONDecodeError as exc:
        what = "truncated JSON" if exc.pos >= len(raw.rstrip()) - 1 else "invalid JSON"
        raise ReadError(f, f"{what}: {exc.msg}", exc.lineno) from None
    except ValueError as exc:  # numbers.loads: nesting deeper than the parser can go
        raise ReadError(f, f"invalid JSON: {exc}") from None
    if not isinstance(state, dict):
        raise ReadError(f, f"holds a JSON {type(state).__name__}, not a trainer state object")
    return state


_STEP, _RUNTIME = repeat("step"), repeat("train_runtime")


def _add_history(f: Path, state: dict[str, Any], cols: Columns, notes: Notes) -> None:
    history = state.get("log_history")
    if not isinstance(history, list):
        notes.add(f, f"log_history is {type(history).__name__}, not a list; no series read")
        return
    if not history:
        notes.add(f, "log_history is empty")
        return
    # Keep the training/eval points with C-speed scans (a log can hold millions):
    # drop non-objects and records without a step (counted in a note), and the
    # end-of-training summary entries, which hold averages, not curve points.
    entries = history
    if set(map(type, history)) != {dict} or not all(map(dict.__contains__, history, _STEP)):
        entries = []
        for i, e in enumerate(history):
            if isinstance(e, dict) and to_float(e.get("step")) is not None:
                entries.append(e)
            else:
                notes.count(f, "record{s} without a step", None, f"first at log_history[{i}]")
    summary = set(compress(count(), map(dict.__contains__, entries, _RUNTIME)))
    if summary:
        entries = [e for i, e in enumerate(entries) if i not in summary]
    cols.path = str(f)
    cols.restart()
    if entries:
        cols.add(entries, None, 0)


def _history(state: dict[str, Any]) -> list:
    """log_history when it is a list (it can be 5, or a dict, in a damaged file)."""
    history = state.get("log_history")
    return history if isinstance(history, list) else []


def _losses(state: dict[str, Any]) -> dict[int, float]:
    out = {}
    for e in _history(state):
        if isinstance(e, dict) and "loss" in e and "train_runtime" not in e:
            s, v = numbers.count(to_float(e.get("step"))), to_float(e.get("loss"))
            if s is not None and v is not None:
                out[s] = v
    return out


def _divergence(
    states: list[tuple[Path, dict[str, Any]]],
    ckpts: list[tuple[int, Path]],
    facts: dict[str, Fact],
    root: Path,
) -> None:
    """A checkpoint whose logged losses differ from the final state's: history was redone."""
    if len(states) < 2 or "resume_steps" in facts:
        return
    final = _losses(states[-1][1])
    for f, state in states[:-1]:
        differ = [s for s, v in _losses(state).items() if s in final and not _same(v, final[s])]
        if differ:
            first = min(differ)
            before = [n for n, _ in ckpts if n < first]
            resume = before[-1] if before else 0
            src = f"{_rel(f, root)}: loss at step {first} differs from the final {STATE}"
            facts["resume_steps"] = Fact((resume,), src)
            return


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)  # NaN logged in both is the same record
