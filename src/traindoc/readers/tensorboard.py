"""TensorBoard event files: torch SummaryWriter, tensorboardX, TF2, Lightning, HF (FORMATS.md 4).

A run is a directory: all its `*tfevents*` files are merged, with those in its
sub-directories (torch `add_scalars(main, {k: v})` writes `<main>_<k>/`,
`add_hparams` a timestamped one; Keras writes `train/` and `validation/`, whose
`epoch_loss` tags become loss and val_loss). A resume that starts a new dated dir
(`runs/<%b%d_%H-%M-%S>_<host>`, SummaryWriter's and HF's default) is read with
the dirs it continues, as one run resumed there. Every point is kept: no reservoir sampling
(EventAccumulator's default keeps 10,000 per tag) and no orphan purging at a
step regression (the data server's): a step going back within a tag is a
resume, kept and named in the `resume_steps` fact. Both simple_value and
tensor scalars (torch new_style / torchtune, TF2) are read. HF's
`args/text_summary` text (TrainingArguments JSON) and `model_config/text_summary`
give facts, like training_args.bin and config.json do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from traindoc.model import Fact, Input, Run, Series
from traindoc.model.signals import Signal, canonical
from traindoc.readers import _sidefiles, configs
from traindoc.readers._base import Notes, ReadError
from traindoc.readers._progress import progress
from traindoc.readers._tbevents import decode, decode_fast
from traindoc.readers._tbruns import chain, event_files, find_runs, first_step, is_event_file
from traindoc.readers._tfrecord import blocks
from traindoc.readers.training_args import facts_from_args


def _key(run: Path, f: Path, tag: str) -> tuple[str, str]:
    """(series key, writer dir): sub-writer dirs (`add_scalars`) name their tag's variant."""
    rel = f.parent.relative_to(run).as_posix() if run.is_dir() else "."
    return _subkey(rel, f.parent.name, tag), rel


def _subkey(rel: str, sub: str, tag: str) -> str:
    if rel == ".":
        return tag
    if rel in _KERAS:  # renamed once every file is read (_keras)
        return tag
    main = tag.replace("/", "_") + "_"
    if sub.startswith(main):  # add_scalars("loss", {"train": ..}) -> dir loss_train, tag loss
        k = sub[len(main) :]
        for cand in (f"{k}/{tag}", f"{tag}/{k}", f"{k}_{tag}"):
            if canonical(cand) != cand.lower():
                return cand
        return f"{tag}/{k}"
    return tag if re.fullmatch(r"[\d.]+", sub) else f"{rel}/{tag}"  # add_hparams: time.time()


_SCALAR_PLUGINS = ("scalars", "")
_KERAS = ("train", "validation")  # Keras's TensorBoard callback writer dirs


class _Acc:
    """Points per series key, in file order, plus text summaries and step regressions."""

    def __init__(self) -> None:
        # (tag key, writer dir relative to the run): add_scalars sub-writers stay apart
        self.parts: dict[tuple[str, str], list[tuple[np.ndarray, ...]]] = {}
        self.texts: dict[str, str] = {}
        self.drops: dict[str, list[tuple[int, int, str]]] = {}
        self.tags: dict[tuple[str, str], str] = {}  # the tag as written, for the source

    def add(self, key: tuple[str, str], steps: Any, values: Any, walls: Any) -> None:
        self.parts.setdefault(key, []).append(
            (np.asarray(steps, np.int64), np.asarray(values, np.float64), np.asarray(walls))
        )


def read(path: str | Path) -> Run:
    path = Path(path)
    notes, acc, inputs = Notes(), _Acc(), []
    if path.is_dir() and not any(is_event_file(p) for p in path.iterdir()):
        runs = find_runs(path)  # a folder above the run (lightning_logs/, runs/)
        if runs:
            if len(runs) > 1:
                others = ", ".join(str(r) for r in runs[1:4])
                notes.add(path, f"{len(runs)} runs here; read {runs[0]}, not: {others}")
            path = runs[0]
    members = chain(path)
    files = [(m, f) for m in members for f in event_files(m)]
    if not files:
        raise ReadError(path, "no TensorBoard event files (*tfevents*) here")
    for m, f in files:
        try:
            with f.open("rb") as fh, progress(f) as seen:
                inputs.append(Input(str(f), "tensorboard"))
                _read_file(m, f, fh, acc, notes, seen)
        except OSError as exc:
            notes.add(f, f"not read: {exc.strerror or exc}")  # kept: the blocks before it
    if not acc.parts and not acc.texts:  # nothing to diagnose: say why, not "healthy"
        if len(files) == 1 and not inputs:
            raise ReadError(files[0][1], "cannot read the event file")
        why = "; ".join(f"{Path(n.path).name}: {n.message}" for n in notes.build()[:2])
        n = len(inputs)
        raise ReadError(
            path,
            f"no scalar values in its {n} event file{'s' * (n != 1)}"
            + (f" ({why})" if why else ""),
        )
    _keras(acc, path, notes)
    series, facts = _series(acc, notes)
    if len(members) > 1:
        _resumed(members, facts, notes)
    _facts(path, acc, facts, notes, inputs)
    name = path.name if path.is_dir() else path.parent.name
    return Run(name, series, facts, tuple(inputs), notes.build())


