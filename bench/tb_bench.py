#!/usr/bin/env python3
"""TensorBoard on a realistic HF-style event file: traindoc vs tbparse and EventAccumulator.

    python bench/tb_bench.py [--steps 185000] [--repeat 2] [--file PATH]

The file is what HF's TensorBoardCallback writes through torch's SummaryWriter when
logging every step: `train/loss`, `train/learning_rate`, `train/grad_norm`,
`train/epoch` each step, `eval/loss`, `eval/runtime`, `eval/samples_per_second`,
`eval/steps_per_second` every 50 steps, and the `args/text_summary` text first:
185,000 steps = 755k points, ~45 MB. Record lengths vary as in real files (the step
varint grows from 1 to 3 bytes, the eval block breaks any short period). It is made
with traindoc's encoder, which a test checks byte for byte against SummaryWriter
output, once, under .cache/bench/.

Each reader runs in its own process (best time of --repeat; its peak RSS): traindoc's
reader alone, `traindoc diagnose` end to end (read + every rule), tbparse's bare
load (SummaryReader(...).scalars), and EventAccumulator with every point kept. The
values of all must agree exactly. Then the physical reference: reading the bytes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from traindoc.readers._tbevents import encode_scalar, encode_version  # noqa: E402
from traindoc.readers._tfrecord import frame  # noqa: E402

CACHE = ROOT / ".cache" / "bench"
TRAIN = ("train/loss", "train/learning_rate", "train/grad_norm", "train/epoch")
EVAL = ("eval/loss", "eval/runtime", "eval/samples_per_second", "eval/steps_per_second")
T0 = 1_700_000_000.0


def _text(tag: str, text: str, wall: float) -> bytes:
    """add_text's Event: a string tensor under the text plugin (what HF writes for its args)."""
    from traindoc.readers._tbevents import _uvarint as uv

    t, s = tag.encode(), text.encode()
    tensor = b"\x08\x07" + b"\x12\x04\x12\x02\x08\x01" + b"\x42" + uv(len(s)) + s
    plugin = b"\x0a" + uv(6) + b"\x0a\x04text"
    meta = b"\x0a" + uv(len(plugin)) + plugin
    v = b"\x0a" + uv(len(t)) + t + b"\x42" + uv(len(tensor)) + tensor + b"\x4a" + uv(len(meta))
    v += meta
    s2 = b"\x0a" + uv(len(v)) + v
    return b"\x09" + np.float64(wall).tobytes() + b"\x2a" + uv(len(s2)) + s2


def write(path: Path, steps: int) -> None:
    rng = np.random.default_rng(0)
    args = json.dumps({"learning_rate": 3e-4, "warmup_steps": 500, "max_steps": steps}, indent=2)
    with path.open("wb") as f:
        f.write(frame(encode_version(T0)))
        f.write(frame(_text("args/text_summary", args, T0)))
        out = []
        for s in range(1, steps + 1):
            w = T0 + s * 0.35
            loss = 2 + 8 * math.exp(-s / 20_000) + rng.normal(0, 0.05)
            lr = 3e-4 * min(1, s / 500) * (0.5 + 0.5 * math.cos(math.pi * s / steps))
            vals = (loss, lr, abs(rng.normal(1, 0.3)), s / (steps / 3))
            out += [frame(encode_scalar(t, v, s, w)) for t, v in zip(TRAIN, vals, strict=True)]
            if s % 50 == 0:
                ev = (loss + 0.1, 12.3 + rng.random(), 160 + rng.random(), 20 + rng.random())
                out += [frame(encode_scalar(t, v, s, w)) for t, v in zip(EVAL, ev, strict=True)]
            if len(out) > 100_000:
                f.write(b"".join(out))
                out = []
        f.write(b"".join(out))


