"""LLaMA-Factory output dirs: trainer_log.jsonl merged with the HF state (FORMATS.md 2.1).

LogCallback writes one line per on_log with current_steps/total_steps, loss,
lr, epoch and elapsed_time (str(timedelta)), but no grad_norm; the HF
trainer_state.json next to it has grad_norm and eval but no clock. So the HF
state is the base when present, the log adds wall-clock times (for the
stall/throughput rules) and any series the state lacks (throughput, tokens),
and the LLaMA-Factory YAML adds the configured facts. Eval/predict progress
lines carry no metric and are skipped. The experimental v1 trainer writes the
same file name with HF-style keys (step, grad_norm, learning_rate); the same
code reads it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from traindoc.model import Fact, Input, Run, Series
from traindoc.model.numbers import count, finite
from traindoc.readers import _sidefiles, hf_trainer
from traindoc.readers._base import Notes, ReadError, loads_json, to_float
from traindoc.readers._columns import Columns

LOG = "trainer_log.jsonl"
_DROP = {"percentage", "remaining_time", "elapsed_time", "total_steps", "total_tokens"}
_SPAN = re.compile(r"(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")


def read(path: str | Path) -> Run:
    path = Path(path)
    root = path.parent if path.is_file() else path
    log = path if path.is_file() else root / LOG
    notes = Notes()
    rows, total = _rows(log, notes)
    cols = Columns(str(log), notes)
    if rows:
        cols.add(rows, None, 0)
    series, facts = cols.finish("llamafactory")
    has_state = (root / hf_trainer.STATE).is_file() or bool(hf_trainer.checkpoints(root))
    if has_state:
        base = hf_trainer.read(root)
    else:
        base_facts: dict[str, Fact] = {}
        inputs = _sidefiles.read_all([root], base_facts, notes)
        base = Run(root.name, {}, base_facts, tuple(inputs))
    merged = dict(base.series)
    for name, s in series.items():
        merged[name] = _with_times(merged[name], s) if name in merged else s
    facts = {**facts, **base.facts}
    if total is not None and "max_steps" not in facts:
        facts["max_steps"] = Fact(total, f"{LOG}: total_steps")
    facts["trainer"] = Fact("llamafactory", f"{LOG}: LLaMA-Factory LogCallback")
    inputs = (*base.inputs, Input(str(log), "llamafactory-log"))
    return replace(
        base, series=merged, facts=facts, inputs=inputs, notes=(*base.notes, *notes.build())
    )


def _rows(log: Path, notes: Notes) -> tuple[list[dict[str, Any]], int | None]:
    try:
        lines = log.read_bytes().splitlines()
    except OSError as exc:
        raise ReadError(log, f"cannot read: {exc.strerror or exc}") from None
    rows, total = [], None
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = loads_json(raw)
        except ValueError:
            what = "truncated last line" if i == len(lines) else "malformed line"
            notes.count(log, what, i, "invalid JSON")
            continue
        if not isinstance(rec, dict):
            notes.count(log, "non-object line", i)
            continue
        total = to_float(rec.get("total_steps")) or total
        row = {k: v for k, v in rec.items() if k not in _DROP}
        if len(row) <= 1:  # an eval/predict progress line: steps and clocks only
            continue
        if isinstance(rec.get("elapsed_time"), str) and (m := _SPAN.match(rec["elapsed_time"])):
            d, h, mi, s = m.groups()
            parts = [count(x or 0) for x in (d, h, mi)]
            if None not in parts and (sec := finite(s)) is not None:
                row["time"] = parts[0] * 86400 + parts[1] * 3600 + parts[2] * 60 + sec
        rows.append(row)
    if not rows and not lines:
        raise ReadError(log, "file is empty")
    return rows, count(total) or None


def _with_times(state: Series, log: Series) -> Series:
    """The state's points (they are the full record), timed by the log where steps match."""
    if state.times is not None or log.times is None:
        return state
    idx = np.searchsorted(log.steps, state.steps).clip(0, len(log) - 1)
    times = np.where(log.steps[idx] == state.steps, log.times[idx], np.nan)
    return Series.from_arrays(state.name, state.steps, state.values, times, state.source)
