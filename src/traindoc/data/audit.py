"""The dataset audit: one streaming pass over the shards, then array work on hashes.

Per row the audit keeps hashes, never text: an exact hash of the input, of the
label/answer and of both, the LSH band keys and a 16-bit MinHash signature
(about 300 bytes a row whatever the sample's length). Exact duplicates are
equal full hashes; near duplicates, label conflicts and near leakage come
from one LSH index over the distinct train rows and the eval rows, verified
with the signatures. Example rows are quoted in a second pass that reads only
until it has them.
"""

from __future__ import annotations

import time
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from traindoc import progress
from traindoc.data import profile
from traindoc.data.fields import Schema, detect
from traindoc.data.minhash import (
    THRESHOLD,
    MinHasher,
    _mix,
    band_keys,
    candidate_pairs,
    estimate,
    optimal_bands,
)
from traindoc.data.readers import DataError, Notes, discover, format_of, read
from traindoc.model.data import DataSummary, Pair, RowRef

ANSWER_PERM = 32  # answers only need "same or not": a short signature suffices


@dataclass(frozen=True)
class Options:
    text_field: str | None = None
    label_field: str | None = None
    threshold: float = THRESHOLD  # Jaccard of word 1+2-gram sets (see minhash.MinHasher)
    conflict_threshold: float = 0.8  # "near-same" input: ~1 word in 10 changed, no more
    num_perm: int = 128  # datasketch's default; error of the estimate ~0.035 at 0.8
    max_seq_len: int | None = None
    examples: int = 3
    batch: int = 8192


@dataclass
class Side:
    """Per-row arrays of one side (train or eval), filled batch by batch."""

    files: list[Path]
    cols: dict[str, list[np.ndarray]] = field(default_factory=dict)
    labels: Counter = field(default_factory=Counter)
    klasses: Counter = field(default_factory=Counter)  # the class beside a text answer
    label_kind: str | None = None
    code: int = 0
    scripts: Counter = field(default_factory=Counter)
    schemas: dict[int, Schema] = field(default_factory=dict)
    missing: Counter = field(default_factory=Counter)

    def add(self, **arrays: np.ndarray) -> None:
        for k, v in arrays.items():
            self.cols.setdefault(k, []).append(v)

    def col(self, name: str) -> np.ndarray:
        parts = self.cols.get(name)
        return np.concatenate(parts) if parts else np.empty(0)

    def __len__(self) -> int:
        return sum(len(a) for a in self.cols.get("full", []))


@dataclass(frozen=True)
class AuditResult:
    summary: DataSummary
    export: dict[str, Any]


class Auditor:
    def __init__(self, opts: Options) -> None:
        self.o = opts
        self.mh = MinHasher(opts.num_perm)
        self.mh_ans = MinHasher(ANSWER_PERM, seed=2)
        self.bands = optimal_bands(opts.threshold, opts.num_perm)

    def scan(self, files: list[Path], notes: Notes) -> Side:
        side = Side(files)
        first: Schema | None = None
        name = files[0].parent.name if len(files) > 1 else files[0].name if files else ""
        with progress.task(f"auditing {name}", unit="rows") as bar:
            for fi, batch in read(files, notes, self.o.batch):
                schema = side.schemas.get(fi)
                if schema is None:
                    try:
                        schema = detect(batch[0][2], self.o.text_field, self.o.label_field)
                    except ValueError as exc:
                        raise DataError(f"{files[fi]}: {exc}") from None
                    first = adopt(side, fi, schema, first, notes)
                self.batch(side, fi, schema, batch)
                bar.advance(len(batch))
        return side

    def batch(self, side: Side, fi: int, schema: Schema, batch: list) -> None:
        inputs, answers = [], []
        for _, _, rec in batch:
            if not all(f in rec for f in schema.inputs):
                side.missing[schema.inputs[0]] += 1
            text, ans = schema.extract(rec)
            inputs.append(text)
            answers.append(ans)
        mh = self.mh
        wh, lens = mh.words(inputs)
        ex_in = mh.exact(wh, lens)
        sig = mh.from_shingles(*mh.shingles(wh, lens))
        keys = band_keys(sig, *self.bands)
        n = len(batch)
        empty = lens == 0
        words = lens.astype(np.int64)
        chars = np.fromiter(map(len, inputs), np.int64, n)
        if schema.label_kind == "text":
            a_text = ["" if a is None else str(a) for a in answers]
            wa, la = self.mh_ans.words(a_text)
            ex_ans = self.mh_ans.exact(wa, la)
            asig = self.mh_ans.from_shingles(*self.mh_ans.shingles(wa, la))
            side.add(asig=(asig >> 16).astype(np.uint16))
            empty |= la == 0
            words += la
            chars += np.fromiter(map(len, a_text), np.int64, n)
        elif schema.label is not None:
            ex_ans = _mix(
                np.fromiter((zlib.crc32(repr(a).encode()) for a in answers), np.uint64, n)
                + np.uint64(1)
            )
            side.labels.update(str(a) for a in answers)
        else:
            ex_ans = np.zeros(n, np.uint64)
        if schema.klass is not None:  # a class label beside the answer: part of the row
            ks = [schema.klass_of(rec) for _, _, rec in batch]
            ex_cls = _mix(
                np.fromiter((zlib.crc32(repr(k).encode()) for k in ks), np.uint64, n) + np.uint64(2)
            )
            side.klasses.update(str(k) for k in ks)
            side.add(ex_cls=ex_cls)
            ex_ans = _mix(ex_ans ^ ex_cls)
        for t, e in zip(inputs, empty.tolist(), strict=True):
            if not e:
                side.code += profile.is_code(t)
                side.scripts[profile.script(t)] += 1
        side.add(
            file=np.full(n, fi, np.int32),
            line=np.fromiter((-1 if ln is None else ln for ln, _, _ in batch), np.int64, n),
            index=np.fromiter((ix for _, ix, _ in batch), np.int64, n),
            ex_in=ex_in,
            ex_ans=ex_ans,
            full=_mix(ex_in ^ _mix(ex_ans + np.uint64(0x51ED27))),
            empty=empty,
            words=words,
            chars=chars,
            keys=keys,
            sig=(sig >> 16).astype(np.uint16),
        )


