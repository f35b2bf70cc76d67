"""Readers: turn whatever a training run left on disk into one `Run`.

`load_run(path)` sniffs the path (detect.py), hands it to the one reader that
fits, then derives the facts that need everything at once (derived.py).
Readers never write to the run directory. Unusable input raises ReadError
with a one-line message naming the file; partial problems become Notes.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path

from traindoc.measure.rl_envs import find_env_id, find_env_in_name
from traindoc.model import Fact, Input, Note, Run
from traindoc.readers import live
from traindoc.readers._base import Notes, ReadError
from traindoc.readers.derived import finalize
from traindoc.readers.detect import SUPPORTED, Source, detect_dir, detect_file

# Notes: what preflight (which reads config files with configs.load) counts problems in
__all__ = ["SUPPORTED", "Notes", "ReadError", "discover_runs", "load_run", "load_runs"]
STDIN = "-"


def discover_runs(root: str | Path) -> list[Path]:
    """Every run under root (see readers/discover.py); [root] when root is one run."""
    from traindoc.readers.discover import discover_runs as find

    return find(root)


def load_run(path: str | Path, pattern: str | None = None) -> Run:
    """The run at path (the first, when a pasted log holds several: see load_runs)."""
    return load_runs(path, pattern)[0]


def load_runs(path: str | Path, pattern: str | None = None) -> list[Run]:
    """Every run at path: one for a run dir or a structured log, several when a text
    log holds more than one (a paste of two fragments, a restart from step 0).

    `-` reads a text log from stdin. With `pattern` (a regex with named groups such
    as step, loss, lr, grad_norm), path is a text log read with that pattern.
    """
    from traindoc.readers import console

    if str(path) == STDIN:
        return [_with_env_id(finalize(r)) for r in console.read_all(STDIN, pattern=pattern)]
    path = Path(path)
    if not path.exists():
        raise ReadError(path, "no such file or directory")
    if pattern is not None:
        if not path.is_file():
            raise ReadError(path, "--pattern needs a log file, not a directory")
        return [
            _with_env_id(_counted(finalize(r))) for r in console.read_all(path, pattern=pattern)
        ]
    supported = "; ".join(SUPPORTED)
    if path.is_file() and live.is_findings(path):  # the monitor's record: read its run
        path = path.parent
    try:
        if path.is_dir():
            if not any(path.iterdir()):
                raise ReadError(path, f"directory is empty; supported: {supported}")
            found = detect_dir(path)
            if not found:
                raise ReadError(path, f"no training log recognised; supported: {supported}")
            source, others = found[0], found[1:]
        else:
            if path.stat().st_size == 0:
                raise ReadError(path, "file is empty")
            file_source = detect_file(path)
            if file_source is None:
                raise ReadError(path, f"not a recognised training log; supported: {supported}")
            source, others = file_source, []
    except PermissionError as exc:
        raise ReadError(path, f"permission denied: {exc.filename or path}") from None
    if source.kind == "console":
        runs = console.read_all(source.path)
    elif source.kind == "lightning":
        runs = _read_all(source)
    else:
        runs = [_read(source)]
    if path.is_dir() and len(runs) == 1:  # the name the user knows the run by, not "version_0"
        runs = [replace(runs[0], name=path.resolve().name)]
    if source.kind != "console" and len(runs) == 1:
        runs, others = _with_console(runs[0], others)
    if others:
        also = ", ".join(str(o.path) for o in others[:5])
        note = Note(str(source.path), f"read this {source.kind} log; also found, not read: {also}")
        runs = [replace(r, notes=(*r.notes, note)) for r in runs]
    return [_with_env_id(_with_live(_counted(finalize(r)), path)) for r in runs]


# What a console captured beside a structured log adds: the lines that are evidence by
# themselves (readers/logs/events.py) and how far its progress bar went after the last
# logged step. Its metric lines duplicate the structured log's, and lose to them.
_CONSOLE_FACTS = (
    "progress_after_last_step",
    "resume_steps",
    "trainable_params",
    "precision",
    "n_params",
    "regime",
    # the settings its config dump states (mmengine's `optimizer=dict(type='SGD', lr=0.1)`
    # in the <timestamp>.log beside vis_data/scalars.json, a Namespace(...) print): the
    # optimizer and task put the logged LR on its scale, which the JSON lines never say
    "optim",
    "learning_rate",
    "task",
)


def _with_console(run: Run, others: list[Source]) -> tuple[list[Run], list[Source]]:
    from traindoc.readers import console

    logs = [o for o in others if o.kind == "console"]
    if not logs:
        return [run], others
    o = logs[0]
    try:
        side = console.read_all(o.path)[-1]
    except ReadError as exc:
        note = Note(str(o.path), f"console beside the log not read: {exc}")
        return [replace(run, notes=(*run.notes, note))], [x for x in others if x is not o]
    facts = dict(run.facts)
    for name in _CONSOLE_FACTS:
        if name in side.facts and name not in facts:
            facts[name] = side.facts[name]
    inp = Input(str(o.path), "console-evidence")
    merged = replace(
        run, facts=facts, events=(*run.events, *side.events), inputs=(*run.inputs, inp)
    )
    return [merged], [x for x in others if x is not o]


# Inputs that hold settings, not curves: they get no series counts.
_CONFIG_KINDS = ("config", "args", "hparams", "results", "adapter", "live", "summary")


def _counted(run: Run) -> Run:
    """Give the run's metrics input its series counts when its reader did not (the text
    reader counts its own; structured readers hold one metrics file per run)."""
    if any(i.series is not None for i in run.inputs) or not run.series:
        return run
    inputs = list(run.inputs)
    for k, i in enumerate(inputs):
        if not any(w in i.kind for w in _CONFIG_KINDS):
            counts = {name: len(s) for name, s in sorted(run.series.items())}
            inputs[k] = replace(i, series=counts)
            return replace(run, inputs=tuple(inputs))
    return run


def _with_live(run: Run, path: Path) -> Run:
    """Add what a live traindoc monitor recorded for the run (readers/live.py).

    The record may sit beside the run or above it (Lightning's callback writes
    to default_root_dir/traindoc/, its CSVLogger to lightning_logs/version_N/):
    one training is one run, so its findings join the run and the facts the
    monitor was given fill those the logs lack.
    """
    rec = live.record_for(path) if path.is_dir() else live.findings_file(path)
    if rec is None:
        return run
    if rec.is_file():
        rec = rec.parent
    if any(Path(i.path).resolve().parent == rec.resolve() for i in run.inputs):
        found = rec / live.FINDINGS  # the run is the record's own metrics.jsonl
        if not found.is_file():
            return run
        findings, notes = live.read(found)
        inputs = (*run.inputs, Input(str(found), "traindoc-live"))
        return replace(run, live=findings, inputs=inputs, notes=(*run.notes, *notes))
    from traindoc.readers import configs

    facts, notes_in = dict(run.facts), Notes()
    cfg = rec / live.CONFIG
    if cfg.is_file() and (data := configs.load(cfg, notes_in)) is not None:
        data = {k: v for k, v in data.items() if k != "log_dir"}
        for key, fact in configs.facts_from(data, f"traindoc/{live.CONFIG}").items():
            facts.setdefault(key, fact)
    findings, notes = (), ()
    if (rec / live.FINDINGS).is_file():
        findings, notes = live.read(rec / live.FINDINGS)
    inputs = (*run.inputs, Input(str(rec), "traindoc-live"))
    return replace(
        run,
        facts=facts,
        live=findings,
        inputs=inputs,
        notes=(*run.notes, *notes, *notes_in.build()),
    )


# Source kind -> reader module (each has `read(path) -> Run`), imported on use.
_READERS = {
    "hf": "hf_trainer",
    "lightning": "lightning_csv",
    "ultralytics": "ultralytics",
    "sb3_monitor": "sb3_monitor",
    "tensorboard": "tensorboard",
    "jsonl": "jsonl",
    "llamafactory": "llamafactory",
    "wandb": "wandb",
    "mlflow": "mlflow",
}


def _read_all(source: Source) -> list[Run]:
    """A CSV log's runs (Keras' CSVLogger appends a second fit() to the same file)."""
    from traindoc.readers import lightning_csv

    try:
        return lightning_csv.read_all(source.path)
    except PermissionError as exc:
        raise ReadError(exc.filename or source.path, "permission denied") from None


def _read(source: Source) -> Run:
    # Imported here so `traindoc --help` and the rules never pay for yaml/pickle/zip.
    try:
        module = _READERS.get(source.kind)
        if module is not None:
            return importlib.import_module(f"traindoc.readers.{module}").read(source.path)
        from traindoc.readers.training_args import facts_from_args, load_args

        facts: dict[str, Fact] = facts_from_args(load_args(source.path), source.path.name)
        facts["trainer"] = Fact("hf", f"{source.path.name}: TrainingArguments")
        inputs = (Input(str(source.path), "hf-training-args"),)
        note = Note(str(source.path), "configuration only: no metric series in this file")
        return Run(source.path.parent.name, {}, facts, inputs, (note,))
    except PermissionError as exc:
        raise ReadError(exc.filename or source.path, "permission denied") from None
    except RecursionError:
        raise ReadError(source.path, "nested too deeply to parse") from None


# How much of a text log is searched for an env id: it is printed at the start (an
# argparse dump, "Creating env PongNoFrameskip-v4", a config echo), or in its lines.
_ENV_HEAD = 1 << 20


def _with_env_id(run: Run) -> Run:
    """The RL environment the run trained on, when it says so: an SB3 Monitor's header
    (read as a note), the run's input paths (rl-zoo's logs/ppo/PongNoFrameskip-v4_1/,
    a tensorboard dir named for the env), a text log's first MB, or last a file's own
    name with no version (bipedalwalker_hardcore.md, `find_env_in_name`). Only env ids whose
    game has a known random-policy level are taken (measure/rl_envs.py)."""
    if run.fact("env_id") is not None or not run.is_rl:
        return run
    places: list[tuple[str, str]] = [(n.message, n.path) for n in run.notes]
    places += [(i.path, i.path) for i in run.inputs]
    for i in run.inputs:
        if i.lines is not None:  # a text log: its lines were read
            try:
                with open(i.path, "rb") as f:
                    places.append((f.read(_ENV_HEAD).decode("utf-8", "replace"), i.path))
            except OSError:
                continue
    for text, where in places:
        if (env := find_env_id(text)) is not None:
            facts = {**run.facts, "env_id": Fact(env, f"{Path(where).name}: {env}")}
            return replace(run, facts=facts)
    for i in run.inputs:  # a file named after its environment (bipedalwalker_hardcore.md)
        if (env := find_env_in_name(i.path)) is not None:
            name = Path(i.path).name
            facts = {**run.facts, "env_id": Fact(env, f"{name}: the file's name")}
            return replace(run, facts=facts)
    return run
