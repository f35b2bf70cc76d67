"""W&B offline/online run dirs: run-<id>.wandb, the transaction log (FORMATS.md 5.1).

The file is a LevelDB-log variant: a 7-byte header (":W&B", uint16 0xBEE1,
version), then 32 KiB blocks of chunks (uint32 zlib-crc32 over type byte +
payload, uint16 length, uint8 FULL/FIRST/MIDDLE/LAST); each record is a
serialized `wandb_internal_pb2.Record`. History rows, the run config and the
exit record are all we need.

Why a hand-written protobuf decoder and not wandb's own `wandb_internal_pb2`:
we read eight messages and about twenty fields, whose numbers are wandb's wire
contract (renumbering would break every offline run ever synced). Decoding them
takes ~60 lines; depending on wandb instead would mean a >100 MB package with a
Go binary and a pinned protobuf runtime, just to read a log that the user may
have copied off a cluster, and wandb 0.31 ships no Python reader for the file
anyway. The decoder is checked against `wandb leet inspect --json` (wandb's own
reader) on real offline runs (tests/readers/test_wandb.py, leet.json).

Older clients also wrote files/config.yaml and files/wandb-summary.json; they are
read when there is no .wandb file (or it holds no config).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from traindoc.model import Fact, Input, Note, Run, Series
from traindoc.model.signals import canonical
from traindoc.readers import configs
from traindoc.readers._base import Notes, ReadError, to_float
from traindoc.readers._columns import Columns
from traindoc.readers._progress import progress
from traindoc.readers._wandb_log import MAGIC, fields, history_row, items, records, text, whole

# HF's WandbCallback logs its own step; wandb's _step counts log() calls from 0.
_STEP_KEYS = ("train/global_step", "trainer/global_step", "global_step")
_RUN_DIR = re.compile(r"(offline-)?run-\d{8}_\d{6}-\w+$")


def is_run_dir(p: Path) -> bool:
    return p.is_dir() and any(p.glob("run-*.wandb"))


def run_dirs(root: Path) -> list[Path]:
    """wandb run dirs in root, root/wandb, or root itself; newest first."""
    if is_run_dir(root) or (root / "files" / "wandb-summary.json").is_file():
        return [root]
    found: list[Path] = []
    for base in (root, root / "wandb"):
        if base.is_dir():
            found += [p for p in base.iterdir() if _RUN_DIR.match(p.name) and not p.is_symlink()]
    ok = [p for p in found if is_run_dir(p) or (p / "files" / "wandb-summary.json").is_file()]
    return sorted(ok, key=lambda p: p.name.split("run-", 1)[1], reverse=True)


def read(path: str | Path) -> Run:
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.glob("run-*.wandb"))
    root = path.parent if path.is_file() else path
    notes, facts, inputs = Notes(), dict[str, Fact](), list[Input]()
    cols = Columns(str(files[0] if files else root), notes, unit="record")
    config: dict[str, Any] = {}
    for f in files[-1:]:  # one run id per dir; a resumed run appends to the same file
        _read_log(f, cols, config, facts, notes)
        inputs.append(Input(str(f), "wandb"))
    if not files and not (root / "files").is_dir():
        raise ReadError(root, "no run-*.wandb file and no files/ dir: not a wandb run dir")
    side = root / "files" / "config.yaml"
    if not config and side.is_file() and (data := configs.load(side, notes)) is not None:
        config = {k: v.get("value") if isinstance(v, dict) else v for k, v in data.items()}
        inputs.append(Input(str(side), "wandb-config"))
    summary = root / "files" / "wandb-summary.json"
    if not files and summary.is_file():
        _summary(summary, facts, notes)
        inputs.append(Input(str(summary), "wandb-summary"))
    config.pop("_wandb", None)
    src = f"{files[-1].name}: config" if files else "config.yaml"
    facts = configs.facts_from(config, src) | facts
    series, col_facts = cols.finish("wandb")
    facts.update(col_facts)
    facts["trainer"] = Fact("wandb", f"{(files or [root])[-1].name}: W&B run")
    run = Run(root.name, series, facts, tuple(inputs), notes.build())
    return _with_console(run, root / "files" / "output.log")


def _console_run(log: Path) -> Run | None:
    """The first run of files/output.log, the run's console as W&B captured it; None
    when there is none or it prints no curve."""
    if not log.is_file():
        return None
    from traindoc.readers import console

    try:
        got = console.read_all(log)
    except (ReadError, OSError):
        return None
    return got[0] if got and got[0].series else None


def _with_console(run: Run, log: Path) -> Run:
    """files/output.log is the run's console as W&B captured it, its curves printed line
    by line: a second view of the run the history rows log.

    With no history (an older client, or only the files/ folder kept) the summary holds
    the last values only: the console's first run gives the series; the config's facts
    stay. With history, the two views are merged (_merge_console): a script often logs
    its per-step loss with wandb.log and prints its per-epoch eval, and a transaction log
    copied while the run went on holds only its start."""
    first = _console_run(log)
    if first is None:
        return run
    if run.series:
        return _merge_console(run, first, log)
    # the log's own dialect names the trainer (Keras, HF); the config's settings win
    facts = dict(first.facts) | {k: v for k, v in run.facts.items() if k != "trainer"}
    facts.pop("results", None)  # the curves are here: the summary is no longer all there is
    notes = tuple(n for n in run.notes if "only the run summary" not in n.message)
    return Run(
        run.name,
        first.series,
        facts,
        (*first.inputs, *run.inputs),
        (*notes, *first.notes),
        events=first.events,
    )


def _merge_console(run: Run, con: Run, log: Path) -> Run:
    """The console's series joined to the history's: a signal only one view carries is
    taken from it; a signal both carry (one canonical name) is taken once, from the view
    that reaches further into the run (the history on a tie), never summed or
    interleaved. The notes say which file each series came from."""
    hist = {_signal(k): k for k in run.series}
    series = dict(run.series)
    took: dict[str, str] = {}  # console series taken -> how
    for name, s in con.series.items():
        own = hist.get(_signal(name))
        if own is None:
            series[name] = s
            took[name] = name
        elif _reach(s) > _reach(run.series[own]):
            del series[own]
            series[name] = s
            took[name] = f"{name} (the history's {own} stops at step {_reach(run.series[own]):g})"
    if not took:
        return run
    kept = ", ".join(sorted(k for k in series if k not in took)) or "nothing"
    where = Note(
        str(log),
        f"read beside the history: {', '.join(took.values())} from {log.name}; "
        f"{kept} from the .wandb history",
    )
    # each input counts the series it gave (the text reader counts all it read)
    counts = {k: len(v) for k, v in sorted(series.items())}
    own = tuple(
        replace(i, series={k: n for k, n in counts.items() if k not in took})
        if i.kind == "wandb"
        else i
        for i in run.inputs
    )
    side = tuple(
        replace(i, series={k: n for k, n in counts.items() if k in took})
        for i in con.inputs
        if i.series is not None
    )
    inputs = (*own, *side)
    return replace(
        run,
        series=series,
        inputs=inputs,
        notes=(*run.notes, where, *con.notes),
        events=(*run.events, *con.events),
    )


def _signal(key: str) -> str:
    """One name for a signal in either view: the history keeps W&B's sections
    ("eval/accuracy", "train/loss") where the console prints "eval_accuracy", "loss"."""
    return canonical(canonical(key).replace("/", "_"))


def _reach(s: Series) -> float:
    """The last step a series reaches (-inf when empty)."""
    return float(s.steps[-1]) if len(s) else -math.inf


def _read_log(f: Path, cols: Columns, config: dict, facts: dict, notes: Notes) -> None:
    try:
        with f.open("rb") as fh, progress(f) as seen:
            head = fh.read(7)
            if len(head) < 7 or head[:6] != MAGIC:
                what = (
                    "file is empty" if not head else "no :W&B header; not a wandb transaction log"
                )
                raise ReadError(f, what)
            fh.seek(0)
            _read_records(f, fh, cols, config, facts, notes, seen)
    except OSError as exc:
        raise ReadError(f, f"cannot read: {exc.strerror or exc}") from None


# History rows handed to the columns at a time: no per-row dicts pile up (50k rows
# were ~30 MB of dicts: a 318 MB log peaked at 128 MiB, 68 with this and 1 MB reads).
_ROWS = 5_000


def _read_records(
    f: Path,
    fh: BinaryIO,
    cols: Columns,
    config: dict,
    facts: dict,
    notes: Notes,
    seen: Callable[[int], None],
) -> None:
    rows: list[dict[str, float]] = []
    exited, step_key, done = False, None, 0
    for n, rec in enumerate(records(fh, f, notes)):
        try:
            msg = dict(fields(rec))
            if (h := msg.get(2)) is not None:
                rows.append(history_row(h))
                if len(rows) >= _ROWS:
                    step_key = _flush(rows, cols, step_key, done)
                    done += len(rows)
                    rows = []
                    seen(fh.tell())
            elif (r := msg.get(17)) is not None:
                _run(r, config, facts)
            elif (c := msg.get(5)) is not None:
                items(c, config)
            elif (e := msg.get(18)) is not None:
                exited = True
                code = whole(next((v for k, v in fields(e) if k == 1), 0))
                facts["exit_code"] = Fact(code - (1 << 64) if code >> 63 else code, f"{f.name}")
                facts["ended"] = Fact(True, f"{f.name}: the run's exit record")
            elif (t := msg.get(11)) is not None:
                _telemetry(t, facts, f.name)
        except (IndexError, ValueError, UnicodeDecodeError):
            notes.count(f, "undecodable record", None, f"first is record {n}")
    if not exited:
        notes.add(f, "no exit record: the run was still going, was killed, or the copy is partial")
    if rows:
        _flush(rows, cols, step_key, done)
    elif not done:
        notes.add(f, "no history rows (nothing was logged with wandb.log)")


def _flush(rows: list[dict[str, float]], cols: Columns, step_key: str | None, done: int) -> str:
    """Hand a batch of history rows to the columns; the step key is fixed by the first."""
    if step_key is None:
        step_key = next((k for k in _STEP_KEYS if any(k in r for r in rows[:50])), "_step")
    for r in rows:
        if step_key in r:
            r["step"] = r.pop(step_key)
        for k in ("_step", "_runtime", *_STEP_KEYS):
            r.pop(k, None)
    cols.add(rows, None, done)
    return step_key


def _run(b: bytes, config: dict, facts: dict) -> None:
    for num, v in fields(b):
        if num == 4:
            items(v, config)
        elif num == 8 and v:
            facts["wandb_name"] = Fact(text(v), "wandb run display_name")
        elif num == 19:
            _telemetry(v, facts, "wandb run telemetry")


def _telemetry(b: bytes, facts: dict, src: str) -> None:
    names = {5: "wandb", 6: "transformers", 4: "python"}
    found = {names[n]: text(v) for n, v in fields(b) if n in names and v}
    if found:
        old = facts.get("versions")
        facts["versions"] = Fact((old.value if old else {}) | found, src)


def _summary(p: Path, facts: dict, notes: Notes) -> None:
    try:
        data = json.loads(p.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        notes.add(p, f"not read: {exc}")
        return
    if isinstance(data, dict):
        vals = {k: f for k, v in data.items() if (f := to_float(v)) is not None and k[:1] != "_"}
        facts["results"] = Fact(vals, f"{p.name}: last logged values")
        notes.add(p, "only the run summary (last values) is here: no curves to diagnose")