def adopt(side: Side, fi: int, schema: Schema, first: Schema | None, notes: Notes) -> Schema:
    """Records file `fi`'s schema; notes it when it differs from the first file's."""
    if first is not None and (schema.kind, schema.inputs) != (first.kind, first.inputs):
        notes.add(
            f"{side.files[fi]}: mixed schemas: {schema.kind} ({', '.join(schema.inputs)}) "
            f"where {side.files[0].name} is {first.kind} ({', '.join(first.inputs)})"
        )
    side.schemas[fi] = schema
    side.label_kind = side.label_kind or schema.label_kind
    return first or schema


def audit(
    path: str | Path | list[Path],
    eval_path: str | Path | list[Path] | None = None,
    opts: Options | None = None,
) -> AuditResult:
    """Audit a dataset (and optionally its eval split). Raises DataError on unusable input."""
    o = opts or Options()
    t0 = time.perf_counter()
    files = path if isinstance(path, list) else discover(path)
    notes = Notes()
    aud = Auditor(o)
    tr = aud.scan(files, notes)
    if len(tr) == 0:
        raise DataError(
            f"{path}: no records" + (f" ({notes.messages[0]})" if notes.messages else "")
        )
    ev = None
    if eval_path is not None:
        efiles = eval_path if isinstance(eval_path, list) else discover(eval_path)
        ev = aud.scan(efiles, notes)
    with progress.task(f"finding duplicates among {len(tr):,} rows", unit=None):
        return summarise(o, tr, ev, notes, time.perf_counter() - t0)


