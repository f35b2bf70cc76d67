"""The dataset that comes with a run: files in its directory, or the path its config names.

Diagnose audits this data so a curve finding can name its data cause (an eval
loss that rises because a third of the training rows are copies). Where we look,
in order, and why each is safe to read:

- a path the run's config names, the way the trainer would resolve it: Axolotl
  `datasets[].path`, TRL / HF script args (`--train_file`, `--data_path`,
  `--dataset_path` ...), LLaMA-Factory's `dataset` looked up in
  `<dataset_dir>/dataset_info.json`. Relative paths are tried against the run
  directory and its parent; a hub name (no such path here) is skipped, never fetched;
- a `data/`, `dataset/` or `datasets/` folder in the run directory;
- data files beside the logs whose names say what they are (`train.jsonl`,
  `train_data.csv`, `eval.jsonl`, `validation.parquet` ...). Trainer outputs that
  share the stem (`train_results.json`, `trainer_state.json`) are not data;
- failing those, any other table beside the logs whose first rows read as samples
  (`tweets.csv`, `abuse_dataset.csv` committed with the run): it must have a column of
  prose (several words a cell) and must not be a metrics log. Loggers write CSVs too
  (Lightning's metrics.csv, Keras' CSVLogger, YOLO's results.csv): their columns are
  numbers under metric names (loss, epoch, step, val_*, accuracy), never prose.

Data larger than `MAX_BYTES` is left to `traindoc data`, with a note: diagnose must
stay quick on a run directory that happens to hold a corpus.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traindoc.data.readers import FORMATS, DataError, Notes, discover, read

MAX_BYTES = 1 << 30
_DIRS = ("data", "dataset", "datasets")
_TRAIN = {"train", "training", "train_data", "train_set", "train_dataset"}
_EVAL = {"eval", "valid", "validation", "val", "dev", "test", "eval_data", "val_data"}
_NOT_DATA = {"train_results", "eval_results", "all_results", "trainer_state", "test_results"}
# A loose table beside the logs: read only this many rows to judge it, and never one
# larger than LOOSE_BYTES (an unnamed file is a guess; a guess must stay cheap).
_SNIFF_ROWS = 64
LOOSE_BYTES = 256 << 20
_LOOSE = {".csv", ".tsv", ".jsonl", ".json", ".parquet"}
# Column names a logger writes: a table mostly of these is a metrics log, not data.
_METRIC = re.compile(
    r"(^|[/_.\-])(loss|epoch|epochs|step|steps|lr|learning_rate|acc|accuracy|precision|recall"
    r"|f1|map\d*|map50(-95)?|auc|perplexity|ppl|grad_norm|time|runtime|wall_time|iter"
    r"|samples_per_second|steps_per_second)([/_.\-(]|$)"
    r"|^(eval|val|valid|train|test|metrics|lr-)[/_.\-]",
    re.IGNORECASE,
)
# Names only a logger writes (a dataset has no loss or validation-accuracy column):
# one of these makes the table a log whatever else it holds (a W&B export's notes).
_LOGGER_ONLY = re.compile(
    r"(^|[/_.\-])(loss|acc|accuracy|learning_rate|lr|grad_norm|perplexity|map50(-95)?)"
    r"([/_.\-(]|$)|^(eval|val|valid)[/_.\-]",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PROSE_WORDS = 3  # median words a cell: sentences, not class names or numbers


@dataclass(frozen=True)
class Found:
    """Data files for one run: train and (maybe empty) eval, and where they came from."""

    train: list[Path]
    eval: list[Path]
    source: str

    @property
    def bytes(self) -> int:
        return sum(f.stat().st_size for f in (*self.train, *self.eval) if f.is_file())


def find(run_dir: Path, facts: dict[str, Any]) -> Found | None:
    """The run's dataset, or None when neither its directory nor its config holds one.

    Raises DataError when a config names data that exists here but cannot be listed.
    """
    return _named(run_dir, facts) or _folder(run_dir) or _beside(run_dir)


def _value(facts: dict[str, Any], name: str) -> str | None:
    fact = facts.get(name)
    v = getattr(fact, "value", fact)
    return v if isinstance(v, str) and v.strip() else None


def _resolve(run_dir: Path, name: str) -> Path | None:
    p = Path(name).expanduser()
    for cand in [p] if p.is_absolute() else [run_dir / p, run_dir.parent / p]:
        if cand.exists():
            return cand
    return None


def _named(run_dir: Path, facts: dict[str, Any]) -> Found | None:
    names = _value(facts, "dataset")
    if names is None:
        return None
    train: list[Path] = []
    for name in (n.strip() for n in names.split(",")):
        p = _resolve(run_dir, name) or _dataset_info(run_dir, facts, name)
        if p is not None:
            train += discover(p)
    if not train:
        return None
    ev = _value(facts, "eval_dataset")
    evp = _resolve(run_dir, ev) if ev else None
    source = getattr(facts.get("dataset"), "source", "config")
    return Found(train, discover(evp) if evp else [], f"{names} (named by {source})")


def _dataset_info(run_dir: Path, facts: dict[str, Any], name: str) -> Path | None:
    """LLaMA-Factory: `dataset: alpaca_demo` is a key of dataset_dir/dataset_info.json."""
    base = _resolve(run_dir, _value(facts, "dataset_dir") or "data")
    info = base / "dataset_info.json" if base else None
    if info is None or not info.is_file():
        return None
    try:
        entry = json.loads(info.read_text(encoding="utf-8")).get(name)
    except (OSError, ValueError, AttributeError):
        return None
    file_name = entry.get("file_name") if isinstance(entry, dict) else None
    if not isinstance(file_name, str):
        return None  # a hub dataset (hf_hub_url) or a script: nothing here to read
    p = base / file_name
    return p if p.exists() else None


def _folder(run_dir: Path) -> Found | None:
    for name in _DIRS:
        d = run_dir / name
        if not d.is_dir():
            continue
        files = [f for f in _data_files(d) if f.stem.lower() not in _NOT_DATA and _not_metrics(f)]
        ev = [f for f in files if _split(f) == "eval"]
        train = [f for f in files if f not in ev]
        if train:
            return Found(train, ev, f"{d.name}/ in the run directory")
    return None


def _beside(run_dir: Path) -> Found | None:
    files = [f for f in sorted(run_dir.iterdir(), key=_by_name) if f.is_file() and _split(f)]
    files = [f for f in files if _is_data(f) and _not_metrics(f)]
    train = [f for f in files if _split(f) == "train"]
    ev = [f for f in files if _split(f) == "eval"]
    if train:
        return Found(train, ev, "data files in the run directory")
    return _loose(run_dir)


def _loose(run_dir: Path) -> Found | None:
    """Tables beside the logs named like nothing in particular, kept when their first
    rows read as samples (see the module docstring)."""
    files = [
        f
        for f in sorted(run_dir.iterdir(), key=_by_name)
        if f.is_file()
        and f.suffix.lower() in _LOOSE
        and f.name.lower().split(".")[0] not in _NOT_DATA
        and f.stat().st_size <= LOOSE_BYTES
        and _is_data(f)
        and _reads_as_samples(f)
    ]
    names = ", ".join(f.name for f in files)
    return Found(files, [], f"{names} beside the logs") if files else None


def _reads_as_samples(f: Path) -> bool:
    """Its first rows have a column of prose and its columns are not mostly metric names."""
    rows = _head(f)
    return (
        bool(rows)
        and not _metric_names(rows)
        and any(_prose(r.get(c) for r in rows) for c in rows[0])
    )


def _not_metrics(f: Path) -> bool:
    """A file named like data (`training.csv`) that a logger wrote is still a log."""
    return f.suffix.lower() not in (".csv", ".tsv") or not _metric_names(_head(f))


def _head(f: Path) -> list[dict]:
    """The first rows of a table, or [] when it cannot be read as one."""
    batches = read([f], Notes(), _SNIFF_ROWS)
    try:  # the first batch only: the readers stream, so a big file is not read through
        return [rec for _, _, rec in next(batches, (0, []))[1]]
    except (DataError, OSError, ValueError):
        return []
    finally:
        batches.close()


def _metric_names(rows: list[dict]) -> bool:
    # camelCase to words first: `ValLoss` is `Val_Loss`
    cols = [_CAMEL.sub("_", str(c).strip()) for c in rows[0]] if rows else []
    if any(_LOGGER_ONLY.search(c) for c in cols):
        return True
    return bool(cols) and sum(bool(_METRIC.search(c)) for c in cols) * 2 >= len(cols)


def _prose(cells: Iterable[object]) -> bool:
    words = [len(v.split()) if isinstance(v, str) else 0 for v in cells]
    return bool(words) and statistics.median(words) >= _PROSE_WORDS


def _data_files(d: Path) -> list[Path]:
    try:
        return discover(d)
    except DataError:
        return []


def _split(f: Path) -> str | None:
    stem = f.name.lower().split(".")[0]
    if f.suffix.lower() not in FORMATS or stem in _NOT_DATA:
        return None
    if stem in _TRAIN or stem.startswith("train_") or stem.endswith("_train"):
        return "train"
    if stem in _EVAL or stem.endswith(("_eval", "_valid", "_val", "_test", "_dev")):
        return "eval"
    return None


def _is_data(f: Path) -> bool:
    """A `.json` beside the logs is data only when it is an array of records
    (HF's train_results.json and friends are objects)."""
    if f.suffix.lower() != ".json":
        return True
    with f.open("rb") as fh:
        return fh.read(4096).lstrip()[:1] == b"["


def _by_name(p: Path) -> str:
    """Sort key of one directory's entries: their names (Path.__lt__ is 5x slower, and
    a folder of 20,000 files is sorted several times)."""
    return p.name
