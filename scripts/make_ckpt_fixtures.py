"""Regenerates tests/ckpt/assets/ from real tiny trainings (needs .venv-train: torch, transformers, peft).

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_ckpt_fixtures.py

Every model is a GPT-2 with vocabulary 256, n_embd 16, 2 layers, trained for a
few dozen steps on a fixed token pattern (CPU, one thread, seconds). The
faults are the ones the checkpoint rules look for; how each is produced is in
tests/ckpt/assets/README.md. Deterministic (seeded); total size ~1 MB.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.set_num_threads(1)
OUT = Path(__file__).resolve().parent.parent / "tests" / "ckpt" / "assets"
V, T = 256, 16


def config(tie: bool = False) -> GPT2Config:
    return GPT2Config(
        vocab_size=V, n_positions=T, n_embd=16, n_layer=2, n_head=2, tie_word_embeddings=tie
    )


def batch(step: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(step)
    start = torch.randint(0, V, (8, 1), generator=g)
    return (start + torch.arange(T)) % V  # next token = this token + 1


def train(model, steps: int, lr: float = 3e-3, params=None, log=None, start: int = 0):
    opt = torch.optim.AdamW(params if params is not None else model.parameters(), lr=lr)
    model.train()
    for s in range(start, start + steps):
        x = batch(s)
        loss = model(input_ids=x, labels=x).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if log is not None:
            log.append({"step": s + 1, "loss": round(float(loss), 4)})
    return model


@torch.no_grad()
def eval_loss(model) -> float:
    model.eval()
    x = batch(10_000)
    return round(float(model(input_ids=x, labels=x).loss), 4)


def save(model, d: Path, step: int | None, log: list, best: str | None = None, dtype=None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    m = model.to(dtype) if dtype is not None else model
    m.save_pretrained(d, safe_serialization=True)
    if dtype is not None:
        model.float()
    if step is None:  # a hand-made copy ("best"): no trainer state
        return
    state = {"global_step": step, "log_history": log, "best_model_checkpoint": best}
    (d / "trainer_state.json").write_text(json.dumps(state, indent=1))


def run_healthy(root: Path) -> None:
    """Two checkpoints of one healthy run (bf16), best_model_checkpoint = the later one."""
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config())
    log: list = []
    train(model, 20, log=log)
    log.append({"step": 20, "eval_loss": eval_loss(model)})
    save(model, root / "checkpoint-20", 20, list(log), dtype=torch.bfloat16)
    train(model, 20, log=log, start=20)
    log.append({"step": 40, "eval_loss": eval_loss(model)})
    best = str(root / "checkpoint-40") if log[-1]["eval_loss"] <= log[20]["eval_loss"] else None
    save(model, root / "checkpoint-40", 40, list(log), best=best, dtype=torch.bfloat16)
    (root / "trainer_state.json").write_text(
        json.dumps({"global_step": 40, "log_history": log, "best_model_checkpoint": best}, indent=1)
    )


def seed_a(root: Path) -> None:
    """Seed A: "best" (after a head-warmup phase) has lm_head std ~13.9; checkpoint-30 is clean."""
    torch.manual_seed(1)
    model = GPT2LMHeadModel(config())
    log: list = []
    train(model, 30, log=log)
    save(model, root / "checkpoint-30", 30, list(log))
    # The head-warmup phase: a real run of the head alone at a reckless LR, then
    # the head blown up to seed A's measured scale (std 13.87).
    head = model.lm_head.weight
    train(model, 10, lr=1.0, params=[head], start=30)
    with torch.no_grad():
        head.mul_(13.87 / float(head.float().std()))
    save(model, root / "best", None, [])


def nan_layer(root: Path) -> None:
    """A NaN-poisoned MLP (h.1.mlp.c_fc): 1 in 7 weights NaN, two +-Inf, as an fp16 overflow leaves it."""
    torch.manual_seed(2)
    model = train(GPT2LMHeadModel(config()), 20)
    with torch.no_grad():
        w = model.transformer.h[1].mlp.c_fc.weight
        w.view(-1)[::7] = float("nan")
        w.view(-1)[1] = float("inf")
        w.view(-1)[2] = float("-inf")
    save(model, root, 20, [])


def frozen(root: Path) -> None:
    """Two checkpoints of one run in which block 0 was accidentally frozen."""
    torch.manual_seed(3)
    model = GPT2LMHeadModel(config())
    for p in model.transformer.h[0].parameters():
        p.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    train(model, 10, params=params)
    save(model, root / "checkpoint-10", 10, [])
    train(model, 10, params=params, start=10)
    save(model, root / "checkpoint-20", 20, [])


def lora(root: Path, trained: bool) -> None:
    """LoRA r=4 on c_attn; the untrained one built its optimizer before get_peft_model (a real bug)."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(4)
    base = train(GPT2LMHeadModel(config()), 10)
    stale = [p for p in base.parameters()]  # the optimizer of the bug: built over the base
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"]))
    lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
    train(model, 20, params=lora_params if trained else stale, lr=1e-2)
    d = root
    model.save_pretrained(d)
    (d / "README.md").unlink(missing_ok=True)  # PEFT's model-card template: noise here
    (d / "trainer_state.json").write_text(json.dumps({"global_step": 20, "log_history": []}))


def extra_formats(root: Path) -> None:
    """The same tiny model as sharded safetensors and as a torch zip pytorch_model.bin."""
    torch.manual_seed(5)
    model = train(GPT2LMHeadModel(config()), 10)
    model.save_pretrained(root / "sharded", max_shard_size="40KB")
    (root / "bin").mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), root / "bin" / "pytorch_model.bin")
    model.config.to_json_file(root / "bin" / "config.json")


def main() -> None:
    if OUT.exists():
        for child in OUT.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    run_healthy(OUT / "healthy-run")
    seed_a(OUT / "seed-a")
    nan_layer(OUT / "nan-layer")
    frozen(OUT / "frozen-run")
    lora(OUT / "lora-untrained", trained=False)
    lora(OUT / "lora-trained", trained=True)
    extra_formats(OUT / "formats")
    total = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"wrote {OUT} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
