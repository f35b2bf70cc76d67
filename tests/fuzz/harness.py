"""One fuzz case: write a mutated input, run a command on it in-process, judge it.

Pass means: the exit status is 0, 1 or 2; exit 2 prints exactly one line on stderr,
naming the input; no run takes over LIMIT_S; nothing in the input directory is
created, changed or removed; and no payload ran (a hostile pickle or YAML would
create `marker`). Anything escaping the command other than exit 0/1/2 is a
traceback. Most cases enter below the CLI (`LEVELS`): there only the project's own
errors for unusable input (`allowed()`) may escape. Cases are pure functions of (base, i), so a failure is replayed by
its number (`scripts/fuzz.py --replay N`).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz import formats, mutate, seeds

LIMIT_S = 10.0


class Hang(BaseException):
    """Raised by the alarm: a BaseException so that no `except Exception` swallows it."""


@dataclass(frozen=True)
class Case:
    n: int
    seed: str
    argv: tuple[str, ...]
    files: dict[str, bytes]
    mutated: tuple[str, ...]
    fs: str = ""  # a special file-system shape: fifo, loop, many, dir, empty
    level: str = "cli"  # cli | api | reader: how deep into traindoc the case enters


@dataclass(frozen=True)
class Outcome:
    kind: str  # ok | traceback | hang | write | code | stderr
    detail: str = ""
    exit: int | None = None


def _yaml(rng: random.Random, data: bytes, marker: str) -> bytes:
    k = rng.randrange(5)
    if k == 0:
        tag = rng.choice(
            (
                f'!!python/object/apply:os.system ["touch {marker}"]',
                f"!!python/object/new:os.system [touch {marker}]",
                f"!!python/object/apply:builtins.exec [\"open({marker!r}, 'w')\"]",
                "!!python/name:os.system",
                "!!binary AAAA",
                "!!set {a, b}",
                "!!timestamp 2001-12-14",
            )
        )
        return data + f"\nlearning_rate: {tag}\nx: {tag}\n".encode()
    if k == 1:  # aliases: a billion laughs by reference
        lines = ["a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9]"]
        for i in range(1, 12):
            lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
        return data + ("\n" + "\n".join(lines) + "\nlr: *a11\n").encode()
    if k == 2:
        d = rng.choice((500, 5000, 100_000))
        return data + b"\ndeep: " + b"[" * d + b"]" * d + b"\n"
    if k == 3:
        return mutate.numbers(rng, data)
    return mutate.generic(rng, data)


def _text(rng: random.Random, data: bytes, marker: str) -> bytes:
    if rng.random() < 0.15:  # progress bars before (or instead of) the metric lines
        bars = b"".join(f" {i}%|##| {i}/100 [00:01<00:02, 3.1it/s]\r".encode() for i in range(20))
        return bars + (data if rng.random() < 0.5 else b"")
    return mutate.generic(rng, data)


MUTATORS = {
    "jsonl": lambda r, d, m: mutate.json_lines(r, d) if r.random() < 0.6 else mutate.generic(r, d),
    "json": lambda r, d, m: mutate.json_doc(r, d) if r.random() < 0.6 else mutate.generic(r, d),
    "text": _text,
    "yaml": _yaml,
    "zip": lambda r, d, m: formats.torch_zip(r, d, m),
    "pickle": lambda r, d, m: formats.pickle_bytes(r, d, m),
    "safetensors": lambda r, d, m: (
        formats.safetensors(r, d) if r.random() < 0.7 else mutate.generic(r, d)
    ),
    "tfrecord": lambda r, d, m: (
        formats.tfrecord(r, d) if r.random() < 0.7 else mutate.generic(r, d)
    ),
    "wandb": lambda r, d, m: formats.wandb(r, d) if r.random() < 0.7 else mutate.generic(r, d),
    "parquet": lambda r, d, m: formats.parquet(r, d) if r.random() < 0.7 else mutate.generic(r, d),
}
_FS = ("fifo", "loop", "dir", "empty", "link-out", "many")
# Most cases call the reader (or the Python API) in-process, where the bugs are and a
# case costs milliseconds; one in twenty goes through the whole CLI (~0.1 s) for its
# exit statuses, its one-line errors and the renderers. `watch` has no call below it.
LEVELS = (("cli", 0.05), ("api", 0.3), ("reader", 0.65))


def make_case(n: int, base: int = 0, marker: str = "/nonexistent/MARKER") -> Case:
    rng = random.Random(f"{base}:{n}")
    seed = rng.choice(seeds.seeds())
    argv = rng.choice(seed.argvs)
    files = dict(seed.files)
    targets = seed.targets
    if "*" in targets:
        targets = {k: targets["*"] for k in files}
    names = sorted(targets)
    fs = ""
    if rng.random() < 0.01:
        fs = rng.choice(_FS[:-1]) if rng.random() < 0.95 else "many"
    picked = rng.sample(names, 1 if len(names) == 1 or rng.random() < 0.8 else 2)
    for name in picked:
        data = files[name]
        for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 4)):
            with warnings.catch_warnings():  # zipfile's "duplicate name" is ours, not news
                warnings.simplefilter("ignore")
                data = MUTATORS[targets[name]](rng, data, marker)
        files[name] = data
    return Case(n, seed.name, argv, files, tuple(picked), fs, _level(rng.random(), argv[0]))


def _level(r: float, command: str) -> str:
    if command == "watch":
        return "cli"
    for level, share in LEVELS:
        if r < share:
            return level
        r -= share
    return "cli"


def _layout(case: Case, root: Path) -> None:
    for rel, data in case.files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    if not case.fs:
        return
    victim = root / case.mutated[0]
    if case.fs in ("fifo", "dir", "empty", "link-out"):
        victim.unlink()
        if case.fs == "fifo":
            os.mkfifo(victim)
        elif case.fs == "dir":
            victim.mkdir()
        elif case.fs == "empty":
            victim.touch()
        else:
            victim.symlink_to(root / "gone")  # dangling
    elif case.fs == "loop":
        (victim.parent / "loop-a").symlink_to(victim.parent / "loop-b")
        (victim.parent / "loop-b").symlink_to(victim.parent / "loop-a")
        (victim.parent / "checkpoint-99").symlink_to(victim.parent / "checkpoint-99")
    elif case.fs == "many":
        for i in range(5_000):  # 20,000 took seconds to lay out and remove, per case
            (victim.parent / f"f{i}.txt").write_bytes(b"")


def snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def signature(exc: BaseException) -> str:
    """Exception type and the innermost traindoc frame: one line per failure class."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "traindoc" in f.filename] or frames
    where = ""
    if ours:
        f = ours[-1]
        where = f" at {f.filename.split('src/')[-1]}:{f.lineno} ({f.name})"
    return f"{type(exc).__name__}{where}: {str(exc)[:120]}"


