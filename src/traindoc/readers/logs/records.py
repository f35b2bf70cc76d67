"""Where a text log's records are kept while it is read: flat numbers, not dicts.

A record is one metric line. The lines of one shape share a `Program` (its
value columns and which numbers are counters), so their numbers go into one
flat array per shape (row after row, grown in place): a record costs 11 bytes
of bookkeeping plus 8 bytes per number, and the series made from it at the end
are views of that array, not copies. Rare records whose names vary (a W&B summary, a table row, an
OLMo step block) go to `Loose`, one column per name. `Records` is the view
steps.py reads at the end: full per-record arrays made on demand.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from traindoc.model.signals import METRIC_KINDS, TEXT_STEP_KEYS, canonical, is_eval, kind
from traindoc.readers import _coco
from traindoc.readers._base import BOOKKEEPING
from traindoc.readers.logs.numbers import to_num
from traindoc.readers.logs.shapes import Field, Plan, is_clock, is_furniture, split_dash

# A value as NUM (numbers.py) finds it, PaddleOCR's x-filled nan/inf and the MSVC
# runtime's "1.#QNAN0" / "-1.#IND00" / "1.#INF00" included (tried first: see numbers.py).
NUMG = (
    rb"([-+]?1\.#(?:QNAN|SNAN|IND|INF)\d*"
    rb"|[-+]?(?:nan|NaN|NAN)\(\w{0,16}\)"  # C99's nan(n-char-sequence): UCRT's "-nan(ind)"
    rb"|[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    rb"|nanxxx|infxxx|-infxx|[-+]?(?:nan|NaN|NAN|inf|Inf|INF|infinity|Infinity))"
)
_STEP_RANK = {k: i for i, k in enumerate(TEXT_STEP_KEYS)}
_RATE = {"it/s", "it/sec", "tok/s", "tokens/s", "tokens/sec", "samples/s", "step/s"}
_TIME = {"ms", "s", "sec", "secs", "min", "mins", "h", "hr", "us", "ms/step"}
# Names that mean more than they say: DeepSpeed's "skipped=3" counts fp16-skipped steps.
_RENAMES = {"skipped": "skipped_steps"}
# Task metrics signals.kind does not know, that an eval line prints beside its mIoU
# (PaddleSeg's "[EVAL] #Images: 200 mIoU: 0.5000 Acc: 1.0000 Kappa: nan"): eval names there.
_EVAL_TASKS = frozenset({"kappa"})
# A split's name alone over a percentage is its accuracy (rasbt's deeplearning-models:
# "Epoch: 001/010 | Train: 10.000% | Valid: 9.800% | Loss: 2.303"); a loss in % is
# a print bug there ("Loss: 2.520%"), and stays a loss. So is its "perf" over a percentage
# (CNN_sentence's "train perf: 62.92 %, val perf: 62.24 %": 1 minus the error rate).
_SPLIT_SHARE = {
    "train": "train_acc",
    "training": "train_acc",
    "valid": "eval_acc",
    "validation": "eval_acc",
    "val": "eval_acc",
    "test": "eval_acc",
}
# mmdet's COCO evaluation ("bbox_mAP: 0.7220, bbox_mAP_50: 0.9190", "coco/segm_mAP"): an
# eval result whatever line it is on (mmdet 2.x prints it on an `Epoch [8][4015/4015]`
# line like a train record's); `_copypaste` is the same numbers again as one string.
_COCO_EVAL = re.compile(r"(?:coco/)?(?:bbox|segm)_map(?:_[a-z0-9]+)?")
# A detector's mAP under any of its spellings, alone or at an IoU threshold or range
# ("mAP", "mAP@0.5", YOLOv6's "mAP@0.50:0.95" (read as "mAP@0.50-0.95"), "mAP50-95"): the
# evaluator's score of the detections on annotated held-out images. Detection trainers
# never score their train batches so (the boxes come out of NMS at eval time only), so
# an mAP without a split word is an eval result, as mmdet's bbox_mAP is. A split that
# names itself ("train_map") is not this name.
_DETECTION_MAP = re.compile(r"map(?:[@_]?(?:\d+|\d*\.\d+)(?:[-_:](?:\d+|\d*\.\d+))?)?")
# Counters printed beside metrics that are not measurements of the training.
_NOT_METRICS = frozenset(
    {
        "rank",
        "local_rank",
        "global_rank",
        "pid",
        "tid",
        "gpu",
        "gpus",
        "node",
        "nodes",
        "device",
        "worker",
        "workers",
        "seed",
        "v_num",
        "version",
        "port",
        "thread",
        "cuda",
        "num_zeros",
        "output",  # a script's print counter ("Output 3: Average over 100 episodes - ...")
        "bs",  # a batch-size annotation (MS-G3D's "Mean training loss: 1.6621 (BS 32: 3.3243)")
    }
)

# What a metric's name can hold: letters, digits and the separators trainers name with
# (`train/loss`, `loss_ce`, `rec@1`, `coco/ap (l)`, `memory(gib)`, `s0.acc`, `mAP_0.5:0.95`).
# A quote, `=`, `,` or a backslash is code or a printed string around a number
# (`loss='binary_crossentropy',\n`), never a name.
_NAME_OK = re.compile(r"[^'\"=,\\`{}]+")


# Chainer's LogReport / PrintReport keys: "main/<name>", "validation/main/<name>".
_CHAINER = re.compile(r"^(validation/)?main/(?=[a-z])")


def metric_name(key: str, unit: str, context: str) -> str | None:
    """The column a value goes to: its key normalised (eval context applied), or a name
    from its unit when it has no key ("512.3ms", "206859 tok/s"); None to drop it."""
    if not key:
        u = unit.lower()
        if u in _RATE:
            return "throughput"
        if u in _TIME:
            return "time_" + u.replace("/", "_per_")
        return None
    base = key.strip().strip("'\"")
    if base.endswith(")") and "(" in base:
        base = base[: base.index("(")]
    if base.startswith("PARAMETER "):
        # dllogger's "DLL <time> - PARAMETER loss_scale : 4.6e-10": PARAMETER is the step
        # field of a value logged outside any iteration, not a part of its name
        base = base[len("PARAMETER ") :].lstrip()
    low = base.lower()
    if low.startswith(("train ", "eval ")) and "/" in low:  # composer: "Train loss/train/total"
        context = "eval" if low.startswith("eval") else context
        low = low.split(" ", 1)[1]
    name = split_dash(low.replace(" ", "_"))
    if m := _CHAINER.match(name):
        # Chainer's reporter names a value by the link that reported it: "main/loss" is the
        # main model's loss, "validation/main/loss" the same loss under its Evaluator
        name = ("val_" if m.group(1) else "") + name[m.end() :]
    if unit == "%" and (split := _SPLIT_SHARE.get(name.removesuffix("_perf"))):
        return split
    if (
        name in _NOT_METRICS
        or name in BOOKKEEPING
        or is_furniture(name)
        or is_clock(name)
        or not _NAME_OK.fullmatch(name)
    ):
        return None
    name = _RENAMES.get(name, name)
    if _COCO_EVAL.fullmatch(name):
        return None if name.endswith("_copypaste") else as_eval(name.removeprefix("coco/"))
    if _DETECTION_MAP.fullmatch(name):
        return as_eval(name)
    if name.startswith("coco/a"):  # mmpose's CocoMetric: "coco/AP", "coco/AR_M"
        return _coco.named(name) or as_eval(name.removeprefix("coco/"))
    if (iou := _coco.listed_type(name)) is not None:
        # a whole COCOeval.stats list (DETR's "test_coco_eval_bbox": [0.04, 0.11, ...]): the
        # key's slot is the list's first number, the COCO mAP; the others are not read
        return _coco.PREFIX[iou] + _coco.STATS[0]
    if (
        context == "eval"
        and not is_eval(name)
        and not name.startswith(("train_", "training_"))  # names its split itself
        and (kind(name) in ("loss", "component_loss", "task") or name in _EVAL_TASKS)
    ):
        name = "eval_" + name
    return name


# The timings HF Trainer.evaluate() adds to every dict it logs: a dict that carries one
# was logged by an eval as a whole, though a trainer's own keys in it can lack the
# prefix (unsloth/TRL's GRPO prints `'num_tokens'` and `'completions/mean_length'` next
# to `'eval_loss'`); read as train names they overwrite the train point of that step.
EVAL_MARKS = frozenset({"eval_runtime", "eval_samples_per_second", "eval_steps_per_second"})


def eval_marked(names: Iterable[str | None]) -> bool:
    """The names are those of a dict an evaluation logged (see EVAL_MARKS)."""
    return not EVAL_MARKS.isdisjoint(names)


def as_eval(name: str) -> str:
    """A name of an eval-marked dict: `eval_<name>` unless it already names an eval."""
    return name if is_eval(name) else "eval_" + name


@dataclass
class Program:
    """How the numbers of one shape become a record (built once per shape)."""

    pid: int
    plan: Plan
    rx: re.Pattern[bytes]  # the shape itself as a regex: one group per number
    names: tuple[str, ...]  # the value columns
    take: itemgetter  # groups to convert: the values, then the counters present
    width: int  # numbers per row of `rows`: the values, then the timestamp if any
    extras: dict[str, int]  # counter -> column in `counters` ("time": column in `rows`)
    lr_group: int | None = None  # the LR's group (its printed decimals are a fact)
    total_group: int | None = None  # a printed step total ("step 120/5000")
    is_eval: bool = False
    epoch_total_group: int | None = None  # a printed epoch total ("Epoch [000/210]")
    train: bool = False  # carries a train metric
    summary: bool = False  # HF's final train_runtime dict
    config: bool = False  # a printed hyperparameter dict
    has_metric: bool = False
    rows: array = field(default_factory=lambda: array("d"))  # the values, row after row
    counters: array = field(default_factory=lambda: array("d"))  # the counters, row after row
    ncounters: int = 0
    seen: int = 0
    shape: str = ""
    needs_ctx: bool = False
    has_stamp: bool = False
    special: bool = False  # a summary or a config dump: not a curve point
    dropped: bool = False  # the counters were freed (the steps are resolved)
    scales: tuple[int, ...] = ()  # value columns printed in units of a bracketed scale
    epoch_group: int | None = None  # the epoch's group (printed "0.0" or "0"?)
    float_epoch: bool = False  # the epoch is printed with a decimal point: a rounded float
    # the line prints its own epoch, with no unnamed number right after it (that would be
    # a batch counter: "Epoch: [0][50]"): its repeats are the epoch's periodic reports
    epoch_reports: bool = False
    lr_scale_group: int | None = None  # the LR's printed scale (its decimals are finer)
    counter_keys: tuple[str, ...] = ()  # the keys of "step" and "alt", lower case


def power_of_ten(s: float) -> int | None:
    """k when s is 10**k (a unit such as 1e-4), else None."""
    if s > 0 and math.isfinite(s) and abs((e := math.log10(s)) - round(e)) < 1e-9:
        return round(e)
    return None


def apply_scales(row: list[float], scales: tuple[int, ...]) -> None:
    """Take the printed scales off the end of the row and apply them, in place: a scale
    that is a power of ten is a unit (verl's `lr(1e-4):0.010`); another number in
    brackets is not (a top-k, a count), and the value stays as printed."""
    got = row[-len(scales) :]
    del row[-len(scales) :]
    for col, s in zip(scales, got, strict=True):
        if (k := power_of_ten(s)) is not None:
            # 0.010 / 1e4, not 0.010 * 1e-4: the division gives the 1e-06 printed
            row[col] = row[col] * 10.0**k if k >= 0 else row[col] / 10.0**-k


def compile_program(pid: int, plan: Plan, shape: bytes) -> Program:
    rx = re.compile(NUMG.join(re.escape(p) for p in shape.split(b"\x00")), re.DOTALL)
    values: list[tuple[int, str]] = []
    steps: list[tuple[int, int]] = []
    roles: dict[str, int] = {}
    lr_group = total_group = epoch_total_group = None
    totals: dict[str, int] = {}  # a step key's total ("iter[ 14/ 15]"): that counter's end
    scale_of = {f.key: f.slot for f in plan.fields if f.role == "scale"}
    scaled: list[tuple[int, int]] = []  # (value column, group of its printed scale)
    lr_scale: int | None = None
    marked = eval_marked(metric_name(f.key, f.unit, "") for f in plan.fields if f.role == "value")
    for f in plan.fields:
        if f.role == "value":
            name = metric_name(f.key, f.unit, plan.context)
            if name is None:
                continue
            if marked:
                name = as_eval(name)
            if canonical(name) == "lr" and lr_group is None:
                lr_group, lr_scale = f.slot, scale_of.get(f.key)  # verl's "actor/lr:0.000"
            if canonical(name) == "lr" and name in ("lr", "learning_rate"):
                name = "lr"
            if name in {n for _, n in values}:  # a second column of one name on a line
                name = f"{name}_{len(values)}"
            if f.key in scale_of:
                scaled.append((len(values), scale_of[f.key]))
            values.append((f.slot, name))
        elif f.role == "step":
            steps.append((_rank(f), f.slot, f.key))
        elif f.role == "total":
            totals.setdefault(f.key, f.slot)
        elif f.role == "epoch_total":
            epoch_total_group = f.slot
        elif f.role in ("epoch", "inner", "inner_total"):
            roles.setdefault(f.role, f.slot)
    if any(n == "best" for _, n in values) and any(kind(n) == "eval_loss" for _, n in values):
        # fairseq's valid line ends in "best 4.46376": the best valid loss so far (its
        # checkpoint metric, the loss by default), a running minimum, not a metric "best"
        values = [(slot, "eval_best_loss" if n == "best" else n) for slot, n in values]
    steps.sort()
    groups = [slot for slot, _ in values]
    extras: dict[str, int] = {}

    def add(name: str, slot: int) -> None:
        extras[name] = len(extras)
        groups.append(slot)

    if steps:
        add("step", steps[0][1])
        if len(steps) > 1:
            add("alt", steps[1][1])
        # the total of the counter read as the step, never another's: LION's
        # "E104 iter[ 14/ 15] | ... | [step]  1574" counts 15 batches an epoch, while the
        # step is the run's 1574th (15 is no run length)
        total_group = totals.get(steps[0][2])
    if total_group is None and epoch_total_group is not None and "inner_total" in roles:
        # "Epoch [3/30][120/500]": the batch counter's total beside the epoch's is one
        # epoch's batches (the plan is 30 x 500, steps._facts), or the run's steps where
        # the counter climbs on across epochs
        total_group = roles["inner_total"]
    for role in ("epoch", "inner", "inner_total"):
        if role in roles:
            add(role, roles[role])
    if steps and total_group is not None and "inner_total" not in roles:
        # the step counter's own total ("eval step:10/12"): an eval line whose total is
        # not the train lines' counts its own loader's batches (steps._eval_loader_steps)
        add("step_total", total_group)
    ncounters = len(extras)
    groups.extend(slot for _, slot in scaled)  # read last, and taken off the row first
    width = len(values)
    # a line without a step may take the epoch of an "Epoch 3/10" line before it (kept by
    # the reader as a change log, not per record); a shape with a date has a timestamp
    needs_ctx = "step" not in extras
    has_stamp = bool(_DATE.search(shape))
    if has_stamp:
        extras["time"] = width
        width += 1
    names = tuple(n for _, n in values)
    take = itemgetter(*groups) if len(groups) > 1 else (lambda g, i=groups: (g[i[0]],))
    evals = plan.context == "eval" or marked
    prog = Program(pid, plan, rx, names, take, width, extras, lr_group, total_group, evals)
    prog.shape = shape.decode("utf-8", "replace")
    prog.epoch_total_group = epoch_total_group
    prog.needs_ctx, prog.has_stamp, prog.ncounters = needs_ctx, has_stamp, ncounters
    prog.scales, prog.lr_scale_group = tuple(col for col, _ in scaled), lr_scale
    prog.epoch_group = roles.get("epoch")
    if prog.epoch_group is not None:
        after = [f for f in plan.fields if f.slot > prog.epoch_group]
        prog.epoch_reports = not (after and after[0].role == "value" and not after[0].key)
    prog.counter_keys = tuple(k.strip().strip("'\"").lower() for _, _, k in steps[:2])
    kinds = {kind(n) for n in names}
    prog.has_metric = bool(kinds & METRIC_KINDS)
    prog.train = not evals and any(not is_eval(n) for n in names if kind(n) in METRIC_KINDS)
    prog.summary = any(n in ("train_runtime", "total_flos") for n in names)
    prog.config = bool(set(names) & CONFIG_NAMES) and not kinds & {
        "loss",
        "eval_loss",
        "component_loss",
        "eval_component_loss",
    }
    prog.special = prog.summary or prog.config
    return prog


# a date in a line's shape: ISO's "2023-06-03" (its month and day stay digits), and the
# slashed "[2022/04/04 17:51:12]" of Paddle's and mmengine's loggers with its time
_DATE = re.compile(rb"\x00-\d\d-\d\d|(?<![\w/])\x00/\x00/\x00 \x00:\x00:\x00")


def compile_shape(shape: bytes) -> re.Pattern[bytes]:
    """A shape as a regex with one group per number (for lines that are not records)."""
    return re.compile(NUMG.join(re.escape(p) for p in shape.split(b"\x00")), re.DOTALL)


def _rank(f: Field) -> int:
    base = f.key.strip().strip("'\"").lower()
    if "(" in base:
        base = base[: base.index("(")]
    return _STEP_RANK.get(base, len(_STEP_RANK))


# Hyperparameter names: a line that carries them and no loss is a config dump.
CONFIG_NAMES = frozenset(
    {
        "per_device_train_batch_size",
        "gradient_accumulation_steps",
        "adam_beta1",
        "adam_beta2",
        "adam_epsilon",
        "weight_decay",
        "warmup_steps",
        "warmup_ratio",
        "max_steps",
        "max_iters",
        "num_train_epochs",
        "seed",
        "batch_size",
        "micro_batch_size",
        "lr_decay_iters",
        "min_lr",
        "warmup_iters",
        "max_grad_norm",
        "grad_clip",
        "beta1",
        "beta2",
        "eval_interval",
        "log_interval",
        "eval_iters",
        "momentum",
        "dropout",
        "drop_path",
        "lora_r",
        "lora_alpha",
        "lora_dropout",
        "logging_steps",
        "save_steps",
        "eval_steps",
        "num_epochs",
        "epochs",
        "max_epochs",
        "max_epoch",
        "warmup_epochs",
        "label_smoothing",
        "block_size",
        "n_layer",
        "n_head",
        "n_embd",
    }
)


def columns_of(p: Program) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The program's values and counters as one (strided) view per column: no copy is
    made, so nothing is allocated or freed at the end of a read (which is where an
    allocator would otherwise leave memory behind)."""
    block = np.frombuffer(p.rows, dtype=np.float64).reshape(-1, p.width)
    values = [block[:, j] for j in range(p.width)]
    if not p.ncounters:
        return values, []
    counts = np.frombuffer(p.counters, dtype=np.float64).reshape(-1, p.ncounters)
    return values, [counts[:, j] for j in range(p.ncounters)]


def to_row(groups: tuple[bytes, ...]) -> list[float]:
    """Numbers as floats; the careful parser only when a fast float() refuses one."""
    try:
        return list(map(float, groups))
    except ValueError:
        out = []
        for g in groups:
            try:
                out.append(to_num(g))
            except (ValueError, OverflowError):
                out.append(math.nan)
        return out


class Loose:
    """Records whose names vary line to line: per-record counters, one column per name."""

    def __init__(self) -> None:
        self.step, self.epoch, self.time = array("d"), array("d"), array("d")
        self.src, self.eval = array("b"), array("b")
        self.cols: dict[str, tuple[array, array]] = {}
        self.n = 0

    def add(
        self,
        vals: list[tuple[str, float]],
        step: float,
        src: int,
        epoch: float,
        time: float,
        is_eval: bool,
    ) -> int:
        k = self.n
        self.n += 1
        self.step.append(step)
        self.src.append(src)
        self.epoch.append(epoch)
        self.time.append(time)
        self.eval.append(1 if is_eval else 0)
        for name, v in vals:
            col = self.cols.get(name)
            if col is None:
                col = self.cols[name] = (array("q"), array("d"))
            col[0].append(k)
            col[1].append(v)
        return k


class Records:
    """Per-record arrays of a whole log, for steps.py: made on demand from the stores."""

    def __init__(
        self,
        line: array,
        seq: array,
        plan: array,
        rank: array,
        programs: list[Program],
        loose: Loose,
        ctx: tuple[array, array] | None = None,
    ) -> None:
        self.line = np.frombuffer(line, dtype=np.int32)
        self.seq = np.frombuffer(seq, dtype=np.int32)
        self.plan = np.frombuffer(plan, dtype=np.int16)
        self.rank = np.frombuffer(rank, dtype=np.int8)
        self.n = self.line.size
        self.programs = [p for p in programs if p.seen]
        self.loose = loose
        self._where = {
            p.pid: np.flatnonzero(self.plan == p.pid).astype(np.int32) for p in self.programs
        }
        self._loose_idx = np.flatnonzero(self.plan == -1)
        self._cols = {p.pid: columns_of(p) for p in self.programs}
        self._aggregates = epoch_aggregates(self)
        # the epoch context: (order, epoch) at each "Epoch 3/10" line
        self._ctx = None
        if ctx is not None and len(ctx[0]):
            self._ctx = (np.frombuffer(ctx[0], dtype=np.int32), np.frombuffer(ctx[1], np.float64))

    def where(self, p: Program) -> np.ndarray:
        """The records of one shape, in file order."""
        return self._where[p.pid]

    def count(self, p: Program) -> int:
        return int(self._where[p.pid].size)

    def values(self, p: Program) -> dict[str, np.ndarray]:
        """One shape's value columns by name (views, no copy)."""
        values, _ = self._cols[p.pid]
        return dict(zip(p.names, values, strict=False))

    def ctx_at(self, where: np.ndarray) -> np.ndarray | None:
        """The epoch of the last "Epoch 3/10" line before each of these records."""
        if self._ctx is None:
            return None
        at, vals = self._ctx
        j = np.searchsorted(at, self.seq[where], side="right") - 1
        out = np.full(where.size, np.nan)
        ok = j >= 0
        out[ok] = vals[j[ok]]
        return out

    def next_ctx_at(self, where: np.ndarray) -> np.ndarray:
        """The epoch of the first "Epoch 3/10" line after each of these records (NaN when
        none follows): a record before it, with no heading of its own above it (the paste
        starts, or resumes after a gap, mid-epoch), is in the epoch before that one."""
        out = np.full(where.size, np.nan)
        if self._ctx is None:
            return out
        at, vals = self._ctx
        ok = ~np.isnan(vals)
        at, vals = at[ok], vals[ok]
        j = np.searchsorted(at, self.seq[where], side="right")
        has = j < at.size
        out[has] = vals[j[has]]
        return out

    def first_ctx(self) -> float:
        """The epoch of the first "Epoch 3/10" line (NaN when there is none)."""
        return float(self._ctx[1][0]) if self._ctx is not None else math.nan

    def has(self, name: str) -> bool:
        """Whether any record can have this extra (else extra() is all NaN)."""
        if name == "ctx":
            return self._ctx is not None
        if any(name in p.extras for p in self.programs):
            return True
        return bool(self._loose_idx.size) and name in ("step", "epoch", "time")

    def extra(self, name: str) -> np.ndarray:
        """One extra (step, alt, epoch, inner, inner_total, step_total, ctx, time) for
        every record."""
        out = np.full(self.n, np.nan)
        if not self.has(name):
            return out
        for p in self.programs:
            if name in p.extras:
                out[self._where[p.pid]] = self._col(p, name)
        if self._loose_idx.size and name in ("step", "epoch", "time"):
            out[self._loose_idx] = np.frombuffer(getattr(self.loose, name), dtype=np.float64)
        return out

    def counter(self, p: Program, name: str) -> np.ndarray:
        """One shape's counter column ("step", "alt", "epoch"), a record each."""
        return self._col(p, name)

    def _col(self, p: Program, name: str) -> np.ndarray:
        values, counters = self._cols[p.pid]
        if name == "time":
            return values[p.extras["time"]]
        assert not p.dropped, f"{name}: the counters were freed"
        return counters[p.extras[name]]

    def flag(self, name: str) -> np.ndarray:
        """Per record: is_eval (an eval line), train (carries a train metric) or
        float_epoch (its shape prints the epoch with a decimal point: `'epoch': 0.0`)."""
        out = np.zeros(self.n, dtype=bool)
        for p in self.programs:
            if getattr(p, name):
                out[self._where[p.pid]] = True
        if self._loose_idx.size:
            if name == "is_eval":
                out[self._loose_idx] = np.frombuffer(self.loose.eval, dtype=np.int8) == 1
            elif name == "train":
                loose = np.zeros(self.loose.n, dtype=bool)
                for col, (recs, _) in self.loose.cols.items():
                    if not is_eval(col) and kind(col) in METRIC_KINDS:
                        loose[np.frombuffer(recs, dtype=np.int64)] = True
                out[self._loose_idx] = loose & (np.frombuffer(self.loose.eval, np.int8) == 0)
        return out

    def loose_src(self) -> np.ndarray:
        return np.frombuffer(self.loose.src, dtype=np.int8)

    def shapes(self):
        """(program, record indices, {extra: column}) per shape, for per-shape work; a shape
        of lines without a step also gets "ctx", the epoch printed on a line before."""
        for p in self.programs:
            where = self._where[p.pid]
            ex = {k: self._col(p, k) for k in p.extras}
            if p.needs_ctx and (ctx := self.ctx_at(where)) is not None:
                ex["ctx"] = ctx
            yield p, where, ex

    def has_both(self, a: str, b: str) -> bool:
        return any(a in p.extras and b in p.extras for p in self.programs)

    def fractional_epochs(self) -> bool:
        """Some logged epoch is not a whole number (HF's fractional epochs)."""
        for p in self.programs:
            if "epoch" in p.extras:
                e = self._col(p, "epoch")
                e = e[np.isfinite(e)]
                if (e != np.floor(e)).any():
                    return True
        e = np.frombuffer(self.loose.epoch, dtype=np.float64)
        e = e[np.isfinite(e)]
        return bool((e != np.floor(e)).any())

    def shape_columns(self, name: str, other: str):
        """(record indices, column name, column other) for each shape that has both extras:
        a shape's own columns, in file order, with no full-length copies."""
        for p in self.programs:
            if name in p.extras and other in p.extras:
                yield self._where[p.pid], self._col(p, name), self._col(p, other)

    def release(self) -> None:
        """Drop the per-record bookkeeping (line, order, shape, rank) once it is used."""
        self.line = self.seq = self.plan = self.rank = np.empty(0, np.int32)

    def drop_counters(self) -> None:
        """Free the counters once the steps are resolved (the values are kept)."""
        for p in self.programs:
            values, _ = self._cols[p.pid]
            self._cols[p.pid] = (values, [])
            p.counters, p.dropped = array("d"), True

    def columns(self):
        """(name, record indices, values) for every column of every store; the columns
        of one shape share one array of record indices."""
        for p in self.programs:
            where, (values, _) = self._where[p.pid], self._cols[p.pid]
            for j, name in enumerate(p.names):
                if p.pid in self._aggregates and kind(name) in _AGGREGATED and not is_eval(name):
                    name = f"{name}_epoch"  # Lightning's name for an epoch's mean
                yield name, where, values[j]
        for name, (recs, vals) in self.loose.cols.items():
            yield (
                name,
                self._loose_idx[np.frombuffer(recs, dtype=np.int64)],
                np.frombuffer(vals, dtype=np.float64),
            )


# What an epoch's summary line averages over the epoch (its LR is the LR at its end).
_AGGREGATED = frozenset({"loss", "component_loss", "grad_norm", "task", "entropy"})


def epoch_aggregates(rec: Records) -> set[int]:
    """Train shapes printed once an epoch, after that epoch's lines of a train shape that
    counts the epoch's batches: fairseq's "| epoch 009 | loss 6.233 | ... | gnorm 1.241"
    after its "| epoch 009:   2000 / 2737 loss=6.234, ..., gnorm=1.242" lines. The summary
    is the epoch's mean of the updates those lines already show: a point of their series,
    it would sit at the epoch's last update with a window a whole epoch wide (a gnorm
    spike averaged away). Kept apart as `<name>_epoch`, as Lightning names an epoch's
    mean; alone (a paste of the summaries only) it is the curve, and stays one. Only
    beside a batch counter: a line whose counter is a run's step or the batch itself
    ("iters: 200, epoch: 1 | loss: ...", one batch's loss) is no interval of the
    summary's, and the epoch's mean stays the smoother point of that one curve."""
    shapes = []
    for p in rec.programs:
        if p.train and not p.is_eval and "epoch" in p.extras and "step" in p.extras:
            ep = rec.counter(p, "epoch")
            ok = np.isfinite(ep)
            if ok.any() and "loss" in {kind(n) for n in p.names}:
                shapes.append((p, ep[ok], rec.line[rec.where(p)[ok]]))
    out: set[int] = set()
    for p, ep, line in shapes:
        if "inner" in p.extras or np.unique(ep).size != ep.size:
            continue  # a batch counter, or more than one line an epoch
        for q, qep, qline in shapes:
            if "inner" not in q.extras:
                continue
            # each summary comes after its epoch's interval lines (where the paste has any)
            ends = [(qline[qep == e] < at).all() for e, at in zip(ep, line, strict=True)]
            if any((qep == e).any() for e in ep) and all(ends):
                out.add(p.pid)
                break
    return out
