"""A tiny real training loop shared by the tracker fixture scripts (wandb, mlflow).

Tiny GPT-2 built from a config (vocab 50257, n_embd 32, 2 layers, 2 heads;
never downloaded) on the source text of a few stdlib modules as UTF-8 bytes, so
the uniform floor is ln(50257) = 10.82. Each step calls ``log(step, metrics)``
with loss, lr and grad_norm; the caller sends them to the tracker under test.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

MODULES = ["argparse", "textwrap", "string", "shlex", "calendar", "csv"]


def train(
    log: Callable[[int, dict[str, float]], None],
    *,
    steps: int = 120,
    lr: float = 2e-3,
    warmup: int = 10,
    clip: float | None = 1.0,
    optim: str = "adamw",
    seed: int = 0,
) -> list[float]:
    """Train and log every step; returns the losses (for the expected.json numbers)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    cfg = GPT2Config(
        vocab_size=50257,
        n_embd=32,
        n_layer=2,
        n_head=2,
        n_positions=64,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )
    model = GPT2LMHeadModel(cfg)
    data = "\n".join(inspect.getsource(importlib.import_module(m)) for m in MODULES).encode()
    ids = torch.tensor(list(data), dtype=torch.long)
    x_all = ids[: len(ids) // 32 * 32].view(-1, 32)
    if optim == "sgd":
        opt: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr)
    sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(warmup, 1)))
    g = torch.Generator().manual_seed(seed)
    losses = []
    for step in range(1, steps + 1):
        x = x_all[torch.randint(len(x_all), (4,), generator=g)]
        loss = model(input_ids=x, labels=x).loss
        loss.backward()
        big = float("inf") if clip is None else clip
        gn = float(torch.nn.utils.clip_grad_norm_(model.parameters(), big))
        cur = sch.get_last_lr()[0]
        opt.step()
        sch.step()
        opt.zero_grad()
        losses.append(float(loss))
        log(step, {"loss": float(loss), "lr": cur, "grad_norm": gn})
    return losses