def _resumed(members: list[Path], facts: dict[str, Fact], notes: Notes) -> None:
    """A chain of dated writer dirs: each later one is a resume at its first step."""
    starts = {m.name: first_step(m) for m in members[1:]}
    old = facts.get("resume_steps")
    steps = {*(old.value if old else ()), *(s for s in starts.values() if s is not None)}
    where = ", ".join(f"{name} from step {s}" for name, s in starts.items())
    facts["resume_steps"] = Fact(tuple(sorted(steps)), f"tensorboard: resumed in {where}")
    notes.add(
        members[-1], f"read with the dirs it resumes: {', '.join(m.name for m in members[:-1])}"
    )


def _read_file(
    run: Path, f: Path, fh: BinaryIO, acc: _Acc, notes: Notes, seen: Callable[[int], None]
) -> None:
    """One event file, a block of whole records at a time: memory is one block's
    worth of per-record arrays plus the points kept."""
    plugin: dict[str, str] = {}  # a tag's plugin, learned from its first full decode
    kept = 0
    for data, offs, lens, problems, base in blocks(fh):
        kept += offs.size
        for msg in problems:
            notes.add(
                f,
                f"{msg}; kept the {kept} records before it"
                if "stopped" in msg or "truncated" in msg
                else msg,
            )
        if offs.size:
            _read_block(run, f, data, offs, lens, base, acc, notes, plugin)
        seen(base + len(data))


def _read_block(
    run: Path,
    f: Path,
    data: bytes,
    offs: np.ndarray,
    lens: np.ndarray,
    base: int,
    acc: _Acc,
    notes: Notes,
    plugin: dict[str, str],
) -> None:
    fast = decode_fast(data, offs, lens)
    slow: dict[str, list[tuple[int, int, float, float]]] = {}
    for i in fast["rest"].tolist():
        o = int(offs[i])
        try:
            wall, step, values = decode(data[o : o + int(lens[i])])
        except (ValueError, IndexError, TypeError):
            notes.count(f, "malformed event record", None, f"first at byte {base + o - 12}")
            continue
        for tag, kind, value, plug in values:
            if plug:
                plugin.setdefault(tag, plug)
            if kind == "scalar" and (plug or plugin.get(tag, "")) in _SCALAR_PLUGINS:
                slow.setdefault(tag, []).append((i, step, value, wall))
            elif kind == "text":
                acc.texts[tag] = value
    tags = [t.decode("utf-8", errors="replace") for t in fast["tags"]]
    if len(tags) <= 64:  # a few passes beat one sort of a million ids
        groups = [np.flatnonzero(fast["tag"] == t) for t in range(len(tags))]
    else:
        order = np.argsort(fast["tag"], kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(fast["tag"][order])) + 1)
    for rows in groups if fast["tag"].size else []:
        tag = tags[int(fast["tag"][rows[0]])]
        tensor = fast["tensor"][rows]
        if tensor.any() and tag not in plugin:  # learn its plugin from one full decode
            i = int(fast["idx"][rows[tensor.argmax()]])
            o = int(offs[i])
            plugin[tag] = next((v[3] for v in decode(data[o : o + int(lens[i])])[2]), "")
        if plugin.get(tag, "") not in _SCALAR_PLUGINS:
            rows = rows[~tensor]
        idx, steps, vals, walls = (fast[k][rows] for k in ("idx", "step", "value", "wall"))
        if tag in slow:  # the same tag also in odd layouts: merge in record order
            extra = np.asarray(slow.pop(tag), dtype=np.float64).T
            idx, steps = np.r_[idx, extra[0]], np.r_[steps, extra[1].astype(np.int64)]
            vals, walls = np.r_[vals, extra[2]], np.r_[walls, extra[3]]
            by = np.argsort(idx, kind="stable")
            steps, vals, walls = steps[by], vals[by], walls[by]
        _add(acc, _key(run, f, tag), steps, vals, walls, f, tag)
    for tag, pts in slow.items():
        arr = np.asarray(pts, dtype=np.float64).T
        _add(acc, _key(run, f, tag), arr[1].astype(np.int64), arr[2], arr[3], f, tag)


