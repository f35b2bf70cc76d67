#!/usr/bin/env python3
"""Generate traindoc's real TRL GRPO fixtures (tests/corpus/trl-grpo-*).

Each case is a REAL ``trl.GRPOTrainer`` run (TRL 1.16, transformers 5.24) on the
CPU, so rl-no-signal is tested against what TRL really writes. Model: a tiny
GPT-2 built from a config (2 layers, 2 heads, n_embd 64), never downloaded;
tokenizer: a byte-level BPE (vocab 512) trained locally on Python stdlib source.
Prompts: 40-character lines of stdlib docstrings; 4 prompts x 4 generations per
step (effective batch 16), 16-token completions, LR 1e-3 constant, TRL defaults
otherwise (beta 0, loss_type dapo, bf16 flag on). Weights, tokenizer, optimizer and
scheduler files are deleted after the run; kept: trainer_state.json,
config.json, training_args.bin, train_results.json, expected.json.

Cases:

* ``trl-grpo-no-signal``: the reward function returns a constant 0.0 (the
  classic "answer format never parses" bug). Every group of 4 completions
  scores the same: reward_std = 0, advantages = 0, grad_norm = 0 on every step.
  expect: rl-no-signal.
* ``trl-grpo-healthy``: same setup, but the reward is the fraction of
  characters of the completion that are spaces (partial credit, real variance
  inside each group); the policy learns it and the mean reward rises.
  expect: nothing (healthy).

Run with the training venv:

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_rl_fixtures.py          # both
    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_rl_fixtures.py --only trl-grpo-healthy
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixtures import common as mf

ROOT = mf.ROOT
CORPUS = ROOT / "tests" / "corpus"
VOCAB = 512
N_GEN = 4
STEPS = 60
KEEP = {
    "trainer_state.json",
    "config.json",
    "training_args.bin",
    "train_results.json",
    "expected.json",
}


# --------------------------------------------------------------------- pieces


def tokenizer():
    """Byte-level BPE (vocab 512) trained on stdlib source, with eos/pad tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tr = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<|endoftext|>", "<|pad|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    src = mf.text("code").decode("utf-8")
    tok.train_from_iterator(src.splitlines(), trainer=tr)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|pad|>"
    )


def model(tok):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(
        vocab_size=len(tok),
        n_positions=64,
        n_embd=64,
        n_layer=2,
        n_head=2,
        bos_token_id=tok.eos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    return GPT2LMHeadModel(cfg)


def prompts(n: int = 512):
    """Lines of stdlib docstrings (up to 40 characters) as plain-text prompts."""
    from datasets import Dataset

    lines = [ln.strip() for ln in mf.text("prose").decode("utf-8").splitlines()]
    lines = [ln[:40] for ln in lines if len(ln) >= 12]
    return Dataset.from_dict({"prompt": lines[:n]})


def constant_reward(completions, **kw):
    """The bug: looks for '<answer>...</answer>', which this model never writes -> always 0."""
    return [1.0 if "<answer>" in c and "</answer>" in c else 0.0 for c in completions]


def space_reward(completions, **kw):
    """Partial credit: fraction of the completion's characters that are spaces."""
    return [c.count(" ") / max(len(c), 1) for c in completions]


def run(out: Path, reward_fn, lr: float) -> list[dict]:
    import torch

    torch.set_num_threads(1)
    from trl import GRPOConfig, GRPOTrainer

    tok = tokenizer()
    m = model(tok)
    args = GRPOConfig(
        output_dir=str(out),
        max_steps=STEPS,
        learning_rate=lr,
        lr_scheduler_type="constant",
        per_device_train_batch_size=16,  # 4 prompts x 4 generations per step
        num_generations=N_GEN,
        max_completion_length=16,
        temperature=1.0,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
        seed=0,
        data_seed=0,
        dataloader_num_workers=0,
    )
    t = GRPOTrainer(
        model=m,
        reward_funcs=reward_fn,
        args=args,
        train_dataset=prompts(),
        processing_class=tok,
    )
    res = t.train()
    t.save_state()
    t.save_metrics("train", res.metrics)
    t.model.config.to_json_file(str(out / "config.json"))
    if not (out / "training_args.bin").exists():
        torch.save(t.args, out / "training_args.bin")
    for p in sorted(out.rglob("*"), key=lambda q: -len(q.parts)):
        if p.is_file() and p.name not in KEEP:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    return mf.history(out)


def numbers(hist: list[dict]) -> dict:
    """First/last mean reward, reward_std and grad_norm ranges from the real log."""
    logs = [h for h in hist if "reward" in h]

    def col(k):
        return [h[k] for h in logs if k in h]

    r, s, g = col("reward"), col("reward_std"), col("grad_norm")
    q = max(len(r) // 5, 1)
    return {
        "log_points": len(logs),
        "reward_first": r[0],
        "reward_last": r[-1],
        "reward_mean_first_5th": sum(r[:q]) / q,
        "reward_mean_last_5th": sum(r[-q:]) / q,
        "reward_std_min": min(s),
        "reward_std_max": max(s),
        "grad_norm_min": min(g),
        "grad_norm_max": max(g),
        "frac_reward_zero_std_max": max(col("frac_reward_zero_std")),
        "logged_keys": sorted(logs[0]),
    }


# ---------------------------------------------------------------------- cases


def no_signal(out: Path) -> None:
    hist = run(out, constant_reward, lr=1e-3)
    n = numbers(hist)
    mf.expect(
        out,
        ["rl-no-signal"],
        f"TRL 1.16 GRPOTrainer, tiny GPT-2 from a config, {N_GEN} generations per prompt, "
        f"{STEPS} steps, LR 1e-3 constant: the reward function looks for <answer>...</answer> "
        "tags the model never writes, so it always returns 0.0. reward_std is 0 and every "
        "advantage is 0, so grad_norm is 0 on every step: nothing is learned.",
        **n,
    )


def healthy(out: Path) -> None:
    hist = run(out, space_reward, lr=1e-3)
    n = numbers(hist)
    mf.expect(
        out,
        [],
        f"TRL 1.16 GRPOTrainer, same tiny GPT-2 / {N_GEN} generations / {STEPS} steps / "
        "LR 1e-3 constant, but the reward is the fraction of the completion's characters "
        "that are spaces (partial credit): reward_std > 0 and grad_norm > 0 on every step, "
        "and the mean reward rises as the policy learns to emit spaces.",
        **n,
    )


CASES = {"trl-grpo-no-signal": no_signal, "trl-grpo-healthy": healthy}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(CASES), action="append")
    a = ap.parse_args()
    for name in a.only or list(CASES):
        out = mf.fresh(CORPUS / name)
        t0 = time.time()
        CASES[name](out)
        d = json.loads((out / "expected.json").read_text())["numbers"]
        print(
            f"[{name}] {time.time() - t0:.0f}s reward {d['reward_first']:.3f} -> "
            f"{d['reward_last']:.3f} (fifths {d['reward_mean_first_5th']:.3f} -> "
            f"{d['reward_mean_last_5th']:.3f}) reward_std [{d['reward_std_min']:.3g}, "
            f"{d['reward_std_max']:.3g}] grad_norm [{d['grad_norm_min']:.3g}, "
            f"{d['grad_norm_max']:.3g}]",
            flush=True,
        )


if __name__ == "__main__":
    main()
