"""Step time of a tiny GPT-2 on the CPU with and without the live callback.

One process, interleaved blocks (baseline, callback, callback + per-layer
sampling every 50 steps, repeated), so drift in CPU speed hits every config
alike. The step time is the wall time between consecutive on_step_end calls of
a timing callback placed first, so Trainer start-up and the first (warm-up)
steps of each block are excluded. Targets (issue 6): < 1% overhead without
sampling, < 5% with sampling every 50 steps.

    python bench/live_overhead.py [--steps 150] [--rounds 5]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10)
    a = ap.parse_args()

    import torch
    from transformers import (
        GPT2Config,
        GPT2LMHeadModel,
        Trainer,
        TrainerCallback,
        TrainingArguments,
    )
    from transformers.utils import logging as hf_logging

    from traindoc.integrations.hf import TraindocCallback

    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    seq = 16
    data = [
        {
            "input_ids": (torch.arange(seq) * (i + 1) % 5000),
            "labels": (torch.arange(seq) * (i + 1) % 5000),
        }
        for i in range(512)
    ]

    class Clock(TrainerCallback):
        def __init__(self) -> None:
            self.times: list[float] = []

        def on_step_end(self, *args, **kw):
            self.times.append(time.perf_counter())

    def block(kind: str, out: str) -> list[float]:
        cfg = GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=64)
        model = GPT2LMHeadModel(cfg)
        clock = Clock()
        cbs: list = [clock]
        if kind != "baseline":
            cb = TraindocCallback(sample_every=50 if "sampling" in kind else None)
            cbs.append(_timed(cb, inside[kind]))
        args = TrainingArguments(
            output_dir=out,
            max_steps=a.steps,
            per_device_train_batch_size=2,
            learning_rate=1e-3,
            logging_steps=50,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            disable_tqdm=True,
        )
        Trainer(model=model, args=args, train_dataset=data, callbacks=cbs).train()
        t = clock.times[a.warmup :]
        return [y - x for x, y in itertools.pairwise(t)]

    kinds = ("baseline", "callback", "callback+sampling/50")
    steps: dict[str, list[float]] = {k: [] for k in kinds}
    inside: dict[str, list[float]] = {k: [0.0] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for k in kinds if r % 2 == 0 else reversed(kinds):
                steps[k] += block(k, os.path.join(tmp, f"{k.replace('/', '_')}-{r}"))
    base = statistics.fmean(steps["baseline"])
    print(f"tiny GPT-2 (vocab 50257, n_embd 32, 2 layers), CPU, 1 thread, batch 2 x {seq}")
    print(
        f"{'config':24} {'steps':>6} {'mean ms':>9} {'median ms':>10} {'wall diff':>10} "
        f"{'in traindoc':>12}"
    )
    for k in kinds:
        xs = steps[k]
        mean = statistics.fmean(xs)
        n_steps = a.rounds * a.steps
        own = inside[k][0] / n_steps / base * 100
        print(
            f"{k:24} {len(xs):6d} {mean * 1e3:9.2f} {statistics.median(xs) * 1e3:10.2f} "
            f"{(mean / base - 1) * 100:+9.2f}% {own:11.2f}%"
        )
    print(
        "wall diff: mean step time vs baseline (noisy on a shared CPU); in traindoc: time "
        "spent inside the callback's hooks per step, as a share of the baseline step"
    )


def _timed(cb, acc: list[float]):
    """Wrap the callback's hooks to add up the time spent inside traindoc."""
    import functools

    for name in dir(cb):
        # Start-up (rule registry, files, thread) is once per run, not per step.
        if name.startswith("on_") and name not in ("on_train_begin", "on_train_end"):
            fn = getattr(cb, name)

            @functools.wraps(fn)
            def wrapper(*a, _fn=fn, **kw):
                t0 = time.perf_counter()
                try:
                    return _fn(*a, **kw)
                finally:
                    acc[0] += time.perf_counter() - t0

            setattr(cb, name, wrapper)
    return cb


if __name__ == "__main__":
    main()
