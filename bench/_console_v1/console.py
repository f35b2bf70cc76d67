"""Plain console logs (stdout/stderr captures) of many trainers (FORMATS.md 1.4, 6).

Reads HF Trainer's printed dicts (v4 raw floats with bare nan, v5 quoted '.4g'
strings), nanoGPT's `iter N: loss X` / `step N: train loss X, val loss Y`,
Megatron-LM iteration lines, DeepSpeed `step=, skipped=, lr=[...]`, torchtune
`Step N | loss:X ...` and torchtitan `step: N  loss: X ...` lines, or any line a
user's regex with named groups (step, loss, lr, grad_norm, ...) matches. ANSI
codes are dropped and patterns are searched, not anchored, so tqdm `\\r` bars
and `[rankN]:` prefixes do not matter; with several ranks only the lowest
rank's metrics are kept. Timestamps on a metric's line become Series.times.

Lines that are evidence by themselves (fp16 overflow, loss scale at minimum,
resume data skipping, NCCL timeouts, PEFT's trainable-parameter count) become
`Run.events`, and facts where they state one (precision fp16, resume_steps,
trainable_params), each with a "console: file:line" source.

HF prints no step: it is taken from the tqdm counter printed right after the
dict (observed, 5.24), else epoch x steps-per-epoch from the final summary
dict, else the dict's ordinal (with a Note: then only the order is real).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np

from bench._console_v1 import _console_events as evidence
from bench._console_v1 import _console_patterns as patterns
from traindoc.model import Fact, Input, Run
from traindoc.readers import configs
from traindoc.readers._base import Notes, ReadError, to_float
from traindoc.readers._columns import Columns

_CONFIGS = ("run_config.json", "config.json", "hparams.yaml", "config.yaml", "args.json")
_SUMMARY = "train_runtime"


def read(path: str | Path, pattern: str | None = None) -> Run:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not raw.strip():
        raise ReadError(path, "file is empty")
    notes = Notes()
    data = patterns.ANSI.sub(b"", raw) if b"\x1b" in raw else raw
    nl = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    events = evidence.find(data, nl, path)
    data = _lowest_rank(data, notes, path)
    metrics = patterns.METRICS if pattern is None else (("pattern", _user(pattern, path), _named),)
    fmt, pos, recs, steps = _collect(data, metrics)
    if not recs and not events:
        what = f"no line matches {pattern!r}" if pattern else "not a recognised training log"
        raise ReadError(
            path,
            f"{what} (HF dicts, nanoGPT, Megatron, DeepSpeed, torchtune, "
            "torchtitan); pass --pattern REGEX with named groups",
        )
    _hf_steps(data, fmt, recs, pos, steps, notes, path)
    keep = np.flatnonzero(np.isfinite(steps))
    times = _times(data, pos[keep], nl)
    grouped = {name for name, _, parse in metrics if parse is None}  # step already a group
    dated = np.isfinite(times)
    if dated.any() or any(f not in grouped for f in fmt):
        for k, i in enumerate(keep.tolist()):
            if fmt[i] not in grouped:
                recs[i]["step"] = int(steps[i])
            if dated[k]:
                recs[i]["time"] = float(times[k])
    ended = any(_SUMMARY in r for r in recs)  # the summary has no step: dropped next
    if keep.size < len(recs):
        recs = [recs[i] for i in keep.tolist()]
    cols = Columns(str(path), notes)
    if recs:
        cols.add(recs, np.searchsorted(nl, pos[keep]), 0)
    formats = sorted(set(fmt))
    series, facts = cols.finish("console")
    events = evidence.place(events, pos[keep], steps[keep])
    evidence.add_facts(events, facts, series, path)
    if ended:
        facts["ended"] = Fact(True, f"console: {path.name}: HF's train_runtime summary")
    facts["trainer"] = Fact(
        formats[0] if len(formats) == 1 else "console",
        f"console: {path.name} ({', '.join(formats) or 'events only'})",
    )
    inputs = [Input(str(path), "console")]
    for name in _CONFIGS:  # a config dump next to the log (vocab_size for the floor)
        side = path.parent / name
        if side.is_file() and (cfg := configs.load(side, notes)) is not None:
            inputs.append(Input(str(side), "run-config"))
            facts = configs.facts_from(cfg, name) | facts
            break
    return Run(path.stem, series, facts, tuple(inputs), notes.build(), events=tuple(events))


def _user(pattern: str, path: Path) -> re.Pattern[bytes]:
    try:
        rx = re.compile(pattern.encode())
    except re.error as exc:
        raise ReadError(path, f"--pattern is not a valid regex: {exc}") from None
    if not rx.groupindex:
        raise ReadError(path, "--pattern needs named groups, e.g. (?P<step>\\d+) (?P<loss>\\S+)")
    return rx


def _named(m: re.Match[bytes]) -> tuple[int | None, dict[str, float]]:
    out = {k: patterns.num(v) for k, v in m.groupdict().items() if v is not None}
    step = out.pop("step", None)
    out.pop("time", None)
    clean = {k: v for k, v in out.items() if v is not None}
    return (int(step) if step is not None and step == step else None), clean


def _lowest_rank(data: bytes, notes: Notes, path: Path) -> bytes:
    ranks = {int(r) for r in patterns.RANK.findall(data[: 4 << 20])} if b"[rank" in data else set()
    if len(ranks) < 2:
        return data
    keep = min(ranks)
    other = re.compile(rb"(?m)^\[rank(?!%d\])\d+\]:[^\n]*" % keep)
    notes.add(path, f"{len(ranks)} ranks print here; metrics read from rank {keep} only")
    return other.sub(lambda m: b" " * len(m.group(0)), data)  # same offsets


def _collect(data: bytes, metrics: tuple) -> tuple[list[str], np.ndarray, list[dict], np.ndarray]:
    """Every metric match, in file order: (format, offset, record, step or NaN)."""
    parts = []
    for name, rx, parse in metrics:
        if parse is None:  # named groups: groupdicts as records, numpy converts the bytes
            found = [(m.start(), m.groupdict()) for m in rx.finditer(data)]
            recs = [d for _, d in found]
            steps = np.array([d["step"] for d in recs], dtype=np.float64)
        elif name == "hf":
            found = [(m.start(), m.group(0)) for m in rx.finditer(data)]
            recs = _hf_dicts([t for _, t in found], rx, parse)
            steps = np.full(len(recs), np.nan)
        else:
            found = [(m.start(), parse(m)) for m in rx.finditer(data)]
            recs = [r for _, (_, r) in found]
            steps = np.array([np.nan if s is None else s for _, (s, _) in found], np.float64)
        if found:
            parts.append(
                (name, np.fromiter((f[0] for f in found), np.int64, len(found)), recs, steps)
            )
    if not parts:
        return [], np.empty(0, np.int64), [], np.empty(0)
    if len(parts) == 1:
        name, pos, recs, steps = parts[0]
        return [name] * len(recs), pos, recs, steps
    pos = np.concatenate([p[1] for p in parts])
    order = np.argsort(pos, kind="stable")
    fmt = [n for n, _, r, _ in parts for _ in range(len(r))]
    recs = [r for p in parts for r in p[2]]
    steps = np.concatenate([p[3] for p in parts])[order]
    return [fmt[i] for i in order.tolist()], pos[order], [recs[i] for i in order.tolist()], steps


_BARE = re.compile(rb"(?<=[:\s])(-?)(nan|inf)(?=\s*[,}])")


def _hf_dicts(texts: list[bytes], rx: re.Pattern[bytes], parse) -> list[dict]:
    """Printed dicts as one JSON array (C speed); the careful parser if that fails."""
    blob = b"[" + b",".join(texts).replace(b"'", b'"') + b"]"
    if b"nan" in blob or b"inf" in blob:  # v4's bare floats
        blob = _BARE.sub(
            lambda m: m.group(1) + (b"NaN" if m.group(2) == b"nan" else b"Infinity"), blob
        )
    try:
        recs = json.loads(blob)
    except ValueError:
        recs = None
    if isinstance(recs, list) and len(recs) == len(texts) and all(type(r) is dict for r in recs):
        return recs
    return [parse(rx.match(t))[1] for t in texts]


def _hf_steps(
    data: bytes,
    fmt: list[str],
    recs: list[dict],
    pos: np.ndarray,
    steps: np.ndarray,
    notes: Notes,
    path: Path,
) -> None:
    """HF dicts' steps (in place): from the tqdm bar, epochs, or ordinal; summaries stay NaN."""
    plain = [i for i, f in enumerate(fmt) if f == "pattern" and np.isnan(steps[i])]
    if plain:  # a user pattern without a step group: the match's ordinal
        steps[plain] = np.arange(1, len(plain) + 1)
        notes.add(path, "--pattern has no (?P<step>...) group; steps are the matches' ordinals")
    hf = [i for i, f in enumerate(fmt) if f == "hf" and _SUMMARY not in recs[i]]
    summaries = [recs[i] for i, f in enumerate(fmt) if f == "hf" and _SUMMARY in recs[i]]
    if not hf:
        return
    bars = [(m.start(), int(m.group(1)), int(m.group(2))) for m in patterns.BAR.finditer(data)]
    how = "the tqdm counter printed after each dict"
    if bars:
        bpos = np.array([b[0] for b in bars], np.int64)
        nxt = np.searchsorted(bpos, pos[hf]).tolist()
        total = Counter(bars[j][2] for j in nxt if j < len(bars)).most_common(1)[0][0]
        for k, i in enumerate(hf):
            end = pos[hf[k + 1]] if k + 1 < len(hf) else len(data)
            for j in range(nxt[k], len(bars)):
                if bars[j][0] >= end:
                    break
                if bars[j][2] == total:
                    steps[i] = bars[j][1]
                    break
    missing = [i for i in hf if np.isnan(steps[i])]
    if missing and summaries:  # steps per epoch from the run's own summary
        s = summaries[0]
        sps, rt, ep = (to_float(s.get(k)) for k in ("train_steps_per_second", _SUMMARY, "epoch"))
        if sps and rt and ep:
            spe = sps * rt / ep
            for i in missing:
                e = to_float(recs[i].get("epoch"))
                steps[i] = round(e * spe) if e is not None and e == e else np.nan
            how = f"epoch x {spe:.4g} steps per epoch (from the train_runtime summary)"
    missing = [i for i in hf if np.isnan(steps[i])]
    if missing:
        last = 0
        for i in hf:  # an eval dict belongs to the train dict before it
            if np.isnan(steps[i]):
                train = "loss" in recs[i] or not any(k.startswith("eval_") for k in recs[i])
                last += 1 if train else 0
                steps[i] = max(last, 1)
            last = int(steps[i])
        how = "the dicts' order (step = ordinal of the train dict; the true step is not printed)"
    notes.add(path, f"HF printed dicts carry no step; steps from {how}")


def _times(data: bytes, pos: np.ndarray, nl: np.ndarray) -> np.ndarray:
    out = np.full(pos.size, np.nan)
    if not pos.size or patterns.STAMP.search(data, 0, 1 << 16) is None:
        return out
    found, cache = [], {}
    for m in patterns.STAMP.finditer(data):
        key = m.group(0)
        if key not in cache:
            cache[key] = patterns.stamp(m)
        found.append((m.start(), cache[key]))
    spos = np.array([f[0] for f in found], np.int64)
    sval = np.array([np.nan if f[1] is None else f[1] for f in found])
    line_start = np.r_[0, nl + 1][np.searchsorted(nl, pos)]
    j = np.searchsorted(spos, pos, side="right") - 1  # last stamp before the match
    ok = (j >= 0) & (spos[np.maximum(j, 0)] >= line_start)  # ... on the same line
    out[ok] = sval[j[ok]]
    return out
