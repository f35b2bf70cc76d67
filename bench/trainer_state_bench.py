#!/usr/bin/env python3
"""A big HF trainer_state.json: traindoc's streamed reader vs json.load and the old reader.

    python bench/trainer_state_bench.py [--mb 100] [--repeat 2] [--dir /tmp/traindoc-bench]

The file is what `transformers.Trainer` writes with logging_steps=1 (its own
`json.dumps(state, indent=2, sort_keys=True)` layout): an entry per step with epoch,
grad_norm (full repr, a NaN now and then as the bare token), learning_rate, loss
(4 decimals, as HF rounds it) and step; an eval entry every 500 steps (eval_loss,
eval_runtime, eval_samples_per_second, eval_steps_per_second); the train_runtime
summary last; the state's other keys around log_history. ~100 MB is ~610k steps.
Written once under --dir (never into the repository).

Each reader runs in its own process, interleaved, best time of --repeat, with its
peak RSS (VmHWM): reading the bytes (the physical reference), `json.load` of the
file (what a script would do, nothing kept after), the pre-streaming reader
(tests/readers/hf_reference.py: json.load of the whole state, then columns),
traindoc's streamed reader, and `traindoc diagnose` end to end. "kept" is the bytes
of the series the reader returns (steps shared by keys logged together count once).
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
    steps = max(1000, int(size / 163))  # ~163 bytes a train entry, evals included
    head = (
        '{\n  "best_global_step": null,\n  "best_metric": null,\n'
        '  "best_model_checkpoint": null,\n'
        f'  "epoch": 3.0,\n  "eval_steps": 500,\n  "global_step": {steps},\n'
        '  "is_hyper_param_search": false,\n  "is_local_process_zero": true,\n'
        '  "is_world_process_zero": true,\n  "log_history": [\n'
    )
    tail = (
        f'  ],\n  "logging_steps": 1,\n  "max_steps": {steps},\n'
        '  "num_input_tokens_seen": 0,\n  "num_train_epochs": 3,\n  "save_steps": 500,\n'
        '  "stateful_callbacks": {\n    "TrainerControl": {\n      "args": {\n'
        '        "should_epoch_stop": false,\n        "should_evaluate": false,\n'
        '        "should_log": false,\n        "should_save": true,\n'
        '        "should_training_stop": true\n      },\n      "attributes": {}\n    }\n'
        '  },\n  "total_flos": 1.2345678901234568e+17,\n  "train_batch_size": 8,\n'
        '  "trial_name": null,\n  "trial_params": null\n}\n'
    )
    with path.open("w") as f:
        f.write(head)
        for start in range(1, steps + 1, 100_000):
            s = np.arange(start, min(start + 100_000, steps + 1))
            n = s.size
            loss = np.round(2 + 8 * np.exp(-s / (steps / 8)) + rng.normal(0, 0.05, n), 4)
            gn = np.abs(rng.normal(1, 0.3, n))
            lr = 5e-5 * np.minimum(1, s / 500) * (0.5 + 0.5 * np.cos(np.pi * s / steps))
            ep = np.round(3 * s / steps, 4)
            loss, gn, lr, ep = loss.tolist(), gn.tolist(), lr.tolist(), ep.tolist()
            out = []
            for i, st in enumerate(s.tolist()):
                g = "NaN" if st % 100_003 == 0 else repr(gn[i])
                sep = "" if st == 1 else ",\n"
                out.append(
                    f'{sep}    {{\n      "epoch": {ep[i]!r},\n      "grad_norm": {g},\n'
                    f'      "learning_rate": {lr[i]!r},\n      "loss": {loss[i]!r},\n'
                    f'      "step": {st}\n    }}'
                )
                if st % 500 == 0:
                    out.append(
                        f',\n    {{\n      "epoch": {ep[i]!r},\n'
                        f'      "eval_loss": {loss[i] + 0.1!r},\n'
                        f'      "eval_runtime": {12 + gn[i]!r},\n'
                        f'      "eval_samples_per_second": {160.5 + gn[i]!r},\n'
                        f'      "eval_steps_per_second": {20.1 + gn[i]!r},\n'
                        f'      "step": {st}\n    }}'
                    )
            f.write("".join(out))
        f.write(
            f',\n    {{\n      "epoch": 3.0,\n      "step": {steps},\n'
            '      "total_flos": 1.2345678901234568e+17,\n      "train_loss": 2.91,\n'
            '      "train_runtime": 81234.5,\n      "train_samples_per_second": 73.1,\n'
            '      "train_steps_per_second": 9.1\n    }\n'
        )
        f.write(tail)


_CHILD = r"""
def peak():
    # VmHWM: this process's own high-water mark (ru_maxrss keeps the parent's across exec)
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
import json, resource, sys, time
sys.path[:0] = [{src!r}, {root!r}]
which, path = sys.argv[1], sys.argv[2]
if which in ("read", "diagnose"):
    from traindoc.readers import hf_trainer, load_run
    from traindoc.engine import diagnose
