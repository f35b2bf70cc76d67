"""Entry points: summarise a checkpoint (file or directory) or every checkpoint of a run.

    summarize(path)        -> CheckpointSummary, or a list for a run directory
    summarize_run(run_dir) -> tuple[CheckpointSummary, ...] (for Run.checkpoints)
    find_checkpoints(dir)  -> list[Path] (cheap: no tensor is read)

Errors in a file the user named raise CheckpointError (one line, naming the
file); inside a run directory a broken checkpoint becomes a summary whose
notes say why, so one bad file does not hide the others.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from traindoc.ckpt import peft, torch_bin
from traindoc.ckpt.safetensors import CheckpointError, read_header
from traindoc.ckpt.sharded import Job, check_against_index, compute, read_index
from traindoc.ckpt.stats import Entry
from traindoc.model.checkpoint import CheckpointSummary
from traindoc.model.numbers import count, loads, number

__all__ = [
    "CheckpointError",
    "find_checkpoints",
    "summarize",
    "summarize_checkpoint",
    "summarize_run",
]

# Files that hold a model's weights, in order of preference inside one directory.
WEIGHT_NAMES = (
    "model.safetensors.index.json",
    "model.safetensors",
    "pytorch_model.bin.index.json",
    "pytorch_model.bin",
)
# Never weights: optimizer/scheduler/RNG state and pickled arguments.
NOT_WEIGHTS = re.compile(
    r"^(optimizer|scheduler|rng_state.*|training_args|trainer_state|scaler|"
    r".*optim_states|.*\.index)\.(pt|pth|bin|json|safetensors)$"
)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
_STEP = re.compile(r"(?:checkpoint|step|global_step|iter|ckpt)[-_]?(\d+)$", re.I)
_START = re.compile(r"^(init|initial|start|base|pretrained|step[-_]?0+|checkpoint[-_]0+)$", re.I)
_BEST = re.compile(r"best", re.I)
_CONFIG_KEYS = ("tie_word_embeddings", "vocab_size", "model_type", "torch_dtype", "dtype")


def summarize(path: str | Path, *, workers: int | None = None) -> Any:
    """One summary for a checkpoint file/dir; a list for a directory of checkpoints."""
    p = Path(path)
    if not p.exists():
        raise CheckpointError(str(p), "no such file or directory")
    if p.is_dir() and _is_checkpoint_dir(p) and len(find_checkpoints(p)) > 1:
        # An HF output_dir: the final model saved beside its checkpoint-* folders.
        return list(summarize_run(p, workers=workers))
    if p.is_dir() and not _is_checkpoint_dir(p):
        found = find_checkpoints(p)
        if not found:
            raise CheckpointError(
                str(p),
                "no checkpoint here (looked for *.safetensors, *.index.json, "
                "adapter_model.*, pytorch_model.bin, *.pt in it and its subdirectories)",
            )
        return list(summarize_run(p, workers=workers))
    return summarize_checkpoint(p, workers=workers)


def find_checkpoints(run_dir: str | Path, depth: int = 2) -> list[Path]:
    """Checkpoint dirs and loose weight files under run_dir, oldest step first.

    The run dir itself counts as a checkpoint when it holds weights (HF's
    `save_model()` writes the final model beside the `checkpoint-*` folders),
    and its subfolders are still searched.
    """
    root = Path(run_dir)
    out: list[Path] = []

    def walk(d: Path, left: int) -> None:
        if _is_checkpoint_dir(d):
            out.append(d)
            return
        try:
            children = sorted(d.iterdir(), key=_by_name)
        except OSError:
            return
        for c in children:
            if c.is_file() and _is_weight_file(c):
                out.append(c)
        if left > 0:
            for c in children:
                if c.is_dir() and not c.name.startswith("."):
                    walk(c, left - 1)

    if _is_checkpoint_dir(root):
        out.append(root)
        out += [c for c in sorted(root.iterdir()) if c.is_dir() and _is_checkpoint_dir(c)]
    else:
        walk(root, depth)
    return sorted(out, key=lambda q: (_step_of(q) is None, _step_of(q) or 0, str(q)))


def summarize_run(
    run_dir: str | Path, *, workers: int | None = None
) -> tuple[CheckpointSummary, ...]:
    """Every checkpoint of a run, with step, metric and "best" labels filled in."""
    root = Path(run_dir)
    sums = []
    for p in find_checkpoints(root):
        try:
            sums.append(summarize_checkpoint(p, workers=workers))
        except CheckpointError as exc:
            sums.append(
                CheckpointSummary(str(p), _display_name(p), "unreadable", notes=(str(exc),))
            )
    state = _latest_state(root, sums)
    if state is None:
        return tuple(sums)
    best = Path(str(state.get("best_model_checkpoint") or "")).name or None
    evals = _evals(state)
    out = []
    for s in sums:
        kw: dict[str, Any] = {}
        if best and s.name == best:
            kw["labelled_best"] = "best_model_checkpoint"
        if s.metric is None and s.step is not None and s.step in evals:
            kw["metric"], kw["metric_name"] = evals[s.step], "eval_loss"
        out.append(_replace(s, **kw) if kw else s)
    return tuple(out)


def summarize_checkpoint(path: str | Path, *, workers: int | None = None) -> CheckpointSummary:
    """Statistics of one checkpoint: a weights file, an index, or a checkpoint directory.

    Raises CheckpointError for anything unreadable, an unreadable file included."""
    try:
        return _summarize(Path(path), workers)
    except PermissionError as exc:
        raise CheckpointError(str(exc.filename or path), "permission denied") from None
    except OSError as exc:
        raise CheckpointError(str(exc.filename or path), f"not readable ({exc.strerror})") from None


def _summarize(p: Path, workers: int | None) -> CheckpointSummary:
    t0 = time.perf_counter()
    home = p if p.is_dir() else p.parent
    adapter = None
    notes: list[str] = []
    if p.is_dir() and peft.is_adapter_dir(p):
        adapter, n = peft.read_config(p)
        notes += n
        fmt, jobs, n = _plan(peft.weights_file(p))
        fmt = "peft-" + str(adapter.get("peft_type", "lora")).lower()
    elif p.is_dir():
        weights = next((p / w for w in WEIGHT_NAMES if (p / w).is_file()), None)
        if weights is None:
            weights = next(
                (q for q in sorted(p.iterdir(), key=_by_name) if _is_weight_file(q)), None
            )
        if weights is None:
            raise CheckpointError(str(p), "no weights file in this directory")
        fmt, jobs, n = _plan(weights)
    elif not p.is_file():  # a FIFO or a device: opening it would wait for a writer
        raise CheckpointError(str(p), "not a regular file")
    else:
        fmt, jobs, n = _plan(p)
    notes += n
    stats = compute(jobs, workers)
    tensors = tuple(t for path, es in jobs for t in stats[path])
    meta = _dir_meta(home) if (p.is_dir() or p.name in WEIGHT_NAMES) else {}
    name = _display_name(p)
    step = meta.get("step", _step_of(p))
    return CheckpointSummary(
        path=str(p),
        name=name,
        format=fmt,
        tensors=tensors,
        notes=tuple(notes),
        step=step,
        metric=meta.get("metric"),
        metric_name=meta.get("metric_name"),
        labelled_best="name" if _BEST.search(name) else meta.get("labelled_best"),
        at_start=bool(_START.match(name)) or step == 0,
        adapter=adapter,
        config=meta.get("config", {}),
        nbytes=sum(e.end - e.begin for _, es in jobs for e in es),
        seconds=time.perf_counter() - t0,
    )


def _plan(weights: Path) -> tuple[str, list[Job], list[str]]:
    """(format, [(file, entries)], notes) for a weights file or an index."""
    w = str(weights)
    if weights.name.endswith(".index.json"):
        wmap, notes = read_index(w)
        found: dict[str, list[Entry]] = {}
        for shard in sorted(set(wmap.values())):
            _, jobs, n = _plan(Path(shard))
            notes += n
            for path, es in jobs:
                found[path] = es
        notes += check_against_index(w, wmap, found)
        kind = "safetensors" if weights.name.startswith("model.safetensors") else "torch-zip"
        return kind + "-sharded", list(found.items()), notes
    if weights.suffix == ".safetensors":
        entries, _meta, notes = read_header(w)
        return "safetensors", [(w, entries)], notes
    if weights.suffix in (".bin", ".pt", ".pth"):
        entries, notes = torch_bin.read_entries(w)
        return "torch-zip", [(w, entries)], notes
    raise CheckpointError(
        w,
        "unknown checkpoint format (supported: .safetensors, .index.json, .bin/.pt zip, PEFT dirs)",
    )


def _is_checkpoint_dir(d: Path) -> bool:
    return d.is_dir() and (peft.is_adapter_dir(d) or any((d / w).is_file() for w in WEIGHT_NAMES))


def _is_weight_file(f: Path) -> bool:
    return f.suffix in WEIGHT_SUFFIXES and not NOT_WEIGHTS.match(f.name) and f.is_file()


def _display_name(p: Path) -> str:
    if p.is_file() and (p.name in WEIGHT_NAMES or p.name in peft.WEIGHTS):
        return p.parent.name
    return p.name if p.is_dir() else p.stem


def _step_of(p: Path) -> int | None:
    stem = p.name if p.is_dir() else (p.parent.name if p.name in WEIGHT_NAMES else p.stem)
    m = _STEP.search(stem)
    return count(m.group(1)) if m else None


def _read_json(p: Path) -> dict | None:
    if not p.is_file():  # absent, or a FIFO whose open() would wait for a writer
        return None
    try:
        doc = loads(p.read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _dir_meta(d: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cfg = _read_json(d / "config.json")
    if cfg:
        out["config"] = {k: cfg[k] for k in _CONFIG_KEYS if k in cfg}
    state = _read_json(d / "trainer_state.json")
    if state:
        if count(state.get("global_step")) is not None:
            out["step"] = count(state["global_step"])
        evals = _evals(state)
        if out.get("step") in evals:
            out["metric"], out["metric_name"] = evals[out["step"]], "eval_loss"
        best = Path(str(state.get("best_model_checkpoint") or "")).name
        if best and best == d.name:
            out["labelled_best"] = "best_model_checkpoint"
    return out


def _evals(state: dict) -> dict[int, float]:
    out = {}
    history = state.get("log_history")
    for rec in history if isinstance(history, list) else []:
        if not isinstance(rec, dict) or (step := count(rec.get("step"))) is None:
            continue
        if (v := number(rec.get("eval_loss"))) is not None:
            out[step] = v
    return out


def _latest_state(root: Path, sums: list[CheckpointSummary]) -> dict | None:
    state = _read_json(root / "trainer_state.json")
    if state is not None:
        return state
    for s in sorted(sums, key=lambda s: s.step or -1, reverse=True):
        home = Path(s.path) if Path(s.path).is_dir() else Path(s.path).parent
        state = _read_json(home / "trainer_state.json")
        if state is not None:
            return state
    return None


def _replace(s: CheckpointSummary, **kw: Any) -> CheckpointSummary:
    from dataclasses import replace

    return replace(s, **kw)


def _by_name(p: Path) -> str:
    """Sort key of one directory's entries: their names (Path.__lt__ is 5x slower, and
    a folder of 20,000 files is sorted several times)."""
    return p.name
