"""From the records of one text log to runs: steps resolved, ranks chosen, runs cut.

Many logs do not print the step on the metric line: HF Trainer's dicts are
numbered by the tqdm bar printed after them, Keras by its `Epoch 3/10` line,
an exception's `loss_dict` by the line before it, a paste of bare dicts only by
their order (and then the report says so). A file can also hold more than one
run: a restart that goes back to the first steps starts a new run; a resume
that goes back part-way is the same run continued (the later write of a step
wins and the resume is a fact).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Fact, Input, Note, Run, Series
from traindoc.model.signals import canonical, is_eval
from traindoc.readers import _config
from traindoc.readers.logs import events as evs
from traindoc.readers.logs import profiles

if TYPE_CHECKING:
    from traindoc.readers.logs.text import TextLog

SRC_STEP, SRC_EPOCH, SRC_PROGRESS, SRC_EPOCH_ONLY, SRC_NONE = 0, 1, 2, 3, 4
SRC_BAR, SRC_SUMMARY, SRC_CARRY, SRC_ORDINAL = 5, 6, 7, 8
_SRC_WORDS = {
    SRC_STEP: "the step printed on each line",
    SRC_EPOCH: "epoch x batches per epoch + batch",
    SRC_PROGRESS: "the progress counter on the line",
    SRC_EPOCH_ONLY: "the epoch number",
    SRC_BAR: "the progress bar printed after each line",
    SRC_SUMMARY: "epoch x steps per epoch (from the run's final summary)",
    SRC_CARRY: "the step of the line before (the line prints none)",
    SRC_ORDINAL: "the order of the lines (no step is printed: only the order is real)",
}
# A step that goes back to within this share of the segment's first steps is a new run;
# further along it is a resume of the same run.
RESTART_SHARE = 0.1


def stamp(m: re.Match[bytes]) -> float:
    try:
        d = datetime.fromisoformat(f"{m.group(1).decode()} {m.group(2).decode()}")
    except ValueError:
        return math.nan
    return d.timestamp() + (float(b"0." + m.group(3)) if m.group(3) else 0.0)


def build(log: TextLog) -> list[Run]:
    notes: list[Note] = []
    path = str(log.path)
    n = len(log.rec_line)
    line = np.array(log.rec_line, dtype=np.int64)
    step = np.array(log.rec_step, dtype=np.float64)
    src = np.array(log.rec_src, dtype=np.int8)
    keep = _ranks(np.array(log.rec_rank, dtype=np.int8), notes, path)
    train = _train_records(log, n)
    _resolve(log, line, step, src, train)
    segments, resumes = _segments(step, src, keep, np.array(log.rec_epoch), line, log.breaks)
    if len(segments) > 1:
        notes.append(
            Note(
                path,
                f"{len(segments)} runs in one file (the step starts over at line "
                + ", ".join(str(int(line[s[0]])) for s in segments[1:4])
                + ")",
            )
        )
    used = Counter(int(s) for s in src[keep]) if n else Counter()
    steps_from = "; ".join(f"{_SRC_WORDS[k]} ({c})" for k, c in used.most_common()) or None
    if used.get(SRC_ORDINAL):
        notes.append(Note(path, "no step is printed: steps are the order of the metric lines"))
    if used.get(SRC_CARRY):
        notes.append(
            Note(path, f"{used[SRC_CARRY]} metric line(s) without a step: given the step before")
        )
    base_facts = _facts(log)
    misread, first = _misread(log)
    dialect = profiles.dialect(log)
    runs = []
    for k, idx in enumerate(segments):
        series = _series(log, idx, step, keep, path, dialect, notes)
        facts = dict(base_facts)
        rs = [to for seg, _, to in resumes if seg == k]
        if rs:
            facts["resume_steps"] = Fact(tuple(rs), f"{log.path.name}: the step went back")
        events = evs.place(log.events, line[idx], step[idx])
        if k == 0 or len(segments) == 1:
            facts = profiles.event_facts(events, facts, series, log.path)
        counts = {name: len(s) for name, s in sorted(series.items())}
        inp = Input(
            path,
            "text-log",
            series=counts,
            lines=log.lines,
            lines_not_understood=misread,
            first_not_understood=first,
            steps_from=steps_from,
        )
        name = log.path.stem if len(segments) == 1 else f"{log.path.stem} [{k + 1}/{len(segments)}]"
        facts["trainer"] = Fact(dialect, f"{log.path.name}: {dialect} lines")
        runs.append(Run(name, series, facts, (inp,), tuple(notes), events=tuple(events)))
    if not runs:  # evidence lines only (an overflow message, a trainable-params print)
        events = evs.place(log.events, line[:0], step[:0])
        facts = profiles.event_facts(events, dict(base_facts), {}, log.path)
        inp = Input(path, "text-log", {}, log.lines, misread, first, None)
        runs.append(Run(log.path.stem, {}, facts, (inp,), tuple(notes), events=tuple(events)))
    return runs


def _misread(log: TextLog) -> tuple[int, str | None]:
    """Lines that name a metric next to a number but gave none, less the evidence lines
    (an overflow message is understood, as an event); and the first of them."""
    evidence = {e.line for e in log.events}
    told = sum(1 for no in log.bad_lines if no in evidence)
    first = next(((no, t) for no, t in log.bad_examples if no not in evidence), None)
    text = (
        f"line {first[0]}: {first[1].decode('utf-8', 'replace').strip()[:160]}" if first else None
    )
    return log.not_understood - told, text


def _ranks(rank: np.ndarray, notes: list[Note], path: str) -> np.ndarray:
    """Keep the lowest rank's records when several ranks print (and unprefixed lines)."""
    ranked = rank[rank >= 0]
    if ranked.size == 0 or np.unique(ranked).size < 2:
        return np.ones(rank.size, dtype=bool)
    low = int(ranked.min())
    notes.append(
        Note(path, f"{np.unique(ranked).size} ranks print here; metrics read from rank {low}")
    )
    return (rank < 0) | (rank == low)


