"""Whole diagnosis of a 1,000,000-step log vs merely loading the same file.

Target (issue 2): diagnosing costs < 1.5x the bare load with the standard json
module (and pandas for JSONL). JSON is parsed with orjson; bare NaN/Infinity
tokens (HF writes them in failing runs) are swapped for stand-in numbers first,
so a log with NaNs is measured too. Both are measured side by side in one run,
alternating, and the medians are compared, because shared machines are noisy.

    python bench/diagnose_bench.py [--steps 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import tempfile
import time
from pathlib import Path

from traindoc.engine import diagnose
from traindoc.readers import load_run


def make_logs(root: Path, steps: int) -> tuple[Path, Path]:
    """A realistic noisy pre-training curve with eval every 500 steps."""
    rng = random.Random(0)
    jsonl = root / "jsonl" / "metrics.jsonl"
    hf = root / "hf" / "trainer_state.json"
    jsonl.parent.mkdir()
    hf.parent.mkdir()
    history = []
    t0 = 1.7e9
    with jsonl.open("w") as f:
        for s in range(1, steps + 1):
            loss = 2.0 + 8.8 * math.exp(-s / (steps / 20)) + rng.gauss(0, 0.05)
            lr = 3e-4 * min(1.0, s / (steps * 0.03)) * (0.5 + 0.5 * math.cos(math.pi * s / steps))
            row = {
                "step": s,
                "loss": round(loss, 4),
                "grad_norm": round(abs(rng.gauss(1, 0.2)), 4),
                "lr": lr,
                "time": t0 + 0.25 * s,
            }
            f.write(json.dumps(row) + "\n")
            history.append(
                {
                    "epoch": s / steps,
                    "grad_norm": row["grad_norm"],
                    "learning_rate": lr,
                    "loss": row["loss"],
                    "step": s,
                }
            )
            if s % 500 == 0:
                history.append({"epoch": s / steps, "eval_loss": loss + 0.05, "step": s})
    state = {
        "global_step": steps,
        "max_steps": steps,
        "logging_steps": 1,
        "eval_steps": 500,
        "save_steps": 10000,
        "train_batch_size": 8,
        "log_history": history,
    }
    hf.write_text(json.dumps(state, indent=2, sort_keys=True))
    # The same log with one NaN grad norm, as HF writes it (a bare NaN token):
    # such files must take Python's json, the slower path.
    history[len(history) // 2]["grad_norm"] = float("nan")
    nan_dir = root / "hf-nan"
    nan_dir.mkdir()
    (nan_dir / "trainer_state.json").write_text(json.dumps(state, indent=2, sort_keys=True))
    return jsonl, hf.parent


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, hf_dir = make_logs(Path(tmp), args.steps)
        state = hf_dir / "trainer_state.json"
        nan_state = hf_dir.parent / "hf-nan" / "trainer_state.json"
        mb = jsonl.stat().st_size / 1e6, state.stat().st_size / 1e6

        def json_lines() -> None:
            with jsonl.open() as f:
                [json.loads(line) for line in f]

        def pandas_lines() -> None:
            import pandas as pd

            pd.read_json(jsonl, lines=True)

        def ours(path: Path):
            return lambda: diagnose(load_run(path))

        jobs = {
            "jsonl: json.loads per line": json_lines,
            "jsonl: pandas.read_json(lines=True)": pandas_lines,
            "jsonl: traindoc diagnose": ours(jsonl),
            "trainer_state: json.load": lambda: json.loads(state.read_text()),
            "trainer_state: traindoc diagnose": ours(hf_dir),
            "trainer_state+NaN: json.load": lambda: json.loads(nan_state.read_text()),
            "trainer_state+NaN: traindoc diagnose": ours(nan_state.parent),
        }
        times: dict[str, list[float]] = {k: [] for k in jobs}
        for _ in range(args.repeat):
            for name, fn in jobs.items():
                times[name].append(timed(fn))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{args.steps:,} steps; JSONL {mb[0]:.0f} MB, trainer_state.json {mb[1]:.0f} MB; "
            f"median of {args.repeat}"
        )
        for k, v in med.items():
            print(f"  {k:<40} {v:7.2f} s")
        j = med["jsonl: traindoc diagnose"]
        print(
            f"ratio jsonl diagnose / json.loads  = {j / med['jsonl: json.loads per line']:.2f}x"
            "  (target < 1.5x)"
        )
        print(
            f"ratio jsonl diagnose / pandas      = {j / med['jsonl: pandas.read_json(lines=True)']:.2f}x"
        )
        h = med["trainer_state: traindoc diagnose"]
        print(
            f"ratio trainer_state diagnose / json.load = {h / med['trainer_state: json.load']:.2f}x"
            "  (target < 1.5x)"
        )
        n = med["trainer_state+NaN: traindoc diagnose"] / med["trainer_state+NaN: json.load"]
        print(f"ratio trainer_state+NaN diagnose / json.load = {n:.2f}x  (target < 1.5x)")


if __name__ == "__main__":
    main()
