"""Text logs (console captures, pasted excerpts, stdin) read by the generic text reader.

`readers/logs/text.py` reads every layout; this module adds what sits beside
a console log in its folder: a config dump (`config.json`, `hparams.yaml`, ...)
gives the facts the log does not print, such as `vocab_size` for the ln(V)
floor.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from traindoc import progress
from traindoc.model import Input, Run
from traindoc.readers import configs
from traindoc.readers._base import Notes
from traindoc.readers.logs import text

_CONFIGS = ("run_config.json", "config.json", "hparams.yaml", "config.yaml", "args.json")


def read_all(path: str | Path, pattern: str | None = None) -> list[Run]:
    """Every run in the log (a paste can hold more than one)."""
    path = Path(path)
    if str(path) == "-":
        return text.read(path, pattern=pattern)
    # logs/text.py reads the file itself: a spinner here until it counts bytes (see progress)
    size = path.stat().st_size if path.is_file() else 0
    with progress.task(f"reading {path.name} ({size / 1e6:,.0f} MB)", unit=None):
        runs = text.read(path, pattern=pattern)
    notes = Notes()
    for name in _CONFIGS:
        side = path.parent / name
        if side.is_file() and (cfg := configs.load(side, notes)) is not None:
            extra = configs.facts_from(cfg, name)
            inp = Input(str(side), "run-config")
            return [
                replace(
                    r,
                    facts=extra | dict(r.facts),
                    inputs=(*r.inputs, inp),
                    notes=(*r.notes, *notes.build()),
                )
                for r in runs
            ]
    return runs


def read(path: str | Path, pattern: str | None = None) -> Run:
    """The log's (first) run."""
    return read_all(path, pattern)[0]
