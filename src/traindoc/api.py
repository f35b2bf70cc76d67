"""The Python API: what the commands compute, as values, for notebooks and scripts.

```python
import traindoc

d = traindoc.diagnose("runs/exp-12")             # a run dir, a log file, or a folder of runs
d.verdict                                          # "broken" | "suspect" | "inconclusive" | "healthy"
[f.rule for f in d.findings]                       # ["absurd-initial-loss", "lr-too-low", ...]
d                                                  # in Jupyter: the HTML report, inline
d.to_json()                                        # the CLI's `--format json`, byte for byte
traindoc.diagnose("out", regime="lora", ignore=["loss-spike"],
                  rules={"lr-too-low": {"unknown_flag_at": 1e-8}})
```

Every function reads settings the way the CLI does (traindoc.toml or
`[tool.traindoc]` found upward from the path, or `config=`), with its keyword
arguments winning over the file. Unusable input raises `traindoc.InputError`
(the CLI's exit 2) instead of exiting; the return value is always a
`Diagnosis`, whose `runs` hold one per-run diagnosis for a single run and
several for a folder, as the JSON report's `runs` do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from traindoc.model import Run
from traindoc.outcome import InputError
from traindoc.result import Diagnosis, Unreadable
from traindoc.settings import Settings
from traindoc.settings import load as load_settings

__all__ = ["Diagnosis", "InputError", "Unreadable", "audit_data", "ckpt", "diagnose", "preflight"]


def diagnose(
    path: str | Path,
    *,
    config: str | Path | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    fail_on: str | None = None,
    regime: str | None = None,
    vocab_size: int | None = None,
    num_classes: int | None = None,
    checkpoints: bool = True,
    pattern: str | None = None,
    settings: Settings | None = None,
) -> Diagnosis:
    """Diagnose the run at `path` (a run dir, a log file, or a folder of runs).

    >>> d = traindoc.diagnose("examples/seed-a")
    >>> d.verdict, d.findings[0].rule
    ('broken', 'absurd-initial-loss')
    >>> traindoc.diagnose("examples/seed-a", select=["rate"]).findings[0].rule
    'lr-too-low'

    `select` / `ignore` take rule ids or families; `rules` maps a rule id to
    threshold overrides (checked against the rule's Params); `regime`,
    `vocab_size` and `num_classes` override what traindoc infers. `settings`
    (from traindoc.settings.load) replaces the file and these keywords.
    Raises InputError when the path, or a settings value, cannot be used.
    """
    from traindoc.engine import diagnose as run_rules
    from traindoc.readers import ReadError, discover_runs
    from traindoc.rules.registry import load_all

    path = Path(path)
    if settings is None:
        settings = load_settings(
            path,
            config=config,
            select=select,
            ignore=ignore,
            fail_on=fail_on,
            regime=regime,
            vocab_size=vocab_size,
            num_classes=num_classes,
            rules=rules,
            origin="api",
        )
    specs = settings.apply(load_all().values())
    found = discover_runs(path) if path.is_dir() and pattern is None else []
    entries: list[tuple[str, str, Run | str]] = []
    if len(found) > 1:  # a folder of runs: each diagnosed, one unreadable does not stop the rest
        for p in found:
            entries.extend(_entries(p, path, checkpoints))
    else:
        try:
            runs = _load(path, checkpoints, pattern)
        except ReadError as exc:
            raise InputError(str(exc)) from None
        if len(runs) == 1:
            entries = [(runs[0].name, str(path), runs[0])]
        else:  # one file, several runs (a paste of two fragments, a restart)
            entries = [(r.name, str(path), r) for r in runs]
    entries = _with_siblings(entries)
    done, bad = [], []
    for name, where, run in entries:
        if isinstance(run, str):
            bad.append(Unreadable(name, where, run))
            continue
        if len(entries) > 1:
            run = replace(run, name=name)
        done.append(run_rules(settings.override(run), specs))
    return Diagnosis(tuple(done), tuple(bad), settings)


def ckpt(
    path: str | Path,
    *,
    against: str | Path | None = None,
    workers: int | None = None,
    config: str | Path | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    fail_on: str | None = None,
    settings: Settings | None = None,
) -> Diagnosis:
    """Check a checkpoint's tensors (a file, a checkpoint dir, or a run dir of checkpoints).

    >>> d = traindoc.ckpt("run/best", against="run/checkpoint-30")
    >>> [f.rule for f in d.findings]
    ['exploded-weights', ...]
    >>> d.extra["comparison"].to_dict()       # the update between the two

    Raises InputError when a checkpoint cannot be read.
    """
    from traindoc.ckpt.api import CheckpointError, summarize
    from traindoc.ckpt.compare import compare
    from traindoc.engine import diagnose as run_rules
    from traindoc.rules.registry import load_all

    if settings is None:
        settings = load_settings(
            path,
            config=config,
            select=select,
            ignore=ignore,
            fail_on=fail_on,
            rules=rules,
            origin="api",
        )
    try:
        found = summarize(Path(path), workers=workers)
        cmp = compare(Path(path), Path(against)) if against else None
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    cks = tuple(found if isinstance(found, list) else [found])
    if cmp is not None and cmp.b.path not in {c.path for c in cks}:
        cks = (cmp.b, *cks)
    specs = settings.apply(s for s in load_all().values() if s.family == "ckpt")
    d = run_rules(Run(name=str(path), checkpoints=cks), specs)
    return Diagnosis((d,), (), settings, "ckpt", {"comparison": cmp})


def audit_data(
    path: str | Path,
    eval: str | Path | None = None,
    *,
    text_field: str | None = None,
    label_field: str | None = None,
    threshold: float = 0.6,
    max_seq_len: int | None = None,
    distributed: bool = False,
    workers: int = 2,
    config: str | Path | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    fail_on: str | None = None,
    settings: Settings | None = None,
) -> Diagnosis:
    """Audit a dataset: duplicates, near-duplicates, label conflicts, leakage, imbalance.

    >>> d = traindoc.audit_data("train.jsonl", eval="eval.jsonl")
    >>> d.runs[0].run.data.rows, [f.rule for f in d.findings]
    (1200, ['train-eval-leakage', 'duplicate-samples'])
    >>> d.extra["export"]                      # the row indices to drop

    Raises InputError when the data cannot be read (or traindoc[data] is needed).
    """
    from traindoc.data.check import audit_run
    from traindoc.engine import diagnose as run_rules
    from traindoc.rules.registry import load_all

    if settings is None:
        settings = load_settings(
            path,
            config=config,
            select=select,
            ignore=ignore,
            fail_on=fail_on,
            rules=rules,
            origin="api",
        )
    run, result = audit_run(
        path,
        eval,
        text_field,
        label_field,
        threshold=threshold,
        max_seq_len=max_seq_len,
        distributed=distributed,
        workers=workers,
    )
    d = run_rules(run, settings.apply(r for r in load_all().values() if r.family == "data"))
    return Diagnosis((d,), (), settings, "data", {"export": result.export})


def preflight(
    model: str | Path | None = None,
    config_file: str | Path | None = None,
    data: str | Path | None = None,
    *,
    gpu: str | None = None,
    gpu_mem: str | None = None,
    resume: str | Path | None = None,
    config: str | Path | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    fail_on: str | None = None,
    settings: Settings | None = None,
    **setup: Any,
) -> Diagnosis:
    """Check a training setup before spending GPU time on it.

    `config_file` is the training config (TrainingArguments JSON/YAML, Axolotl,
    LLaMA-Factory, TRL); `config` is traindoc's own settings file, as elsewhere.
    `setup` takes the CLI's values for when there is no config: learning_rate,
    per_device_batch, grad_accum, devices, max_steps, warmup_ratio, lr_scheduler,
    precision, seq_len, regime, ...

    >>> d = traindoc.preflight(model="gpt2-small", learning_rate=1e-6, regime="pretraining")
    >>> d.findings[0].rule
    'lr-too-low'
    >>> d.runs[0].extra["memory"]["estimate"]["total"]   # GiB

    Raises InputError for unusable input.
    """
    from traindoc.preflight.setup import diagnose_setup

    start = next((p for p in (model, config_file, data, resume) if p is not None), ".")
    if settings is None:
        settings = load_settings(
            start,
            config=config,
            select=select,
            ignore=ignore,
            fail_on=fail_on,
            rules=rules,
            origin="api",
        )
    d = diagnose_setup(
        _path(model),
        _path(config_file),
        _path(data),
        gpu,
        gpu_mem,
        _path(resume),
        settings=settings,
        **setup,
    )
    return Diagnosis((d,), (), settings, "preflight")


def _path(p: str | Path | None) -> Path | None:
    return None if p is None else Path(p)


def _load(path: Path, checkpoints: bool, pattern: str | None) -> list[Run]:
    from traindoc.pipeline import load_all

    return load_all(path, checkpoints=checkpoints, pattern=pattern)


def _with_siblings(entries: list[tuple[str, str, Run | str]]) -> list[tuple[str, str, Run | str]]:
    """The entries, the runs among them read as one LR sweep's arms where they are one."""
    from traindoc.measure.sweep import lr_siblings

    at = [k for k, e in enumerate(entries) if not isinstance(e[2], str)]
    if len(at) < 2:
        return entries
    runs = lr_siblings([entries[k][2] for k in at])  # type: ignore[misc]
    out = list(entries)
    for k, r in zip(at, runs, strict=True):
        out[k] = (entries[k][0], entries[k][1], r)
    return out


def _entries(p: Path, parent: Path, checkpoints: bool) -> list[tuple[str, str, Run | str]]:
    """(name, path, run) for every run at p, or one (name, path, error) when p is unreadable."""
    from traindoc.readers import ReadError
    from traindoc.report import summary

    name = summary.run_name(p, parent)
    try:
        runs = _load(p, checkpoints, None)
    except ReadError as exc:
        return [(name, str(p), str(exc))]
    if len(runs) == 1:
        return [(name, str(p), runs[0])]
    return [(f"{name} [{k + 1}/{len(runs)}]", str(p), r) for k, r in enumerate(runs)]
