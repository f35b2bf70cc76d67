"""HF `transformers.Trainer` output dirs: trainer_state.json (top and checkpoint-*/).

log_history is merged across all states by (step, key), never by position:
checkpoints first in step order, the top-level state last, so for a step both
hold the final state wins, and steps only a checkpoint kept (lost to a resume)
survive. Side files add facts: training_args.bin, config.json,
adapter_config.json, *_results.json (FORMATS.md 1.1-1.5).

A state is streamed (`_jsonarray`): log_history goes into the columns a batch of
entries at a time and is never held whole, so a 100 MB state costs about its series
(json.load of it: 4x the file; the old reader 6.6x). Whether a checkpoint's history
was redone is decided from compact (step, loss) arrays, not from the parsed entries.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import compress, count, repeat
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from traindoc.model import Fact, Input, Run, numbers
from traindoc.model.run import order_and_dedup
from traindoc.readers import _jsonarray, _sidefiles
from traindoc.readers._base import Notes, ReadError, loads_json, restore, to_float
from traindoc.readers._columns import Columns
from traindoc.readers._progress import progress

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
    states: list[_State] = []
    errors: list[ReadError] = []
    for f in files:
        try:
            states.append(_read_state(f, cols, notes, compare=len(files) > 1))
        except ReadError as exc:
            errors.append(exc)
            notes.add(f, f"not read: {exc.message}", exc.line)
    if not states:
        raise errors[-1]
    series, facts = cols.finish("hf")
    last = states[-1]
    facts["trainer"] = Fact("hf", f"{last.path.name}: HF Trainer state")
    if last.summary:
        facts["ended"] = Fact(True, f"{_rel(last.path, root)}: the train_runtime summary")
    for key, fact in _STATE_FACTS.items():
        value = last.rest.get(key)
        if value is not None and not isinstance(value, (dict, list)):
            if isinstance(value, float):
                value = to_float(value)  # a NaN best_metric comes back as NaN
            facts[fact] = Fact(value, f"{_rel(last.path, root)}: {key}")
    if isinstance(last.rest.get("train_batch_size"), int):
        facts["per_device_batch"] = Fact(
            last.rest["train_batch_size"], f"{STATE}: train_batch_size"
        )
    _divergence(states, ckpts, facts, root)
    side_dirs = [root] + [d for _, d in reversed(ckpts)]
    inputs = [Input(str(s.path), "hf-trainer-state") for s in states]
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


class _State(NamedTuple):
    path: Path
    rest: dict[str, Any]  # the state without its log_history
    losses: tuple[np.ndarray, np.ndarray]  # (steps, loss), sorted, one loss a step
    summary: bool  # the log holds the end-of-training summary entry


def _read_state(f: Path, cols: Columns, notes: Notes, compare: bool) -> _State:
    """Stream f's log_history into cols; an odd file is undone and read the plain way,
    which also gives the ReadError an unreadable one deserves."""
    mark = cols.mark()
    hist = _History(f, cols, compare)
    try:
        with progress(f) as seen:
            rest = _jsonarray.stream(f, "log_history", hist.add, seen)
    except OSError:
        rest = None
    history: Any = []
    if rest is None:
        cols.rollback(mark)  # back as before this file, notes and all
        rest = _load_state(f)
        hist = _History(f, cols, compare)
        history = rest.pop("log_history", None)
        if isinstance(history, list):
            hist.add(history, 0)
    if not isinstance(history, list):
        what = type(history).__name__
        hist.notes.add(f, f"log_history is {what}, not a list; no series read")
    elif not hist.seen:
        hist.notes.add(f, "log_history is empty")
    cols.notes = notes
    notes.extend(hist.notes)
    return _State(f, rest, hist.losses(), hist.summary)


_STEP, _RUNTIME, _LOSS = repeat("step"), repeat("train_runtime"), repeat("loss")


class _History:
    """One state's log_history, a batch of entries at a time: the curve points go to the
    shared columns; with several states to `compare`, the (step, loss) pairs are also
    kept apart, compact (16 bytes a loss), to tell whether a checkpoint's history was
    redone."""

    def __init__(self, f: Path, cols: Columns, compare: bool) -> None:
        self.f, self.cols, self.compare = f, cols, compare
        self.notes = cols.notes = Notes()  # this file's notes: dropped if it is undone
        self.seen = self.kept = 0
        self.summary = False
        self.steps, self.loss = array("q"), array("d")

    def add(self, history: list[Any], first: int) -> None:
        if not history:
            return
        if not self.seen:  # the file's first entries: its steps may start over
            self.cols.path = str(self.f)
            self.cols.restart()
        self.seen += len(history)
        # C-speed scans (a log holds millions): drop non-objects and records without a
        # step (counted in a note), and the end-of-training summary entries, which hold
        # averages, not curve points.
        entries = history
        if set(map(type, history)) != {dict} or not all(map(dict.__contains__, history, _STEP)):
            entries = []
            for i, e in enumerate(history):
                if isinstance(e, dict) and to_float(e.get("step")) is not None:
                    entries.append(e)
                else:
                    where = f"first at log_history[{first + i}]"
                    self.notes.count(self.f, "record{s} without a step", None, where)
                self.summary = self.summary or (isinstance(e, dict) and "train_runtime" in e)
        summary = set(compress(count(), map(dict.__contains__, entries, _RUNTIME)))
        if summary:
            self.summary = True
            entries = [e for i, e in enumerate(entries) if i not in summary]
        if entries:
            self.cols.add(entries, None, self.kept)
            self.kept += len(entries)
            if self.compare:
                steps, loss = _loss_points(entries)
                self.steps.frombytes(steps.tobytes())
                self.loss.frombytes(loss.tobytes())

    def losses(self) -> tuple[np.ndarray, np.ndarray]:
        """(steps, loss) in step order; a step logged twice keeps its last loss."""
        steps, values = np.frombuffer(self.steps, np.int64), np.frombuffer(self.loss)
        keep = order_and_dedup(steps)
        return (steps, values) if keep is None else (steps[keep], values[keep])


def _loss_points(entries: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The entries' (step, loss) where both are usable, as `to_float`/`numbers.count`
    read them; numpy does the plain numbers, Python the odd batch."""
    has = list(compress(entries, map(dict.__contains__, entries, _LOSS)))
    n = len(has)
    try:
        steps = np.fromiter(map(dict.get, has, _STEP), np.float64, count=n)
        values = restore(np.fromiter(map(dict.get, has, _LOSS), np.float64, count=n))
    except (ValueError, TypeError, OverflowError):
        steps = None
    if steps is not None and not (steps >= numbers.MAX_STEP).any():  # 2**53+1 rounds down
        with np.errstate(invalid="ignore"):
            ok = (steps >= 0) & (steps <= numbers.MAX_STEP)  # NaN and stand-ins fail
        for i in np.flatnonzero(np.isnan(values)).tolist():
            ok[i] &= has[i]["loss"] is not None  # numpy reads null as NaN
        return steps[ok].astype(np.int64), values[ok]
    pairs = [(numbers.count(to_float(e.get("step"))), to_float(e["loss"])) for e in has]
    pairs = [(s, v) for s, v in pairs if s is not None and v is not None]
    return np.array([s for s, _ in pairs], np.int64), np.array([v for _, v in pairs], np.float64)


def _divergence(
    states: list[_State], ckpts: list[tuple[int, Path]], facts: dict[str, Fact], root: Path
) -> None:
    """A checkpoint whose logged losses differ from the final state's: history was redone."""
    if len(states) < 2 or "resume_steps" in facts:
        return
    fs, fv = states[-1].losses
    if not len(fs):
        return
    for state in states[:-1]:
        s, v = state.losses
        at = np.minimum(np.searchsorted(fs, s), len(fs) - 1)
        shared = fs[at] == s
        same = (v == fv[at]) | (np.isnan(v) & np.isnan(fv[at]))  # NaN in both: one record
        differ = s[shared & ~same]
        if differ.size:
            first = int(differ.min())
            before = [n for n, _ in ckpts if n < first]
            resume = before[-1] if before else 0
            src = f"{_rel(state.path, root)}: loss at step {first} differs from the final {STATE}"
            facts["resume_steps"] = Fact((resume,), src)
            return