def _add(
    acc: _Acc, key: tuple[str, str], steps: np.ndarray, vals: Any, walls: Any, f: Path, tag: str
) -> None:
    if not steps.size:
        return
    acc.tags.setdefault(key, tag)
    prev = acc.parts[key][-1][0][-1] if key in acc.parts else None
    seq = np.r_[prev, steps] if prev is not None else steps
    for j in np.flatnonzero(seq[1:] < seq[:-1])[:20].tolist():
        acc.drops.setdefault(f.name, []).append((int(seq[j]), int(seq[j + 1]), key[0]))
    acc.add(key, steps, vals, walls)


def _keras(acc: _Acc, path: Path, notes: Notes) -> None:
    """Keras writes epoch_loss to train/ and validation/ on the epoch axis, and with
    update_freq per batch also batch_* and evaluation_*_vs_iterations on the
    iteration axis. Keep one axis (iterations when logged: more points) and name
    its series loss, val_loss, ...; the other axis's copies are dropped. Other
    tags in train/ (a torch writer that happens to use that dir) stay as they are."""
    keras = [k for k in acc.parts if k[1] in _KERAS]
    per_batch = any(t.startswith("batch_") and w == "train" for t, w in keras)
    axes = [
        {"train": r"epoch_(.+)", "validation": r"epoch_(.+)"},
        {"train": r"batch_(.+)", "validation": r"evaluation_(.+)_vs_iterations"},
    ]
    keep, other = (axes[1], axes[0]) if per_batch else (axes[0], axes[1])
    dropped = []
    for key in keras:
        tag, writer = key
        if m := re.fullmatch(keep[writer], tag):
            name = m.group(1) if writer == "train" else f"val_{m.group(1)}"
            acc.parts[(name, ".")] = acc.parts.pop(key)
            acc.tags[(name, ".")] = f"{writer}/{tag}"
        elif re.fullmatch(other[writer], tag):
            del acc.parts[key]
            dropped.append(f"{writer}/{tag}")
    if dropped:
        axis = "iteration" if per_batch else "epoch"
        notes.add(path, f"Keras logs: read on the {axis} axis; not read: {', '.join(dropped)}")


def _rank(key: tuple[str, str], name: str) -> tuple[int, int, str]:
    """Who owns a canonical name: the main writer first; Lightning's *_step for train
    signals, epoch/bare for eval."""
    low = key[0].lower()
    if name.startswith("eval"):
        kind = 2 if low.endswith("_step") else 0
    else:
        kind = 0 if low == name or low.endswith("_step") else 1
    return (key[1] != ".", kind, low)


# A loss tag that says how often it is logged ("Train/Loss per Iteration", "Train/Average
# Loss per Epoch"): one loss at two granularities, which derived.py would otherwise sum
# as parts. Kept to loss tags, so "Time per Iteration" stays a time.
_GRAIN = re.compile(
    r"^(.*?)(?:\b(?:average|avg|mean)\s+)?(loss)\s+per\s+(?:iteration|iter|step|batch|epoch)$", re.I
)


# An evaluation's return by its tag (separators dropped): CS285's Eval_AverageReturn,
# SB3's eval/mean_reward, "eval/return", "eval_return", Spinning Up's AverageTestEpRet,
# "test/episode_reward". It is read as eval_reward (the text reader's name for it), the
# return of the deterministic test episodes beside the training episodes' reward; not
# an eval's max / min / std of the returns.
_EVAL_RETURN = re.compile(
    r"^(?:(?:eval|evaluation|test)(?:avg|average|mean)?(?:episode|episodic|ep)?"
    r"|(?:avg|average|mean)(?:test|eval)(?:episode|episodic|ep)?)"
    r"(?:reward|return|rew|ret)s?(?:mean|avg|average)?$"
)


def _signal(tag: str) -> tuple[str, bool]:
    """(canonical name, whether the tag names it exactly)."""
    c = canonical(tag)
    if c == tag.strip().lower() and _EVAL_RETURN.match(re.sub(r"[\s_/.\-]", "", c)):
        return "eval_reward", True
    if c == tag.strip().lower() and (m := _GRAIN.match(tag.strip())):
        plain = canonical(m.group(1) + m.group(2))
        if plain in (Signal.LOSS.value, Signal.EVAL_LOSS.value):
            return plain, False
    return c, True


