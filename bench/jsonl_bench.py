#!/usr/bin/env python3
"""JSONL metrics logs of real size: traindoc's reader vs json.loads per line and pandas.

    python bench/jsonl_bench.py [--gb 1] [--repeat 2] [--dir /tmp/traindoc-bench]

The log is what a custom loop or HF's on_log callback writes: a line per step with
loss (4 decimals, as HF rounds it), grad_norm and learning_rate at full float repr,
epoch and step; eval_loss, eval_runtime, eval_samples_per_second every 500 steps; a
NaN grad_norm now and then (Python's json writes the bare token). Written once under
--dir (never into the repository): 1 GB and a 100 MB slice for pandas
(read_json(lines=True) on 1 GB needs several times the file in memory).

Each reader runs in its own process, interleaved, best time of --repeat, with its peak
RSS: reading the bytes (the physical reference), a bare `json.loads` per line (nothing
kept), traindoc's JSONL reader, `traindoc diagnose` end to end, and pandas on 100 MB.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._child import run_child  # noqa: E402


def write(path: Path, size: int) -> None:
    rng = np.random.default_rng(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    step, done = 0, 0
    with path.open("w") as f:
        while done < size:
            n = 100_000
            s = np.arange(step + 1, step + n + 1)
            loss = np.round(2 + 8 * np.exp(-s / 2e6) + rng.normal(0, 0.05, n), 4)
            gn = np.abs(rng.normal(1, 0.3, n))
            lr = 3e-4 * np.minimum(1, s / 2000) * (0.5 + 0.5 * np.cos(np.pi * s / 2e7))
            ep = np.round(s / 3e6, 2)
            loss, gn, lr, ep = loss.tolist(), gn.tolist(), lr.tolist(), ep.tolist()
            lines = []
            for i, st in enumerate(s.tolist()):
                g = "NaN" if st % 100_003 == 0 else repr(gn[i])
                lines.append(
                    f'{{"loss": {loss[i]!r}, "grad_norm": {g}, "learning_rate": {lr[i]!r}, '
                    f'"epoch": {ep[i]!r}, "step": {st}}}\n'
                )
                if st % 500 == 0:
                    lines.append(
                        f'{{"eval_loss": {loss[i] + 0.1!r}, "eval_runtime": {12 + gn[i]!r}, '
                        f'"eval_samples_per_second": {160.5 + gn[i]!r}, "epoch": {ep[i]!r}, '
                        f'"step": {st}}}\n'
                    )
            text = "".join(lines)
            f.write(text)
            done += len(text)
            step += n


_CHILD = r"""
def peak():
    # VmHWM: this process's own high-water mark (ru_maxrss keeps the parent's across exec)
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
import json, resource, sys, time
sys.path.insert(0, {src!r})
which, path = sys.argv[1], sys.argv[2]
if which == "pandas":
    import pandas as pd
elif which in ("read", "diagnose"):
    from traindoc.readers import jsonl, load_run
    from traindoc.engine import diagnose
with open("/proc/self/status") as f:  # the interpreter and imports, before any reading
    base = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS"))
t = time.perf_counter()
points = 0
if which == "bytes":
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass
elif which == "json":
    with open(path, "rb") as f:
        for line in f:
            points += len(json.loads(line)) - 1
elif which == "pandas":
    df = pd.read_json(path, lines=True)
    points = int(df.drop(columns="step").notna().sum().sum())
elif which == "read":
    series = jsonl.read(path).series.values()
else:
    series = diagnose(load_run(path)).run.series.values()
dt = time.perf_counter() - t
kept = 0
if which in ("read", "diagnose"):
    points = sum(len(s) for s in series)
    arrays = {{id(a): a for s in series for a in (s.steps, s.values, s.times) if a is not None}}
    kept = sum(a.nbytes for a in arrays.values())  # steps shared by keys logged together
print(dt, points, peak(), kept, base)
"""


def _run(which: str, path: Path) -> tuple[float, int, int, int, int]:
    return run_child(_CHILD.format(src=str(ROOT / "src")), which, path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="run only these: bytes json read diagnose pandas")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/traindoc-bench"))
    a = ap.parse_args()
    big = a.dir / f"metrics-{a.gb:g}gb.jsonl"
    small = a.dir / "metrics-100mb.jsonl"
    if not big.exists():
        write(big, int(a.gb * 1e9))
    if not small.exists():
        with big.open("rb") as f, small.open("wb") as g:  # 100 MB of whole lines
            for line in f:
                if g.tell() + len(line) > 100_000_000:
                    break
                g.write(line)
    jobs = {
        "bytes": ("read the bytes", big),
        "json": ("json.loads per line", big),
        "read": ("traindoc reader", big),
        "diagnose": ("traindoc diagnose", big),
        "pandas": ("pandas.read_json", small),
        "read-100": ("traindoc reader", small),
    }
    if a.only:
        jobs = {k: v for k, v in jobs.items() if k.split("-")[0] in a.only or k in a.only}
    best: dict[str, tuple[float, int, int, int, int]] = {}
    for _ in range(a.repeat):  # interleaved: a noisy moment hits every reader alike
        for key, (_, path) in jobs.items():
            r = _run(key.split("-")[0], path)
            if key not in best or r[0] < best[key][0]:
                best[key] = (r[0], r[1], max(r[2], best.get(key, r)[2]), r[3], r[4])
    print(f"best of {a.repeat}, each in its own process, interleaved, on this machine")
    for key, (t, n, rss, kept, base) in best.items():
        label, path = jobs[key]
        mb = path.stat().st_size / 1e6
        extra = ""
        if kept:
            extra = (
                f"{n:>11,} points, kept {kept / 1e6:.0f} MB, peak/kept {rss / kept:.1f}"
                f" ({(rss - base) / kept:.1f} above the {base / 1e6:.0f} MB interpreter)"
            )
        print(
            f"  {mb:5.0f} MB  {label:20s} {t:7.2f} s {mb / t:7.1f} MB/s  "
            f"peak RSS {rss / 1e6:6.0f} MB  {extra}"
        )
    for ref in ("json",):
        if ref in best and "read" in best:
            print(f"  traindoc reader vs {jobs[ref][0]}: {best[ref][0] / best['read'][0]:.2f}x")
    if "pandas" in best and "read-100" in best:
        print(
            f"  traindoc reader vs pandas (100 MB): {best['pandas'][0] / best['read-100'][0]:.2f}x"
        )


if __name__ == "__main__":
    main()
