"""Ultralytics run dir (runs/detect/train): results.csv, one row per epoch, + args.yaml.

results.csv's header and cells are space-padded; its columns are `epoch`, the
train loss components (`train/box_loss`, `train/cls_loss`, `train/dfl_loss`),
`metrics/*(B)`, the val components and one LR per optimizer parameter group
(`lr/pg0..2`; YOLOv5 writes `x/lr0..2` and keeps opt.yaml + hyp.yaml instead of
args.yaml). Epochs are numbered from 0 by YOLOv5 and early YOLOv8, from 1 by
later releases: the step is the number of epochs done, so both read alike. The
total loss is left to readers/derived.py, which sums the logged components (the
loss ultralytics optimises is their sum).

YOLOv5 before v6.0 (and YOLOv7, which kept its trainer) wrote results.txt instead: no
header, one whitespace-separated row per epoch of 15 cells, `epoch/last_epoch`,
gpu_mem ("1.86G"), box, obj, cls, total, targets, img_size, P, R, mAP@.5,
mAP@.5:.95, val box, val obj, val cls (its train.py's `s` format and
utils/plots.py's plot_results, which reads those columns by position). It is read
as the results.csv those versions' successors write, under the same column names;
the total and the targets / img_size counters are dropped (derived.py sums the
components). Such runs log no LR.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from traindoc.model import Fact, Input, Run, Series
from traindoc.model.numbers import count
from traindoc.model.run import order_and_dedup
from traindoc.readers import configs
from traindoc.readers._base import Notes, ReadError, to_float

RESULTS = "results.csv"
RESULTS_TXT = "results.txt"
# results.txt's 15 cells by position -> results.csv's names (None: not a metric)
_TXT_COLUMNS = (
    "epoch",
    None,  # gpu_mem
    "train/box_loss",
    "train/obj_loss",
    "train/cls_loss",
    None,  # their total: derived.py sums the components
    None,  # targets in the epoch's last batch
    None,  # img_size
    "metrics/precision",
    "metrics/recall",
    "metrics/mAP_0.5",
    "metrics/mAP_0.5:0.95",
    "val/box_loss",
    "val/obj_loss",
    "val/cls_loss",
)
_TXT_EPOCH = re.compile(r"^(\d+)/(\d+)$")
_TXT_MEM = re.compile(r"^\d+(?:\.\d+)?[GMK]?$")
_LR = ("lr/pg", "x/lr")  # one LR column per parameter group
_VAL = ("val/", "metrics/")  # what the validation after an epoch writes
# YOLOv10's loss terms: box / cls / dfl of the one-to-many (om) and one-to-one (oo) heads
_V10_PART = re.compile(r"^(train|val)/(?:box|cls|dfl)_(?:om|oo)$")
# YOLOv5 and ultralytics accumulate gradients up to this nominal batch (nbs) when the
# batch is smaller: accumulate = max(round(nbs / batch), 1) (their trainers' source)
_NBS = 64
_TASKS = {"detect": "detection", "segment": "detection", "obb": "detection", "pose": "detection"}
_TASKS["classify"] = "classification"


def is_results_csv(path: Path) -> bool:
    """An ultralytics results.csv: an `epoch` column first, no `step` column (Lightning's
    metrics.csv may also start with `epoch` and log `train/..._loss`), train/*_loss
    columns (a classify run logs one `train/loss`) and one LR column per parameter group."""
    try:
        with path.open("rb") as f:
            head = f.readline(4096).decode("utf-8", "replace")
    except OSError:
        return False
    cols = [c.strip() for c in head.split(",")]
    return (
        cols[:1] == ["epoch"]
        and "step" not in cols
        and any(
            c.startswith("train/") and (c.endswith(("_loss", "/loss")) or _V10_PART.match(c))
            for c in cols
        )
        and any(c.startswith(_LR) for c in cols)
    )


def is_results_txt(path: Path) -> bool:
    """YOLOv5 (< v6.0) / YOLOv7's results.txt: its first row is 15 cells, `epoch/last`
    then the GPU memory ("1.86G", "0G" on a CPU) then 13 numbers."""
    try:
        with path.open("rb") as f:
            head = f.readline(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return _txt_row(head) is not None


def _txt_row(line: str) -> tuple[int, int, list[float | None]] | None:
    """A results.txt row: (epoch, last epoch, the cells), or None when it is not one."""
    cells = line.split()
    if len(cells) != len(_TXT_COLUMNS) or not (m := _TXT_EPOCH.match(cells[0])):
        return None
    if not _TXT_MEM.match(cells[1]):
        return None
    values = [to_float(c) for c in cells[2:]]
    if any(v is None for v in values):
        return None
    return int(m.group(1)), int(m.group(2)), values


def read(path: str | Path) -> Run:
    path = Path(path)
    csv_path = path
    if path.is_dir():
        csv_path = path / RESULTS
        if not csv_path.is_file() and (path / RESULTS_TXT).is_file():
            csv_path = path / RESULTS_TXT
    notes = Notes()
    planned: int | None = None
    if is_results_txt(csv_path):
        header, rows, planned = _txt_rows(csv_path, notes)
    else:
        header, rows = _rows(csv_path, notes)
    epoch = np.array([r[0] for r in rows], np.float64)
    done = epoch + 1 if epoch[0] == 0 else epoch  # epochs done at each row
    steps = done.astype(np.int64)
    facts: dict[str, Fact] = {"trainer": Fact("ultralytics", f"{csv_path.name}: header")}
    keep = order_and_dedup(steps)
    if keep is not None:  # an epoch written again (a resume from an earlier one): the last wins
        if (back := np.flatnonzero(steps[1:] < steps[:-1])).size:
            at = (int(steps[back[0] + 1]),)
            facts["resume_steps"] = Fact(at, f"{csv_path.name}: the epoch went back")
        rows = [rows[i] for i in (np.flatnonzero(keep) if keep.dtype == bool else keep)]
        steps, done = steps[keep], done[keep]
    table = np.array(rows, np.float64)
    src = f"{csv_path.name}: "
    series = {"epoch": Series.from_arrays("epoch", steps, done, None, src + "epoch")}
    ran = _validated(header, table)
    for j, name in enumerate(header[1:], 1):
        at = ran if name.startswith(_VAL) else slice(None)
        if not table[at, j].size:
            continue
        series[name] = Series.from_arrays(name, steps[at], table[at, j], None, src + name)
    # A classify run logs its one loss as `train/loss` and `val/loss` (no components to
    # sum): those are the train and eval losses themselves.
    for name, target in (("train/loss", "loss"), ("val/loss", "eval_loss")):
        if name in series and target not in series:
            s = series[name]
            series[target] = Series.from_arrays(target, s.steps, s.values, None, src + name)
    _v10_totals(header, series, src)
    lrs = [n for n in header if n.startswith(_LR)]
    if lrs:
        # The bias group warms down from warmup_bias_lr (0.1) while the weights warm up
        # from 0: the schedule is the group that starts lowest (not pg0 in YOLOv8, whose
        # first group is the biases; x/lr0 in the old YOLOv5 order, biases last).
        main = min(lrs, key=lambda n: (_first(series[n].values), n))
        why = f"{src}{main} (the group that warms up from 0; the others: {', '.join(lrs)})"
        series["lr"] = Series.from_arrays("lr", steps, series[main].values, None, why)
    kind = "ultralytics-txt" if planned is not None else "ultralytics-csv"
    inputs = [Input(str(csv_path), kind)]
    settings: dict[str, Any] = {}
    where: dict[str, str] = {}  # setting -> the file it came from
    for side in _side_files(csv_path.parent):
        if (data := configs.load(side, notes)) is not None:
            inputs.append(Input(str(side), "ultralytics-args"))
            hyp = data.get("hyp")  # newer YOLOv5 copies hyp.yaml into opt.yaml
            for key, v in [*(hyp.items() if isinstance(hyp, dict) else ()), *data.items()]:
                settings[str(key)], where[str(key)] = v, side.name
    if planned is not None and "epochs" not in settings:
        # results.txt's `epoch/last_epoch`: the planned length, when no opt.yaml says it
        settings["epochs"], where["epochs"] = planned, f"{csv_path.name} (epoch/last_epoch + 1)"
    facts = _facts(settings, where) | facts
    return Run(csv_path.parent.name, series, facts, tuple(inputs), notes.build())


def _rows(csv_path: Path, notes: Notes) -> tuple[list[str], list[list[float]]]:
    try:
        with csv_path.open(newline="", encoding="utf-8", errors="replace") as f:
            reader = csv.reader(f)
            header = [h.strip() for h in next(reader, [])]
            if not header or header[0] != "epoch":
                raise ReadError(csv_path, "not an ultralytics results.csv (no epoch column)")
            rows = []
            for row in reader:
                if not row:
                    continue
                cells = [to_float(c.strip()) for c in row]
                if len(cells) != len(header) or count(cells[0]) is None:
                    what = "row with the wrong number of cells, or no epoch"
                    notes.count(csv_path, what, reader.line_num)
                    continue
                rows.append([math.nan if c is None else c for c in cells])
    except (OSError, csv.Error) as exc:
        raise ReadError(csv_path, f"cannot read as CSV: {exc}") from None
    if not rows:
        raise ReadError(csv_path, "no epoch rows under the header")
    return header, rows


def _txt_rows(path: Path, notes: Notes) -> tuple[list[str], list[list[float]], int | None]:
    """results.txt as results.csv's header and rows, and the planned epochs."""
    keep = [j for j, name in enumerate(_TXT_COLUMNS) if name is not None]
    header = [str(_TXT_COLUMNS[j]) for j in keep]
    rows: list[list[float]] = []
    planned: int | None = None
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                row = _txt_row(line)
                if row is None:
                    notes.count(path, "row that is not a results.txt epoch row", n)
                    continue
                epoch, last, values = row
                planned = last + 1
                cells = [float(epoch), math.nan, *[math.nan if v is None else v for v in values]]
                rows.append([cells[j] for j in keep])
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc}") from None
    if not rows:
        raise ReadError(path, "no epoch rows")
    return header, rows, planned


def _validated(header: list[str], table: np.ndarray) -> np.ndarray:
    """Per row: validation ran. With `val: false` ultralytics still writes the val
    columns, every one 0 until the final epoch's validation: all val losses exactly 0
    together is a validation not run (no real loss is 0.0 in every component), and
    its zero metrics are no measurement either."""
    cols = [
        j
        for j, n in enumerate(header)
        if n.startswith("val/") and (n.endswith("_loss") or _V10_PART.match(n))
    ]
    if not cols:
        return np.ones(len(table), bool)
    return ~(table[:, cols] == 0).all(axis=1)


def _v10_totals(header: list[str], series: dict[str, Series], src: str) -> None:
    """`loss` / `eval_loss` of a YOLOv10 run: the sum of its two heads' box, cls and dfl
    terms (v10DetectLoss returns one-to-many + one-to-one), at the epochs all six have."""
    for side, target in (("train", "loss"), ("val", "eval_loss")):
        if target in series:
            continue
        names = [n for n in header if (m := _V10_PART.match(n)) and m.group(1) == side]
        if not names or any(n not in series for n in names):
            continue  # (val terms of a validation never run are no series)
        parts = [series[n] for n in names]
        common = parts[0].steps
        for part in parts[1:]:
            common = np.intersect1d(common, part.steps)
        if common.size == 0:
            continue
        total = np.zeros(common.size)
        for part in parts:
            total += part.values[np.searchsorted(part.steps, common)]
        why = f"{src}sum of {' + '.join(names)} (YOLOv10 optimises both heads' terms)"
        series[target] = Series.from_arrays(target, common, total, None, why)


def _first(values: np.ndarray) -> float:
    ok = values[np.isfinite(values)]
    return float(ok[0]) if ok.size else math.inf


def _side_files(d: Path) -> list[Path]:
    """args.yaml (ultralytics), else YOLOv5's hyp.yaml and opt.yaml."""
    if (d / "args.yaml").is_file():
        return [d / "args.yaml"]
    return [d / n for n in ("hyp.yaml", "opt.yaml") if (d / n).is_file()]


def _facts(data: dict[str, Any], where: dict[str, str]) -> dict[str, Fact]:
    """The settings the rules read, under ultralytics' own spellings (`where`: the file
    each setting was read from)."""
    out: dict[str, Fact] = {}

    def num(key: str) -> float | None:
        v = data.get(key)
        return None if isinstance(v, bool) else to_float(v)

    if (lr0 := num("lr0")) is not None:
        out["learning_rate"] = Fact(lr0, f"{where['lr0']}: lr0")
    epochs = num("epochs")
    if epochs is not None and epochs > 0:
        out["num_train_epochs"] = Fact(epochs, f"{where['epochs']}: epochs")
    # close_mosaic N: the last N epochs train without mosaic augmentation, a different
    # train loss from the epoch after `epochs - N` on (a step of a few % in its level);
    # steps here are epochs done, so that epoch is step epochs - N + 1
    shut = num("close_mosaic")
    if shut is not None and epochs and 0 < shut < epochs and shut == int(shut):
        why = f"{where['close_mosaic']}: close_mosaic {shut:g} of epochs {epochs:g}"
        out["objective_change_step"] = Fact(int(epochs - shut) + 1, why)
    warm = num("warmup_epochs")
    if warm is not None and epochs:
        why = f"{where['warmup_epochs']}: warmup_epochs {warm:g} / epochs {epochs:g} (>= 100 iterations)"
        out["warmup_ratio"] = Fact(warm / epochs, why)
    batch = num("batch") if "batch" in data else num("batch_size")
    if batch is not None and batch >= 1 and batch == int(batch):
        key = "batch" if "batch" in data else "batch_size"
        devices = _devices(data.get("device"))
        per_device = Fact(int(batch) // devices, f"{where[key]}: {key} / devices")
        total, total_key = batch, key
        world = num("world_size")
        if (tb := num("total_batch_size")) is not None and tb >= 1 and tb == int(tb):
            # YOLOv5 < v6 / YOLOv7 dump opt.yaml after a DDP launch split the batch:
            # batch_size is then one process's, total_batch_size the sum over the
            # world_size processes, and the accumulation follows the total
            devices = int(world) if world is not None and world >= 1 else devices
            per_device = Fact(int(batch), f"{where[key]}: {key} (one process's)")
            total, total_key = tb, "total_batch_size"
        out["per_device_batch"] = per_device
        if total_key == "total_batch_size" and world is not None and world >= 1:
            out["devices"] = Fact(devices, f"{where['world_size']}: world_size")
        elif devices > 1:
            out["devices"] = Fact(devices, f"{where['device']}: device={data['device']}")
        # the optimizer steps once per nbs images (64 by default): with a total batch of
        # 16 the trainer sums 4 batches' gradients, so the batch a step sees is 64
        nbs = num("nbs") or _NBS
        accum = max(round(nbs / total), 1)
        out["grad_accum"] = Fact(
            accum,
            f"{where[total_key]}: max(round(nbs {nbs:g} / {total_key} {total:g}), 1)"
            " (the trainer accumulates up to its nominal batch)",
        )
    if isinstance(data.get("cos_lr"), bool):
        out["lr_scheduler"] = Fact(
            "cosine" if data["cos_lr"] else "linear", f"{where['cos_lr']}: cos_lr"
        )
    elif isinstance(data.get("linear_lr"), bool):  # old YOLOv5: one-cycle cosine unless set
        out["lr_scheduler"] = Fact(
            "linear" if data["linear_lr"] else "cosine", f"{where['linear_lr']}: linear_lr"
        )
    if isinstance(opt := data.get("optimizer"), str) and opt.lower() != "auto":
        out["optim"] = Fact(opt, f"{where['optimizer']}: optimizer")
    if (wd := num("weight_decay")) is not None:
        out["weight_decay"] = Fact(wd, f"{where['weight_decay']}: weight_decay")
    if (seed := num("seed")) is not None and seed == int(seed):
        out["seed"] = Fact(int(seed), f"{where['seed']}: seed")
    if (task := _TASKS.get(str(data.get("task")))) is not None:
        out["task"] = Fact(task, f"{where['task']}: task={data['task']}")
    if isinstance(ds := data.get("data"), str) and ds:
        out["dataset"] = Fact(ds, f"{where['data']}: data")
    return out


def _devices(device: Any) -> int:
    """GPUs a `device` setting names ("0,1", [0, 1]); one otherwise (ultralytics' auto
    device is the first GPU)."""
    if isinstance(device, list):
        return max(len(device), 1)
    if isinstance(device, str) and "," in device:
        return max(len([d for d in device.split(",") if d.strip()]), 1)
    return 1