def _train_records(log: TextLog, n: int) -> np.ndarray:
    """True for records with a train metric (an eval line belongs to the train line before)."""
    out = np.zeros(n, dtype=bool)
    for name, c in log.cols.items():
        if not is_eval(name):
            out[np.frombuffer(c.recs, dtype=np.int64)] = True
    out &= np.array(log.rec_eval, dtype=bool) == 0
    return out


def _resolve(
    log: TextLog, line: np.ndarray, step: np.ndarray, src: np.ndarray, train: np.ndarray
) -> None:
    """Fill the steps the lines did not print, in place (see the module docstring)."""
    _demote(log, step, src)
    _per_epoch(log, step, src, train)
    missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    seq = np.array(log.rec_seq, np.int64)  # order within \r-joined lines too
    if len(log.bar_line):
        bl, bn = _train_bars(log)
        nxt = np.r_[seq[1:], np.iinfo(np.int64).max][missing]
        j = np.searchsorted(bl, seq[missing], side="right")
        # the first train bar printed after the record, before the next record
        ok = j < bl.size
        jj = np.minimum(j, max(bl.size - 1, 0))
        ok &= bl[jj] < nxt if bl.size else ok
        step[missing[ok]] = bn[jj[ok]]
        src[missing[ok]] = SRC_BAR
        missing = missing[~ok]
    if missing.size and log.summaries:
        # each record's own run: the first summary printed after it (a resumed run's
        # summary counts only the steps of its own session)
        sums = [s for s in log.summaries if s.get("_seq") is not None]
        at = np.array([s["_seq"] for s in sums], np.int64)
        epoch = np.array(log.rec_epoch)
        k = np.searchsorted(at, seq[missing])
        for m, kk in zip(missing.tolist(), k.tolist(), strict=True):
            spe = _steps_per_epoch(sums[min(kk, len(sums) - 1)]) if sums else None
            if spe is not None and math.isfinite(epoch[m]):
                step[m], src[m] = round(epoch[m] * spe), SRC_SUMMARY
        missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    if np.isfinite(step).any():  # carry the step of the line before (else the one after)
        filled = _ffill(step)
        first = step[np.isfinite(step)][0]
        step[missing] = np.where(np.isnan(filled[missing]), first, filled[missing])
        src[missing] = SRC_CARRY
        return
    ordinal = np.maximum(np.cumsum(train), 1).astype(np.float64)
    step[missing] = ordinal[missing]
    src[missing] = SRC_ORDINAL


