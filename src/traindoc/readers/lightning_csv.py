"""Lightning CSVLogger: version_N/metrics.csv (sparse, wide) + hparams.yaml.

Each row is one log_metrics call; empty cells are "not logged" (FORMATS.md 3).
`self.log(on_step=True, on_epoch=True)` writes `<name>_step` and
`<name>_epoch`: per-step columns feed the train signals, epoch aggregates and
bare val_* columns feed eval. Lightning rewrites the file when new keys show
up, so a header line can reappear mid-file (a copy taken mid-rewrite, or
concatenated versions); it is taken as the new header.
"""

from __future__ import annotations

import csv
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from traindoc.model import Fact, Input, Run
from traindoc.model.signals import STEP_KEYS
from traindoc.readers import configs
from traindoc.readers._base import Notes, ReadError, to_float
from traindoc.readers._columns import Columns
from traindoc.readers.logs.tables import phase_column, phase_prefix

_BATCH = 20_000
# Config dumps a loop writes beside its metrics CSV when it has no hparams.yaml.
_CONFIGS = ("run_config.json", "config.yaml", "args.json", "config.json")

# An RL logger's progress.csv numbers its rows by the environment steps taken so far,
# not by a `step` column: SB3's time/total_timesteps, OpenAI baselines' total_timesteps
# (PPO2 / A2C, misc/ in later versions) and total/steps (DDPG), RLlib's timesteps_total.
# That counter is the run's x axis (a row is one logging interval, whose length in env
# steps can change), so it is read as the step when the file has no step column.
_ENV_STEP_KEYS = (
    "time/total_timesteps",
    "total_timesteps",
    "misc/total_timesteps",
    "total/steps",
    "timesteps_total",
)


def _rank(raw: str, name: str) -> int:
    """Which column owns a canonical name: *_step for train signals, epoch/bare for eval."""
    low = raw.lower()
    if name.startswith("eval"):
        return 2 if low.endswith("_step") else 0
    return 0 if low.endswith("_step") else 1 if low == name else 2


def wandb_export(header: list[str], notes: Notes, path: Path) -> list[str]:
    """A history CSV exported from the W&B UI names its columns `<run> - <metric>`, with
    `__MIN` / `__MAX` columns for the smoothing window: the metric names are kept (of the
    first run when several are exported) and the window columns left out."""
    runs = {h.rsplit(" - ", 1)[0] for h in header if " - " in h}
    if not runs or not any(h.endswith(("__MIN", "__MAX")) or " - " in h for h in header[1:]):
        return header
    first = next(h.rsplit(" - ", 1)[0] for h in header if " - " in h)
    out = []
    for h in header:
        run, _, metric = h.rpartition(" - ")
        if not run:
            out.append(h)
        elif run != first or metric.endswith(("__MIN", "__MAX")):
            out.append("")  # not read: an empty name drops the cells
        else:
            out.append(metric)
    note = "W&B history export: the `__MIN`/`__MAX` window columns are left out"
    if len(runs) > 1:
        note += f"; {len(runs)} runs exported, {first!r} read"
    notes.add(path, note)
    return out


def _env_steps(header: list[str], notes: Notes | None, path: Path) -> list[str]:
    """The header with an RL env-step counter (_ENV_STEP_KEYS) renamed `step`, when it
    has no step column of its own; else as it is."""
    low = [h.strip().lower() for h in header]
    if any(k in low for k in STEP_KEYS):
        return header
    key = next((k for k in _ENV_STEP_KEYS if k in low), None)
    if key is None:
        return header
    out = list(header)
    out[low.index(key)] = "step"
    if notes is not None:
        notes.add(path, f"steps: the environment steps of `{header[low.index(key)]}`")
    return out


def read(path: str | Path) -> Run:
    return read_all(path)[-1]


def read_all(path: str | Path) -> list[Run]:
    """The file's runs: one, or one per fit() that Keras' CSVLogger(append=True) appended
    to it (see `_appended`)."""
    path = Path(path)
    csv_path = path / "metrics.csv" if path.is_dir() else path
    runs = [_read_rows(path, csv_path, rows) for rows in _appended(csv_path)]
    if len(runs) < 2:
        return runs
    n = len(runs)
    return [
        Run(f"{r.name} [{i}/{n}]", r.series, r.facts, r.inputs, r.notes)
        for i, r in enumerate(runs, 1)
    ]


