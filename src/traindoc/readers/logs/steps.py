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
from traindoc.model.signals import canonical
from traindoc.readers import _config
from traindoc.readers.logs import events as evs
from traindoc.readers.logs import profiles
from traindoc.readers.logs.records import Records

if TYPE_CHECKING:
    from traindoc.readers.logs.text import TextLog

SRC_STEP, SRC_EPOCH, SRC_PROGRESS, SRC_EPOCH_ONLY, SRC_NONE = 0, 1, 2, 3, 4
SRC_BAR, SRC_SUMMARY, SRC_CARRY, SRC_ORDINAL, SRC_ALT = 5, 6, 7, 8, 9
_SRC_WORDS = {
    SRC_STEP: "the step printed on each line",
    SRC_EPOCH: "epoch x batches per epoch + batch",
    SRC_PROGRESS: "the progress counter on the line",
    SRC_EPOCH_ONLY: "the epoch number",
    SRC_BAR: "the progress bar printed after each line",
    SRC_SUMMARY: "epoch x steps per epoch (from the run's final summary)",
    SRC_CARRY: "the step of the line before (the line prints none)",
    SRC_ORDINAL: "the order of the lines (no step is printed: only the order is real)",
    SRC_ALT: "the iteration counter (the optimizer step printed beside it repeats)",
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
    rec = Records(log.rec_line, log.rec_seq, log.rec_plan, log.rec_rank, log.programs, log.loose)
    n = rec.n
    line = rec.line
    step, src = _steps(rec)
    keep = _ranks(rec.rank, notes, path)
    train = rec.flag("train")
    _resolve(log, rec, step, src, train)
    epoch = rec.extra("epoch")
    segments, resumes = _segments(step, src, keep, epoch, line, log.breaks)
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
    times = rec.extra("time")
    columns = list(rec.columns())
    runs = []
    for k, idx in enumerate(segments):
        series = _series(log, columns, idx, step, times, dialect, notes, n)
        facts = dict(base_facts)
        rs = [to for seg, _, to in resumes if seg == k]
        if rs:
            facts["resume_steps"] = Fact(tuple(rs), f"{log.path.name}: the step went back")
        found = evs.place(log.events, line[idx], step[idx])
        if k == 0 or len(segments) == 1:
            facts = profiles.event_facts(found, facts, series, log.path)
        counts = {name: len(s) for name, s in sorted(series.items())}
        inp = Input(path, "text-log", counts, log.lines, misread, first, steps_from)
        name = log.path.stem if len(segments) == 1 else f"{log.path.stem} [{k + 1}/{len(segments)}]"
        facts["trainer"] = Fact(dialect, f"{log.path.name}: {dialect} lines")
        runs.append(Run(name, series, facts, (inp,), tuple(notes), events=tuple(found)))
    if not runs:  # evidence lines only (an overflow message, a trainable-params print)
        found = evs.place(log.events, line[:0], step[:0])
        facts = profiles.event_facts(found, dict(base_facts), {}, log.path)
        inp = Input(path, "text-log", {}, log.lines, misread, first, None)
        runs.append(Run(log.path.stem, {}, facts, (inp,), tuple(notes), events=tuple(found)))
    return runs


def _steps(rec: Records) -> tuple[np.ndarray, np.ndarray]:
    """Each record's step and where it came from, from the counters its line printed."""
    step = rec.extra("step")
    src = np.full(rec.n, SRC_NONE, dtype=np.int8)
    src[np.isfinite(step)] = SRC_STEP
    loose = np.flatnonzero(rec.plan == -1)
    if loose.size:
        src[loose] = rec.loose_src()
    epoch, inner, total = rec.extra("epoch"), rec.extra("inner"), rec.extra("inner_total")
    ctx = rec.extra("ctx")
    epoch = np.where(np.isnan(epoch), ctx, epoch)
    none = src == SRC_NONE
    by_batches = none & np.isfinite(epoch) & np.isfinite(inner) & (total > 0)
    if by_batches.any():
        base = math.floor(float(epoch[by_batches][0]))
        step[by_batches] = (np.floor(epoch[by_batches]) - base) * total[by_batches] + inner[
            by_batches
        ]
        src[by_batches] = SRC_EPOCH
    progress = none & ~by_batches & np.isfinite(inner)
    step[progress], src[progress] = inner[progress], SRC_PROGRESS
    whole = none & ~by_batches & ~progress & np.isfinite(epoch) & (epoch == np.floor(epoch))
    step[whole], src[whole] = epoch[whole], SRC_EPOCH_ONLY
    return step, src


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


def _resolve(
    log: TextLog, rec: Records, step: np.ndarray, src: np.ndarray, train: np.ndarray
) -> None:
    """Fill the steps the lines did not print, in place (see the module docstring)."""
    epoch = rec.extra("epoch")
    _demote(rec, epoch, step, src)
    _per_epoch(epoch, step, src, train)
    _micro_batches(rec.extra("alt"), step, src, train)
    missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    seq = rec.seq  # order within \r-joined lines too
    if len(log.bar_seq):
        bl, bn = _train_bars(log)
        # the next train record bounds the search (an eval line between does not)
        tseq = seq[train]
        k = np.searchsorted(tseq, seq[missing], side="right")
        nxt = np.r_[tseq, np.iinfo(np.int64).max][k]
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
        k = np.searchsorted(at, seq[missing])
        guess = step.copy()
        for m, kk in zip(missing.tolist(), k.tolist(), strict=True):
            spe = _steps_per_epoch(sums[min(kk, len(sums) - 1)]) if sums else None
            if spe is not None and math.isfinite(epoch[m]):
                guess[m] = round(epoch[m] * spe)
        # kept only when it numbers the train lines apart (too few steps per epoch to
        # round to distinct steps means the summary does not describe these lines)
        g = guess[missing][train[missing]]
        if np.isfinite(g).all() and np.unique(g).size == g.size:
            ok = missing[np.isfinite(guess[missing])]
            step[ok], src[ok] = guess[ok], SRC_SUMMARY
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


def _demote(rec: Records, epoch: np.ndarray, step: np.ndarray, src: np.ndarray) -> None:
    """Forget weak step guesses that disagree with the file's own counter, in place.

    An epoch number is a step only when every epoch in the file is whole (Keras,
    cxxnet rounds); with fractional epochs (HF dicts) or a printed step counter
    elsewhere (fairseq's valid lines carry only the epoch) it is not. Epoch x
    batches never holds for an eval line (an mmengine val line counts its own
    loader's batches).
    """
    only = src == SRC_EPOCH_ONLY
    if only.any():
        e = epoch[np.isfinite(epoch)]
        if (src == SRC_STEP).any() or (e != np.floor(e)).any():
            step[only], src[only] = np.nan, SRC_NONE
    by_batches = src == SRC_EPOCH
    if by_batches.any():
        bad = by_batches if (src == SRC_STEP).any() else by_batches & rec.flag("is_eval")
        step[bad], src[bad] = np.nan, SRC_NONE
    if (src == SRC_STEP).any():
        weak = src == SRC_PROGRESS
        step[weak], src[weak] = np.nan, SRC_NONE


def _per_epoch(epoch: np.ndarray, step: np.ndarray, src: np.ndarray, train: np.ndarray) -> None:
    """A printed step that starts over at every new epoch counts within the epoch
    ("Epoch 2, Step 0"): make it global, epoch x steps per epoch + step, in place."""
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
    """(order, n) of the training progress bars among those read (the first after each
    record): the train bar climbs from record to record; an eval loop's bar is read
    when it starts, at 0 every time (a resume opens a new train bar, with its total)."""
    total = np.frombuffer(log.bar_total, dtype=np.float64)
    n = np.frombuffer(log.bar_n, dtype=np.float64)
    seq = np.frombuffer(log.bar_seq, dtype=np.int32).astype(np.int64)
    keep = np.zeros(total.size, dtype=bool)
    totals = np.unique(total)
    for t in totals:
        sel = total == t
        climbs = int(np.sum(np.diff(n[sel]) < 0)) <= 1 and np.unique(n[sel]).size > 1
        if climbs or totals.size == 1:
            keep |= sel
    if not keep.any():
        keep = total == Counter(total.tolist()).most_common(1)[0][0]
    return seq[keep], n[keep]


def _steps_per_epoch(summary: dict[str, float]) -> float | None:
    sps, rt, ep = (summary.get(k) for k in ("train_steps_per_second", "train_runtime", "epoch"))
    if not (sps and rt and ep) or not math.isfinite(sps * rt / ep):
        return None
    return sps * rt / ep


def _micro_batches(alt: np.ndarray, step: np.ndarray, src: np.ndarray, train: np.ndarray) -> None:
    """One loss per micro-batch under an optimizer step that repeats (litgpt's `iter N step
    M` with gradient accumulation): number the points by the counter that does not repeat."""
    sel = np.flatnonzero((src == SRC_STEP) & train)
    if sel.size < 3 or not np.isfinite(alt[sel]).all():
        return
    s, a = step[sel], alt[sel]
    repeats = float(np.mean(s[1:] == s[:-1]))
    if repeats >= 0.3 and np.all(np.diff(a) > 0):
        mask = (src == SRC_STEP) & np.isfinite(alt)
        step[mask], src[mask] = alt[mask], SRC_ALT


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
    """Record indices per run, and (run, from step, to step) for each resume inside a run.

    Only the points where the step goes back are looked at one by one; between two
    of them the running maximum is one numpy reduction.
    """
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return [], []
    s, e, ln = step[idx], epoch[idx], line[idx]
    ordinal = src[idx] == SRC_ORDINAL
    back = (s[1:] < s[:-1]) | (ordinal[1:] & (e[1:] < e[:-1]))
    points = np.flatnonzero(back) + 1
    brk = np.array(sorted(breaks), np.int64)
    cuts, resumes = [0], []
    first, last, done = s[0], s[0], 0
    for k in points.tolist():
        last = max(last, float(np.max(s[done:k])))
        done = k
        between = brk.size and np.searchsorted(brk, ln[k]) > np.searchsorted(brk, ln[k - 1])
        if s[k] <= first + RESTART_SHARE * (last - first) or (ordinal[k] and between):
            cuts.append(k)
            first = last = s[k]
        else:
            resumes.append((len(cuts) - 1, int(s[k - 1]), int(s[k])))
    bounds = [*cuts, idx.size]
    return [idx[a:b] for a, b in itertools.pairwise(bounds)], resumes


def _series(
    log: TextLog,
    columns: list[tuple[str, np.ndarray, np.ndarray]],
    idx: np.ndarray,
    step: np.ndarray,
    times: np.ndarray,
    dialect: str,
    notes: list[Note],
    n: int,
) -> dict[str, Series]:
    inseg = np.zeros(n, dtype=bool)
    inseg[idx] = True
    has_times = bool(np.isfinite(times).any())
    raw: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    for name, where, vals in columns:
        sel = inseg[where]
        if not sel.any():
            continue
        r = where[sel]
        parts = (step[r], vals[sel], times[r] if has_times else None)
        if name in raw:  # one name from two shapes: joined, ordered by step later
            a = raw[name]
            t = None if a[2] is None else np.r_[a[2], parts[2]]
            parts = (np.r_[a[0], parts[0]], np.r_[a[1], parts[1]], t)
        raw[name] = parts
    raw = profiles.clean(raw, dialect, notes, str(log.path))
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