def _series(acc: _Acc, notes: Notes) -> tuple[dict[str, Series], dict[str, Fact]]:
    owner: dict[str, tuple[str, str]] = {}

    def order(k: tuple[str, str]) -> tuple:
        name, exact = _signal(k[0])
        n = sum(p[0].size for p in acc.parts[k])  # the finest of a loss's granularities
        return (not exact, *_rank(k, name)[:2], -n if not exact else 0, k[0].lower())

    for key in sorted(acc.parts, key=order):
        owner.setdefault(_signal(key[0])[0], key)
    series = {}
    for key, parts in acc.parts.items():
        sig = _signal(key[0])[0]
        name = sig if owner[sig] == key else key[0].strip().lower()
        if name in series or (name != sig and name in owner):
            name = f"{key[1]}/{key[0]}".lower()  # a sub-writer's tag that the main one also has
        steps, vals, walls = (np.concatenate([p[i] for p in parts]) for i in range(3))
        tag = acc.tags.get(key, key[0])
        where = tag if key[1] == "." else f"{key[1]}/ {tag}"
        series[name] = Series.from_arrays(name, steps, vals, walls, f"tensorboard: {where}")
    fine = owner.get(Signal.LOSS.value)
    if fine is not None and not _signal(fine[0])[1]:
        coarse = [
            k[0].strip().lower()
            for k in acc.parts
            if k != fine and _signal(k[0]) == (Signal.LOSS.value, False)
        ]
        for c in coarse:
            if c in series:
                _on_iterations(series, series[Signal.LOSS.value], series[c])
    facts = {}
    if acc.drops:
        firsts = {f: min(d[1] for d in drops) for f, drops in acc.drops.items()}
        where = "; ".join(
            f"{a}->{b} in {k!r} ({f})" for f, d in acc.drops.items() for a, b, k in d[:1]
        )
        facts["resume_steps"] = Fact(
            tuple(sorted(set(firsts.values()))), f"tensorboard: step went back: {where}"
        )
    return series, facts


def _on_iterations(series: dict[str, Series], fine: Series, coarse: Series) -> None:
    """A writer that logs its loss per iteration and per epoch puts the epoch's tags (the
    epoch loss, test accuracy, LR) on the epoch axis, 1..300 beside 1..14,700: read
    against the loss they would sit at the first epochs' iterations. Each such point
    moves to the last iteration logged before it (by wall time), in place. A series
    moves when its steps are all epoch steps and it has wall times."""
    if fine.times is None or coarse.times is None or not len(coarse) or not len(fine):
        return
    if np.any(np.diff(fine.times) < 0) or 2 * coarse.steps.max() > fine.steps.max():
        return
    epochs = coarse.steps
    for name, s in list(series.items()):
        if s is fine or s.times is None or not np.isin(s.steps, epochs).all():
            continue
        at = np.searchsorted(fine.times, s.times, side="right") - 1
        if np.any(at < 0) or np.any(np.diff(at) <= 0):
            continue  # logged before any iteration, or two in one iteration: leave it
        src = f"{s.source} (epoch axis: at the iteration logged before it)"
        series[name] = Series.from_arrays(name, fine.steps[at], s.values, s.times, src)


def _facts(path: Path, acc: _Acc, facts: dict[str, Fact], notes: Notes, inputs: list) -> None:
    trainer, src = "tensorboard", "event files"
    for tag, text in acc.texts.items():
        if tag.endswith(("args/text_summary", "model_config/text_summary")):
            try:
                data = json.loads(text)
            except ValueError as exc:
                notes.add(path, f"{tag}: not JSON ({exc}); no facts taken from it")
                continue
            if not isinstance(data, dict):
                continue
            if tag.endswith("args/text_summary") and "learning_rate" in data:
                facts.update(facts_from_args(data, tag))
                trainer, src = "hf", f"{tag}: HF TrainingArguments"
            else:
                versions: dict[str, str] = {}
                _sidefiles._config(data, tag, facts, versions)
                if versions:
                    facts["versions"] = Fact(versions, tag)
    hp = (path if path.is_dir() else path.parent) / "hparams.yaml"
    if hp.is_file() and (cfg := configs.load(hp, notes)) is not None:
        inputs.append(Input(str(hp), "lightning-hparams"))
        for k, v in configs.facts_from(cfg, hp.name).items():
            facts.setdefault(k, v)
        trainer, src = (
            "lightning",
            "hparams.yaml next to the event files: Lightning TensorBoardLogger",
        )
    facts["trainer"] = Fact(trainer, src)
