"""Batches of metric dicts -> sparse numeric columns -> Series.

Shared by the readers whose records are flat dicts (JSONL lines, HF
log_history entries, Lightning CSV rows). Columns are pulled out per batch
with one list comprehension and one numpy conversion per key; the slow
per-value path runs only for a column that holds something odd.

Columns grow in place (`array`, amortised), and keys logged in the same records
(loss, grad_norm, lr of every train line) share one step and time column, so a
long log costs about 8 bytes a value plus 8 a record, and finishing adds no copy:
the Series are views of those buffers. (Per-batch numpy parts joined at the end
measured a higher peak: the join holds a column twice, and the freed parts stay
resident in the heap.)
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from datetime import datetime
from itertools import chain, compress, count, repeat
from typing import Any, NamedTuple

import numpy as np

from traindoc.model import Fact, Series
from traindoc.model.numbers import MAX_STEP
from traindoc.model.run import order_and_dedup
from traindoc.model.signals import STEP_KEYS, TIME_KEYS, canonical, is_eval, kind
from traindoc.readers import _heap as heap
from traindoc.readers._base import Notes, is_bookkeeping, restore, to_float

_COUNTERS = set(STEP_KEYS) | set(TIME_KEYS)
# Stands for "key not in this record" in the fast path; no real metric is -7.7e307.
_ABSENT = -7.7e307


# keys whose text value names what a record is ({"event": "resume"}): not metrics
_EVENT_KEYS = {"event", "type", "kind", "msg", "message"}


class Columns:
    def __init__(self, path: str, notes: Notes, unit: str = "line") -> None:
        self.path, self.notes, self.unit = path, notes, unit
        self.records = 0
        self.step_key: str | None = None
        self.last_step: float | None = None
        self.values: dict[str, array] = {}
        self.group: dict[str, _Group] = {}  # key -> the keys logged in the same records
        self.bad: dict[str, list[int]] = {}  # key -> [good, bad, first bad position]
        self.resumes: list[tuple[int, int, int]] = []  # (from step, to step, position)
        self.ended = False  # a final summary record was seen
        self.marked: list[tuple[int, int]] = []  # (step, position) of {"event": "resume"} records

    def restart(self) -> None:
        """A new source (another file) begins: its steps may legitimately start over."""
        self.last_step = None

    def mark(self) -> _Mark:
        """Where the columns stand now, for `rollback`: a streamed file that turns out
        to be unreadable halfway must leave no trace."""
        groups = {id(g): g for g in self.group.values()}.values()
        return _Mark(
            {k: len(a) for k, a in self.values.items()},
            dict(self.group),
            [
                (g, set(g.keys), len(g.steps), None if g.times is None else len(g.times))
                for g in groups
            ],
            {k: list(v) for k, v in self.bad.items()},
            (self.records, self.step_key, self.last_step, self.ended, self.path, self.notes),
            (len(self.resumes), len(self.marked)),
        )

    def rollback(self, m: _Mark) -> None:
        for key in [k for k in self.values if k not in m.values]:
            del self.values[key]
        for key, n in m.values.items():
            del self.values[key][n:]
        self.group = m.group
        for g, keys, steps, times in m.groups:
            g.keys = keys
            del g.steps[steps:]
            if times is None:
                g.times = None
            elif g.times is not None:
                del g.times[times:]
        self.bad = m.bad
        self.records, self.step_key, self.last_step, self.ended, self.path, self.notes = m.scalars
        del self.resumes[m.lists[0] :], self.marked[m.lists[1] :]

    def _where(self, pos: int) -> tuple[int | None, str]:
        return (pos + 1, "") if self.unit == "line" else (None, f"first at {self.unit}[{pos}]")

    def add(self, recs: list[dict[str, Any]], pos: np.ndarray | None, first: int) -> None:
        recs, pos = self._drop_summaries(recs, pos, first)
        n = len(recs)
        if not n:
            return
        self.records += n
        pos = np.arange(first, first + n) if pos is None else pos
        keys = set(chain.from_iterable(recs))
        low = {k.lower(): k for k in keys}
        step_key = low.get(self.step_key) if self.step_key else None
        if step_key is None:
            step_key = next((low[k] for k in STEP_KEYS if k in low), None)
            self.step_key = step_key.lower() if step_key else self.step_key
        time_key = next((low[k] for k in TIME_KEYS if k in low), None)
        steps = self._steps(recs, step_key, pos)
        for key in _EVENT_KEYS & keys:  # a loop's own marker: {"event": "resume", "step": 300}
            for i, r in enumerate(recs):
                v = r.get(key)
                if isinstance(v, str) and "resum" in v.lower():
                    self.marked.append((int(steps[i]), int(pos[i])))
        times = self._column(recs, time_key, pos, times=True) if time_key else None
        rows: dict[bytes | None, list[str]] = {}  # keys by the records that hold them
        where: dict[bytes | None, np.ndarray | None] = {}
        for key in sorted(keys, key=str):
            if key in (step_key, time_key) or key.lower() in _COUNTERS or is_bookkeeping(key):
                continue  # counters and clocks are axes, not metrics
            idx, vals = self._values(recs, key, pos)
            if vals.size:
                sig = None if idx is None else idx.tobytes()
                rows.setdefault(sig, []).append(key)
                where[sig] = idx
                self.values.setdefault(key, array("d")).frombytes(
                    np.asarray(vals, np.float64).tobytes()
                )
        for sig, ks in rows.items():
            idx = where[sig]
            s = steps if idx is None else steps[idx]
            t = None if times is None else (times if idx is None else times[idx])
            for g in self._groups(ks):
                g.append(s, t)

    def _groups(self, keys: list[str]) -> list[_Group]:
        """The groups to extend for keys found in the same records: a group whose keys
        are not all here is split, its step column copied for the keys that leave."""
        by: dict[int, list[str]] = {}
        for k in keys:
            by.setdefault(id(self.group.get(k)), []).append(k)
        out = []
        for ks in by.values():
            g = self.group.get(ks[0])
            if g is None or g.keys != set(ks):
                if g is not None:
                    g.keys.difference_update(ks)
                g = _Group(ks, g)
                self.group.update(dict.fromkeys(ks, g))
            out.append(g)
        return out

    def _drop_summaries(
        self, recs: list[dict[str, Any]], pos: np.ndarray | None, first: int
    ) -> tuple[list[dict[str, Any]], np.ndarray | None]:
        """A trainer's final summary line (train_runtime, the whole log_history again) is
        not a curve point: it is left out and says the run ended."""
        bad = [i for i, r in enumerate(recs) if "train_runtime" in r or "log_history" in r]
        if not bad:
            return recs, pos
        self.ended = True
        keep = sorted(set(range(len(recs))) - set(bad))
        full = np.arange(first, first + len(recs)) if pos is None else pos
        return [recs[i] for i in keep], full[keep]

    def _steps(self, recs: list, key: str | None, pos: np.ndarray) -> np.ndarray:
        if key is None and not self.step_key:
            return pos.astype(np.int64)  # no step counter anywhere: the line index
        n = len(recs)
        col = self._column(recs, key, pos) if key else np.full(n, np.nan)
        if key and np.isnan(col).any():  # "1/438": the step of a step/total pair
            for i in np.flatnonzero(np.isnan(col)).tolist():
                v = recs[i].get(key)
                if isinstance(v, str) and "/" in v:
                    col[i] = to_float(v.split("/", 1)[0][:100]) or np.nan
        # 1e309, NaN spelled out, 2**64: not a counter. The record is counted and given
        # the previous step (below), so its metrics still count and no int() sees an inf.
        with np.errstate(invalid="ignore"):
            odd = ~np.isnan(col) & ~(np.abs(col) <= MAX_STEP)
        if odd.any():
            line, where = self._where(int(pos[odd.argmax()]))
            what = "record{s} whose step is not a counter (inf or beyond 2**53)"
            self.notes.count(self.path, what, line, where or "given the previous step", "")
            col[odd] = np.nan
        # a record of eval metrics only, numbered by epoch (mmengine's val lines): it
        # belongs to the train step before it, not to a resume back to step 1
        back = np.flatnonzero(np.r_[False, col[1:] < col[:-1]])
        for i in back.tolist():
            if _eval_only(recs[i]):
                col[i] = np.nan
        if self.last_step is not None and n and col[0] < self.last_step and _eval_only(recs[0]):
            col[0] = np.nan
        missing = np.isnan(col)
        if missing.any():  # forward-fill from the last step seen, else the line index
            if (none := missing & ~odd).any():
                line, where = self._where(int(pos[none.argmax()]))
                what = "record{s} without a step counter"
                self.notes.count(self.path, what, line, where or "given the previous step", "")
            last = np.maximum.accumulate(np.where(missing, -1, np.arange(n)))
            prior = np.nan if self.last_step is None else self.last_step
            col = np.where(last >= 0, col[np.maximum(last, 0)], prior)
            col = np.where(np.isnan(col), pos, col)
        prev = np.r_[np.nan if self.last_step is None else self.last_step, col[:-1]]
        for i in np.flatnonzero(col < prev)[:100]:
            self.resumes.append((int(prev[i]), int(col[i]), int(pos[i])))
        self.last_step = float(col[-1])
        return col.astype(np.int64)

    def _column(self, recs: list, key: str, pos: np.ndarray, times: bool = False) -> np.ndarray:
        idx, vals = self._values(recs, key, pos, times)
        if idx is None:
            return vals
        out = np.full(len(recs), np.nan)
        out[idx] = vals
        return out

    def _values(
        self, recs: list, key: str, pos: np.ndarray, times: bool = False
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """(record indices or None for all, float values); JSON null = not logged."""
        try:  # fast path: plain numbers, a missing key reads as the sentinel
            vals = np.fromiter(
                map(dict.get, recs, repeat(key), repeat(_ABSENT)), np.float64, count=len(recs)
            )
        except (ValueError, TypeError, OverflowError):
            pass  # None (null), strings, lists: the careful path below
        else:
            absent = vals == _ABSENT
            nan = np.flatnonzero(np.isnan(vals))  # numpy reads null as NaN: tell them apart
            if nan.size:
                absent[[i for i in nan.tolist() if recs[i].get(key) is None]] = True
            if not absent.any():
                return None, vals
            return np.flatnonzero(~absent), vals[~absent]
        present = sum(map(dict.__contains__, recs, repeat(key)))
        if present * 2 >= len(recs):  # mostly there: a missing key reads as None, like null
            idx, raw = None, list(map(dict.get, recs, repeat(key)))  # C loop, no frames
        else:
            found = list(compress(count(), map(dict.__contains__, recs, repeat(key))))
            idx, raw = np.asarray(found, dtype=np.int64), [recs[i][key] for i in found]
        try:
            vals = np.array(raw, dtype=np.float64)  # None -> NaN, told apart below
            fast = vals.shape == (len(raw),)
        except (ValueError, TypeError, OverflowError):
            fast = False
        nones = (
            [i for i in np.flatnonzero(np.isnan(vals)).tolist() if raw[i] is None]
            if fast
            else [i for i, v in enumerate(raw) if v is None]
        )
        if nones:
            keep = np.ones(len(raw), dtype=bool)
            keep[nones] = False
            idx = (np.arange(len(raw)) if idx is None else idx)[keep]
            if fast:
                return idx, vals[keep]
            raw = [v for v in raw if v is not None]
        return (idx, vals) if fast else self._slow(key, raw, idx, pos, times)

    def _slow(
        self, key: str, raw: list, idx: np.ndarray | None, pos: np.ndarray, times: bool
    ) -> tuple[np.ndarray | None, np.ndarray]:
        tally = self.bad.setdefault(key, [0, 0, -1])
        conv = _time if times else to_float
        if tally[0] == 0 and tally[1] and conv(raw[0]) is None:
            tally[1] += len(raw)  # a text column (e.g. "split"): not a metric, skip fast
            return None, np.empty(0)
        floats = [conv(v) for v in raw]
        ok = np.array([f is not None for f in floats], dtype=bool)
        vals = np.array([math.nan if f is None else f for f in floats], dtype=np.float64)
        tally[0] += int(ok.sum())
        if ok.all():
            return idx, vals
        if tally[1] == 0:
            first = int(np.flatnonzero(~ok)[0])
            tally[2] = int(pos[first if idx is None else idx[first]])
        tally[1] += int((~ok).sum())
        base = np.arange(len(raw)) if idx is None else idx
        return base[ok], vals[ok]

    def finish(
        self, trainer: str, rank: Callable[[str, str], int] | None = None
    ) -> tuple[dict[str, Series], dict[str, Fact]]:
        ignored = sorted(
            k for k, (good, _, _) in self.bad.items() if good == 0 and k.lower() not in _EVENT_KEYS
        )
        if ignored:
            self.notes.add(self.path, f"ignored non-numeric keys: {', '.join(ignored[:10])}")
        for key, (good, bad, first) in self.bad.items():
            if good and bad:
                line, where = self._where(first)
                self.notes.count(self.path, f"non-numeric {key!r} value", line, where)
        rank = rank or (lambda raw, name: 0 if raw.lower() == name else 1)
        owner: dict[str, str] = {}

        # Two spellings of one signal (Lightning's val_loss per epoch and test_loss once at
        # the end): the reader's preference, then the one logged most often.
        def order(k: str) -> tuple[int, int, str]:
            return rank(k, canonical(k)), -len(self.values[k]), k

        for key in sorted(self.values, key=order):
            owner.setdefault(canonical(key), key)
        for g in {id(g): g for g in self.group.values()}.values():
            g.dedup(self.values)
        series: dict[str, Series] = {}
        for key in list(self.values):
            name = canonical(key) if owner[canonical(key)] == key else key.strip().lower()
            steps, times = self.group[key].arrays()
            vals = restore(np.frombuffer(self.values.pop(key), np.float64))
            series[name] = Series.from_arrays(name, steps, vals, times, f"{trainer}: {key}")
        heap.give_back(self.records)  # the batches' freed blocks, before the rules' arrays
        facts: dict[str, Fact] = {}
        if self.ended:
            facts["ended"] = Fact(True, f"{trainer}: the final summary record (train_runtime)")
        if self.resumes:
            starts = tuple(to for _, to, _ in self.resumes)
            where = ", ".join(
                f"{a}->{b} at {self._where(p)[0] or self._where(p)[1]}"
                for a, b, p in self.resumes[:3]
            )
            facts["resume_steps"] = Fact(starts, f"{trainer}: step went back ({where})")
        if self.marked:
            old = facts["resume_steps"].value if "resume_steps" in facts else ()
            starts = tuple(sorted({*old, *(s for s, _ in self.marked)}))
            step, p = self.marked[0]
            where = self._where(p)[0] or self._where(p)[1]
            facts["resume_steps"] = Fact(
                starts, f"{trainer}: a resume record at step {step} ({where})"
            )
        return series, facts


class _Mark(NamedTuple):
    values: dict[str, int]  # key -> length
    group: dict[str, _Group]
    groups: list[tuple[_Group, set[str], int, int | None]]  # keys, steps and times lengths
    bad: dict[str, list[int]]
    scalars: tuple[int, str | None, float | None, bool, str, Notes]
    lists: tuple[int, int]  # lengths of resumes and marked


class _Group:
    """One step column (and time column, once a record has a time) for keys logged in
    the same records; read back as numpy views shared by their Series."""

    def __init__(self, keys: list[str], src: _Group | None = None) -> None:
        self.keys = set(keys)
        self.steps = array("q", src.steps) if src else array("q")
        self.times = array("d", src.times) if src and src.times is not None else None
        self._arrays: tuple[np.ndarray, np.ndarray | None] | None = None

    def append(self, steps: np.ndarray, times: np.ndarray | None) -> None:
        if times is not None and self.times is None:  # the first clock: earlier rows have none
            self.times = array("d", [math.nan]) * len(self.steps)
        if self.times is not None:
            t = np.full(len(steps), np.nan) if times is None else times
            self.times.frombytes(np.asarray(t, np.float64).tobytes())
        self.steps.frombytes(np.asarray(steps, np.int64).tobytes())

    def dedup(self, values: dict[str, array]) -> None:
        """Keep each step's last write, in place, when the steps are in order but repeat
        (an eval line at a train line's step): Series.from_arrays would copy every
        column of the group for that, and hold both."""
        keep = order_and_dedup(np.frombuffer(self.steps, np.int64))
        if keep is None or keep.dtype != bool:
            return  # in order already, or out of order (a resume): from_arrays sorts
        _compact(self.steps, keep)
        if self.times is not None:
            _compact(self.times, keep)
        for key in self.keys:
            _compact(values[key], keep)

    def arrays(self) -> tuple[np.ndarray, np.ndarray | None]:
        if self._arrays is None:
            times = None if self.times is None else np.frombuffer(self.times, np.float64)
            if times is not None and np.isfinite(times).any() and np.nanmedian(times) > 1e11:
                times = times / 1000.0  # milliseconds since the epoch
            steps = np.frombuffer(self.steps, np.int64)
            steps.flags.writeable = False  # shared by several Series: no one may edit it
            self._arrays = (steps, times)
        return self._arrays


def _compact(buf: array, keep: np.ndarray, block: int = 1 << 20) -> None:
    """buf = buf[keep], in place, a block at a time (writes never pass the reads)."""
    view = np.frombuffer(buf, np.int64 if buf.typecode == "q" else np.float64)
    w = 0
    for a in range(0, view.size, block):
        part = view[a : a + block][keep[a : a + block]]
        view[w : w + part.size] = part
        w += part.size
    del view
    del buf[w:]


def _eval_only(rec: dict[str, Any]) -> bool:
    kinds = {kind(k) for k in rec if k.lower() not in _COUNTERS}
    evals = [k for k in rec if is_eval(k) or kind(k) == "task"]
    return (
        bool(evals)
        and kinds
        <= {"task", "eval_loss", "eval_component_loss", "time", "memory", "other", "epoch"}
        and all(is_eval(k) or kind(k) != "loss" for k in rec)
    )


def _time(value: Any) -> float | None:
    f = to_float(value)
    if f is not None or not isinstance(value, str):
        return f
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
