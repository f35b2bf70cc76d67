"""Shared tiny-training helpers. Trainings here are real but tiny: a GPT-2 with
GPT-2's real 50,257-token vocabulary (so ln(V) = 10.82, seed A's floor) and
n_embd=32, n_layer=2, n_head=2, on CPU with one thread; a few seconds each."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    torch.manual_seed(0)


def tiny_gpt2(tie: bool = True):
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=64, tie_word_embeddings=tie)
    return GPT2LMHeadModel(cfg)


def lm_data(n: int = 64, seq: int = 16) -> list[dict]:
    """A repetitive token stream a tiny model learns within a few steps."""
    import torch

    base = torch.arange(seq) % 7 + 100
    return [{"input_ids": base.roll(i % 7), "labels": base.roll(i % 7)} for i in range(n)]
