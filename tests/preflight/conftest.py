"""Tiny real models and checkpoints for preflight tests, made in tmp dirs (seconds, CPU)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
SEED_A = Path(__file__).parents[1] / "ckpt" / "assets" / "seed-a"
ASSETS = Path(__file__).parent / "assets"


def _torch_stack() -> bool:
    from traindoc.preflight.first_batch import available

    return available()


needs_torch = pytest.mark.skipif(not _torch_stack(), reason="needs the torch extra")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GPT-2 with GPT-2's vocabulary (50257), n_embd 32, 2 layers, saved with save_pretrained."""
    if not _torch_stack():
        pytest.skip("needs the torch extra")
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    d = tmp_path_factory.mktemp("gpt2-tiny")
    cfg = GPT2Config(vocab_size=50257, n_embd=32, n_layer=2, n_head=2, n_positions=64)
    GPT2LMHeadModel(cfg).save_pretrained(d)
    return d


@pytest.fixture(scope="session")
def hf_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real HF-Trainer-like checkpoint-300: optimizer.pt, scheduler.pt after 300 steps."""
    if not _torch_stack():
        pytest.skip("needs the torch extra")
    import json

    import torch

    d = tmp_path_factory.mktemp("run") / "checkpoint-300"
    d.mkdir()
    p = torch.nn.Parameter(torch.zeros(4))
    opt = torch.optim.AdamW([p], lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    for _ in range(300):
        p.grad = torch.ones(4)
        opt.step()
        sched.step()
    torch.save(opt.state_dict(), d / "optimizer.pt")
    torch.save(sched.state_dict(), d / "scheduler.pt")
    (d / "rng_state.pth").write_bytes(b"")
    state = {"global_step": 300, "logging_steps": 10, "save_steps": 100, "log_history": []}
    (d / "trainer_state.json").write_text(json.dumps(state))
    return d
