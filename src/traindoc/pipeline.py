"""From a path to a Run ready for the rules: logs, facts and checkpoint statistics."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from traindoc.measure.sweep import lr_siblings
from traindoc.model import Fact, Input, Note, Run
from traindoc.readers import load_runs


def load(path: str | Path, *, checkpoints: bool = True, pattern: str | None = None) -> Run:
    """The run at path (the first when a pasted log holds several: see load_all)."""
    return load_all(path, checkpoints=checkpoints, pattern=pattern)[0]


def load_all(
    path: str | Path, *, checkpoints: bool = True, pattern: str | None = None
) -> list[Run]:
    """Every run at path; when its directory holds checkpoints, their tensors summarised.

    Raises readers.ReadError for unusable input. A checkpoint that cannot be read
    becomes a note: the log diagnosis never depends on it.
    """
    runs = load_runs(path, pattern=pattern)
    if len(runs) != 1:
        return lr_siblings(_peers(runs))
    return [_with_data(_with_checkpoints(runs[0], path, checkpoints), path)]


def load_folder(path: str | Path, *, checkpoints: bool = True) -> list[Run]:
    """Every run under a folder of runs (an LR sweep's lr_1e-4/, lr_3e-3/ ...), each
    read as load_all reads it, the arms of an LR sweep among them marked (fact
    `lr_sweep`). Raises readers.ReadError when one of them cannot be read."""
    from traindoc.readers import discover_runs

    found = discover_runs(path)
    runs = [r for p in found for r in load_all(p, checkpoints=checkpoints)]
    return lr_siblings(runs)


def _peers(runs: list[Run]) -> list[Run]:
    """Runs pasted together (an LR sweep in one issue): mark the ones whose losses are
    identical, to the printed digit, although their LRs differ. Two different LRs
    cannot give the same losses unless the LR never reaches the weights."""
    out = []
    for r in runs:
        for o in runs:
            if o is r or "same_loss_as" in r.facts:
                continue
            a, b = r.get("loss"), o.get("loss")
            lr_a, lr_b = _lr(r), _lr(o)
            if a is None or b is None or lr_a is None or lr_b is None or lr_a == lr_b:
                continue
            if len(a) >= 3 and len(a) == len(b) and np.array_equal(a.values, b.values):
                value = {"run": o.name, "lr": lr_b, "lr_here": lr_a, "points": len(a)}
                src = f"{o.name}: the same {len(a)} losses at LR {lr_b:g} (here {lr_a:g})"
                r = replace(r, facts={**r.facts, "same_loss_as": Fact(value, src)})
        out.append(r)
    return out


def _lr(run: Run) -> float | None:
    s = run.get("lr")
    if s is not None and len(s.finite()):
        return float(np.median(s.finite().values))
    v = run.fact("learning_rate")
    return float(v) if v is not None else None


def _with_checkpoints(run: Run, path: str | Path, checkpoints: bool) -> Run:
    p = Path(path)
    if not (checkpoints and p.is_dir()):
        return run
    from traindoc.ckpt.api import CheckpointError, find_checkpoints, summarize_run

    try:
        if not find_checkpoints(p):
            return run
        found = summarize_run(p)
    except (CheckpointError, OSError, ValueError, RecursionError) as exc:
        why = " ".join(str(exc).split())[:200] or type(exc).__name__
        return replace(run, notes=(*run.notes, Note(str(p), f"checkpoints not read: {why}")))
    notes = tuple(Note(c.path, n) for c in found for n in c.notes)
    return replace(
        run, checkpoints=tuple(found), notes=(*run.notes, *notes), facts=_size(run, found)
    )


def _with_data(run: Run, path: str | Path) -> Run:
    """The dataset found with the run (traindoc.data.found), audited, so the curve
    findings can name it as their cause. Read only; a failure becomes a note."""
    p = Path(path)
    if not p.is_dir() or run.data is not None:
        return run
    try:
        from traindoc.data.audit import audit
        from traindoc.data.found import MAX_BYTES, find
        from traindoc.data.readers import DataError
    except ImportError:  # the data extra is not installed
        return run
    try:
        found = find(p, run.facts)
        if found is None:
            return run
        if found.bytes > MAX_BYTES:
            why = f"{found.source}: {found.bytes / 2**30:.1f} GiB; run `traindoc data` on it"
            return replace(run, notes=(*run.notes, Note(str(found.train[0]), why)))
        summary = audit(found.train, found.eval or None).summary
    except (DataError, ImportError, OSError) as exc:
        return replace(run, notes=(*run.notes, Note(str(p), f"data not audited: {exc}")))
    facts = dict(run.facts)
    if summary.rows and "dataset_size" not in facts:
        facts["dataset_size"] = Fact(int(summary.rows), f"{found.source}: {summary.rows} rows")
    inputs = tuple(Input(str(f), "data") for f in (*found.train, *found.eval))
    return replace(run, data=summary, facts=facts, inputs=(*run.inputs, *inputs))


def _size(run: Run, found: list) -> dict[str, Fact]:
    """The exact parameter count from a full checkpoint beats the config's estimate."""
    full = [c for c in found if c.format != "peft-lora" and c.tensors]
    if not full:
        return dict(run.facts)
    c = full[-1]
    n = sum(t.numel for t in c.tensors)
    return {**run.facts, "n_params": Fact(n, f"{c.name}: tensors in the checkpoint")}
