"""Generic JSONL metrics: one JSON object per line (nanoGPT-style, custom loops).

Streamed in fixed-size chunks, so a 1 GB file costs memory only for the
numbers it holds. Speed comes from parsing a whole batch of lines with one
`json.loads` of `[line,line,...]` and pulling columns out with numpy; only a
batch that fails that way is re-parsed line by line, to find and count the
bad lines. Records without a step counter take the previous record's step,
or their 0-based line index in a file that has none. Python's json is kept
on purpose: it accepts the NaN/Infinity tokens Python loggers write
(FORMATS.md 1.2, 9).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from traindoc.model import Fact, Input, Run
from traindoc.readers import _coco, configs
from traindoc.readers._base import Notes, ReadError, loads_json, to_int
from traindoc.readers._columns import Columns
from traindoc.readers._eventlog import Events
from traindoc.readers._progress import progress

_CHUNK = 256 << 10  # bytes read per batch: small, as orjson's buffer is ~14x it (_jsonarray)
_MAX_LINE = 64 << 20  # a longer "line" is garbage, not a metrics record
_CONFIGS = ("run_config.json", "hparams.yaml", "config.yaml", "args.json", "config.json")


def read(path: str | Path) -> Run:
    path = Path(path)
    notes = Notes()
    cols = Columns(str(path), notes)
    mmcv = Adapt(path)
    lines_seen = 0
    try:
        with path.open("rb") as f, progress(path) as seen:
            tail, skipping = b"", False
            while chunk := f.read(_CHUNK):
                seen(f.tell())
                buf = tail + chunk
                cut = buf.rfind(b"\n")
                if cut < 0:
                    tail = b"" if skipping or len(buf) > _MAX_LINE else buf
                    if tail == b"" and not skipping:
                        skipping = True
                        notes.count(path, "overlong line", lines_seen + 1)
                    continue
                lines = buf[:cut].split(b"\n")
                if skipping:  # the rest of the overlong line
                    lines[0], skipping = b"", False
                _batch(lines, lines_seen, cols, notes, path, mmcv=mmcv)
                lines_seen += len(lines)
                tail = buf[cut + 1 :]
            if tail.strip() and not skipping:
                _batch([tail], lines_seen, cols, notes, path, last=True, mmcv=mmcv)
                lines_seen += 1
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc.strerror or exc}") from None
    if lines_seen == 0:
        raise ReadError(path, "file is empty")
    if cols.records == 0:
        raise ReadError(path, "no line holds a JSON object; not a JSONL metrics file", 1)
    series, facts = cols.finish("jsonl")
    for event, fields in mmcv.events.config:  # the first event's value wins
        facts = configs.facts_from(fields, f"{path.name}: {event} event") | facts
    facts["trainer"] = Fact("jsonl", f"{path.name}: JSON lines")
    inputs = [Input(str(path), "jsonl")]
    for name in _CONFIGS:  # a loop's own config dump next to its log, if any
        side = path.parent / name
        if side.is_file() and (data := configs.load(side, notes)) is not None:
            inputs.append(Input(str(side), "run-config"))
            facts = configs.facts_from(data, name) | facts
            break
    return Run(path.stem, series, facts, tuple(inputs), notes.build())


# A file named for its loss whose keys are the splits (mainrun's loss.log:
# {"step", "epoch", "train", "val"}): each number is that split's loss.
_LOSS_FILE = ("loss", "losses")
_SPLITS = {"train": "train_loss", "val": "val_loss", "valid": "val_loss", "test": "test_loss"}


class Adapt:
    """The record layouts a JSON-lines file may use, applied in turn: event-tagged
    records, split-named losses in a loss file, mmcv's per-epoch counters, mmengine's
    epoch-numbered validation records."""

    def __init__(self, path: Path) -> None:
        self.events, self.mmcv, self.by_epoch = Events(), Mmcv(), EpochEvals()
        self.loss_file = path.stem.lower() in _LOSS_FILE

    def apply(self, recs: list[dict]) -> list[dict]:
        return [r for _, r in self.keep(recs)]

    def keep(self, recs: list[dict]) -> list[tuple[int, dict]]:
        kept = [(i, coco_lists(stats_means(r))) for i, r in self.events.keep(recs)]
        if self.loss_file:
            kept = [(i, {_SPLITS.get(k, k): v for k, v in r.items()}) for i, r in kept]
        inner = self.mmcv.keep([r for _, r in kept])
        return [(kept[j][0], self.by_epoch.step(r)) for j, r in inner]


class EpochEvals:
    """mmengine's `vis_data/scalars.json` (LoggerHook): a train record's `step` is the
    iteration (runner.iter + 1) and, in an epoch-based run, it carries `epoch`; a
    validation record carries no `epoch`, and with `log_metric_by_epoch` (the default)
    its `step` is the epoch just finished (runner.epoch), not an iteration. Such a record
    (no `epoch`, its step the last train record's epoch, below that record's step) sits
    at the step of the train record before it: mmengine writes the records in time
    order, so that is the epoch's last logged iteration (its end, or up to one log
    interval short of it when `ignore_last` drops the epoch's remainder)."""

    def __init__(self) -> None:
        self.epoch: object = None
        self.last_step: float | None = None

    def step(self, rec: dict) -> dict:
        step = rec.get("step")
        if not isinstance(step, (int, float)) or isinstance(step, bool):
            return rec
        epoch = rec.get("epoch")
        if epoch is not None:
            self.epoch, self.last_step = epoch, step
            return rec
        if (
            self.last_step is not None
            and isinstance(self.epoch, (int, float))
            and step == self.epoch
            and step < self.last_step
        ):
            return {**rec, "step": self.last_step}
        return rec