def summarise(o: Options, tr: Side, ev: Side | None, notes: Notes, seconds: float) -> AuditResult:
    for side in (tr, ev):
        for f, count in (side.missing if side else {}).items():
            notes.add(f"{count} rows lack the field {f!r} (read as empty)")
    full, empty = tr.col("full"), tr.col("empty").astype(bool)
    n = full.size
    # Exact duplicates: equal full hash; the first occurrence is kept.
    _, first, inv = np.unique(full, return_index=True, return_inverse=True)
    rep = first[inv]
    dup = (rep != np.arange(n)) & ~empty
    dup_rows = np.flatnonzero(dup)
    dup_groups = np.unique(rep[dup]).size
    # One LSH index over distinct non-empty train rows and non-empty eval rows.
    keep = np.flatnonzero(~dup & ~empty)
    keys, sig = tr.col("keys")[keep], tr.col("sig")[keep]
    m = keep.size
    ekeep = np.empty(0, np.int64)
    if ev is not None and len(ev):
        ekeep = np.flatnonzero(~ev.col("empty").astype(bool))
        keys = np.concatenate([keys, ev.col("keys")[ekeep]])
        sig = np.concatenate([sig, ev.col("sig")[ekeep]])
    pairs = candidate_pairs(keys.reshape(len(keys), -1)) if len(keys) else np.empty((0, 2), int)
    sim = estimate(sig, pairs)
    ok = sim >= o.threshold
    pairs, sim = pairs[ok], sim[ok]
    cross = (pairs[:, 0] < m) & (pairs[:, 1] >= m)
    within = (pairs[:, 0] < m) & (pairs[:, 1] < m)
    tp, tsim = keep[pairs[within]], sim[within]
    differ = _answers_differ(tr, tp, o.threshold)
    # A conflict needs a near-same input: a one-word edit of a short question
    # ("capital of France" / "of Spain") may rightly change its answer. Such
    # a pair, similar but answered differently, is neither a conflict nor
    # redundant.
    same = tsim >= max(o.threshold, o.conflict_threshold)
    conf_p, conf_s = tp[differ & same], tsim[differ & same]
    near_p, near_s = tp[~differ], tsim[~differ]
    near_rows = np.unique(near_p.max(axis=1)) if near_p.size else np.empty(0, np.int64)
    conf_rows = np.unique(conf_p) if conf_p.size else np.empty(0, np.int64)
    # Leakage: eval rows whose input is in train, exactly or nearly.
    leak_rows = np.empty(0, np.int64)
    leaked_exact = 0
    leak_p = np.empty((0, 2), np.int64)
    leak_s = np.empty(0)
    if ev is not None and len(ev):
        tin = tr.col("ex_in")[~empty]
        ein = ev.col("ex_in")
        exact = np.zeros(len(ein), bool)
        exact[ekeep] = np.isin(ein[ekeep], tin)
        leaked_exact = int(exact.sum())
        cp = pairs[cross]
        leak_p = np.stack([keep[cp[:, 0]], ekeep[cp[:, 1] - m]], axis=1) if cp.size else leak_p
        leak_s = sim[cross]
        leak_rows = np.union1d(np.flatnonzero(exact), leak_p[:, 1])
    words, chars = tr.col("words"), tr.col("chars")
    nonempty = ~empty
    w = words[nonempty]
    length = (
        {
            "mean": float(w.mean()),
            "p50": float(np.percentile(w, 50)),
            "p95": float(np.percentile(w, 95)),
            "max": float(w.max()),
        }
        if w.size
        else {}
    )
    over = int((chars[nonempty] / 4 > o.max_seq_len).sum()) if o.max_seq_len else 0
    samples = int(nonempty.sum())
    label_kind = tr.label_kind
    labels = (
        dict(tr.labels.most_common()) if label_kind == "class" and len(tr.labels) <= 1000 else None
    )
    schema = next(iter(tr.schemas.values()))
    ex = _Examples(o.examples)
    ex.pairs("dup", [(int(rep[r]), int(r)) for r in dup_rows[: o.examples]], [1.0] * o.examples)
    ex.pairs("near", near_p[: o.examples].tolist(), near_s[: o.examples].tolist())
    ex.pairs("conflict", conf_p[: o.examples].tolist(), conf_s[: o.examples].tolist())
    ex.pairs("leak", leak_p[: o.examples].tolist(), leak_s[: o.examples].tolist(), eval_b=True)
    ex.rows("empty", np.flatnonzero(empty)[: o.examples].tolist())
    quoted = ex.quote(tr, ev)
    summary = DataSummary(
        paths=tuple(str(f) for f in tr.files),
        formats=tuple(sorted({format_of(f) for f in tr.files})),
        schema=schema.kind,
        fields=schema.inputs,
        label_field=schema.label,
        label_kind=label_kind,
        rows=n,
        empty=int(empty.sum()),
        duplicates=int(dup_rows.size),
        duplicate_groups=int(dup_groups),
        near_duplicates=int(near_rows.size),
        near_pairs=len(near_p),
        conflicts=int(conf_rows.size),
        conflict_pairs=len(conf_p),
        labels=labels,
        eval_rows=len(ev) if ev is not None else 0,
        leaked=int(leak_rows.size),
        leaked_exact=leaked_exact,
        code_share=tr.code / samples if samples else 0.0,
        scripts={k: v / samples for k, v in tr.scripts.most_common()} if samples else {},
        length=length,
        length_modes=tuple(profile.length_modes(w)),
        max_seq_len=o.max_seq_len,
        over_max_seq_len=over,
        threshold=o.threshold,
        malformed=notes.malformed,
        notes=notes.all(),
        seconds=seconds,
        **quoted,
    )
    starts = np.concatenate([[0], np.cumsum(np.bincount(tr.col("file"), minlength=len(tr.files)))])
    export = {
        "rows_are": "0-based row indices over the files in this order",
        "files": [str(f) for f in tr.files],
        "file_first_row": starts[:-1].tolist(),
        "duplicates": dup_rows.tolist(),
        "near_duplicates": near_rows.tolist(),
        "conflicts": conf_rows.tolist(),
        "empty": np.flatnonzero(empty).tolist(),
    }
    if ev is not None:
        export["eval_files"] = [str(f) for f in ev.files]
        export["leaked_eval"] = leak_rows.tolist()
    return AuditResult(summary, export)