def warm() -> None:
    """Import what the commands import lazily (torch for preflight's first-batch loss
    takes seconds on a busy machine), so that the 10 s limit times traindoc's work."""
    import contextlib
    import importlib

    names = ("traindoc.cli", "torch", "transformers", "safetensors.torch", "pyarrow.parquet")
    # the seeds' model (preflight --model builds it from config.json: 9 s of imports)
    names += ("transformers.models.gpt2.modeling_gpt2",)
    for name in names:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _alarm(signum, frame):
    raise Hang()


def _opt(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def call(level: str, argv: list[str]) -> None:
    """Run argv below the CLI: the Python API (rules included) or the reader alone.

    Returns normally or raises one of `allowed()`; anything else escaping is a bug.
    """
    import traindoc
    from traindoc import pipeline
    from traindoc.ckpt.api import summarize

    cmd, rest = argv[0], argv[1:]
    if cmd == "diagnose":
        if level == "api":
            traindoc.diagnose(rest[0], pattern=_opt(rest, "--pattern")).to_json()
        else:
            pipeline.load_all(rest[0], pattern=_opt(rest, "--pattern"))
    elif cmd == "ckpt":
        if level == "api":
            traindoc.ckpt(rest[0]).to_json()
        else:
            summarize(Path(rest[0]))
    elif cmd == "compare":
        pipeline.load(rest[0]), pipeline.load(rest[1])
    elif cmd == "data":
        traindoc.audit_data(rest[0], eval=_opt(rest, "--eval")).to_json()
    elif cmd == "preflight":
        traindoc.preflight(
            model=_opt(rest, "--model"),
            config_file=_opt(rest, "--config"),
            data=_opt(rest, "--data"),
            resume=_opt(rest, "--resume"),
        ).to_json()
    else:
        raise ValueError(f"no in-process call for {cmd!r}")


def allowed() -> tuple[type[BaseException], ...]:
    """The errors traindoc's own functions promise for unusable input."""
    from traindoc.ckpt.api import CheckpointError
    from traindoc.data.readers import DataError
    from traindoc.outcome import InputError
    from traindoc.readers import ReadError

    return (ReadError, InputError, CheckpointError, DataError)


def run_case(case: Case, scratch: Path, marker: Path, limit: float = LIMIT_S) -> Outcome:
    """Lay the case out under scratch/in, run it, judge it; scratch is emptied after."""
    root, out = scratch / "in", scratch / "out"
    for p in (root, out):
        shutil.rmtree(p, ignore_errors=True)
        p.mkdir(parents=True)
    try:
        _layout(case, root)
        before = snapshot(root)
        argv = [a.replace("{in}", str(root)).replace("{out}", str(out)) for a in case.argv]
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            judged = _invoke(case.level, argv, str(root))
        except Hang:
            return Outcome("hang", f"over {limit:g} s")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        if marker.exists():
            marker.unlink()
            return Outcome("code", "a payload ran (marker created)")
        if snapshot(root) != before:
            return Outcome("write", "the input directory changed")
        return judged
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


def _invoke(level: str, argv: list[str], root: str) -> Outcome:
    if level != "cli":
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(level, argv)
        except allowed():
            return Outcome("ok", "", 2)
        except Exception as exc:
            return Outcome("traceback", f"[{level}] " + signature(exc), 1)
        return Outcome("ok", "", 0)
    from typer.testing import CliRunner

    from traindoc.cli import app

    res = CliRunner().invoke(app, argv, catch_exceptions=True)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        return Outcome("traceback", signature(res.exception), 1)
    code = res.exit_code
    if code not in (0, 1, 2):
        return Outcome("traceback", f"exit status {code}", code)
    if code == 2:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        if len(lines) != 1:
            return Outcome("stderr", f"exit 2 with {len(lines)} stderr lines: {lines[:3]}", 2)
        named = root in lines[0] or "--pattern" in lines[0]
        if not named:
            return Outcome("stderr", f"exit 2 without naming the input: {lines[0][:200]}", 2)
    return Outcome("ok", "", code)