elif which == "old":
    from tests.readers import hf_reference
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
        points = sum(len(e) - 1 for e in json.load(f)["log_history"])
elif which == "old":
    series = hf_reference.read(path).series.values()
elif which == "read":
    series = hf_trainer.read(path).series.values()
else:
    series = diagnose(load_run(path)).run.series.values()
dt = time.perf_counter() - t
kept = 0
if which in ("old", "read", "diagnose"):
    points = sum(len(s) for s in series)
    arrays = {{id(a): a for s in series for a in (s.steps, s.values, s.times) if a is not None}}
    kept = sum(a.nbytes for a in arrays.values())
print(dt, points, peak(), kept, base)
"""


def _run(which: str, path: Path) -> tuple[float, int, int, int, int]:
    return run_child(_CHILD.format(src=str(ROOT / "src"), root=str(ROOT)), which, path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/traindoc-bench"))
    ap.add_argument("--only", nargs="*", help="run only these: bytes json old read diagnose")
    a = ap.parse_args()
    path = a.dir / f"hf-{a.mb:g}mb" / "trainer_state.json"
    if not path.exists():
        write(path, int(a.mb * 1e6))
    jobs = {
        "bytes": "read the bytes",
        "json": "json.load",
        "old": "old reader (json.load)",
        "read": "traindoc reader",
        "diagnose": "traindoc diagnose",
    }
    if a.only:
        jobs = {k: v for k, v in jobs.items() if k in a.only}
    best: dict[str, tuple[float, int, int, int, int]] = {}
    for _ in range(a.repeat):  # interleaved: a noisy moment hits every reader alike
        for key in jobs:
            r = _run(key, path)
            if key not in best or r[0] < best[key][0]:
                best[key] = (r[0], r[1], max(r[2], best.get(key, r)[2]), r[3], r[4])
    mb = path.stat().st_size / 1e6
    print(f"{path} ({mb:.0f} MB): best of {a.repeat}, each in its own process, interleaved")
    for key, (t, n, rss, kept, base) in best.items():
        extra = ""
        if kept:  # above the interpreter: what reading this file cost
            extra = (
                f"{n:>10,} points, kept {kept / 1e6:4.0f} MB, peak/kept {rss / kept:.1f}"
                f" ({(rss - base) / kept:.1f} above the {base / 1e6:.0f} MB interpreter)"
            )
        print(
            f"  {jobs[key]:24s} {t:7.2f} s {mb / t:7.1f} MB/s  peak RSS {rss / 1e6:6.0f} MB  {extra}"
        )
    for ref in ("json", "old"):
        if ref in best and "read" in best:
            print(f"  traindoc reader vs {jobs[ref]}: {best[ref][0] / best['read'][0]:.2f}x")


if __name__ == "__main__":
    main()
