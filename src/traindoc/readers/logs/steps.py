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

import bisect
import itertools
import math
import re
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Fact, Input, Note, Run, Series
from traindoc.model.run import order_and_dedup
from traindoc.model.signals import (
    METRIC_KINDS,
    TEXT_STEP_KEYS,
    canonical,
    is_episode_return,
    is_eval,
    is_test_split,
    kind,
)
from traindoc.readers import _heap as heap
from traindoc.readers import configs
from traindoc.readers.logs import evals, profiles
from traindoc.readers.logs import events as evs
from traindoc.readers.logs.lines import GAP
from traindoc.readers.logs.records import Records

if TYPE_CHECKING:
    from traindoc.readers.logs.shapes import Plan
    from traindoc.readers.logs.text import TextLog

SRC_STEP, SRC_EPOCH, SRC_PROGRESS, SRC_EPOCH_ONLY, SRC_NONE = 0, 1, 2, 3, 4
SRC_BAR, SRC_SUMMARY, SRC_CARRY, SRC_ORDINAL, SRC_ALT = 5, 6, 7, 8, 9
SRC_BAR_EPOCH = 10
SRC_TABLE = 11
SRC_EPOCH_SHARE = 12
SRC_INTERVAL_BACK = 13
SRC_EPOCH_AMONG = 14
# the total a logger table (layouts.py: SB3's) is entered with among the bars it stands for
TABLE_TOTAL = -1.0
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
    SRC_BAR_EPOCH: "the epoch: one finished progress bar per epoch (its count repeats)",
    SRC_TABLE: "the step of the logger table printed after each line",
    SRC_EPOCH_SHARE: "the next numbered line's step x the epoch's share of it",
    SRC_INTERVAL_BACK: "one logging interval per line back from the first numbered line",
    SRC_EPOCH_AMONG: "epoch x batches per epoch + batch, between the printed steps around it",
}
# A step that goes back to within this share of the segment's first steps is a new run;
# further along it is a resume of the same run.
RESTART_SHARE = 0.1
# Two dated records this far apart (seconds) with a gap marker or prose between them are
# two fragments of a thread, not one stretch of a log.
DAYS_APART = 86_400.0


def stamp(m: re.Match[bytes]) -> float:
    try:
        day = m.group(1).decode().replace("/", "-")  # Paddle's, mmengine's "2022/04/04"
        d = datetime.fromisoformat(f"{day} {m.group(2).decode()}")
    except ValueError:
        return math.nan
    return d.timestamp() + (float(b"0." + m.group(3)) if m.group(3) else 0.0)


