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
  share the stem (`train_results.json`, `trainer_state.json`) are not data.

Data larger than `MAX_BYTES` is left to `traindoc data`, with a note: diagnose must
stay quick on a run directory that happens to hold a corpus.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traindoc.data.readers import FORMATS, DataError, discover

MAX_BYTES = 1 << 30
_DIRS = ("data", "dataset", "datasets")
_TRAIN = {"train", "training", "train_data", "train_set", "train_dataset"}
_EVAL = {"eval", "valid", "validation", "val", "dev", "test", "eval_data", "val_data"}
_NOT_DATA = {"train_results", "eval_results", "all_results", "trainer_state", "test_results"}


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
        files = [f for f in _data_files(d) if f.stem.lower() not in _NOT_DATA]
        ev = [f for f in files if _split(f) == "eval"]
        train = [f for f in files if f not in ev]
        if train:
            return Found(train, ev, f"{d.name}/ in the run directory")
    return None


def _beside(run_dir: Path) -> Found | None:
    files = [f for f in sorted(run_dir.iterdir(), key=_by_name) if f.is_file() and _split(f)]
    train = [f for f in files if _split(f) == "train" and _is_data(f)]
    ev = [f for f in files if _split(f) == "eval" and _is_data(f)]
    return Found(train, ev, "data files in the run directory") if train else None


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
