#!/usr/bin/env python3
"""A big offline W&B run (.wandb transaction log): traindoc's reader, its peak and speed.

    python bench/wandb_bench.py [--mb 300] [--repeat 2] [--dir /tmp/traindoc-bench]

The log is the corpus' real `wandb-healthy` run (HF's WandbCallback, wandb 0.2x,
offline) grown to size: its run, config, telemetry and exit records kept, its
history rows replaced by one per step as that run wrote them (the same keys and
encoding: HistoryItem nested_key + value_json, a summary record after each):
train/loss, train/learning_rate, train/grad_norm, train/global_step, _step,
_timestamp, _runtime; eval/loss and eval/runtime every 500 steps; a NaN grad
norm now and then. Framed with the fuzz suite's W&B writer (32 KiB blocks,
records split across them, CRCs). Written once under --dir.

wandb itself is not installed here (its own reader needs the service process), so
the references are the physical read of the bytes and the records' framing alone
(traindoc's CRC-checked chunk walk, nothing decoded). Each job runs in its own
process, best time of --repeat, with its peak RSS (VmHWM) and the kept series.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._child import run_child  # noqa: E402

SEED = ROOT / "tests/corpus/wandb-healthy/wandb"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(num: int, payload: bytes) -> bytes:  # length-delimited
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _items(row: dict[str, str]) -> bytes:
    return b"".join(
        _field(1, _field(2, k.encode()) + _field(16, v.encode())) for k, v in row.items()
    )


def write(path: Path, size: int) -> None:
    sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
    from tests.fuzz.formats import wb_join, wb_split
    from traindoc.readers._wandb_log import fields

    seed = next(SEED.glob("offline-run-*/run-*.wandb")).read_bytes()
    recs = wb_split(seed)
    kinds = [dict(fields(r)) for r in recs]
    head = [r for r, k in zip(recs, kinds, strict=True) if not {2, 3, 18} & set(k)]
    tail = [r for r, k in zip(recs, kinds, strict=True) if 18 in k]
    rng = np.random.default_rng(0)
    steps = max(1000, int(size / 450))  # ~450 bytes a step: history + summary record
    out, num = [], len(head)
    for start in range(1, steps + 1, 50_000):
        s = np.arange(start, min(start + 50_000, steps + 1))
        loss = 2 + 8 * np.exp(-s / (steps / 8)) + rng.normal(0, 0.05, s.size)
        gn = np.abs(rng.normal(1, 0.3, s.size))
        lr = 4e-4 * np.minimum(1, s / 500) * (0.5 + 0.5 * np.cos(np.pi * s / steps))
        for i, st in enumerate(s.tolist()):
            row = {
                "_step": str(st - 1),
                "train/loss": repr(float(loss[i])),
                "train/learning_rate": repr(float(lr[i])),
                "train/grad_norm": "NaN" if st % 100_003 == 0 else repr(float(gn[i])),
                "train/global_step": str(st),
                "_timestamp": repr(1.795976926e9 + 0.31 * st),
                "_runtime": repr(0.31 * st),
            }
            if st % 500 == 0:
                row["eval/loss"] = repr(float(loss[i]) + 0.1)
                row["eval/runtime"] = repr(12.5 + float(gn[i]))
            items = _items(row)
            out.append(_varint(8) + _varint(num) + _field(2, items + _field(2, b"")))
            out.append(_varint(8) + _varint(num + 1) + _field(3, items))
            num += 2
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(wb_join(seed[:7], head + out + tail))


_CHILD = r"""
def peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
import sys, time
from pathlib import Path
sys.path.insert(0, {src!r})
which, path = sys.argv[1], sys.argv[2]
from traindoc.readers import wandb, load_run
from traindoc.readers._base import Notes
from traindoc.readers._wandb_log import records
from traindoc.engine import diagnose
with open("/proc/self/status") as f:
    base = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS"))
t = time.perf_counter()
points, series = 0, ()
if which == "bytes":
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass
elif which == "frames":
    with open(path, "rb") as f:
        points = sum(1 for _ in records(f, Path(path), Notes()))
elif which == "read":
    series = wandb.read(path).series.values()
else:
    series = diagnose(load_run(path)).run.series.values()
dt = time.perf_counter() - t
kept = 0
if series:
    points = sum(len(s) for s in series)
    arrays = {{id(a): a for s in series for a in (s.steps, s.values, s.times) if a is not None}}
    kept = sum(a.nbytes for a in arrays.values())
print(dt, points, peak(), kept, base)
"""


def _run(which: str, path: Path) -> tuple[float, int, int, int, int]:
    return run_child(_CHILD.format(src=str(ROOT / "src")), which, path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=300.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/traindoc-bench"))
    ap.add_argument("--only", nargs="*", help="run only these: bytes frames read diagnose")
    a = ap.parse_args()
    run_dir = a.dir / f"wandb-{a.mb:g}mb" / "wandb" / "offline-run-20260101_000000-bench0001"
    path = run_dir / "run-bench0001.wandb"
    if not path.exists():
        write(path, int(a.mb * 1e6))
    jobs = {
        "bytes": "read the bytes",
        "frames": "records' framing only",
        "read": "traindoc reader",
        "diagnose": "traindoc diagnose",
    }
    if a.only:
        jobs = {k: v for k, v in jobs.items() if k in a.only}
    best: dict[str, tuple[float, int, int, int, int]] = {}
    for _ in range(a.repeat):
        for key in jobs:
            r = _run(key, path)
            if key not in best or r[0] < best[key][0]:
                best[key] = (r[0], r[1], max(r[2], best.get(key, r)[2]), r[3], r[4])
    mb = path.stat().st_size / 1e6
    print(f"{path} ({mb:.0f} MB): best of {a.repeat}, each in its own process, interleaved")
    for key, (t, n, rss, kept, base) in best.items():
        extra = f"{n:>10,} records" if key == "frames" else ""
        if kept:
            extra = (
                f"{n:>10,} points, kept {kept / 1e6:4.0f} MB, peak/kept {rss / kept:.1f}"
                f" ({(rss - base) / kept:.1f} above the {base / 1e6:.0f} MB interpreter)"
            )
        print(
            f"  {jobs[key]:24s} {t:7.2f} s {mb / t:7.1f} MB/s  peak RSS {rss / 1e6:6.0f} MB  {extra}"
        )


if __name__ == "__main__":
    main()