def _demote(log: TextLog, step: np.ndarray, src: np.ndarray) -> None:
    """Forget weak step guesses that disagree with the file's own counter, in place.

    An epoch number is a step only when every epoch in the file is whole (Keras,
    cxxnet rounds); with fractional epochs (HF dicts) or a printed step counter
    elsewhere (fairseq's valid lines carry only the epoch) it is not. Epoch x
    batches holds only for the train loader's batch count (an mmengine val line
    prints its own loader's), and never for an eval line.
    """
    epoch = np.array(log.rec_epoch)
    only = src == SRC_EPOCH_ONLY
    if only.any():
        e = epoch[np.isfinite(epoch)]
        if (src == SRC_STEP).any() or (e != np.floor(e)).any():
            step[only], src[only] = np.nan, SRC_NONE
    by_batches = src == SRC_EPOCH
    if by_batches.any():
        total = np.array(log.rec_total)
        dominant = Counter(total[by_batches].tolist()).most_common(1)[0][0]
        bad = by_batches & ((total != dominant) | (np.array(log.rec_eval) == 1))
        if (src == SRC_STEP).any():
            bad = by_batches
        step[bad], src[bad] = np.nan, SRC_NONE
    if (src == SRC_STEP).any():
        weak = src == SRC_PROGRESS
        step[weak], src[weak] = np.nan, SRC_NONE


def _per_epoch(log: TextLog, step: np.ndarray, src: np.ndarray, train: np.ndarray) -> None:
    """A printed step that starts over at every new epoch counts within the epoch
    ("Epoch 2, Step 0"): make it global, epoch x steps per epoch + step, in place."""
    epoch = np.array(log.rec_epoch)
    sel = np.flatnonzero((src == SRC_STEP) & np.isfinite(epoch) & train)
    if sel.size < 3:
        return
    s, e = step[sel], epoch[sel]
    back = np.flatnonzero(s[1:] < s[:-1])
    if not back.size or not np.all(e[back + 1] > e[back]) or np.any(e[1:] < e[:-1]):
        return
    per = float(np.max(s) - np.min(s) + 1)
    base = math.floor(float(e.min()))
    mask = (src == SRC_STEP) & np.isfinite(epoch)
    step[mask] = (np.floor(epoch[mask]) - base) * per + step[mask]


def _train_bars(log: TextLog) -> tuple[np.ndarray, np.ndarray]:
    """(order, n) of the training progress bars: those whose counter never starts over.

    An eval loop's bar runs 0..N at every evaluation; the train bar only climbs
    (a resume opens a new one with its own total).
    """
    total = np.array(log.bar_total)
    n = np.array(log.bar_n)
    seq = np.array(log.bar_seq, np.int64)
    keep = np.zeros(total.size, dtype=bool)
    for t in np.unique(total):
        sel = total == t
        if int(np.sum(np.diff(n[sel]) < 0)) <= 1:
            keep |= sel
    if not keep.any():
        keep = total == Counter(total.tolist()).most_common(1)[0][0]
    return seq[keep], n[keep]


def _steps_per_epoch(summary: dict[str, float]) -> float | None:
    sps, rt, ep = (summary.get(k) for k in ("train_steps_per_second", "train_runtime", "epoch"))
    if not (sps and rt and ep) or not math.isfinite(sps * rt / ep):
        return None
    return sps * rt / ep