_CHILD = r"""
def peak():
    # VmHWM: this process's own high-water mark (ru_maxrss keeps the parent's across exec)
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
import resource, sys, time, json
import numpy as np
sys.path.insert(0, {src!r})
which, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
if which == "tbparse":
    from tbparse import SummaryReader
elif which == "accumulator":
    from tensorboard.backend.event_processing import event_accumulator as ea
else:
    from traindoc.readers import tensorboard, load_run
    from traindoc.engine import diagnose
t = time.perf_counter()
res = {{}}
if which == "bytes":
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass
elif which == "tbparse":
    df = SummaryReader(path, pivot=False).scalars
    res = {{tag: (g["step"].to_numpy(np.int64), g["value"].to_numpy(np.float64))
           for tag, g in df.groupby("tag")}}
elif which == "accumulator":
    acc = ea.EventAccumulator(path, size_guidance={{ea.SCALARS: 0, ea.TENSORS: 0}})
    acc.Reload()
    for tag in acc.Tags()["scalars"]:
        pts = acc.Scalars(tag)
        res[tag] = (np.array([p.step for p in pts], np.int64),
                    np.array([p.value for p in pts], np.float64))
elif which == "read":
    run = tensorboard.read(path)
    res = {{s.source.split(": ", 1)[1]: (s.steps, s.values) for s in run.series.values()}}
else:
    d = diagnose(load_run(path))
    res = {{s.source.split(": ", 1)[1]: (s.steps, s.values) for s in d.run.series.values()}}
dt = time.perf_counter() - t
rss = peak()
if out != "-":
    np.savez(out, **{{k.replace("/", "|") + "|" + n: a for k, v in res.items()
                      for n, a in zip(("s", "v"), v)}})
print(dt, sum(len(v[0]) for v in res.values()), rss)
"""


def _run(which: str, path: Path, out: str = "-") -> tuple[float, int, int]:
    code = _CHILD.format(src=str(ROOT / "src"))
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "TF_CPP_MIN_LOG_LEVEL": "3"}
    r = subprocess.run(
        [sys.executable, "-c", code, which, str(path), out],
        capture_output=True,
        text=True,
        env=env,
    )
    if r.returncode:
        sys.exit(f"{which} failed:\n{r.stderr[-2000:]}")
    t, n, rss = r.stdout.split()[-3:]
    return float(t), int(n), int(rss)


def _load(npz: Path) -> dict[str, np.ndarray]:
    with np.load(npz) as z:
        return {k: z[k] for k in z.files}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=185_000)
    ap.add_argument("--file", type=Path, help="an existing event file to read instead")
    ap.add_argument("--repeat", type=int, default=2, help="runs per reader; the best counts")
    a = ap.parse_args()
    path = a.file or CACHE / f"tb-hf-{a.steps}" / "events.out.tfevents.1700000000.bench.1.0"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, a.steps)
    mb = path.stat().st_size / 1e6
    print(f"{path.name}: {mb:.1f} MB, HF-style tags, eval every 50 steps")
    names = {
        "bytes": "read the bytes",
        "read": "traindoc reader",
        "diagnose": "traindoc diagnose",
        "tbparse": "tbparse .scalars",
        "accumulator": "EventAccumulator",
    }
    best: dict[str, tuple[float, int, int]] = {}
    tmp = CACHE / "tb-bench-out"
    tmp.mkdir(parents=True, exist_ok=True)
    for _ in range(a.repeat):  # interleaved, so a noisy moment hits every reader alike
        for which in names:
            r = _run(which, path, str(tmp / f"{which}.npz") if which != "bytes" else "-")
            if which not in best or r[0] < best[which][0]:
                best[which] = (r[0], r[1], max(r[2], best.get(which, r)[2]))
    for which, (t, n, rss) in best.items():
        rate = f"{n / t / 1e3:7.0f} k pts/s" if n else f"{mb / t:7.0f} MB/s  "
        print(
            f"  {names[which]:18s} {t:6.2f} s  {rate}  {n:>8,} points  peak RSS {rss / 1e6:5.0f} MB"
        )
    ref = _load(tmp / "tbparse.npz")
    for which in ("read", "diagnose", "accumulator"):
        got = _load(tmp / f"{which}.npz")
        same = got.keys() == ref.keys() and all(np.array_equal(got[k], ref[k]) for k in ref)
        print(f"  values {names[which]} == tbparse: {same}")
    d, tb, ea = best["diagnose"][0], best["tbparse"][0], best["accumulator"][0]
    print(f"  traindoc diagnose vs tbparse load: {tb / d:.1f}x faster (target >= 10x)")
    print(f"  traindoc diagnose vs EventAccumulator: {ea / d:.1f}x faster")
    print(f"  traindoc reader vs tbparse load: {tb / best['read'][0]:.1f}x faster")
    print(f"  (best of {a.repeat}, each in its own process, interleaved, on this machine)")


if __name__ == "__main__":
    main()