def is_stat(v: object) -> bool:
    """A value logged as a summary of many (StyleGAN2-ADA's torch_utils.training_stats:
    {"num": 64, "mean": -3.1, "std": 1.1})."""
    return isinstance(v, dict) and "mean" in v and "num" in v


def stats_means(rec: dict) -> dict:
    """A record of training_stats summaries (stylegan2-ada / stylegan3 `stats.jsonl`, one
    per tick) as the means it summarises, numbered by its `Progress/tick`: the mean is
    the value a logger of single numbers would have written for the tick."""
    if not rec or not any(is_stat(v) for v in rec.values()):
        return rec
    out = {k: (v["mean"] if is_stat(v) else v) for k, v in rec.items()}
    if "step" not in out and isinstance(out.get("Progress/tick"), (int, float)):
        out["step"] = out["Progress/tick"]
    return out


def coco_lists(rec: dict) -> dict:
    """A record with a whole COCOeval.stats list (the DETR family's log.txt:
    "test_coco_eval_bbox": [AP, AP50, AP75, ...]) as its headline APs, named as the
    printed COCO summary's are (readers/_coco.py), and so detectron2's eval record
    ("bbox/AP", "bbox/AP50"); a list under another key is left as it is (not a number:
    not read)."""
    lists = any(isinstance(v, list) for v in rec.values())
    if not lists and not any(isinstance(k, str) and "/AP" in k for k in rec):
        return rec
    out = {}
    for k, v in rec.items():
        if not isinstance(k, str):
            out[k] = v
        elif (pairs := _coco.stats_pairs(k, v) if lists else None) is not None:
            out.update(pairs)
        else:
            out[_coco.named(k) or k] = v
    return out


class Mmcv:
    """mmcv v1 JSON logs (`work_dirs/*/<time>.log.json`): `"mode": "train"|"val"`, and an
    `iter` that counts within the epoch. A train record's step is the iterations of the
    epochs before it plus its iter; a val record sits at its epoch's last train step,
    with its losses named as eval ones. The first line (env and config) is not a record."""

    def __init__(self) -> None:
        self.active: bool | None = None
        self.epoch: object = None
        self.done = self.last_iter = self.last_step = 0

    def apply(self, recs: list[dict]) -> list[dict]:
        return [r for _, r in self.keep(recs)]

    def keep(self, recs: list[dict]) -> list[tuple[int, dict]]:
        """(index, record) of what stays, with the mmcv counters made global."""
        if self.active is None:
            self.active = any(
                r.get("mode") in ("train", "val") and "epoch" in r and "iter" in r
                for r in recs[:20]
            )
        if not self.active:
            return list(enumerate(recs))
        out = []
        for i, r in enumerate(recs):
            mode, it = r.get("mode"), to_int(r.get("iter"))
            if mode == "train" and it is not None:
                if r.get("epoch") != self.epoch:
                    self.done += self.last_iter if self.epoch is not None else 0
                    self.epoch = r.get("epoch")
                self.last_iter, self.last_step = it, self.done + it
                out.append((i, {**r, "step": self.last_step}))
            elif mode == "val":
                val = {
                    k if "loss" not in k else f"eval_{k}": v
                    for k, v in r.items()
                    if k not in ("iter", "lr")
                }
                out.append((i, {**val, "step": self.last_step}))
        return out


def _batch(
    lines: list[bytes],
    first: int,
    cols: Columns,
    notes: Notes,
    path: Path,
    last: bool = False,
    mmcv: Adapt | None = None,
) -> None:
    """Parse lines[first:...] fast; fall back to one line at a time if anything is off."""
    if b"" not in lines:
        try:
            recs = loads_json(b"[" + b",".join(lines) + b"]")
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            recs = None
        if recs is not None and len(recs) == len(lines) and set(map(type, recs)) == {dict}:
            cols.add(mmcv.apply(recs) if mmcv else recs, None, first)
            return
    recs, where = [], []
    for i, raw in enumerate(lines):
        line_no = first + i + 1
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            notes.count(path, "invalid UTF-8 line", line_no, "read with replacement characters")
        try:
            rec = json.loads(text)
        except ValueError:
            what = "truncated last line" if last else "malformed line"
            notes.count(path, what, line_no, "invalid JSON")
            continue
        if not isinstance(rec, dict):
            notes.count(path, "non-object line", line_no, f"a JSON {type(rec).__name__}")
            continue
        recs.append(rec)
        where.append(first + i)
    if recs and mmcv is not None:
        kept = mmcv.keep(recs)
        recs, where = [r for _, r in kept], [where[i] for i, _ in kept]
    if recs:
        cols.add(recs, np.asarray(where, dtype=np.int64), first)
