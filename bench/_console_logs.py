"""Console logs shaped like real ones, for the console benchmarks.

`hf_tqdm`: HF Trainer's stdout as captured by `tee`: a tqdm bar redrawn with
`\\r` after every step, a printed dict every `every` steps, an eval bar and
dict every 500 steps. `litgpt`: one line per micro-batch, `iter N step M:
loss X, iter time: Tms`. Both are deterministic for a given size.
"""

from __future__ import annotations

import math


def hf_tqdm(steps: int, every: int = 10, total: int = 100_000, start: int = 0) -> bytes:
    out = []
    for s in range(start + 1, start + steps + 1):
        pct = int(100 * s / total)
        bar = "█" * (pct // 10) + " " * (10 - pct // 10)
        out.append(f"\r{pct:3d}%|{bar}| {s}/{total} [12:34<56:07,  {3 + s % 7 / 10:.2f}it/s]")
        if s % every == 0:
            loss = 2.0 + 8 * math.exp(-s / 3000) + 0.05 * math.sin(s)
            out.append(
                f"\r{' ' * 60}\r{{'loss': '{loss:.4g}', 'grad_norm': '{1 + 0.3 * math.cos(s):.4g}', "
                f"'learning_rate': '{3e-4 * (1 - s / total):.4g}', 'epoch': '{s / 5000:.4g}'}}\n"
            )
        if s % 500 == 0:
            out.append(
                f"\n{{'eval_loss': '{2.1 + 8 * math.exp(-s / 3000):.4g}', 'eval_runtime': '3.2', 'epoch': '{s / 5000:.4g}'}}\n"
            )
    return "".join(out).encode()


def litgpt(iters: int, accum: int = 4, start: int = 0) -> bytes:
    out = []
    for i in range(start + 1, start + iters + 1):
        loss = 2.0 + 8 * math.exp(-i / 20000) + 0.05 * math.sin(i)
        tail = " (optimizer.step)" if i % accum == 0 else ""
        out.append(
            f"iter {i} step {i // accum}: loss {loss:.4f}, iter time: {200 + i % 17:.2f}ms{tail}\n"
        )
    return "".join(out).encode()


def write(f, size: int, make, unit: int) -> tuple[int, int]:
    """Write `make(unit, start=...)` blocks, steps numbered on, until `size` bytes;
    (bytes written, last step)."""
    written = start = 0
    while written < size:
        block = make(unit, start=start)
        f.write(block)
        written += len(block)
        start += unit
    return written, start
