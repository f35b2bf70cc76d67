"""Stable-Baselines3 / OpenAI baselines Monitor wrapper: monitor.csv, one row per episode.

The file opens with a JSON comment line (`#{"t_start": ..., "env_id": ...}`), then the
header `r,l,t`: the episode's return, its length in env steps and the seconds since
t_start. Several Monitor files of one run (`0.monitor.csv`, `1.monitor.csv`, one per
env) are the same kind; each is read on its own.

The return of one episode is a single sample of a noisy quantity; what a trainer logs
(SB3's rollout/ep_rew_mean) is the mean of the last 100. The reader keeps the episodes'
order and reports the mean return of consecutive windows of episodes, at most
`_POINTS` of them, as `reward`, at the env step the window ends on (the running sum
of the episode lengths), and the mean episode length as `episode_length`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from traindoc.model import Fact, Input, Run, Series
from traindoc.readers._base import Notes, ReadError, to_float

# At most this many windows: enough for a curve's shape, few enough that each window
# averages several episodes (SB3's ep_rew_mean averages 100).
_POINTS = 500


def is_monitor_csv(path: Path) -> bool:
    """A Monitor file: the `#{...t_start...}` comment line, then an `r,l,t` header."""
    try:
        with path.open("rb") as f:
            first = f.readline(4096)
            second = f.readline(256)
    except OSError:
        return False
    cols = [c.strip() for c in second.decode("utf-8", "replace").split(",")]
    return first.startswith(b"#{") and b"t_start" in first and cols[:3] == ["r", "l", "t"]


def read(path: str | Path) -> Run:
    path = Path(path)
    notes = Notes()
    rets: list[float] = []
    lens: list[float] = []
    times: list[float] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            meta_line = f.readline()
            header = [c.strip() for c in f.readline().split(",")]
            if header[:3] != ["r", "l", "t"]:
                raise ReadError(path, "not a Monitor file: no r,l,t header")
            for no, line in enumerate(f, start=3):
                cells = line.rstrip("\n").split(",")
                r, n, t = (to_float(c) for c in [*cells, "", "", ""][:3])
                if r is None or n is None:
                    if line.strip():
                        notes.count(path, "row that is not an episode", no)
                    continue
                rets.append(r)
                lens.append(n)
                times.append(math.nan if t is None else t)
    except OSError as exc:
        raise ReadError(path, f"cannot read: {exc}") from None
    facts: dict[str, Fact] = {"trainer": Fact("sb3-monitor", f"{path.name}: Monitor wrapper")}
    try:
        meta = json.loads(meta_line[1:])
    except ValueError:
        meta = None
    if isinstance(meta, dict) and isinstance(meta.get("env_id"), str):
        notes.add(path, f"env_id {meta['env_id']}")
    series: dict[str, Series] = {}
    if rets:
        r, n, t = np.asarray(rets), np.asarray(lens), np.asarray(times)
        ends = np.cumsum(n)
        k = max(1, math.ceil(r.size / _POINTS))
        cut = np.arange(0, r.size, k)
        steps = ends[np.minimum(cut + k, r.size) - 1]
        series["reward"] = Series.from_arrays(
            "reward",
            steps,
            np.add.reduceat(r, cut) / np.diff(np.r_[cut, r.size]),
            t[np.minimum(cut + k, r.size) - 1],
            str(path),
        )
        series["episode_length"] = Series.from_arrays(
            "episode_length", steps, np.add.reduceat(n, cut) / np.diff(np.r_[cut, r.size])
        )
        if k > 1:
            notes.add(path, f"{r.size} episodes: the mean return of each {k} in a row is read")
    else:
        notes.add(path, "no episode rows")
    counts = {name: len(s) for name, s in series.items()}
    inputs = (Input(str(path), "sb3-monitor", counts),)
    return Run(path.parent.name, series, facts, inputs, notes.build())