# Keras' CSVLogger(append=True) writes its header only into a new file: a second fit()
# adds its rows under the first's, its `epoch` counting from 0 again (or from its
# initial_epoch). A file with an `epoch` column and no step column whose epoch goes back
# holds one run per stretch; a file with a step column is one run (Lightning's step
# orders it, and a step that goes back is a resume the columns report).
def _appended(csv_path: Path) -> list[tuple[int, int] | None]:
    try:
        with csv_path.open(newline="", encoding="utf-8", errors="replace") as f:
            reader = csv.reader(f)
            header = [h.strip().lower() for h in next(reader, None) or []]
            if "epoch" not in header or set(header) & set(STEP_KEYS):
                return [None]
            at = header.index("epoch")
            cuts, last = [], None
            for row in reader:
                cell = to_float(row[at]) if len(row) == len(header) else None
                if cell is None:
                    continue
                if last is not None and cell < last:
                    cuts.append(reader.line_num)
                last = cell
    except (OSError, csv.Error):
        return [None]
    if not cuts:
        return [None]
    bounds = [2, *cuts, 1 << 62]
    return list(pairwise(bounds))


def _phased(
    header: list[str], row: list[str], at: int
) -> tuple[tuple[str, ...], dict[str, Any]] | None:
    """A long-format row ("epoch,phase,loss,acc" then "3,val,0.61,0.80"): its step and
    epoch cells, and its metrics named for its phase (val_loss; the step and epoch as
    they are); None when the phase cell names none."""
    prefix = phase_prefix(row[at])
    if prefix is None:
        return None
    axis, out = [], {}
    for i, (k, v) in enumerate(zip(header, row, strict=True)):
        if i == at or not v or not k:
            continue
        if k.strip().lower() in (*STEP_KEYS, "epoch", "epochs"):
            axis.append(v)
            out[k] = v
        else:
            out[prefix + k] = v
    return tuple(axis), out


def _read_rows(path: Path, csv_path: Path, rows: tuple[int, int] | None) -> Run:
    """The run of the file's data lines in [first, stop) (all of them for None)."""
    first, stop = rows if rows is not None else (0, 1 << 62)
    notes = Notes()
    cols = Columns(str(csv_path), notes)
    try:
        with csv_path.open(newline="", encoding="utf-8", errors="replace") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header or not any(h.strip() for h in header):
                raise ReadError(csv_path, "file is empty or has no header row")
            header = wandb_export(header, notes, csv_path)
            header = _env_steps(header, notes, csv_path)
            batch: list[dict[str, Any]] = []
            where: list[int] = []
            phased: tuple[str, ...] | None = None  # the step / epoch cells of the last row
            for row in reader:
                line = reader.line_num
                if not first <= line < stop:
                    continue
                if row == header or ("step" in row and all(to_float(c) is None for c in row)):
                    header = row  # the header rewritten with new keys
                    continue
                if _env_steps(row, None, csv_path) != row:  # an RL header repeated
                    header = _env_steps(row, notes, csv_path)
                    continue
                if len(row) != len(header):
                    if row:
                        notes.count(csv_path, "row with the wrong number of cells", line)
                    continue
                if (at := phase_column(tuple(header))) is not None:
                    got = _phased(header, row, at)
                    if got is None:
                        notes.count(csv_path, "row whose phase is neither train nor eval", line)
                        continue
                    if batch and got[0] == phased:
                        batch[-1].update(got[1])  # the same epoch's other phase: one record
                        continue
                    phased = got[0]
                    batch.append(got[1])
                else:
                    batch.append({k: v for k, v in zip(header, row, strict=True) if v and k})
                where.append(line - 1)
                if len(batch) >= _BATCH:
                    cols.add(batch, np.asarray(where), 0)
                    batch, where = [], []
            if batch:
                cols.add(batch, np.asarray(where), 0)
    except (OSError, csv.Error) as exc:
        raise ReadError(csv_path, f"cannot read as CSV: {exc}") from None
    series, facts = cols.finish("lightning", _rank)
    if cols.records == 0:
        notes.add(csv_path, "no metric rows")
    facts["trainer"] = Fact("lightning", f"{csv_path.name}: Lightning CSVLogger")
    inputs = [Input(str(csv_path), "lightning-csv")]
    hp = csv_path.parent / "hparams.yaml"
    if hp.is_file() and (data := configs.load(hp, notes)) is not None:
        inputs.append(Input(str(hp), "lightning-hparams"))
        facts = configs.facts_from(data, hp.name) | facts
    else:
        # a training loop's own config dump next to its CSV (as beside a JSON-lines log):
        # the batch, the LR, the warmup a metrics file does not repeat
        for name in _CONFIGS:
            side = csv_path.parent / name
            if side.is_file() and (data := configs.load(side, notes)) is not None:
                inputs.append(Input(str(side), "run-config"))
                facts = configs.facts_from(data, name) | facts
                break
    return Run(csv_path.parent.name, series, facts, tuple(inputs), notes.build())