def _answers_differ(side: Side, pairs: np.ndarray, threshold: float) -> np.ndarray:
    """Whether each pair's labels/answers differ (text answers: also not near-same)."""
    if pairs.size == 0 or side.label_kind is None:
        return np.zeros(len(pairs), bool)
    ans = side.col("ex_ans")
    differ = ans[pairs[:, 0]] != ans[pairs[:, 1]]
    if side.label_kind == "text" and differ.any():
        asig = side.col("asig")
        d = np.flatnonzero(differ)
        differ[d] = estimate(asig, pairs[d]) < threshold
    if "ex_cls" in side.cols and len(side.col("ex_cls")) == len(ans):
        cls = side.col("ex_cls")  # same input and answer, another class: a conflict too
        differ |= cls[pairs[:, 0]] != cls[pairs[:, 1]]
    return differ


class _Examples:
    """Rows to quote: collected by role, then read back from the files in one pass."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.want: dict[str, list] = {}

    def pairs(self, role: str, pairs: Iterable, sims: Iterable, eval_b: bool = False) -> None:
        self.want[role] = [
            (int(a), int(b), float(s), eval_b) for (a, b), s in zip(pairs, sims, strict=False)
        ]

    def rows(self, role: str, rows: list[int]) -> None:
        self.want[role] = [(int(r), None, 1.0, False) for r in rows]

    def quote(self, tr: Side, ev: Side | None) -> dict[str, tuple]:
        need: dict[tuple[bool, int], RowRef] = {}
        for items in self.want.values():
            for a, b, _, eb in items:
                need[(False, a)] = RowRef(a)
                if b is not None:
                    need[(eb, b)] = RowRef(b)
        for is_eval in (False, True):
            side = ev if is_eval else tr
            rows = sorted(r for e, r in need if e == is_eval)
            if side is None or not rows:
                continue
            for r, ref in _read_rows(side, rows).items():
                need[(is_eval, r)] = ref
        out: dict[str, tuple] = {}
        names = {"dup": "duplicate", "near": "near", "conflict": "conflict", "leak": "leak"}
        for role, items in self.want.items():
            if role == "empty":
                out["empty_examples"] = tuple(need[(False, a)] for a, *_ in items)
            else:
                out[f"{names[role]}_examples"] = tuple(
                    Pair(need[(False, a)], need[(eb, b)], s) for a, b, s, eb in items
                )
        return out


def _read_rows(side: Side, rows: list[int]) -> dict[int, RowRef]:
    """Quotes the given rows: where they are, a preview of the input, the label."""
    file, line, index = side.col("file"), side.col("line"), side.col("index")
    want: dict[tuple[int, int], int] = {(int(file[r]), int(index[r])): r for r in rows}
    out: dict[int, RowRef] = {}
    by_file: dict[int, set[int]] = {}
    for f, i in want:
        by_file.setdefault(f, set()).add(i)
    for fi in sorted(by_file):
        idxs = by_file[fi]
        last = max(idxs)
        schema = side.schemas[fi]
        for _, batch in read([side.files[fi]], Notes(), 4096):
            for _, ix, rec in batch:
                if ix in idxs:
                    r = want[(fi, ix)]
                    text, ans = schema.extract(rec)
                    ln = int(line[r])
                    out[r] = RowRef(
                        row=r,
                        path=str(side.files[fi]),
                        line=None if ln < 0 else ln,
                        index=ix,
                        preview=_clip(text),
                        label=None if schema.label is None else _clip(str(ans), 60),
                    )
            if batch[-1][1] >= last:
                break
    return out


def _clip(text: str, n: int = 120) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"