def _ffill(x: np.ndarray) -> np.ndarray:
    idx = np.where(np.isfinite(x), np.arange(x.size), -1)
    np.maximum.accumulate(idx, out=idx)
    out = np.full(x.size, np.nan)
    ok = idx >= 0
    out[ok] = x[idx[ok]]
    return out


def _segments(
    step: np.ndarray,
    src: np.ndarray,
    keep: np.ndarray,
    epoch: np.ndarray,
    line: np.ndarray,
    breaks: list[int],
) -> tuple[list[np.ndarray], list[tuple[int, int, int]]]:
    """Record indices per run, and (run, from step, to step) for each resume inside a run."""
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return [], []
    cuts, resumes = [0], []
    first = last = step[idx[0]]
    ordinal = src[idx] == SRC_ORDINAL
    brk = np.array(sorted(breaks), np.int64)
    for k in range(1, idx.size):
        i, p = idx[k], idx[k - 1]
        s = step[i]
        went_back = s < step[p] or (ordinal[k] and epoch[i] < epoch[p])
        if not went_back:
            last = max(last, s)
            continue
        between = brk.size and np.searchsorted(brk, line[i]) > np.searchsorted(brk, line[p])
        if s <= first + RESTART_SHARE * (last - first) or (ordinal[k] and between):
            cuts.append(k)
            first = last = s
        else:
            resumes.append((len(cuts) - 1, int(step[p]), int(s)))
    bounds = [*cuts, idx.size]
    return [idx[a:b] for a, b in itertools.pairwise(bounds)], resumes


def _series(
    log: TextLog,
    idx: np.ndarray,
    step: np.ndarray,
    keep: np.ndarray,
    path: str,
    dialect: str,
    notes: list[Note],
) -> dict[str, Series]:
    inseg = np.zeros(step.size, dtype=bool)
    inseg[idx] = True
    times = np.array(log.rec_time)
    has_times = bool(np.isfinite(times).any())
    raw: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    for name, c in log.cols.items():
        recs = np.frombuffer(c.recs, dtype=np.int64)
        vals = np.frombuffer(c.vals, dtype=np.float64)
        sel = inseg[recs]
        if not sel.any():
            continue
        r = recs[sel]
        raw[name] = (step[r], vals[sel].copy(), times[r] if has_times else None)
    raw = profiles.clean(raw, dialect, notes, path)
    # one raw key owns each canonical name: the one with the most points
    owner: dict[str, str] = {}
    for key in sorted(raw, key=lambda k: (-raw[k][0].size, canonical(k) != k, k)):
        owner.setdefault(canonical(key), key)
    out: dict[str, Series] = {}
    for key, (st, vals, t) in raw.items():
        name = canonical(key) if owner[canonical(key)] == key else key
        out[name] = Series.from_arrays(name, st, vals, t, f"{log.path.name}: {key}")
    return out


def _facts(log: TextLog) -> dict[str, Fact]:
    """Facts the text states: its config lines, the planned total, the LR's print resolution."""
    name = log.path.name
    cfg = {k: v for k, (v, _) in log.config.items()}
    facts: dict[str, Fact] = {}
    if cfg:
        lines = {k: no for k, (_, no) in log.config.items()}
        for fact in (
            *_config.tool_facts(cfg, name).items(),
            *_config.facts_from(cfg, name).items(),
        ):
            key, f = fact
            if key not in facts:
                where = lines.get(f.source.split(": ", 1)[-1].split("=")[0].split(".")[-1].lower())
                facts[key] = Fact(f.value, f"{name}:{where}" if where else f.source)
    if log.totals and "max_steps" not in facts:
        total, _ = log.totals.most_common(1)[0]
        facts["max_steps"] = Fact(total, f"{name}: the step total printed on each line")
    if log.lr_decimals:
        d = max(log.lr_decimals)
        facts["lr_print_decimals"] = Fact(d, f"{name}: the LR is printed with {d} decimals")
    if log.summaries:
        keys = ", ".join(k for k in ("train_runtime", "total_flos") if k in log.summaries[-1])
        facts["ended"] = Fact(True, f"{name}: the run's final {keys} summary line")
    return facts
