#!/usr/bin/env python3
"""TensorBoard reader speed: traindoc against tbparse and EventAccumulator (every point kept).

    .venv-train/bin/python bench/tb_bench.py [--events 1000000] [--file PATH]

Needs tensorboard and tbparse (the .venv-train has them); traindoc comes from src/.
The file is what torch's SummaryWriter writes for 4 tags x N/4 steps (FORMATS.md 4.5:
`sin(step*1e-3 + i) + 2`), made with traindoc's encoder, which a test checks byte for
byte against SummaryWriter output (writing 1 M events with SummaryWriter takes ~100 s).
Each reader returns every (tag, step, value); all must agree exactly. Each reader runs
--repeat times (default 2) and its best time counts, so first-call imports weigh the same
for everyone; ratios are from one run on this machine.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from traindoc.readers._tbevents import encode_scalar, encode_version
from traindoc.readers._tfrecord import crc32c_many

TAGS = ("train/loss", "train/learning_rate", "train/grad_norm", "eval/loss")
T0 = 1_700_000_000.0


def write(path: Path, n: int) -> None:
    events = [encode_version(T0)]
    for step in range(n // len(TAGS)):
        for i, tag in enumerate(TAGS):
            events.append(encode_scalar(tag, math.sin(step * 1e-3 + i) + 2, step, T0 + step * 0.01))
    lens = np.array([len(e) for e in events], dtype=np.uint64)
    heads = lens.view(np.uint8).reshape(-1, 8)
    hcrc = crc32c_many(heads.ravel(), np.arange(lens.size) * 8, np.full(lens.size, 8))
    blob = b"".join(events)
    starts = np.r_[0, np.cumsum(lens.astype(np.int64))[:-1]]
    dcrc = crc32c_many(np.frombuffer(blob, np.uint8), starts, lens.astype(np.int64))
    with path.open("wb") as f:
        for e, h, a, b in zip(events, heads, hcrc.tolist(), dcrc.tolist(), strict=True):
            f.write(h.tobytes() + a.to_bytes(4, "little") + e + b.to_bytes(4, "little"))


def ours(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from traindoc.readers import tensorboard

    run = tensorboard.read(path)
    return {s.source.split(": ", 1)[1]: (s.steps, s.values) for s in run.series.values()}


def tbparse_(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from tbparse import SummaryReader

    df = SummaryReader(str(path), pivot=False).scalars
    return {
        tag: (g["step"].to_numpy(np.int64), g["value"].to_numpy(np.float64))
        for tag, g in df.groupby("tag")
    }


def accumulator(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(str(path), size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        pts = acc.Scalars(tag)
        out[tag] = (np.array([p.step for p in pts]), np.array([p.value for p in pts]))
    return out


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k][0], b[k][0]) and np.array_equal(a[k][1], b[k][1]) for k in a
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--file", type=Path, help="an existing event file to read instead")
    ap.add_argument("--repeat", type=int, default=2, help="runs per reader; the best counts")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = a.file or Path(tmp) / "events.out.tfevents.1700000000.bench"
        if a.file is None:
            t = time.perf_counter()
            write(path, a.events)
            print(f"wrote {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")
        times, results = {}, {}
        for name, fn in (
            ("traindoc", ours),
            ("tbparse", tbparse_),
            ("EventAccumulator", accumulator),
        ):
            best = math.inf
            for _ in range(a.repeat):  # the best of a few: the first also pays imports
                t = time.perf_counter()
                results[name] = fn(path)
                best = min(best, time.perf_counter() - t)
            times[name] = best
            n = sum(len(v[0]) for v in results[name].values())
            print(
                f"{name:17s} {times[name]:7.2f} s  {n / times[name] / 1e3:8.0f} k events/s  {n} points"
            )
        for name in ("tbparse", "EventAccumulator"):
            ok = same(results["traindoc"], results[name])
            print(
                f"traindoc vs {name}: {times[name] / times['traindoc']:.1f}x faster, identical: {ok}"
            )


if __name__ == "__main__":
    main()