def build(log: TextLog) -> list[Run]:
    notes: list[Note] = []
    path = str(log.path)
    rec = Records(
        log.rec_line,
        log.rec_seq,
        log.rec_plan,
        log.rec_rank,
        log.programs,
        log.loose,
        (log.ctx_seq, log.ctx_val),
    )
    n = rec.n
    heap.give_back(n)  # what reading the lines freed
    line = rec.line
    bars = (
        np.frombuffer(log.bar_seq, dtype=np.int32).astype(np.int64),
        np.frombuffer(log.bar_total, dtype=np.float64),
    )
    step, src, ep, bounds = _steps(rec, bars)
    keep = _ranks(rec.rank, notes, path)
    train = rec.flag("train")
    _resolve(log, rec, step, src, ep, train)
    _epoch_end_evals(rec, step, src, bounds)
    del bounds
    one_epoch = _one_epoch_counter(rec, src, train)
    # The epoch each record was counted in where no line prints one beside its values
    # (Keras' batch lines under their "Epoch 3/10" heading, numbered epoch x batches):
    # exposed as the run's epoch series, as a printed epoch is.
    counted = None
    if ep.size == n and not rec.has("epoch"):
        counted = np.where(src == SRC_EPOCH, ep, np.nan)  # where the step is still its count
    del train, ep
    heap.give_back(n)
    step = _as_int(step)  # every record has its step now: one integer array from here on
    for where in evals.rename_repeats(rec, step, src == SRC_STEP):
        notes.append(
            Note(
                path, f"{where} repeat the step of the line before in another layout: read as evals"
            )
        )
    # The epoch printed on each line (HF's 2.94): where the run is in its plan.
    epochs = rec.extra("epoch") if rec.has("epoch") else None
    epoch = epochs if (src == SRC_ORDINAL).any() and epochs is not None else step
    rec.drop_counters()
    # the clock splits a paste at its gap markers, and where it goes back a day or more
    dated = rec.extra("time") if rec.has("time") else None
    fenced = (log.fences, rec.plan) if log.fences and rec.plan.size == step.size else None
    segments, resumes = _segments(step, src, keep, epoch, line, log.breaks, dated, fenced)
    del dated
    # only the records that print an epoch are kept from here on
    if epochs is None and counted is not None:
        epochs = counted
    ep_at = np.flatnonzero(np.isfinite(epochs)) if epochs is not None else np.empty(0, np.int64)
    ep_val = epochs[ep_at] if epochs is not None else np.empty(0)
    del epochs, counted
    if len(segments) > 1:
        notes.append(
            Note(
                path,
                f"{len(segments)} runs in one file (a new run starts at line "
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
    # steps numbered epoch x batches + batch: the total printed beside the batch counter
    # is one epoch's, not the run's
    per_epoch = bool(used.get(SRC_EPOCH)) and not (used.get(SRC_STEP) or used.get(SRC_PROGRESS))
    if not per_epoch and one_epoch:
        per_epoch = None  # which the step counts is unknown: so is the plan
    base_facts = _facts(log, per_epoch=per_epoch)
    misread, first = _misread(log)
    dialect = profiles.dialect(log)
    times = rec.extra("time") if rec.has("time") else np.full(0, np.nan)
    # an overflow message on a bar's line keeps the bar's step where the records take theirs
    # from the bar too (HF's printed dicts), or where there are no records
    placed = [
        evs.place(log.events, line[idx], step[idx], bool((src[idx] == SRC_BAR).all()))
        for idx in segments
    ]
    own = _own_settings(log, [int(line[idx[0]]) if idx.size else 0 for idx in segments])
    empty = evs.place(log.events, line[:0], step[:0], True) if not segments else []
    # the per-record bookkeeping is no longer needed: free it before the series are made
    cut_of = [_cuts(log.breaks, line[idx], step[idx]) for idx in segments]
    del line, keep, epoch
    rec.release()
    log.release()
    heap.give_back(n)
    carried = _carried_evals(rec, src)
    lent = src == SRC_CARRY  # the records placed at the step of the line before
    columns = [
        (name, where[k], values[k])
        if (k := carried.get((id(where), name))) is not None
        # a carried eval keeps the points where it changed (the evaluations themselves)
        else (name, where, values)
        for name, where, values in rec.columns()
    ]
    runs = []
    for k, idx in enumerate(segments):
        series = _series(log, columns, idx, step, times, dialect, notes, n, lent)
        if ep_at.size and "epoch" not in series:
            pos = np.minimum(np.searchsorted(idx, ep_at), idx.size - 1)
            inside = idx[pos] == ep_at
            if inside.any():
                at = ep_at[inside]
                series["epoch"] = Series.from_arrays(
                    "epoch", step[at], ep_val[inside], None, f"{log.path.name}: epoch"
                )
        facts = dict(base_facts) if own[k] is None else _facts(log, own[k], per_epoch)
        rs = [to for seg, _, to in resumes if seg == k]
        if rs:
            facts["resume_steps"] = Fact(tuple(rs), f"{log.path.name}: the step went back")
        if cut_of[k]:
            where = f"{log.path.name}: a gap marker or prose between records"
            facts["paste_cuts"] = Fact(cut_of[k], where)
        found = placed[k]
        if k == len(segments) - 1:
            facts |= _stranded(log, step[idx])
        if k == 0 or len(segments) == 1:
            facts = profiles.event_facts(found, facts, series, log.path)
        if k == len(segments) - 1:
            facts |= _after_scaler(log)
        counts = {name: len(s) for name, s in sorted(series.items())}
        inp = Input(path, "text-log", counts, log.lines, misread, first, steps_from)
        name = log.path.stem if len(segments) == 1 else f"{log.path.stem} [{k + 1}/{len(segments)}]"
        facts["trainer"] = Fact(dialect, f"{log.path.name}: {dialect} lines")
        if used and set(used) == {SRC_ORDINAL}:
            facts["steps_ordinal"] = Fact(True, f"{log.path.name}: no step is printed")
        if used and set(used) == {SRC_EPOCH_ONLY}:
            facts["steps_epochs"] = Fact(True, f"{log.path.name}: only epoch numbers are printed")
        runs.append(Run(name, series, facts, (inp,), tuple(notes), events=tuple(found)))
    if not runs:  # evidence lines only (an overflow message, a trainable-params print)
        found, series = empty, {}
        facts = profiles.event_facts(found, dict(base_facts), series, log.path)
        facts |= _after_scaler(log)
        inp = Input(path, "text-log", {}, log.lines, misread, first, None)
        runs.append(Run(log.path.stem, series, facts, (inp,), tuple(notes), events=tuple(found)))
    return runs


# A line after the scaler's messages that reports the program failing or a value gone
# non-finite: the run did not go on past them.
_FAILED = re.compile(rb"(?i)traceback|error|exception|killed|abort|\bnan\b|\binf\b")
# A line that prints a value, not opened by Markdown (a bullet, heading, quote or table:
# the environment or notes a user writes under a paste, "- PyTorch 1.4", "## Env").
_PRINTED = re.compile(rb"\A(?![-*#>|+]).*\d", re.DOTALL)


def _after_scaler(log: TextLog) -> dict[str, Fact]:
    """lines_after_overflow: how many lines that print a number the log goes on for past
    its last loss-scaler message (up to TAIL), when nothing cuts them off (a gap marker, a
    Markdown fence closing the paste) and none reports a failure. A dynamic scaler halves
    at each overflow while it calibrates and then stops; values the program prints after
    the last halving (a result, the next phase) say it stopped and the run went on, where
    a log that ends in the halvings or in a cut leaves it open. (A line with no number,
    or one Markdown opens, may be the user's words after the paste, which say nothing of
    the run going on.)"""
    over = [
        e.line
        for e in log.events
        if e.kind in ("fp16-overflow", "loss-scale-minimum") and e.line is not None
    ]
    if not over:
        return {}
    last = max(over)
    after = [t for no, t in log.tail if no > last]
    cut = any(f > last for f in log.fences) or any(GAP.match(t) for t in after)
    failed = any(_FAILED.search(t) for t in after)
    n = 0 if cut or failed else sum(1 for t in after if _PRINTED.match(t))
    where = f"{log.path.name}: lines after the last loss-scaler message (line {last})"
    return {"lines_after_overflow": Fact(n, where)}


def _carried_evals(rec: Records, src: np.ndarray) -> dict[tuple[int, str], np.ndarray]:
    """Eval values a train line only carries: NeMo's `... | reduced_train_loss: 1.233 | ...
    | val_loss: 4.106` and litgpt's `loss train: 1.062, val: 1.057` print the last
    evaluation on every step's line until the next one. Read at every step, one evaluation
    becomes a flat eval curve (and "eval loss flat" a finding). Where the line's train loss
    moved but its eval value is the one of the line before, the eval point is that earlier
    evaluation again: only the first of such a run is kept.

    Only for lines that print their own step (an epoch-per-line log, Keras's `loss -
    val_loss`, evaluates on every line, and a stuck model repeats its val loss there).
    Returns (id of the shape's record indices, column name) -> the records to keep.
    """
    out: dict[tuple[int, str], np.ndarray] = {}
    for p in rec.programs:
        where = rec.where(p)
        if not p.train or where.size < 3 or not (src[where] == SRC_STEP).all():
            continue
        vals = rec.values(p)
        loss = next(
            (
                v
                for n, v in vals.items()
                if kind(n) in ("loss", "component_loss") and not is_eval(n)
            ),
            None,
        )
        if loss is None:
            continue
        moved = loss[1:] != loss[:-1]
        for name, v in vals.items():
            if not is_eval(name) or kind(name) not in METRIC_KINDS:
                continue
            again = (v[1:] == v[:-1]) & moved
            if again.any():
                keep = np.ones(v.size, dtype=bool)
                keep[1:] = ~again
                out[(id(where), name)] = keep
    return out


def _cuts(breaks: list[int], line: np.ndarray, step: np.ndarray) -> tuple[int, ...]:
    """The step of the last record before each gap marker or prose block that has records
    on both sides: the paste was cut there, so the clock between the two records is the
    lines left out, not a silence of the run."""
    if not breaks or line.size < 2:
        return ()
    at = np.searchsorted(line, np.asarray(sorted(breaks), dtype=line.dtype))
    inside = (at > 0) & (at < line.size)
    return tuple(sorted({int(step[i - 1]) for i in at[inside].tolist()}))


def _bar_total(bar: tuple) -> int | None:
    from traindoc.readers.logs.progress import bar_numbers

    got = bar_numbers(bar[1], bar[2])
    return int(got[1]) if got and got[1] > 0 and got[1] == int(got[1]) else None


def _stranded(log: TextLog, steps: np.ndarray) -> dict[str, Fact]:
    """Fact `progress_after_last_step` when the training bar went on far past the last
    logged step (logs/progress.py), unless the bar counts the logged steps themselves
    (then steps did advance; only their log lines are missing). Where the records are
    drawn on the bar itself (a tqdm postfix), a redraw without one logged nothing: no
    line can be missing, so that exception does not apply."""
    got = log.progress.stranded(log.last_bar if log.bars_after else None)
    if got is None or steps.size < 2:
        return {}
    after, usual, (line, text) = got
    gap = float(np.median(np.diff(steps)))
    if not log.progress.records_on_bar and gap > 0 and abs(usual - gap) <= 0.05 * gap:
        return {}
    bar = text.decode("utf-8", "replace").strip()[:160]
    value = {"units": after, "usual": usual, "last_step": int(steps[-1]), "bar": bar}
    return {"progress_after_last_step": Fact(value, f"console: {log.path.name}:{line}")}


def _steps(
    rec: Records,
    bars: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, tuple[float, float]]]:
    """Each record's step, where it came from, the epoch it was counted in, and the first
    and last step of each epoch its epoch x batches lines fix (see _epoch_bounds), from
    the counters its line printed (worked out per shape, on the shape's own columns)."""
    step = np.full(rec.n, np.nan)
    # the epoch of the epoch x batches records (the only ones _epoch_summaries reads),
    # allocated on the first such record: most logs have none
    ep: np.ndarray | None = None
    inn = np.empty(0)  # the counter beside the epoch of those records
    tot = np.empty(0)  # ... and the total it prints ("[7100/12414]"), NaN where none
    named = np.zeros(rec.n, dtype=bool)  # ... and that counter is named as a step is
    src = np.full(rec.n, SRC_NONE, dtype=np.int8)
    base: float | None = None  # the first epoch seen: epoch x batches starts from it
    done: np.ndarray | None = None  # the progress counter reached its total (a finished bar)
    fin: np.ndarray | None = None  # the same, for the records numbered epoch x batches
    bare: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # epoch + batch, no total
    printed: Counter[int] = Counter()  # the totals printed beside those step counters
    counts = True  # every such counter is named "Steps", a count (see _within_epochs)
    swap = _total_counts(rec)
    summaries: tuple[np.ndarray, np.ndarray] | None = None
    eval_bare: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # the same, on eval lines
    # the records whose epoch is a heading's: 1 under it, -1 before the first (see _unheaded)
    heads: np.ndarray | None = None
    for p, where, ex in rec.shapes():
        if "step" in ex:  # a step of inf or NaN is none: the record is given one below
            ok = np.isfinite(ex["step"])
            step[where] = np.where(ok, ex["step"], np.nan)
            src[where] = np.where(ok, SRC_STEP, SRC_NONE)
            epoch = ex.get("epoch")
            if epoch is None:
                # or the epoch of the heading above ("Epoch 2/10", then "step 20, loss"
                # lines whose counter starts over under every heading): one run's epochs,
                # not a new run at every heading
                epoch = _restarting_headings(rec.ctx_at(where), ex["step"])
            if epoch is None:
                # ... or of the epoch's summary line below ("iters: 500/520, loss: ...",
                # then "Epoch 1 finished, train_loss: ..."): the same, read upward
                if summaries is None:
                    summaries = _epoch_lines(rec)
                epoch = _closing_summaries(rec.seq[where], ex["step"], summaries)
            if epoch is not None:
                # an epoch beside the printed counter: the counter may count the epoch's
                # samples ("(epoch: 2, iters: 31, ...)"), which _within_epochs tells
                keep = ok & np.isfinite(epoch)
                if p.is_eval:
                    # an eval line's counter counts the eval's batches (DeepSpeech's
                    # "Epoch 3 | Validation | ... | Steps: 20 | Loss: ..." after the
                    # epoch's "Steps: 100" training line): not the run's, told apart below
                    eval_bare.append((where[keep], epoch[keep], ex["step"][keep]))
                    continue
                bare.append((where[keep], epoch[keep], ex["step"][keep]))
                counts = counts and p.counter_keys[:1] == ("steps",)
                if (tt := ex.get("step_total")) is not None:  # "train step:10/312"
                    tt = tt[keep]
                    printed.update(int(t) for t in tt[np.isfinite(tt) & (tt > 1)].tolist())
            continue
        epoch = ex.get("epoch")
        headed = epoch is None and "ctx" in ex  # the epoch is a heading's ("Epoch 3/10")
        inner, total = ex.get("inner"), ex.get("inner_total")
        if swap and epoch is None and inner is not None and total is not None:
            # WeNet's "TRAIN Batch 0/4000 ... Batch 0/4100": the number after the slash
            # climbs while the one before it stays: it is the batch counter, the one
            # before it the epoch (a total never moves within one bar)
            epoch, inner, total = inner, total, None
        if "ctx" in ex:
            ctx = ex["ctx"]
            if inner is not None and total is not None:
                if heads is None:
                    heads = np.zeros(rec.n, dtype=np.int8)
                heads[where] = 1
            if inner is not None and total is not None and (pre := np.isnan(ctx)).any():
                # a paste that starts mid-epoch: the batches before the first "Epoch 2/12"
                # line are epoch 1's (the counter starting over there is the new epoch)
                ctx = np.where(pre, rec.next_ctx_at(where) - 1, ctx)
                heads[where[pre]] = -1  # placed from the heading after them
            epoch = ctx if epoch is None else np.where(np.isnan(epoch), ctx, epoch)
        got, how = np.full(where.size, np.nan), np.full(where.size, SRC_NONE, dtype=np.int8)
        if epoch is not None and inner is not None and total is not None:
            ok = np.isfinite(epoch) & np.isfinite(inner) & np.isfinite(total) & (total > 0)
            if ok.any():
                if base is None:
                    base = math.floor(float(epoch[ok][0]))
                    if headed or np.unique(np.floor(epoch[ok])).size > 1:
                        # an "Epoch 39/200" heading counts from 1 (0 when it starts at 0),
                        # and so do epochs printed on the lines when the paste spans
                        # several (mmdet 2.x's "Epoch [5][300/4015]" ... "Epoch [8][...]"):
                        # not the run's first epochs, (epoch - 1) x 4015 + 300 places them
                        # in it. One epoch's lines ("Train Epoch: 65 [128/316 (41%)]")
                        # are read from their own start: nothing else places them.
                        base = min(base, 1)
                got[ok] = (np.floor(epoch[ok]) - base) * total[ok] + inner[ok]
                how[ok] = SRC_EPOCH
                if fin is None:
                    fin = np.zeros(rec.n, dtype=bool)
                fin[where[ok]] = inner[ok] >= total[ok]  # a finished bar (see _refits)
                if ep is None:
                    ep = np.full(rec.n, np.nan, np.float32)
                    inn = np.full(rec.n, np.nan, np.float32)  # exact to 16 M, as `ep`
                    tot = np.full(rec.n, np.nan, np.float32)
                ep[where[ok]] = epoch[ok]
                inn[where[ok]] = inner[ok]
                tot[where[ok]] = total[ok]
                named[where[ok]] = _step_named_inner(p.plan)
        if inner is not None and epoch is not None and total is None:
            ok = np.isfinite(epoch) & np.isfinite(inner)
            bare.append((where[ok], epoch[ok], inner[ok]))
            counts = False
        if inner is not None:
            ok = np.isnan(got) & np.isfinite(inner)
            got[ok], how[ok] = inner[ok], SRC_PROGRESS
            if total is not None:
                if done is None:
                    done = np.zeros(rec.n, dtype=bool)
                done[where[ok]] = inner[ok] >= total[ok]
        if epoch is not None:
            ok = np.isnan(got) & np.isfinite(epoch) & (epoch == np.floor(epoch))
            got[ok], how[ok] = epoch[ok], SRC_EPOCH_ONLY
        step[where], src[where] = got, how
    top = printed.most_common(1)[0][0] if printed else None
    if (
        eval_bare
        and bare
        and _within_epochs(bare + eval_bare, top, counts) is None
        and _within_epochs(bare, top, counts) is not None
    ):
        # the train lines number the epochs, and the eval lines' count is of another
        # scale (it goes back within an epoch): it places nothing. Each eval is placed
        # after the train record before it, as an unnumbered eval line is
        at = np.concatenate([b[0] for b in eval_bare])
        step[at], src[at] = np.nan, SRC_NONE
    else:
        bare += eval_bare
    if bare and (got := _within_epochs(bare, top, counts)) is not None:
        at, e, i, per = got
        if base is None:
            base = math.floor(float(e.min()))
            if at.size == 1 and counts:
                # one epoch's "Steps: 3" line, all the paste holds: the 50th epoch ends
                # at 50 x 3 (epochs from 1), not at step 3 as if it were the first
                base = min(base, 1)
        step[at], src[at] = (np.floor(e) - base) * per + i, SRC_EPOCH
        if ep is None:
            ep, inn = np.full(rec.n, np.nan, np.float32), np.full(rec.n, np.nan, np.float32)
            tot = np.full(rec.n, np.nan, np.float32)
        ep[at], inn[at] = e, i
    elif bare and (src == SRC_EPOCH_ONLY).any():
        # one epoch's "Epoch 0, batch 3000" lines count its batches: its "Epoch 0,
        # validation: loss=1.06" line is of another scale, not step 0 (which would send
        # the steps back, a new run at every validation): it sits at the batch before
        at = np.concatenate([b[0] for b in bare])
        if (src[at] == SRC_PROGRESS).any():
            only = src == SRC_EPOCH_ONLY
            step[only], src[only] = np.nan, SRC_NONE
    if ep is not None and heads is not None and base is not None:
        _unheaded(rec, step, src, ep, inn, tot, heads, base, bars)
    if ep is not None:
        sel = np.flatnonzero(src == SRC_EPOCH)  # in file order, over all their shapes
        if _counts_the_run(ep[sel], inn[sel], tot[sel]):
            # a counter named as a step ("global iteration 1410/ 3402") that counts the
            # run is the run's step, as printed on the other lines ("iteration 1400 |
            # eval_loss"); a bare bar's count stays a weaker guess
            how = np.where(named[sel], SRC_STEP, SRC_PROGRESS).astype(np.int8)
            step[sel], src[sel], ep[sel] = inn[sel], how, np.nan
        else:
            _idle_bars(step, src, sel, inn, tot)
            _among_printed(rec, step, src, inn, tot, ep)
    _refits(step, src, fin, ep)
    _eval_bars(rec, step, src)
    _bar_epochs(step, src, done, rec.rank)
    loose = np.flatnonzero(rec.plan == -1)
    if loose.size:
        step[loose] = np.frombuffer(rec.loose.step, dtype=np.float64)
        src[loose] = rec.loose_src()
    bounds = {}
    if ep is not None:
        bounds = _epoch_bounds(step, np.where(rec.flag("is_eval"), SRC_NONE, src), ep, inn, tot)
    return step, src, ep if ep is not None else np.full(0, np.nan, np.float32), bounds


def _unheaded(
    rec: Records,
    step: np.ndarray,
    src: np.ndarray,
    ep: np.ndarray,
    inn: np.ndarray,
    tot: np.ndarray,
    heads: np.ndarray,
    base: int,
    bars: tuple[np.ndarray, np.ndarray] | None,
) -> None:
    """Epochs whose heading the log did not keep, in place (`bars`: the order and total of
    the bars read, see _train_bars). A console capture (W&B's
    output.log) keeps some of a tqdm bar's redraws and few of the "Epoch 3/20" lines:
    under one heading the bar over the epoch's 1541 batches finishes, then counts from 1
    again (or shows 100% again after the eval bar): each start after a finished bar is the
    next epoch, as _restarted_bars reads a bar with no heading. Numbered as the heading's
    epoch, every epoch would sit on the same 1541 steps, a new run at each. Records under
    a heading count on from it; those before the first heading count back from it (the
    last of them are the epoch before it). A count that goes back before its bar finished
    is left as read (a resume, or another run)."""
    sel = np.flatnonzero((heads != 0) & (src == SRC_EPOCH) & ~rec.flag("is_eval"))
    if sel.size < 2:
        return
    e, i, t, h = ep[sel], inn[sel], tot[sel], heads[sel]
    same = (e[1:] == e[:-1]) & (t[1:] == t[:-1]) & (h[1:] == h[:-1])
    fin = i[:-1] >= t[:-1]
    new = same & fin & (i[1:] < i[:-1])
    again = np.flatnonzero(same & fin & (i[1:] >= t[1:]))
    # finished twice: two epochs where a bar over another total was drawn between them
    # (the epoch's eval loop, "172/1000"), not one epoch's bar reported twice (Keras'
    # "126/126 [===] - ETA: 0s - loss: 1.2105", then "126/126 [===] - 490s - loss: 1.2105
    # - val_loss: 0.7337", whose loss may differ in the last digit)
    new[again] = False
    if bars is not None and bars[0].size and again.size:
        seq = rec.seq[sel]
        for k in again.tolist():
            a, b = np.searchsorted(bars[0], [seq[k], seq[k + 1]], side="right")
            new[k] = bool((bars[1][a:b] != t[k]).any())
    if not new.any():
        return
    stretch = np.concatenate(([0], np.cumsum(~same)))
    k = np.concatenate(([0], np.cumsum(new)))
    k = k - k[np.searchsorted(stretch, stretch)]  # restarts since the stretch began
    last = np.zeros(int(stretch[-1]) + 1, dtype=np.int64)
    np.maximum.at(last, stretch, k)
    shift = np.where(h > 0, k, k - last[stretch])
    e = e + shift
    if (np.floor(e) < base).any():
        return  # more restarts than the epochs before the heading: not this reading
    ep[sel] = e
    step[sel] = (np.floor(e) - base) * t + i


def _epoch_bounds(
    step: np.ndarray, src: np.ndarray, ep: np.ndarray, inn: np.ndarray, tot: np.ndarray
) -> dict[int, tuple[float, float]]:
    """Where each epoch starts and ends, from its epoch x batches train lines ("Epoch
    [4][100/239]" at step 817: epoch 4 spans steps 717 to 956; an eval line's own bar
    counts its loader's batches, not the epoch's, and is left out by the caller):
    {epoch: (start, end)}, only for the epochs whose lines all agree (one start, one
    total)."""
    sel = np.flatnonzero((src == SRC_EPOCH) & np.isfinite(tot) & np.isfinite(inn))
    if not sel.size:
        return {}
    e = np.floor(ep[sel])
    start, total = step[sel] - inn[sel], tot[sel]
    out = {}
    for k in np.unique(e[np.isfinite(e)]).tolist():
        m = e == k
        if np.ptp(start[m]) == 0 and np.ptp(total[m]) == 0:
            out[int(k)] = (float(start[m][0]), float(start[m][0] + total[m][0]))
    return out


def _epoch_end_evals(
    rec: Records, step: np.ndarray, src: np.ndarray, bounds: dict[int, tuple[float, float]]
) -> None:
    """An eval line that prints only the epoch it closes (mmcv's "Epoch(val) [4][12]",
    mmengine's "Epoch(val) [4][14/14]") ran after that epoch's last batch: it sits at the
    epoch's end, E x batches per epoch, in place. Given the step of the train line before
    it, it sat up to a logging interval short of that end (200 of 239 batches logged);
    given a share of the next line's epoch label (an eval before the paste's first train
    line), most of an epoch short. Only where the epoch x batches lines fix the epoch's
    end (its own lines, or the next epoch's start), and only forward: from where it was
    placed, at or after the train line before it, to an end at or before the train line
    after it (a stale epoch, or an eval that another rule placed, is left alone)."""
    if not bounds or not rec.has("epoch"):
        return
    cand = np.flatnonzero(
        rec.flag("is_eval")
        & np.isin(src, (SRC_CARRY, SRC_EPOCH_SHARE, SRC_INTERVAL_BACK, SRC_EPOCH_ONLY))
    )
    if not cand.size:
        return
    batches = np.flatnonzero(src == SRC_EPOCH)
    if not batches.size:
        return  # the epoch x batches steps were not kept (the lines print a step of their own)
    epoch = rec.extra("epoch")
    for r in cand.tolist():
        e = float(epoch[r])
        if not math.isfinite(e) or e != int(e):
            continue
        end = bounds[int(e)][1] if int(e) in bounds else None
        if end is None and int(e) + 1 in bounds:
            end = bounds[int(e) + 1][0]
        if end is None:
            continue
        j = int(np.searchsorted(batches, r))
        before = step[batches[j - 1]] if j > 0 else -math.inf
        after = step[batches[j]] if j < batches.size else math.inf
        if before <= step[r] <= end <= after:  # forward only, within its own epoch's lines
            step[r], src[r] = end, SRC_CARRY


def _restarting_headings(ctx: np.ndarray | None, counter: np.ndarray) -> np.ndarray | None:
    """The headings' epochs for these records when their printed counter starts over under
    every new heading (2+ of them), else None: a global counter under "Epoch [2/50]"
    headings (one that goes back only where a new session starts over at epoch 1) is the
    step itself."""
    if ctx is None:
        return None
    ok = np.isfinite(ctx) & np.isfinite(counter)
    e, i = ctx[ok], counter[ok]
    new = np.flatnonzero(np.floor(e[1:]) != np.floor(e[:-1]))
    if new.size < 2 or not (i[new + 1] < i[new]).all():
        return None
    return ctx


def _epoch_lines(rec: Records) -> tuple[np.ndarray, np.ndarray]:
    """(position, epoch) of the records that print an epoch and no step or batch counter
    (an epoch's summary line), in file order."""
    at, vals = [], []
    for _, where, ex in rec.shapes():
        e = ex.get("epoch")
        if e is None or "step" in ex or "inner" in ex:
            continue
        ok = np.isfinite(e)
        at.append(rec.seq[where][ok])
        vals.append(e[ok])
    if not at:
        return np.empty(0, np.int64), np.empty(0)
    pos, ep = np.concatenate(at).astype(np.int64), np.concatenate(vals)
    order = np.argsort(pos, kind="stable")
    return pos[order], ep[order]


def _closing_summaries(
    seq: np.ndarray, counter: np.ndarray, summaries: tuple[np.ndarray, np.ndarray]
) -> np.ndarray | None:
    """The epoch of the summary line that closes each record's epoch, when the printed
    counter starts over after every such line and only there (2+ times) and those
    epochs climb one by one (or go back to the first, where a new session starts): the
    counter is the epoch's batch, not a new run's step.
    Records after the last summary are in the epoch after it. Else None."""
    at, vals = summaries
    if at.size < 2 or seq.size < 3:
        return None
    ok = np.isfinite(counter)
    j = np.searchsorted(at, seq, side="left")  # the first summary below each record
    if not ok.all() or not (np.diff(seq) > 0).all():
        return None
    back = np.flatnonzero(counter[1:] < counter[:-1])
    moved = np.flatnonzero(j[1:] != j[:-1])
    if back.size < 2 or not np.array_equal(back, moved):
        return None
    used = np.unique(j[j < at.size])
    ep = vals[used]
    # one by one, or back to the first epoch (a second session appended: a new run)
    if ep.size < 2 or not ((np.diff(ep) == 1) | (ep[1:] <= ep.min())).all():
        return None
    out = np.where(j < at.size, vals[np.minimum(j, at.size - 1)], vals[-1] + 1)
    return out.astype(np.float64)


def _total_counts(rec: Records) -> bool:
    """An `A/B` pair whose B climbs from line to line while A stays put ("Batch 0/4000",
    "Batch 0/4100", ... then "Batch 1/0"): B is no total (a bar's total is fixed while it
    is drawn) but a counter, and A the epoch it runs in. Read over every shape that prints
    the pair and no epoch (a line cut short is a shape of its own); needs three lines,
    A never falling, and B rising at every line where A is unchanged."""
    parts = [
        (where, ex["inner"], ex["inner_total"])
        for _, where, ex in rec.shapes()
        if "step" not in ex and "epoch" not in ex and "inner" in ex and "inner_total" in ex
    ]
    if not parts:
        return False
    at = np.concatenate([p[0] for p in parts])
    order = np.argsort(at, kind="stable")
    a = np.concatenate([p[1] for p in parts])[order]
    b = np.concatenate([p[2] for p in parts])[order]
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    if a.size < 3 or np.any(np.diff(a) < 0) or np.any(a != np.floor(a)):
        return False
    d = np.diff(b)[np.diff(a) == 0]
    return bool(d.size >= 2 and np.all(d > 0))


def _within_epochs(
    bare: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    printed: int | None = None,
    counts: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Records with an epoch and a batch counter but no batch total (MXNet's Speedometer:
    "Epoch[5] Batch [900]  Speed: ..."), whose counter starts over at every new epoch and
    only there: (records, epochs, batches, batches per epoch) to number them epoch x
    batches + batch, with the largest batch printed as the epoch's length (one more when
    the counter starts over at 0, PaddlePaddle's "Pass 55, Batch 0, Cost ...": its last
    batch and the next epoch's first would share a step). Else the counter read as the
    step sends the steps back at each epoch, a new run each time. A log that starts over
    from its first epoch (pytorch-CycleGAN-and-pix2pix appends a resumed session to the
    same loss_log.txt, "(epoch: 1, iters: 100, ...)" again) is numbered the same way: its
    steps go back there, which is where the run splitter sees the new run. A counter
    that stays put while the epoch moves (two records are enough: read as the step, both
    epochs would sit on one step and one would be lost), or a counter named "Steps" on
    one line with its epoch (`counts`: the Time-Series-Library family's "Epoch: 50, Steps:
    3 | Train Loss: ...", whose Steps is len(train_loader), the batches of an epoch), is
    the epoch's length."""
    at = np.concatenate([b[0] for b in bare])
    order = np.argsort(at, kind="stable")
    at = at[order]
    e = np.concatenate([b[1] for b in bare])[order]
    i = np.concatenate([b[2] for b in bare])[order]
    back = np.flatnonzero(i[1:] < i[:-1])
    new = np.flatnonzero(np.floor(e[1:]) != np.floor(e[:-1]))
    first = np.floor(e[1:]) == np.floor(e.min())  # a record of the first epoch
    fell = np.flatnonzero(e[1:] < e[:-1])
    if (at.size >= 2 or counts) and not back.size and np.ptp(i) == 0 and new.size == at.size - 1:
        # one record per epoch with the same counter on each ("Epoch 1, Iter 0: Loss:nan"
        # once an epoch): the counter never moves, so it places nothing; read as the
        # step it would put every epoch on one step, and only the last would be kept.
        # The total printed beside it ("epoch 3 - iter 10/30") is the epoch's length
        if printed is not None and printed > i[0]:
            return at, e, i, float(printed)
        return at, e, i, float(i[0]) + (i[0] == 0)
    # the counter starts over at a new epoch, or where a new session starts over at the
    # first epoch (also when the last one stopped within it: "epoch 1, iters 700", then
    # "epoch 1, iters 100" under the next header)
    if at.size < 3 or not back.size or not (np.isin(back, new) | first[back]).all():
        return None
    if fell.size and not first[fell].all():
        return None
    zero_based = bool(np.any(i[back + 1] == 0))
    if printed is not None and printed >= np.max(i) + zero_based:
        # the total printed beside the counter ("epoch:5 train step:10/312", PaddleClas)
        # is the epoch's length: the batches logged need not reach it
        return at, e, i, float(printed)
    return at, e, i, float(np.max(i)) + zero_based


def _step_named_inner(plan: Plan) -> bool:
    """The batch counter beside the epoch is named as a run's step is ("global
    iteration", "iter"): shapes.py reads it as one epoch's batches only for its place."""
    return any(f.role == "inner" and f.key.strip().lower() in TEXT_STEP_KEYS for f in plan.fields)


def _counts_the_run(epoch: np.ndarray, inner: np.ndarray, total: np.ndarray) -> bool:
    """The counter beside the epoch goes on across epochs instead of starting over: it
    counts the run (kohya's "epoch 2/30" lines between redraws of one "| 41/3280 [" bar
    over all the optimizer steps), so epoch x batches would count the run once per epoch.
    Needs an epoch with two records (a finished bar per epoch climbs nowhere) and a
    climb across every new epoch."""
    e = np.floor(epoch)
    if e.size >= 3 and np.unique(e).size == e.size:
        return _paced_run(e, inner)
    if e.size < 3 or np.unique(e).size < 2:
        return False
    d = np.diff(inner)
    new = np.diff(e) != 0
    return bool(np.all(d >= 0) and np.all(d[new] > 0) and _even_epochs(e, inner, total))


# How far one-per-epoch records may sit from an even pace (a bar drawn a step late).
_PACE_SLACK = 0.02


def _paced_run(e: np.ndarray, inner: np.ndarray) -> bool:
    """One record per epoch (kohya's "| 41/3280 [" bar drawn once at each "epoch 2/80"
    line: 41, 82, 123, 164, 205) climbing by one epoch's length each time: the k-th
    epoch's record sits at k x P for one P, epochs counted from 1 or from 0. A counter
    that starts over each epoch, printed once an epoch, repeats itself (a finished bar,
    T each time) or lands anywhere in its epoch; only a counter of the run puts every
    epoch's record at the same multiple of its ordinal. Needs three epochs, consecutive."""
    if np.any(np.diff(e) != 1) or np.any(np.diff(inner) <= 0):
        return False
    for first in (1.0, 0.0):
        n = e - first + 1  # the epoch's ordinal, from 1
        if n.min() < 1:
            continue
        pace = float(np.median(inner / n))
        if pace > 0 and np.all(np.abs(inner - n * pace) <= max(1.0, _PACE_SLACK * pace)):
            return True
    return False


# How far the epochs' lengths may disagree and still be one run's equal epochs (a bar
# redrawn a little after the epoch line, a last epoch cut short).
_EVEN_SLACK = 1.5
# ... and how far past total / epochs an epoch's records may reach.
_TOTAL_SLACK = 1.1


def _even_epochs(e: np.ndarray, inner: np.ndarray, total: np.ndarray) -> bool:
    """A counter over the run passes its epochs at an even pace: some length P puts
    every epoch's records between (e - 1) x P and e x P (epochs counted from 1, or
    from 0). A paste with a gap climbs too (mmdet 2.x's "Epoch [5][300/4015]" ...
    "Epoch [8][3950/4015]"), but no P fits it: epochs 1-4 within 300 steps and
    epochs 5-7 over 3550 is a counter that starts over at each epoch. A total printed
    beside the counter is then the run's length, which holds all the epochs seen: no
    epoch is longer than total / epochs ("Epoch [1][7100/12414]" ... "Epoch [3][10800/
    12414]" would put 7,100 steps in an epoch of at most 4,138: mmdet's counter of
    each epoch's 12,414 batches, not of the run)."""
    known = total[np.isfinite(total) & (total > 0)]
    for first in (1.0, 0.0):
        n = e - first + 1  # the epoch's ordinal, from 1
        if n.min() < 1:
            continue
        lo, hi = 0.0, math.inf
        for k in np.unique(n).tolist():
            at = inner[n == k]
            lo = max(lo, float(at.max()) / k)
            if k > 1:
                hi = min(hi, float(at.min()) / (k - 1))
        # (the total bounds the pace with no slack beyond a bar redrawn a little late)
        if known.size and lo > _TOTAL_SLACK * float(known.min()) / float(n.max()):
            continue
        if lo <= _EVEN_SLACK * hi + 1:
            return True
    return False


def _idle_bars(
    step: np.ndarray, src: np.ndarray, sel: np.ndarray, inn: np.ndarray, tot: np.ndarray
) -> None:
    """A record drawn on a bar at 0 of N, where the bar's count reaches N (it counts the
    batches done, tqdm's way, not from 0 to N-1), is the bar before any batch of its
    epoch ran: the values in its postfix are the last step's, carried. It takes the step
    of the record before it, in place. Lightning resets its tqdm bar at a new epoch before
    renaming it, so one redraw says "Epoch 0:   0%| 0/100 [..., train_loss=2.48]" after
    epoch 0 finished: numbered epoch x 100 + 0 it sends the steps back to 0, a new run.
    A counter that never reaches its total counts from 0 ("Batch 0/4000"): its 0 is a
    batch, and stays."""
    if sel.size < 2:
        return
    t, i = tot[sel], inn[sel]
    done = np.unique(t[np.isfinite(t) & (i >= t)])
    idle = (i == 0) & np.isin(t, done)
    idle[0] = False  # the first record has no step before it to carry
    for k in np.flatnonzero(idle).tolist():
        at, before = sel[k], sel[k - 1]
        step[at], src[at] = step[before], SRC_CARRY


def _among_printed(
    rec: Records,
    step: np.ndarray,
    src: np.ndarray,
    inn: np.ndarray,
    tot: np.ndarray,
    ep: np.ndarray,
) -> None:
    """A bar numbered epoch x batches among lines that print the step: d3rlpy's "Epoch
    6/10: 100%| 1000/1000 [..., critic_loss=2.2e+5]" between its "epoch=5 step=5000" and
    "epoch=6 step=6000" records. Counted from the first epoch the paste shows it is
    step 1000, and _demote drops it to take the step before (5000, where it overwrites
    epoch 5's values with epoch 6's); counted from epoch 1, (6 - 1) x 1000 + 1000 lands
    between the printed steps around it, and there it is, in place. A count that lands
    anywhere else is of another scale (a loader's samples), and an eval line's counts its
    own loader: both are left to _demote, as is a line with a printed step on one side
    only (nothing bounds it)."""
    sel = np.flatnonzero((src == SRC_EPOCH) & ~rec.flag("is_eval"))
    known = np.flatnonzero(src == SRC_STEP)
    k = np.searchsorted(known, sel)
    inside = (k > 0) & (k < known.size)
    sel, k = sel[inside], k[inside]
    if not sel.size:
        return
    guess = (np.floor(ep[sel]) - 1) * tot[sel] + inn[sel]
    lo, hi = step[known[k - 1]], step[known[k]]
    fits = np.isfinite(guess) & (lo <= guess) & (guess <= hi)
    step[sel[fits]], src[sel[fits]] = guess[fits], SRC_EPOCH_AMONG


def _refits(
    step: np.ndarray, src: np.ndarray, fin: np.ndarray | None, ep: np.ndarray | None
) -> None:
    """Keras bars numbered epoch x batches that all land on one step, each a finished bar:
    a loop calling `fit(epochs=1)` prints "Epoch 1/1" and one whole epoch per call, so
    every call would overwrite the last. Each finished bar is one more epoch, in place
    (the k-th at k x the batches per epoch)."""
    sel = np.flatnonzero(src == SRC_EPOCH)
    if sel.size < 2 or fin is None or not fin[sel].all() or np.unique(step[sel]).size != 1:
        return
    k = np.arange(1, sel.size + 1, dtype=np.float64)
    step[sel] = k * float(step[sel[0]])
    if ep is not None and ep.size:
        ep[sel] = k


def _eval_bars(rec: Records, step: np.ndarray, src: np.ndarray) -> None:
    """An eval loop's own bar ("Validate: 100%|...| 8/8 [..., Val Loss=0.61]" between
    "Train Epoch 9: 100%|...| 30/30 [..., Loss=0.15]" lines) counts the eval loader's
    batches, not the run: where the train lines are numbered by counters of their own
    (epoch x batches, or a printed step), it is no step, and not an epoch either (read
    as one, each eval would send the steps back to its own count, a new run at every
    eval). It is left without a step, in place, and takes the train step before it."""
    ev = (src == SRC_PROGRESS) & rec.flag("is_eval")
    if not ev.any():
        return
    if (((src == SRC_EPOCH) | (src == SRC_STEP)) & ~rec.flag("is_eval")).any():
        step[ev], src[ev] = np.nan, SRC_NONE


def _bar_epochs(
    step: np.ndarray, src: np.ndarray, done: np.ndarray | None, rank: np.ndarray | None = None
) -> None:
    """Keras prints one finished bar per epoch ("215424/215375 [====] - 418s - loss: 3.76")
    and, without its "Epoch 3/10" lines, nothing else numbers them: when every progress
    counter is a finished bar, or the counter is the same on every line, the counter
    counts samples within an epoch, not the run, and the epoch is the step, in place.
    Lines that each name a different rank ("Batch 20100/282164 ... rank 3", then rank 0,
    2, 1) repeat one counter because every process prints the same step: left as read."""
    bars = np.flatnonzero(src == SRC_PROGRESS)
    if bars.size < 2 or done is None:
        return
    if rank is not None and rank.size == step.size:
        rk = rank[bars]
        if (rk >= 0).all() and np.unique(rk).size == bars.size:
            return
    if done[bars].all() or np.unique(step[bars]).size == 1:
        step[bars] = np.arange(1, bars.size + 1, dtype=np.float64)
        src[bars] = SRC_BAR_EPOCH
        return
    # Redraws of the bar between its finished lines ("12299/12300 [===>.] - ETA: 0s"
    # then "12300/12300 [====] - 2773s"): the counter starts over only after it
    # finished, so it counts within an epoch, and each finished bar ends one.
    fin = done[bars]
    at = step[bars]
    back = np.flatnonzero(np.diff(at) < 0) + 1  # where the counter starts over
    if fin.sum() >= 2 and back.size and fin[back - 1].all():
        epoch = np.concatenate(([0], np.cumsum(fin[:-1])))
        step[bars] = epoch * float(at[fin].max()) + at


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
    log: TextLog,
    rec: Records,
    step: np.ndarray,
    src: np.ndarray,
    epoch: np.ndarray,
    train: np.ndarray,
) -> None:
    """Fill the steps the lines did not print, in place (see the module docstring)."""
    _eval_loader_steps(rec, step, src, train)
    _demote(rec, step, src, epoch)
    if rec.has_both("step", "epoch"):
        tt = rec.extra("step_total") if rec.has("step_total") else None
        _per_epoch(rec.extra("epoch"), step, src, train, tt)
    if rec.has("alt"):
        _micro_batches(rec, step, src, train)
        _iteration_only(rec, step, src)
    missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    _after_nan_message(log, rec, step, src, missing)
    missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    seq = rec.seq  # order within \r-joined lines too (int32)
    if len(log.bar_seq):
        totals = np.array(sorted(log.epoch_bars), dtype=np.float64)
        evals = seq[rec.flag("is_eval")]
        _from_bars(log, seq, missing, train, step, src, totals, evals)
        missing = np.flatnonzero(np.isnan(step))
    if missing.size and len(log.pre_seq):
        _from_bar_before(log, seq, missing, train, step, src)
        missing = np.flatnonzero(np.isnan(step))
    if missing.size and log.summaries and rec.has("epoch"):
        epoch = rec.extra("epoch")
        # each record's own run: the first summary printed after it (a resumed run's
        # summary counts only the steps of its own session)
        sums = [s for s in log.summaries if s.get("_seq") is not None]
        at = np.array([s["_seq"] for s in sums], np.int64)
        k = np.searchsorted(at, seq[missing])
        guess = step.copy()
        for m, kk in zip(missing.tolist(), k.tolist(), strict=True):
            # a record after the last summary is of a run that printed none (the next run)
            spe = _steps_per_epoch(sums[kk]) if kk < len(sums) else None
            if spe is not None and math.isfinite(epoch[m]):
                guess[m] = round(epoch[m] * spe)
        # kept only when it numbers the train lines apart (too few steps per epoch to
        # round to distinct steps means the summary does not describe these lines)
        g = guess[missing][train[missing]]
        g = g[np.isfinite(g)]  # (the lines of a run with no summary keep none)
        if g.size and np.unique(g).size == g.size:
            ok = missing[np.isfinite(guess[missing])]
            step[ok], src[ok] = guess[ok], SRC_SUMMARY
        missing = np.flatnonzero(np.isnan(step))
    if not missing.size:
        return
    ordinal = np.maximum(np.cumsum(train), 1).astype(np.float64)
    known = np.flatnonzero(np.isfinite(step))
    if known.size and known.size < missing.size and np.array_equal(step[known], ordinal[known]):
        # the few printed steps are the lines' own positions ("<-- spike (step 4)" on the
        # 4th of 9 lines): an annotation of the order, which numbers every line
        step[missing], src[missing], src[known] = ordinal[missing], SRC_ORDINAL, SRC_ORDINAL
        return
    if known.size:  # carry the step of the line before (else the one after)
        filled = _ffill(step)
        nxt = _ffill(step[::-1])[::-1]  # the next printed step
        first = step[np.isfinite(step)][0]
        after = missing[np.isfinite(filled[missing])]  # a step printed before them
        step[missing] = np.where(np.isnan(filled[missing]), first, filled[missing])
        src[missing] = SRC_CARRY
        _before_first(rec, step, src, missing[np.isnan(filled[missing])], known[0])
        _carry_apart(rec, step, src, after, train, nxt)
        return
    # two loggers printing each step (LLaMA-Factory's callback line, then HF's dict):
    # one record of the order, not two
    counted = train & ~_reprints(rec, train) if train.any() else _new_evals(rec)
    ordinal = np.maximum(np.cumsum(counted), 1).astype(np.float64)
    step[missing] = ordinal[missing]
    src[missing] = SRC_ORDINAL


def _eval_loader_steps(rec: Records, step: np.ndarray, src: np.ndarray, train: np.ndarray) -> None:
    """An eval line's printed counter that counts the eval loader's batches, not the run's
    steps, is no step: the line takes the train step before it (in place). PaddleClas
    prints "eval step:10/12" between its "train step:20/312" lines, PaddleVideo "valid
    step:50": read as steps they send the run back to 10 (a new run at every eval) or
    overwrite the train points there. Told by the counter itself: its printed total is
    not the train lines' (12 eval batches, 312 train ones), or it stands below the train
    step printed before it while the train lines after it go on from there (the run did
    not start over). A train line's counter, and an eval line's that moves with the run
    ("Eval at step 1000"), stay."""
    # the train lines' steps, printed or counted epoch x batches + batch
    trained = ((src == SRC_STEP) | (src == SRC_EPOCH)) & train & ~rec.flag("is_eval")
    evals = np.flatnonzero((src == SRC_STEP) & rec.flag("is_eval"))
    if not trained.any() or not evals.size:
        return
    total = rec.extra("step_total") if rec.has("step_total") else np.full(rec.n, np.nan)
    known = total[trained]
    known = known[np.isfinite(known)]
    other_total = np.zeros(evals.size, dtype=bool)
    if known.size:
        t = total[evals]
        other_total = np.isfinite(t) & ~np.isin(t, known)
    # the train step printed last before each eval record, and the first one after it
    at = np.flatnonzero(trained)
    k = np.searchsorted(at, evals)
    has_before, has_after = k > 0, k < at.size
    before = np.where(has_before, step[at[np.maximum(k - 1, 0)]], np.nan)
    after = np.where(has_after, step[at[np.minimum(k, at.size - 1)]], np.nan)
    with np.errstate(invalid="ignore"):
        behind = has_before & (step[evals] < before) & (~has_after | (after >= before))
    drop = evals[other_total | behind]
    step[drop], src[drop] = np.nan, SRC_NONE


def _new_evals(rec: Records) -> np.ndarray:
    """The records that open an evaluation, in a file of evaluations only (the val lines
    of a run pasted alone: mmengine's "Epoch(val) [3][265/265]  acc/top1: 0.2328  ...",
    one per epoch). With no train line to count, each evaluation is a point of the order:
    one opens where a line of a shape already printed since the last opening comes
    again (an evaluator that prints several lines per evaluation repeats its first)."""
    opens = np.zeros(rec.plan.size, dtype=bool)
    seen: set[int] = set()
    for i, pid in enumerate(rec.plan.tolist()):
        if not seen or pid in seen:
            opens[i], seen = True, set()
        seen.add(pid)
    return opens


# Two prints of one value agree to this share (the callback rounds to 4 decimals:
# `4.9999e-02` for HF's 0.04999871292419044) or to this much (`0.0000` for 0.0).
_REPRINT_RTOL, _REPRINT_ATOL = 1e-3, 5e-5


def _reprints(rec: Records, train: np.ndarray) -> np.ndarray:
    """Train records that print again the record just before them: another shape (other
    columns) at the same printed epoch, every value the two share agreeing to the
    precision printed. LLaMA-Factory logs each step twice, once by its callback
    (`llmtuner.extras.callbacks - {'loss': 0.0000, 'learning_rate': 4.9999e-02,
    'epoch': 0.01}`) and once as HF's dict; numbered by their order the two prints
    would be two steps. Records of the same columns are never reprints, whatever
    their epoch (HF's `'epoch': 0.0` on every line of the first steps)."""
    out = np.zeros(rec.n, dtype=bool)
    if not rec.has("epoch"):
        return out
    sel = np.flatnonzero(train & (rec.plan >= 0))
    if sel.size < 2:
        return out
    epoch = rec.extra("epoch")
    names = {p.pid: p.names for p in rec.programs}
    a, b = sel[:-1], sel[1:]
    pa, pb = rec.plan[a], rec.plan[b]
    cand = np.flatnonzero(
        (b == a + 1) & np.isfinite(epoch[a]) & (epoch[a] == epoch[b]) & (pa != pb)
    )
    if not cand.size:
        return out
    vals = {p.pid: rec.values(p) for p in rec.programs}
    pos = {p.pid: rec.where(p) for p in rec.programs}

    def value(i: int, pid: int, name: str) -> float:
        return float(vals[pid][name][np.searchsorted(pos[pid], i)])

    for c in cand.tolist():
        i, j, pi, pj = int(a[c]), int(b[c]), int(pa[c]), int(pb[c])
        if set(names[pi]) == set(names[pj]):
            continue
        shared = [n for n in names[pi] if n in names[pj] and n != "epoch"]
        if not shared:
            continue
        x = np.array([value(i, pi, n) for n in shared])
        y = np.array([value(j, pj, n) for n in shared])
        if np.isclose(x, y, rtol=_REPRINT_RTOL, atol=_REPRINT_ATOL, equal_nan=True).all():
            out[j] = True
    return out


def _before_first(
    rec: Records, step: np.ndarray, src: np.ndarray, before: np.ndarray, k: int
) -> None:
    """Records before the first numbered one (two HF dicts above one tqdm bar) would all
    take its step and collapse into it: where both print the epoch, a record sits at
    that step scaled by its share of the epoch (HF's epoch is step / steps per epoch);
    else, when the numbered records after it are evenly spaced, one interval back per
    record, in place; kept only when the guesses are distinct and below the known step."""
    if not before.size:
        return
    if rec.has("epoch"):
        epoch = rec.extra("epoch")
        e0 = float(epoch[k])
        if math.isfinite(e0) and e0 > 0:
            # only the records that print an epoch (an eval line between them has none and
            # stays with the step after it: PaddleClas's "END epoch:4 ... loss: 10.51",
            # "eval step:10/12", then "epoch:5 train step:10/312")
            dated = before[np.isfinite(epoch[before])]
            guess = np.round(step[k] * epoch[dated] / e0)
            if dated.size and _placed(guess, step[k]):
                step[dated], src[dated] = guess, SRC_EPOCH_SHARE
                return
    before = _evals_before(rec, step, src, before, k)
    # else one logging interval per record back from it, when the numbered records
    # that follow are evenly spaced (HF's logging_steps): the interval is theirs. Only
    # records of its own shape (two dicts of one trainer): a line of another kind above
    # it (a config's "loss: 2.0") is no record of the run.
    before = before[rec.plan[before] == rec.plan[k]]
    if not before.size:
        return
    after = step[k:][np.isfinite(step[k:])]
    d = np.diff(np.unique(after))
    if d.size >= 1 and np.ptp(d) == 0:
        guess = step[k] - d[0] * np.arange(before.size, 0, -1)
        if _placed(guess, step[k]):
            step[before], src[before] = guess, SRC_INTERVAL_BACK


def _evals_before(
    rec: Records, step: np.ndarray, src: np.ndarray, before: np.ndarray, k: int
) -> np.ndarray:
    """Eval lines printed before the first numbered train line scored the weights those
    steps had not yet trained (MiniLLM's "dev | avg_loss: 2.51 | {'rougeL': 7.3}" printed
    at startup, before its "train | ... | global iter: 1428/14290" lines): given that
    step they would overwrite its own eval. When the evals of their shape after it recur
    at a fixed interval, they are the earlier evals of that series: one interval back
    per eval from the first, in place. The records still unplaced are returned."""
    ev = rec.flag("is_eval")
    lead = before[ev[before]]
    if not lead.size:
        return before
    plan = rec.plan[lead[-1]]
    lead = lead[rec.plan[lead] == plan]
    later = np.flatnonzero(ev & (rec.plan == plan))
    at = np.unique(step[later[later > k]])
    d = np.diff(at)
    if d.size and np.ptp(d) == 0 and d[0] > 0:
        guess = at[0] - d[0] * np.arange(lead.size, 0, -1)
        if _placed(guess, at[0]):
            step[lead], src[lead] = guess, SRC_INTERVAL_BACK
            return before[~np.isin(before, lead)]
    return before


def _placed(guess: np.ndarray, below: float) -> bool:
    """Guessed steps that are whole, distinct, at or above 0 and below the known one."""
    return bool(
        np.isfinite(guess).all()
        and (guess >= 0).all()
        and (guess < below).all()
        and np.unique(guess).size == guess.size
    )


def _carry_apart(
    rec: Records,
    step: np.ndarray,
    src: np.ndarray,
    after: np.ndarray,
    train: np.ndarray,
    nxt: np.ndarray,
) -> None:
    """A carried train record at the step of the record of its own shape before it would
    overwrite it (the last HF dict, with no bar drawn after it, takes the step of the one
    before): it is the next logging step, one stride of that shape's printed steps on
    (1 when it has none), in place. `after`: the carried records with a printed step
    before them; kept only where no record passes the next printed step `nxt`.

    The carried lines after a lone moved one take the step of the line before them, as
    any carried line does: the moved one's. Flair's "DEV : loss ... - score ..." after its
    "EPOCH 29 done: loss ..." line, nnU-Net's val_loss after its train_loss, left at the
    step before, would go back a step and start a new run at every epoch's eval.

    Loose records (no shape of their own: nnU-Net's "Epoch 0", then "train_loss 0.70"
    on a line of its own) are of one shape only where they write the same names."""
    carried = np.zeros(step.size, dtype=bool)
    carried[after] = True
    before = step.copy()
    shape = rec.plan.astype(np.int64)
    if (shape[after] == -1).any():
        shape = _loose_shapes(rec, shape)
    for pid in np.unique(shape[after[train[after]]]).tolist():
        w = np.flatnonzero((shape == pid) & train)
        s, c = step[w], carried[w]
        same = np.zeros(w.size, dtype=bool)
        same[1:] = c[1:] & (s[1:] == s[:-1])
        if not same.any():
            continue
        d = np.diff(np.unique(s[src[w] != SRC_CARRY]))
        stride = float(np.median(d)) if d.size else 1.0
        start = np.flatnonzero(~same)  # each group opens with a record of its own step
        pos = np.arange(w.size) - start[np.searchsorted(start, np.arange(w.size), "right") - 1]
        moved = s + pos * stride
        limit = nxt[w]
        if not np.any(moved > np.where(np.isnan(limit), np.inf, limit)):
            step[w] = moved
    moved = step > before
    for i in np.flatnonzero(moved).tolist():
        if i and moved[i - 1]:
            # rows moved one after the other (a per-class table's, spread over steps):
            # no step of the run's own, the line after them keeps the one it was printed at
            continue
        j = i + 1
        while j < step.size and carried[j] and step[j] < step[i]:
            step[j] = step[i]
            j += 1


def _loose_shapes(rec: Records, shape: np.ndarray) -> np.ndarray:
    """`shape` with each loose record numbered by the names it writes (below -1)."""
    at = np.flatnonzero(rec.plan == -1)
    names: list[list[str]] = [[] for _ in range(at.size)]
    for name, (recs, _) in rec.loose.cols.items():
        for r in np.frombuffer(recs, dtype=np.int64).tolist():
            names[r].append(name)
    ids: dict[tuple[str, ...], int] = {}
    out = shape.copy()
    out[at] = [-2 - ids.setdefault(tuple(sorted(n)), len(ids)) for n in names]
    return out


def _demote(rec: Records, step: np.ndarray, src: np.ndarray, epoch: np.ndarray) -> None:
    """Forget weak step guesses that disagree with the file's own counter, in place.

    An epoch number is a step only when every epoch in the file is whole (Keras,
    cxxnet rounds); with fractional epochs (HF dicts) or a printed step counter
    elsewhere (fairseq's valid lines carry only the epoch) it is not. Epoch x
    batches never holds for an eval line (an mmengine val line counts its own
    loader's batches).
    """
    only = src == SRC_EPOCH_ONLY
    if only.any() and (
        (src == SRC_STEP).any() or rec.fractional_epochs() or _epoch_repeats(rec, step, only)
    ):
        step[only], src[only] = np.nan, SRC_NONE
    by_batches = src == SRC_EPOCH
    if by_batches.any():
        bad = by_batches if (src == SRC_STEP).any() else by_batches & rec.flag("is_eval")
        step[bad], src[bad] = np.nan, SRC_NONE
    if (src == SRC_STEP).any():
        weak = (src == SRC_PROGRESS) | (src == SRC_BAR_EPOCH)
        step[weak], src[weak] = np.nan, SRC_NONE
    elif (src == SRC_EPOCH_ONLY).any() and (src == SRC_EPOCH).any():
        _epoch_summaries(step, src, epoch)


def _after_nan_message(
    log: TextLog, rec: Records, step: np.ndarray, src: np.ndarray, missing: np.ndarray
) -> None:
    """A record with no step on the line right after a NaN message that names its step
    (detectron2's "FloatingPointError: Loss became infinite or NaN at iteration=27!", then
    "loss_dict = {'loss_cls': tensor(nan, ...), 'loss_box_reg': tensor(0.2576, ...)}") holds
    the losses of that iteration: it sits there, in place, not first of an order, in a
    paste of the traceback alone."""
    at = {
        e.line + 1: e.step
        for e in log.events
        if e.kind == "nonfinite-loss" and e.step is not None and e.line is not None
    }
    if not at or np.isfinite(step).any():
        # where lines print steps, the record takes the step of the line before it, as
        # any line with none does: the message's count may not be theirs
        return
    for m in missing.tolist():
        if (s := at.get(int(rec.line[m]))) is not None:
            step[m], src[m] = s, SRC_CARRY


def _epoch_repeats(rec: Records, step: np.ndarray, only: np.ndarray) -> bool:
    """Two train records of one shape one after the other at the same whole epoch: the
    epoch is not the position, for a line printed once per epoch never repeats its
    epoch. Printed as a float it is HF's rounded `'epoch': 0.0` (several logging steps
    inside one printed value); printed as an integer with no batch counter beside it,
    the lines are the epoch's periodic reports (wav2letter's `epoch: 2 | ... | loss:
    inf` every `--reportiters` batches, a trainer's `epoch=0,train_iter=1,...`).
    Numbering them by the epoch would keep only the last of them. An integer epoch with
    an unnamed number right after it ("Epoch: [0][50]") prints its batch counter, and a
    line that takes its epoch from a heading (an eval's metrics after the last epoch)
    prints none: both are still read one point per epoch. "One shape" is the same value columns: the numbers' own
    spelling splits one dict into several shapes (`'loss': 1.968` and `'loss': 0.0`,
    `7.1e-09` and `1.4e-07`)."""
    reports = rec.flag("float_epoch") | rec.flag("epoch_reports")
    sel = np.flatnonzero(only & rec.flag("train") & reports)  # file order
    if sel.size < 2:
        return False
    cols: dict[tuple[str, ...], int] = {}
    kind_of = {p.pid: cols.setdefault(p.names, len(cols)) for p in rec.programs}
    s = step[sel]
    k = np.array([kind_of.get(int(pid), -1) for pid in rec.plan[sel]])
    rep = np.flatnonzero((s[1:] == s[:-1]) & (k[1:] == k[:-1]))
    floats = rec.flag("float_epoch")
    for r in rep.tolist():
        i, j = int(sel[r]), int(sel[r + 1])
        if floats[i] or not _same_values(rec, i, j):
            return True  # (an integer epoch's line printed twice, by two loggers, is one)
    return False


def _same_values(rec: Records, i: int, j: int) -> bool:
    """Records i and j (of the same value columns) print the same values: one line
    printed twice (a ComfyUI node's "[FL AceStep] Epoch 11/100 | Loss: nan" and then the
    trainer's own "Epoch 11/100 | Loss: nan"), not two reports."""
    by_pid = {p.pid: p for p in rec.programs}
    got = []
    for r in (i, j):
        p = by_pid[int(rec.plan[r])]
        vals, pos = rec.values(p), rec.where(p)
        at = int(np.searchsorted(pos, r))
        got.append(np.array([float(vals[n][at]) for n in p.names if n != "epoch"]))
    return bool(np.isclose(got[0], got[1], rtol=0, atol=0, equal_nan=True).all())


def _epoch_summaries(step: np.ndarray, src: np.ndarray, epoch: np.ndarray) -> None:
    """A line with only the epoch after that epoch's epoch x batches lines is its summary
    ("[Summary-valid] Epoch [000/210] | Average Loss (valid)"): it sits at that line's
    step, not at step = epoch (another scale, which would cut the file into runs), in
    place. So does one whose epoch is behind them, a stale heading's ("Loaded checkpoint
    from epoch 19" printed before the evals of epochs 20-23): the batches before it say
    where the run is."""
    batch = np.flatnonzero(src == SRC_EPOCH)
    only = np.flatnonzero(src == SRC_EPOCH_ONLY)
    j = np.searchsorted(batch, only) - 1
    ok = j >= 0
    k, prev = only[ok], batch[j[ok]]
    # an epoch ahead of the batches is left as it is: another run's line in a paste
    # ("Epoch 19 / 2s - loss: 0.0416" of the script that worked, after 5 epochs' bars)
    held = np.floor(epoch[prev]) >= step[k]
    # ... but one the next epoch's heading numbers, after the last batches, is a line of
    # the epoch in progress where the paste ends (Keras' "Epoch 00022: ReduceLROnPlateau
    # ..." under "Epoch 22/200", its bar cut away): it sits where the run got to
    held |= (np.floor(epoch[prev]) + 1 == step[k]) & (k > batch[-1])
    step[k[held]], src[k[held]] = step[prev[held]], SRC_CARRY
    # one whose epoch is the next batches' is their heading ("Start epoch 1 ====,lr=0.001"
    # before "Epoch: [1][0/250]"): it sits at that epoch's first batch, not at step 1
    j = np.searchsorted(batch, only)
    ok = (j < batch.size) & (src[only] == SRC_EPOCH_ONLY)
    k, nxt = only[ok], batch[j[ok]]
    head = np.floor(epoch[nxt]) == step[k]
    step[k[head]], src[k[head]] = step[nxt[head]], SRC_CARRY


def _per_epoch(
    epoch: np.ndarray,
    step: np.ndarray,
    src: np.ndarray,
    train: np.ndarray,
    totals: np.ndarray | None,
) -> None:
    """A printed step that starts over at every new epoch counts within the epoch
    ("Epoch 2, Step 0", PaddleClas' "epoch:5 train step:10/312"): make it global, epoch x
    steps per epoch + step, in place, and mark those records as counted so (SRC_EPOCH: the
    total printed beside the counter is then one epoch's, `_facts`). Steps per epoch: the
    total printed beside the counter when the counter stays within it, else the span seen."""
    sel = np.flatnonzero((src == SRC_STEP) & np.isfinite(epoch) & train)
    if sel.size < 3:
        return
    s, e = step[sel], epoch[sel]
    back = np.flatnonzero(s[1:] < s[:-1])
    if not back.size or not np.all(e[back + 1] > e[back]) or np.any(e[1:] < e[:-1]):
        return
    top = float(np.max(s))
    per = top - float(np.min(s)) + 1
    tt = totals[sel] if totals is not None else np.empty(0)
    tt = tt[np.isfinite(tt)]
    if tt.size and np.unique(tt).size == 1 and float(tt[0]) >= top:
        per = float(tt[0])  # the counter's own total, one epoch's
    base = math.floor(float(e.min()))
    mask = (src == SRC_STEP) & np.isfinite(epoch)
    step[mask] = (np.floor(epoch[mask]) - base) * per + step[mask]
    src[mask] = SRC_EPOCH


def _one_epoch_counter(rec: Records, src: np.ndarray, train: np.ndarray) -> bool:
    """The train lines print a step beside a whole epoch number that never changes
    ("epoch:5 train step:10/312" ... "step:30/312"): the step may count within the epoch
    (PaddleClas, PaddleDetection) or over the run (PaddleSeg's "epoch: 1, iter: 10/100000"),
    and the lines cannot tell which: the total printed beside it plans nothing known.
    (Printed with a decimal point, `'epoch': 0.0`, the epoch is a fraction of the run.)"""
    if not rec.has_both("step", "epoch"):
        return False
    # an epoch printed with a decimal point (HF's `'epoch': 0.0`) is a position in the run:
    # the step beside it is the run's
    sel = ((src == SRC_STEP) | (src == SRC_PROGRESS)) & train & ~rec.flag("float_epoch")
    e = rec.extra("epoch")[sel]
    e = e[np.isfinite(e)]
    return bool(e.size) and bool(np.all(e == np.floor(e))) and np.unique(e).size == 1


_CHUNK = 1 << 18  # records resolved at a time: temporaries stay a few MB


def _from_bars(
    log: TextLog,
    seq: np.ndarray,
    missing: np.ndarray,
    train: np.ndarray,
    step: np.ndarray,
    src: np.ndarray,
    epoch_totals: np.ndarray | None = None,
    eval_seq: np.ndarray | None = None,
) -> None:
    """Each stepless record takes the n of the first train bar printed after it and before
    the next train record (an eval record between does not bound it) or HF's final
    train_runtime summary (which ends the run: a bar after it is the next run's), in place.
    `epoch_totals`: the totals of the finished bars printed beside an epoch (_train_bars).
    `eval_seq`: the order of the eval records; a bar whose own line holds one (kur's
    "Validating, loss=372.2:  94%|...| 256/271 [...]") counts the eval loader's batches,
    and numbers no train record (read as a step it split one epoch into two runs)."""
    bl, bn, bt = _train_bars(log, epoch_totals)
    if eval_seq is not None and eval_seq.size and bl.size and len(log.own_bar_seq):
        own = np.frombuffer(log.own_bar_seq, dtype=np.int32).astype(np.int64)
        keep = ~(np.isin(bl, own) & np.isin(bl + 1, eval_seq))  # its record follows it
        bl, bn, bt = bl[keep], bn[keep], bt[keep]
    if not bl.size:
        return
    bn = _restarted_bars(bn, bt)
    ends = [int(sm["_seq"]) for sm in log.summaries if sm.get("_seq") is not None]
    tseq = seq[train]  # the next train record bounds the search
    if ends:
        tseq = np.sort(np.concatenate([tseq, np.array(ends, dtype=tseq.dtype)]))
    last = np.iinfo(np.int32).max
    for a in range(0, missing.size, _CHUNK):
        m = missing[a : a + _CHUNK]
        at = seq[m]
        k = np.searchsorted(tseq, at, side="right")
        # no train record at all (only evals): nothing bounds the search
        nxt = (
            np.where(k < tseq.size, tseq[np.minimum(k, tseq.size - 1)], last)
            if tseq.size
            else np.full(at.size, last)
        )
        j = np.searchsorted(bl, at, side="right")
        ok = (j < bl.size) & (bl[np.minimum(j, bl.size - 1)] < nxt)
        step[m[ok]] = bn[j[ok]]
        src[m[ok]] = np.where(bt[j[ok]] == TABLE_TOTAL, SRC_TABLE, SRC_BAR)


def _from_bar_before(
    log: TextLog,
    seq: np.ndarray,
    missing: np.ndarray,
    train: np.ndarray,
    step: np.ndarray,
    src: np.ndarray,
) -> None:
    """A train record that no bar follows (the paste ends, or the next record comes
    first) takes the n of the bar drawn right before it, when that bar went past the
    numbered train record before it: HF draws the bar to a step and then prints that
    step's dict, in place. (A bar before the first record may be a 0% bar drawn before
    any step: it numbers nothing.)"""
    pseq = np.frombuffer(log.pre_seq, dtype=np.int32).astype(np.int64)
    pn = np.frombuffer(log.pre_n, dtype=np.float64)
    tr = np.flatnonzero(train)
    # the step of the train record before each train record (NaN when none is known)
    prev = np.r_[np.nan, _ffill(step[tr])[:-1]] if tr.size else np.empty(0)
    for i in np.flatnonzero(np.isnan(step[tr])).tolist():  # the missing train records
        m = int(tr[i])
        j = int(np.searchsorted(pseq, seq[m]))
        if j < pseq.size and pseq[j] == seq[m] and pn[j] > prev[i]:  # (NaN: no step before)
            step[m], src[m] = pn[j], SRC_BAR


def _restarted_bars(n: np.ndarray, total: np.ndarray) -> np.ndarray:
    """A tqdm bar over one epoch's loader (`for batch in tqdm(loader)`) is drawn anew each
    epoch: its count starts over only after it finished, so it counts within an epoch and
    each finished bar ends one. (Only the first bar after each record is kept, so two
    finished bars kept are two draws.) Numbered as read, every record after a finished
    bar would sit at the same step (an eval printed once per epoch: ten accuracies on one
    point); the k-th epoch's bar counts from k x its total. (The same statement as
    _bar_epochs' for Keras' bars.) A bar that never starts over after finishing is left
    as read."""
    out = n.copy()
    for t in np.unique(total[total > 1]):
        sel = np.flatnonzero(total == t)
        ns = n[sel]
        fin = ns >= t
        back = np.flatnonzero(np.diff(ns) < 0) + 1  # where the count starts over
        if fin.sum() < 2 or not (back.size or fin.all()) or not fin[back - 1].all():
            continue
        epoch = np.concatenate(([0], np.cumsum(fin[:-1])))
        out[sel] = epoch * t + ns
    return out


def _train_bars(
    log: TextLog, epoch_totals: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, n, total) of the training progress bars among those read (the first after each
    record): the train bar climbs from record to record; an eval loop's bar is read
    when it starts, at 0 every time (a resume opens a new train bar, with its total).

    A bar printed finished on a line beside the epoch that line prints (`epoch_totals`,
    from text.py), and read nowhere but finished or at 0 where it opens, is an epoch's
    bar, not a counter of the run: GluonCV's train.py describes each epoch's tqdm bars
    with its metrics ("Epoch 3, training loss 0.227: 100%|...| 709/709", then "Epoch 3,
    validation pixAcc: 0.870, mIoU: 0.582: 100%|...| 179/179"), so every such bar read
    after a record shows the same n: a record it numbered would sit at 709 (or 179) in
    every epoch, one step for the whole run (or at 0, from the 0% bar an appended
    evaluation opens with). Such totals number nothing: the records keep the step of
    the line before (an eval pass, the step of its epoch's train line). A distributed
    sampler's train totals alternate by a batch (709, 710): each is read finished only,
    so each is such a total. A bar on lines of its own ("Train 20: 100%|...") is left as
    it was read."""
    total = np.frombuffer(log.bar_total, dtype=np.float64)
    n = np.frombuffer(log.bar_n, dtype=np.float64)
    seq = np.frombuffer(log.bar_seq, dtype=np.int32).astype(np.int64)
    keep = np.zeros(total.size, dtype=bool)
    epochal = np.zeros(total.size, dtype=bool)  # the bars whose total only counts epochs
    # a bar that counts to 1 is a one-off task (saving a file, merging weights), not a loop
    totals = np.unique(total[total > 1]) if (total > 1).any() else np.unique(total)
    for t in totals:
        sel = total == t
        ns = n[sel]
        done = np.count_nonzero(ns == t)
        told = epoch_totals is not None and bool(np.isin(t, epoch_totals))
        if t > 1 and done and told and np.all((ns == t) | (ns == 0)):
            epochal |= sel
            continue
        climbs = int(np.sum(np.diff(ns) < 0)) <= 1 and np.unique(ns).size > 1
        if climbs or totals.size == 1:
            keep |= sel
    keep |= total == TABLE_TOTAL  # a logger table counts the run's own steps, beside any bar
    if not keep.any() and not epochal.all():
        common = Counter(total[~epochal].tolist()).most_common(1)[0][0]
        keep = (total == common) & ~epochal
    return seq[keep], n[keep], total[keep]


def _steps_per_epoch(summary: dict[str, float]) -> float | None:
    sps, rt, ep = (summary.get(k) for k in ("train_steps_per_second", "train_runtime", "epoch"))
    if not (sps and rt and ep) or not math.isfinite(sps * rt / ep):
        return None
    return sps * rt / ep


def _micro_batches(rec: Records, step: np.ndarray, src: np.ndarray, train: np.ndarray) -> None:
    """One loss per micro-batch under an optimizer step that repeats (litgpt's `iter N step
    M` with gradient accumulation): number the points by the counter that does not repeat.

    Over the records that print both counters, in file order: when at least 30% of
    them repeat the step before and the iteration always climbs, the iteration numbers
    the points. The iteration is written into `step` and taken back if it does not fit.
    """
    parts = [(w, a) for w, _, a in rec.shape_columns("step", "alt") if w.size]
    mask = np.zeros(step.size, dtype=bool)
    for w, _ in parts:
        mask[w] = True
    count = int(np.count_nonzero(mask))
    if count < 3 or not train[mask].all():
        return
    before = step[mask]
    if np.count_nonzero(before[1:] == before[:-1]) < 0.3 * (count - 1):
        return
    for w, a in parts:
        step[w] = a
    after = step[mask]
    if np.isfinite(after).all() and bool(np.all(after[1:] > after[:-1])):
        src[mask] = SRC_ALT
    else:
        step[mask] = before


def _iteration_only(rec: Records, step: np.ndarray, src: np.ndarray) -> None:
    """A line numbered only by the iteration counter, beside lines that print both the
    iteration and the optimizer step (litgpt's `iter 4800: val loss 1.7258` between its
    `iter 4810 | step 601: loss 0.2745` lines, 8 micro-batches a step): put it on the
    optimizer-step axis the other lines are numbered by, iteration / (iterations a step).

    Left on its own counter, 4800 lies far past step 601 and the run splits in two. The
    ratio is taken from the two-counter lines and must hold on all of them (within one
    step); lines already numbered by the iteration (_micro_batches) need nothing.
    """
    both = [p for p in rec.programs if "step" in p.extras and "alt" in p.extras]
    if not both or len({p.counter_keys[1] for p in both}) != 1:
        return
    key = both[0].counter_keys[1]
    where = np.concatenate([rec.where(p) for p in both])
    if not where.size or (src[where] == SRC_ALT).any():
        return
    alt = np.concatenate([rec.counter(p, "alt") for p in both])
    own = step[where]
    ok = np.isfinite(alt) & np.isfinite(own) & (own > 0)
    if np.count_nonzero(ok) < 2:
        return
    ratio = float(np.median(alt[ok] / own[ok]))
    if ratio <= 1.0 or not np.all(np.abs(alt[ok] - ratio * own[ok]) <= ratio):
        return
    for p in rec.programs:
        if "step" in p.extras and "alt" not in p.extras and p.counter_keys[:1] == (key,):
            w = rec.where(p)
            step[w] = np.round(step[w] / ratio)


def _as_int(step: np.ndarray) -> np.ndarray:
    """Steps as int64; a step past int64 (a corrupt counter) or left NaN becomes -1."""
    bad = ~np.isfinite(step) | (np.abs(step) > 2**62)
    if bad.any():
        step = step.copy()
        step[bad] = -1
    return step.astype(np.int64)


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
    times: np.ndarray | None = None,
    fenced: tuple[list[int], np.ndarray] | None = None,
) -> tuple[list[np.ndarray], list[tuple[int, int, int]]]:
    """Record indices per run, and (run, from step, to step) for each resume inside a run.

    Only the points where the step goes back are looked at one by one; between two
    of them the running maximum is one numpy reduction. A paste of two runs whose
    steps go on (a failing run, then days later the rerun, quoted in one thread) is
    cut where a gap marker or prose lies between two records dated a day or more apart.
    """
    every = bool(keep.all())
    idx = None if every else np.flatnonzero(keep)
    count = keep.size if every else idx.size
    if count == 0:
        return [], []
    s, e, ln = (step, epoch, line) if every else (step[idx], epoch[idx], line[idx])
    ordinal = (src if every else src[idx]) == SRC_ORDINAL
    back = s[1:] < s[:-1]
    if ordinal.any():
        back |= ordinal[1:] & (e[1:] < e[:-1])
    brk = np.array(sorted(breaks), np.int64)
    apart = np.zeros(back.size, dtype=bool)
    if brk.size and times is not None and times.size == step.size and back.size:
        t = times if every else times[idx]
        gap = _ffill(t)
        gap = gap[1:] - gap[:-1]  # NaN until both sides are dated
        apart = (gap >= DAYS_APART) & (np.searchsorted(brk, ln[1:]) > np.searchsorted(brk, ln[:-1]))
    if times is not None and times.size == step.size and back.size:
        # a log is written in time order: a record dated a day or more before the one
        # above it, where the step goes back too, is another run's log pasted after the
        # first (PaddleClas' notebook run, then an older run's last epochs), never a resume
        gap = _ffill(times if every else times[idx])
        apart |= back & (gap[:-1] - gap[1:] >= DAYS_APART)
    # A record in a new Markdown code block that repeats the step the run has stood at
    # since it started (CenterMask's issue: "iter: 20  loss: nan" in one block, then
    # "iter: 20  loss: 2.4e34" in the next block) is another attempt pasted after the first,
    # not a rewrite of the same log line: the later block would otherwise overwrite the
    # first attempt's point. Only a run of one record repeated counts; a step repeated
    # further on (micro-batches, an eval at the same step, table rows) is left as it was.
    again = np.zeros(back.size, dtype=bool)
    if fenced is not None and back.size:
        fen = np.array(sorted(fenced[0]), np.int64)
        pl = fenced[1] if every else fenced[1][idx]
        # two fences between them: the first block closed and another opened (one alone
        # is where a block of other output, a model summary, ends inside the same log);
        # and the same line layout twice (a train line, then an eval block at its step,
        # are one run's two halves)
        again = (
            (s[1:] == s[:-1])
            & (pl[1:] == pl[:-1])
            & (pl[1:] >= 0)
            & (np.searchsorted(fen, ln[1:]) >= np.searchsorted(fen, ln[:-1]) + 2)
        )
    points = np.flatnonzero(back | apart | again) + 1
    cuts, resumes = [0], []
    first, last, done = s[0], s[0], 0
    # an ordinal log's progress is its epoch: where the epoch goes back to its start
    first_e = last_e = float(e[0]) if ordinal[0] else math.nan
    for k in points.tolist():
        last = max(last, float(np.max(s[done:k])))
        if ordinal[k] and (fin := np.isfinite(e[done:k])).any():
            seen = float(np.nanmax(e[done:k]))
            first_e = float(e[done:k][fin][0]) if math.isnan(first_e) else first_e
            last_e = seen if math.isnan(last_e) else max(last_e, seen)
        done = k
        if again[k - 1] and not (back[k - 1] or apart[k - 1]):
            if s[k] == first == last and k - cuts[-1] == 1:
                cuts.append(k)  # the run so far is that one record
            continue
        between = brk.size and np.searchsorted(brk, ln[k]) > np.searchsorted(brk, ln[k - 1])
        # lines with no step printed (their order is the step) restart where the epoch
        # they print goes back to its first value, as a printed step would: a second run
        # appended to the same file (HF's dicts: epoch 3.0, then 0.1 again)
        epoch_back = bool(
            ordinal[k]
            and back[k - 1]
            and e[k] < e[k - 1]
            and math.isfinite(first_e)
            and e[k] <= first_e + RESTART_SHARE * (last_e - first_e)
        )
        if (
            apart[k - 1]
            or s[k] <= first + RESTART_SHARE * (last - first)
            or (ordinal[k] and between)
            or epoch_back
        ):
            cuts.append(k)
            first = last = s[k]
            first_e = last_e = float(e[k]) if ordinal[k] else math.nan
        else:
            resumes.append((len(cuts) - 1, int(s[k - 1]), int(s[k])))
    if idx is None and len(cuts) == 1:
        return [np.arange(count)], resumes  # the whole file: one run
    idx = np.arange(count) if idx is None else idx
    bounds = [*cuts, count]
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
    lent: np.ndarray | None = None,
) -> dict[str, Series]:
    """This run's series. A column of one shape becomes a series with no copy of its
    values; a name printed by several shapes is gathered in file order (one scatter).

    A line that prints no step of its own sits at the step of the line before (`lent`):
    where that line already wrote the same name at that step, and the name's curve also
    has points of its own with no lent line, the step's own value is kept. The lent one
    measures something else at the same place: Ignite's "Training Results - Epoch: 1  Avg
    accuracy: 0.10 Avg loss: 0.31" after "Epoch[1] Iteration[930/938] Loss: 0.50" is the
    evaluator's pass over the training set, not the loss at iteration 930; as the later
    write of that step it would replace it, one point of another scale in a curve of
    iterations every epoch (a cut-off line of the next epoch, lent the last printed
    step, likewise)."""
    whole = idx.size == n
    inseg = None
    if not whole:
        inseg = np.zeros(n, dtype=bool)
        inseg[idx] = True
    has_times = times.size == n and bool(np.isfinite(times).any())
    parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for name, where, vals in columns:
        if inseg is not None:
            sel = inseg[where]
            if not sel.all():
                where, vals = where[sel], vals[sel]
        if where.size:
            parts.setdefault(name, []).append((where, vals))
    raw: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    # The series of one shape share their steps (and times), and which of their records
    # to keep: the last write of each step (micro-batches print one line each, a resume
    # prints the same steps again). Dropped here, one name at a time, so the records
    # that are not kept are never held for every name at once.
    steps_of: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray | None, np.ndarray | None]] = {}
    for name, got in parts.items():
        if len(got) > 1 and kind(name) == "task":
            got = _one_scale(got, step)
        shapes = tuple(id(w) for w, _ in got)
        where, vals = got[0] if len(got) == 1 else _merge(got)
        got_st = steps_of.get(shapes)
        held = (
            _lent_twice(lent[where], step[where], vals)
            if lent is not None and len(got) > 1
            else None
        )
        if held is not None:
            # which records stay depends on this name's values: not shared with the others
            k2 = order_and_dedup(step[where][held])
            keep = held if k2 is None else held[k2]
            raw[name] = (step[where][keep], vals[keep], times[where][keep] if has_times else None)
            continue
        if got_st is None:
            st, t = step[where], (times[where] if has_times else None)
            keep = order_and_dedup(st)
            if keep is not None:
                st, t = st[keep], (t[keep] if t is not None else None)
            got_st = steps_of[shapes] = (st, t, keep)
        st, t, keep = got_st
        raw[name] = (st, vals if keep is None else vals[keep], t)
    del parts, steps_of
    heap.give_back(n)  # the parts joined and the records dropped
    raw = profiles.clean(raw, dialect, notes, str(log.path))
    # one raw key owns each canonical name: an episode's return over a bare per-step
    # reward printed beside it (is_episode_return), then the one with the most points,
    # then a validation split over a test split (is_test_split)
    owner: dict[str, str] = {}

    def order(k: str) -> tuple[bool, int, bool, bool, str]:
        return (not is_episode_return(k), -raw[k][0].size, is_test_split(k), canonical(k) != k, k)

    for key in sorted(raw, key=order):
        owner.setdefault(canonical(key), key)
    out: dict[str, Series] = {}
    for key in list(raw):
        st, v, t = raw.pop(key)
        own = owner[canonical(key)] == key
        name = canonical(key) if own else key
        if not own and owner.get(name, key) != key:
            name = f"{key}_alt"  # spelled as the canonical name another key owns
        out[name] = Series.from_arrays(name, st, v, t, f"{log.path.name}: {key}")
    return out


def _lent_twice(lent: np.ndarray, st: np.ndarray, vals: np.ndarray) -> np.ndarray | None:
    """The records of one name to keep when some of them sit at a lent step that a line
    printing its own step already wrote (see _series): all but those; None when none."""
    if not lent.any() or lent.all():
        return None
    own = st[~lent]
    if np.isin(own, st[lent]).all():
        # every point of the line that prints the step has its lent line (ViTPose's one
        # bar per epoch, then "[Summary-train] ... Average Loss (train) 0.0047"): the lent
        # value is the epoch's at every point, one scale all along, and stays the later
        # write as before
        return None
    drop = lent & np.isin(st, own)
    # a NaN a lent line reports is news (NeMo's "WARNING: Loss is NaN or inf" after
    # "Step: 2300 / Loss: 110.98"): the loss went bad after that line, so it stays
    drop &= np.isfinite(vals)
    return np.flatnonzero(~drop) if drop.any() else None


def _one_scale(
    got: list[tuple[np.ndarray, np.ndarray]], step: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """One task metric printed by two layouts, one of them in percent: DeLFT's callback
    "f1 (micro): 47.24" on the bar's line, Keras' "f1: 0.4724" after it. Where the two
    print the same steps, the percent one is 100x the other at every one of them; its
    values are then divided by 100, so a step only it printed (the last epoch, its Keras
    line cut) joins the fraction's scale instead of jumping 100-fold."""
    out = list(got)
    for i, (wi, vi) in enumerate(got):
        for wj, vj in got:
            if wj is wi:
                continue
            _, a, b = np.intersect1d(step[wi], step[wj], return_indices=True)
            x, y = vi[a], vj[b]
            ok = np.isfinite(x) & np.isfinite(y) & (y > 0)
            if ok.any() and np.allclose(x[ok], 100 * y[ok], rtol=5e-3, atol=0.01):
                out[i] = (wi, vi / 100)
                break
    return out


def _merge(got: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One name printed by several shapes, in file order. Each shape's records are in
    file order already, and shapes mostly follow one another (HF dicts, then the litgpt
    lines after a resume): then the parts are only joined. Interleaved shapes are
    sorted by record, never scattered through arrays as long as the whole file."""
    got = sorted(got, key=lambda p: int(p[0][0]))
    where = np.concatenate([w for w, _ in got])
    vals = np.concatenate([v for _, v in got])
    if all(a[0][-1] < b[0][0] for a, b in itertools.pairwise(got)):
        return where, vals
    order = np.argsort(where, kind="stable")
    return where[order], vals[order]


def _own_settings(log: TextLog, firsts: list[int]) -> list[tuple[int, dict] | None]:
    """Per run of the file, the Namespace dump printed last before its first record, when
    the file holds several dumps and that one is not the first (which the file-wide
    settings already are): a sweep's summary prints one before each run's results."""
    out: list[tuple[int, dict] | None] = [None] * len(firsts)
    if len(log.namespaces) < 2:
        return out
    at = [no for no, _ in log.namespaces]
    for k, first in enumerate(firsts):
        i = bisect.bisect_left(at, first) - 1
        if i > 0:
            out[k] = log.namespaces[i]
    return out


def _facts(
    log: TextLog, own: tuple[int, dict] | None = None, per_epoch: bool | None = False
) -> dict[str, Fact]:
    """Facts the text states: its config lines, the planned total, the LR's print resolution;
    `own`: a run's own settings dump (line, settings), over the file's. `per_epoch`: the
    steps count epoch x batches + batch, so the total printed beside the batch counter
    ("Epoch 3/30 iter 120/500") is one epoch's: the plan is epochs x it (30 x 500), and
    unknown when the epochs' total is not printed (mmdet's "Epoch [1][7100/12414]").
    None: a step printed beside one unchanging epoch, either kind of counter: no plan."""
    name = log.path.name
    config = dict(log.config)
    if own is not None:
        config |= {k: (v, own[0]) for k, v in own[1].items()}
    cfg = {k: v for k, (v, _) in config.items()}
    facts: dict[str, Fact] = {}
    if cfg:
        lines = {k: no for k, (_, no) in config.items()}
        for fact in (
            *configs.tool_facts(cfg, name).items(),
            *configs.facts_from(cfg, name).items(),
        ):
            key, f = fact
            if key not in facts:
                where = lines.get(f.source.split(": ", 1)[-1].split("=")[0].split(".")[-1].lower())
                facts[key] = Fact(f.value, f"{name}:{where}" if where else f.source)
    if log.epoch_totals and "num_train_epochs" not in facts:
        total, _ = log.epoch_totals.most_common(1)[0]
        facts["num_train_epochs"] = Fact(total, f"{name}: the epoch total printed on each line")
    if log.totals and "max_steps" not in facts:
        total, _ = log.totals.most_common(1)[0]
        if per_epoch is False:
            facts["max_steps"] = Fact(total, f"{name}: the step total printed on each line")
        elif per_epoch and (epochs := facts.get("num_train_epochs")) is not None:
            facts["max_steps"] = Fact(
                int(epochs.value) * total,
                f"{name}: {int(epochs.value)} epochs x the {total} batches of an epoch printed "
                "on each line",
            )
    hf_resume = any(e.kind == "resume" for e in log.events)  # HF's "Continuing training ..."
    if hf_resume and log.last_bar is not None and "max_steps" not in facts:
        got = _bar_total(log.last_bar)
        if got:  # HF Trainer's bar counts optimizer steps up to the planned total
            facts["max_steps"] = Fact(got, f"{name}:{log.last_bar[0]}: the HF Trainer bar's total")
    if log.lr_decimals:
        d = max(log.lr_decimals)
        facts["lr_print_decimals"] = Fact(d, f"{name}: the LR is printed with {d} decimals")
    if log.summaries:
        keys = ", ".join(k for k in ("train_runtime", "total_flos") if k in log.summaries[-1])
        facts["ended"] = Fact(True, f"{name}: the run's final {keys} summary line")
    return facts
