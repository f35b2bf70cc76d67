#!/usr/bin/env python3
"""Generate traindoc's real-training fixtures (tests/corpus/*, examples/*).

Every case runs a REAL tiny training on the CPU (transformers.Trainer, Lightning,
or a plain PyTorch loop) with a real, deliberately introduced fault, then keeps
only the small artefacts a user would have (trainer_state.json, config.json,
training_args.bin, adapter_config.json, metrics.csv, metrics.jsonl, ...) plus an
``expected.json`` naming the RULES.md ids a correct diagnosis must flag.

Model: GPT-2 built from a config (vocab 50257, n_embd 32, 2 layers, 2 heads),
never downloaded. Data: source text of Python's own stdlib, tokenised as UTF-8
bytes (token id = byte value), so the uniform floor is ln(50257) = 10.8249.

Run with the training venv (see tests/corpus/README.md):

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py            # all
    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py --only seed-a
    .venv-train/bin/python scripts/make_fixtures.py --list

Heavy imports happen inside the functions so ``--list`` is instant.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

LN_V = math.log(50257)
SEQ = 32
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "fixtures"  # /.cache/ is gitignored

# Files a user would have and that we keep; everything else (weights, optimizer,
# rng, scheduler) is deleted after the run to keep the corpus small.
KEEP = {
    "train.jsonl",
    "eval.jsonl",
    "trainer_state.json",
    "config.json",
    "training_args.bin",
    "adapter_config.json",
    "all_results.json",
    "train_results.json",
    "eval_results.json",
    "expected.json",
    "metrics.jsonl",
    "metrics.csv",
    "hparams.yaml",
    "run_config.json",
    "stdout.log",
    "tensor_stats.json",
}


# --------------------------------------------------------------------------- data


def _module_text(names: list[str]) -> str:
    import importlib
    import inspect

    return "\n".join(inspect.getsource(importlib.import_module(n)) for n in names)


def _docstrings(names: list[str]) -> str:
    """Prose: every docstring of the named stdlib modules (English text)."""
    import ast
    import importlib
    import inspect

    out = []
    for n in names:
        tree = ast.parse(inspect.getsource(importlib.import_module(n)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                d = ast.get_docstring(node)
                if d and len(d) > 40:
                    out.append(d)
    return "\n\n".join(out)


# Disjoint module sets, so eval text is a genuinely held-out slice.
CODE_TRAIN = ["argparse", "textwrap", "string", "shlex", "calendar", "fractions", "csv"]
CODE_EVAL = ["difflib", "heapq"]
PROSE_TRAIN = ["argparse", "subprocess", "typing", "pathlib", "collections", "functools"]
PROSE_EVAL = ["inspect", "logging"]


def text(kind: str) -> bytes:
    src = {
        "code": lambda: _module_text(CODE_TRAIN),
        "code_eval": lambda: _module_text(CODE_EVAL),
        "prose": lambda: _docstrings(PROSE_TRAIN),
        "prose_eval": lambda: _docstrings(PROSE_EVAL),
    }[kind]()
    return src.encode("utf-8")


class ByteChunks:
    """Map-style dataset of fixed-length byte chunks; labels = input_ids (GPT-2 shifts)."""

    def __init__(self, data: bytes, seq: int = SEQ, limit: int | None = None, garbage=None):
        import torch

        ids = torch.tensor(list(data), dtype=torch.long)
        n = len(ids) // seq
        self.x = ids[: n * seq].view(n, seq)
        if limit is not None:
            self.x = self.x[:limit]
        self.garbage = garbage  # optional callable(idx) -> dict | None

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        if self.garbage is not None:
            g = self.garbage(i)
            if g is not None:
                return g
        return item(self.x[i])


def item(x):
    """labels = input_ids with position 0 masked: it is never predicted (the model shifts),
    and leaving it unmasked makes Trainer's num_items_in_batch count T instead of T-1
    tokens, which scales every logged loss by (T-1)/T (3% at T=32)."""
    y = x.clone()
    y[0] = -100
    return {"input_ids": x, "labels": y}


# -------------------------------------------------------------------------- model


def gpt2_config(tie: bool = True, **kw):
    from transformers import GPT2Config

    base = dict(
        vocab_size=50257,
        n_embd=32,
        n_layer=2,
        n_head=2,
        n_positions=128,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        tie_word_embeddings=tie,
        bos_token_id=50256,
        eos_token_id=50256,
    )
    base.update(kw)
    return GPT2Config(**base)


def new_model(seed: int = 0, tie: bool = True, **kw):
    import torch
    from transformers import GPT2LMHeadModel

    torch.manual_seed(seed)
    return GPT2LMHeadModel(gpt2_config(tie=tie, **kw))


def base_model():
    """A briefly pre-trained tiny GPT-2 (cached): the 'pretrained' start of fine-tunes."""
    from transformers import GPT2LMHeadModel

    path = CACHE / "base"
    if not (path / "model.safetensors").exists():
        tmp = CACHE / "base-run"
        m = new_model(seed=1)
        t = trainer(
            tmp,
            m,
            ByteChunks(text("code")),
            lr=3e-3,
            max_steps=300,
            batch=8,
            sched="cosine",
            warmup_ratio=0.05,
            logging_steps=50,
        )
        t.train()
        m.save_pretrained(path)
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"[base] saved {path}")
    return GPT2LMHeadModel.from_pretrained(path)


# ------------------------------------------------------------------------ trainer


def trainer(
    out: Path,
    model,
    train_ds,
    *,
    lr: float,
    max_steps: int = -1,
    epochs: float = 1,
    batch: int = 8,
    accum: int = 1,
    sched: str = "constant",
    warmup_ratio: float = 0.0,
    warmup_steps: int = 0,
    logging_steps: int = 1,
    eval_ds=None,
    eval_steps: int | None = None,
    save_steps: int | None = None,
    callbacks=None,
    optimizers=(None, None),
    seed: int = 0,
    trainer_kw: dict | None = None,
    cls=None,
    make_opt=None,
    **args_kw,
):
    import torch
    from transformers import Trainer, TrainingArguments, set_seed

    torch.set_num_threads(1)
    set_seed(seed)
    warm = warmup_steps if warmup_steps else warmup_ratio
    args = TrainingArguments(
        output_dir=str(out),
        learning_rate=lr,
        max_steps=max_steps,
        num_train_epochs=epochs,
        per_device_train_batch_size=batch,
        per_device_eval_batch_size=16,
        gradient_accumulation_steps=accum,
        lr_scheduler_type=sched,
        warmup_steps=warm,
        logging_steps=logging_steps,
        eval_strategy="steps" if eval_ds is not None else "no",
        eval_steps=eval_steps,
        save_strategy="steps" if save_steps else "no",
        save_steps=save_steps or 500,
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
        seed=seed,
        data_seed=seed,
        dataloader_num_workers=0,
        **args_kw,
    )
    t = (cls or Trainer)(
        model=model,
        args=args,
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        callbacks=callbacks,
        optimizers=optimizers,
        **(trainer_kw or {}),
    )
    if make_opt is not None:  # a custom optimizer over the params the Trainer will train
        t.optimizer = make_opt(t.model)
    return t


def finish(t, out: Path, resume: str | None = None, final_eval: bool = False):
    """Train, then write what a run script usually writes (state, metrics, config)."""
    res = t.train(resume_from_checkpoint=resume)
    t.save_state()
    t.save_metrics("train", res.metrics)
    if final_eval and t.eval_dataset is not None:
        t.save_metrics("eval", t.evaluate())
    model = t.model
    cfg = getattr(model, "config", None)
    if hasattr(model, "peft_config"):
        model.peft_config["default"].save_pretrained(str(out))
        cfg = model.get_base_model().config
    if cfg is not None:
        cfg.to_json_file(str(out / "config.json"))
    if not (out / "training_args.bin").exists():
        import torch

        torch.save(t.args, out / "training_args.bin")
    return res


def prune(out: Path) -> None:
    """Keep only the small user-facing artefacts (KEEP), recursively."""
    for p in sorted(out.rglob("*"), key=lambda q: -len(q.parts)):
        if p.is_file() and p.name not in KEEP:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()


def fresh(out: Path) -> Path:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


def history(out: Path) -> list[dict]:
    return json.loads((out / "trainer_state.json").read_text())["log_history"]


def summarize(hist: list[dict], name: str = "") -> dict:
    """Print and return the key numbers of a log history (to check the fault shows)."""

    def col(k):
        return [(h["step"], h[k]) for h in hist if k in h]

    s: dict = {}
    for k in ("loss", "grad_norm", "learning_rate", "eval_loss"):
        c = col(k)
        if not c:
            continue
        v = [x for _, x in c]
        fin = [x for x in v if isinstance(x, (int, float)) and math.isfinite(x)]
        s[k] = dict(
            n=len(v),
            first=v[0],
            last=v[-1],
            min=min(fin) if fin else None,
            max=max(fin) if fin else None,
            nonfinite=len(v) - len(fin),
        )
    line = " | ".join(
        f"{k} first={_f(d['first'])} last={_f(d['last'])} min={_f(d['min'])} max={_f(d['max'])}"
        + (f" nonfinite={d['nonfinite']}" if d["nonfinite"] else "")
        for k, d in s.items()
    )
    print(f"[{name}] {line}", flush=True)
    return s


def _f(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and (abs(x) >= 1e-3 or x == 0 or not math.isfinite(x)):
        return f"{x:.4g}"
    return f"{x:.3g}"


def expect(out: Path, ids: list[str], story: str, also: list[str] | None = None, **extra):
    """Write expected.json. `expect` = primary ids a correct diagnosis must flag;
    `also_applies` = ids that honestly also apply (consequences), not required."""
    d = {"expect": ids, "healthy": not ids, "story": story}
    if also:
        d["also_applies"] = also
    if extra:
        d["numbers"] = extra
    (out / "expected.json").write_text(json.dumps(d, indent=2) + "\n")


def lc(hist, k="loss"):
    return [h[k] for h in hist if k in h]


# Filled by @case below: name -> (function, expected ids, kind)
REGISTRY: dict[str, tuple[Callable[[Path], None], list[str], str]] = {}


def case(name: str, expected: list[str], where: str = "tests/corpus"):
    def deco(fn):
        REGISTRY[name] = (fn, expected, where)
        return fn

    return deco


# ------------------------------------------------------------------ shared pieces


class StreamChunks:
    """Iterable dataset of random text chunks, with garbage at chosen optimizer steps.

    Sample k belongs to optimizer step k // (batch * accum) + 1, so a fault can be
    placed at an exact step without callbacks (iteration order is deterministic).
    """

    def __init__(
        self,
        data: bytes,
        batch: int,
        bad_steps=(),
        garbage=None,
        seed: int = 0,
        accum: int = 1,
        seq: int = SEQ,
    ):
        self.base = ByteChunks(data, seq)
        self.per_step = batch * accum
        self.bad = set(bad_steps)
        self.garbage = garbage
        self.seed = seed

    def __iter__(self):
        import torch

        g = torch.Generator().manual_seed(self.seed)
        k = 0
        while True:
            step = k // self.per_step + 1
            if step in self.bad and self.garbage is not None:
                yield self.garbage(g)
            else:
                yield self.base[int(torch.randint(len(self.base), (1,), generator=g))]
            k += 1


def _iterable(ds):
    import torch

    class _It(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(ds)

    return _It()


def lambda_trainer_cls(lr_lambda, frozen: bool = False):
    """A Trainer whose scheduler is LambdaLR(lr_lambda) (frozen=True: never steps)."""
    import torch
    from transformers import Trainer

    class _Sched(torch.optim.lr_scheduler.LambdaLR):
        def step(self, *a, **k):  # the bug: scheduler.step() never advances the schedule
            if not (frozen and getattr(self, "_built", False)):
                return super().step(*a, **k)

    class LambdaTrainer(Trainer):
        def create_scheduler(self, num_training_steps, optimizer=None):
            if self.lr_scheduler is None:
                self.lr_scheduler = _Sched(optimizer or self.optimizer, lr_lambda)
                self.lr_scheduler._built = True
                self._created_lr_scheduler = True
            return self.lr_scheduler

    return LambdaTrainer


def eval_ds(kind: str = "code_eval", n: int = 48):
    return ByteChunks(text(kind), limit=n)


def seed_a_best():
    """The seed-A 'best' checkpoint: tiny untied GPT-2 whose lm_head is scaled to std
    13.87 (and ln_f scaled so that the mean first loss is ~96)."""
    import torch
    from transformers import GPT2LMHeadModel

    path = CACHE / "seed-a-best-v2"
    if not (path / "model.safetensors").exists():
        # A fresh untied body whose head "warmup" blew up: no useful knowledge behind
        # the exploded head, so shrinking it can only bring the loss down to ln(V).
        m = new_model(seed=3, tie=False)
        ds = ByteChunks(text("code"))
        g = torch.Generator().manual_seed(0)
        x = ds.x[torch.randint(len(ds), (256,), generator=g)]
        with torch.no_grad():
            m.eval()
            m.lm_head.weight.mul_(13.87 / m.lm_head.weight.std())
            for _ in range(3):  # loss is ~linear in the ln_f scale at this magnitude
                loss = (
                    sum(
                        m(input_ids=x[i : i + 32], labels=x[i : i + 32]).loss.item()
                        for i in range(0, 256, 32)
                    )
                    / 8
                )
                m.transformer.ln_f.weight.mul_(96 / loss)
                m.transformer.ln_f.bias.mul_(96 / loss)
            print(f"[seed-a-best] lm_head std {m.lm_head.weight.std():.3f} mean loss {loss:.1f}")
        m.train()
        m.save_pretrained(path)
    return GPT2LMHeadModel.from_pretrained(path)


def _best_dir(out: Path) -> None:
    """What the user has of the 'best' checkpoint: its config (weights too big to keep)."""
    b = out / "best"
    b.mkdir(exist_ok=True)
    shutil.copy(CACHE / "seed-a-best-v2" / "config.json", b / "config.json")
    import torch
    from safetensors import safe_open

    stats = {}
    with safe_open(str(CACHE / "seed-a-best-v2" / "model.safetensors"), "pt") as f:
        for k in f.keys():  # noqa: SIM118 (safe_open is not iterable)
            t = f.get_tensor(k).float()
            stats[k] = {
                "shape": list(t.shape),
                "mean": t.mean().item(),
                "std": t.std().item() if t.numel() > 1 else 0.0,
                "absmax": t.abs().max().item(),
            }
    (b / "tensor_stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    del torch


# ------------------------------------------------------------------------- cases


@case("seed-a", ["absurd-initial-loss", "lr-too-low"], "examples")
def seed_a(out: Path) -> None:
    """Seed A as told, and nothing else: start from `best` (lm_head std 13.87) and train
    at a constant LR 1e-6 for 300 steps. Every setting is in the run's own files."""
    m = seed_a_best()
    t = trainer(out, m, ByteChunks(text("code")), lr=1e-6, max_steps=300, batch=4)
    finish(t, out)
    _best_dir(out)
    h = history(out)
    s = summarize(h, out.name)
    expect(
        out,
        ["absurd-initial-loss", "lr-too-low"],
        "Seed A exactly as told: start from 'best' (lm_head std 13.87, first loss ~96), "
        "constant LR 1e-6 for 300 steps. Adam at 1e-6 moves each weight <=3e-4, so the "
        "loss does NOT fall to ln(V): it stays far above the floor (no-learning at an absurd level).",
        also=["no-learning"],
        first_loss=s["loss"]["first"],
        last_loss=s["loss"]["last"],
    )


def _std(out, t, ids, story, also=None, resume=None, final_eval=False, **extra):
    finish(t, out, resume=resume, final_eval=final_eval)
    s = summarize(history(out), out.name)
    nums = {
        k: {"first": v["first"], "last": v["last"], "min": v["min"], "max": v["max"]}
        for k, v in s.items()
    }
    expect(out, ids, story, also=also, **nums, **extra)
    return s


def code_ds():
    return ByteChunks(text("code"))


def prose_ds():
    return ByteChunks(text("prose"))


# ---- healthy runs -------------------------------------------------------------


@case("healthy-pretrain-cosine", [])
def healthy_pretrain_cosine(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=2e-3,
        max_steps=300,
        batch=8,
        sched="cosine",
        warmup_ratio=0.05,
        logging_steps=2,
        eval_ds=eval_ds(),
        eval_steps=50,
    )
    _std(
        out,
        t,
        [],
        "Healthy pre-training from scratch: LR 2e-3, cosine, 5% warmup, "
        "batch 8, eval on held-out stdlib modules every 50 steps.",
        final_eval=True,
    )


@case("healthy", [], "examples")
def healthy_example(out: Path) -> None:
    healthy_pretrain_cosine(out)


@case("healthy-pretrain-linear", [])
def healthy_pretrain_linear(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=1),
        code_ds(),
        lr=1e-3,
        max_steps=300,
        batch=4,
        sched="linear",
        warmup_ratio=0.03,
        logging_steps=3,
    )
    _std(
        out, t, [], "Healthy pre-training from scratch: LR 1e-3, linear decay, 3% warmup, batch 4."
    )


@case("healthy-pretrain-constant-smallbatch", [])
def healthy_pretrain_constant(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=2),
        code_ds(),
        lr=1e-3,
        max_steps=300,
        batch=2,
        sched="constant_with_warmup",
        warmup_ratio=0.05,
        logging_steps=5,
        eval_ds=eval_ds(),
        eval_steps=60,
    )
    _std(
        out,
        t,
        [],
        "Healthy but noisy pre-training from scratch: batch 2 (pre-training, not "
        "fine-tuning), LR 1e-3 constant with 5% warmup, logging every 5 steps.",
    )


@case("healthy-finetune-constant-warmup", [])
def healthy_ft_constant(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=1e-3,
        max_steps=100,
        batch=8,
        accum=2,
        sched="constant_with_warmup",
        warmup_ratio=0.05,
        logging_steps=2,
        eval_ds=eval_ds("prose_eval"),
        eval_steps=20,
    )
    _std(
        out,
        t,
        [],
        "Healthy full fine-tune of a briefly pre-trained (code) tiny GPT-2 on prose "
        "docstrings: LR 1e-3 constant with 5% warmup, effective batch 16, 100 steps, eval every 20.",
        final_eval=True,
    )


@case("healthy-finetune-cosine", [])
def healthy_ft_cosine(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=2e-3,
        max_steps=100,
        batch=16,
        sched="cosine",
        warmup_ratio=0.03,
        logging_steps=2,
        eval_ds=eval_ds("prose_eval"),
        eval_steps=20,
    )
    _std(
        out,
        t,
        [],
        "Healthy full fine-tune (code-pretrained tiny GPT-2 -> prose): LR 2e-3, "
        "cosine, 3% warmup, batch 16, 100 steps, eval every 20 steps.",
        final_eval=True,
    )


def _lora(model, r=8):
    from peft import LoraConfig, get_peft_model

    cfg = LoraConfig(
        r=r,
        lora_alpha=16,
        lora_dropout=0.0,
        target_modules=["c_attn", "c_proj", "c_fc"],
        fan_in_fan_out=True,
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, cfg)


@case("healthy-lora-cosine", [])
def healthy_lora(out: Path) -> None:
    m = _lora(base_model())
    t = trainer(
        out,
        m,
        prose_ds(),
        lr=1e-2,
        max_steps=100,
        batch=8,
        accum=2,
        sched="cosine",
        warmup_ratio=0.03,
        logging_steps=2,
        eval_ds=eval_ds("prose_eval"),
        eval_steps=20,
    )
    _std(
        out,
        t,
        [],
        "Healthy LoRA (peft, r=8 on c_attn/c_proj/c_fc) on the code-pretrained tiny "
        "GPT-2, prose data: LR 1e-2, cosine, 3% warmup, effective batch 16, 100 steps. NB: "
        "the adapter learns only a little (eval 3.020 -> 3.015, min 3.006): healthy config, "
        "small gain.",
        final_eval=True,
    )


# ---- loss-curve faults ----------------------------------------------------------


@case("absurd-initial-loss", ["absurd-initial-loss"])
def absurd_initial(out: Path) -> None:
    t = trainer(
        out,
        seed_a_best(),
        code_ds(),
        lr=3e-3,
        max_steps=200,
        batch=4,
        sched="linear",
        warmup_ratio=0.03,
    )
    _std(
        out,
        t,
        ["absurd-initial-loss"],
        "Start from the seed-A 'best' checkpoint (lm_head "
        "std 13.87) but with a sane LR 3e-3: first loss ~9x ln(V), then it recovers.",
    )


@case("uniform-plateau", ["uniform-plateau", "lr-too-low"])
def uniform_plateau(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0, tie=False),
        code_ds(),
        lr=1e-7,
        max_steps=200,
        batch=4,
        logging_steps=2,
    )
    _std(
        out,
        t,
        ["uniform-plateau", "lr-too-low"],
        "Pre-training from scratch (untied head) at LR 1e-7: the "
        "model never leaves the uniform floor ln(50257)=10.825.",
    )


@case("lr-too-low", ["lr-too-low"])
def lr_too_low(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=1e-5,
        max_steps=300,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
        logging_steps=3,
    )
    _std(
        out,
        t,
        ["lr-too-low"],
        "Pre-training from scratch at peak LR 1e-5 (healthy: 1e-3..3e-3): "
        "the loss creeps down from ln(V) while a healthy run reaches ~3 in the same steps.",
        also=["uniform-plateau", "no-learning"],
    )


@case("no-learning", ["no-learning", "lr-too-low"])
def no_learning(out: Path) -> None:
    t = trainer(
        out, base_model(), prose_ds(), lr=1e-9, max_steps=80, batch=8, accum=2, logging_steps=2
    )
    _std(
        out,
        t,
        ["no-learning", "lr-too-low"],
        "Fine-tune the code-pretrained model on prose at LR 1e-9: loss flat, far below ln(V).",
    )


@case("oscillating-plateau", ["oscillating-plateau"])
def oscillating_plateau(out: Path) -> None:
    mix = text("prose") + text("code")[:200000]
    t = trainer(
        out,
        new_model(seed=0),
        ByteChunks(mix),
        lr=1e-2,
        max_steps=400,
        batch=2,
        sched="constant_with_warmup",
        warmup_ratio=0.02,
        logging_steps=2,
        eval_ds=eval_ds("prose_eval"),
        eval_steps=25,
    )
    _std(
        out,
        t,
        ["oscillating-plateau"],
        "Seed-B-like band: tiny GPT-2 from scratch with a "
        "too-high constant LR (1e-2, 2% warmup), batch 2, heterogeneous prose+code data: fast "
        "early drop, then a noisy band with no trend; eval stops improving.",
        also=["lr-too-high"],
        final_eval=True,
    )


@case("divergence", ["divergence", "lr-too-high"])
def divergence(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=1.0,
        max_steps=100,
        batch=4,
        accum=2,
        sched="linear",
        warmup_ratio=1.0,
        logging_steps=1,
    )
    # NB: transformers 5 reads warmup_steps=1.0 as ONE step (a ratio must be < 1), so the LR
    # jumps to 1.0 at step 2 and then decays linearly: a real, easy-to-make config mistake.
    _std(
        out,
        t,
        ["divergence", "lr-too-high"],
        "Fine-tune the pretrained model with AdamW, peak "
        "LR 1.0, linear, warmup 1.0 (meant as a ratio, read by transformers 5 as 1 step): the "
        "loss blows up from 3.4 to ~50-70 and is still above its start at the end.",
        also=["warmup-too-short", "small-effective-batch"],
    )


def _garbage_tokens(g):
    import torch

    return item(torch.randint(256, 50257, (SEQ,), generator=g))


@case("loss-spike", ["loss-spike"])
def loss_spike(out: Path) -> None:
    ds = _iterable(
        StreamChunks(text("code"), 4, bad_steps=(150, 151, 220), garbage=_garbage_tokens)
    )
    t = trainer(
        out,
        new_model(seed=0),
        ds,
        lr=2e-3,
        max_steps=300,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
    )
    _std(
        out,
        t,
        ["loss-spike"],
        "Healthy pre-training, but steps 150, 151 and 220 get batches "
        "of random token ids (not text): the loss spikes and recovers.",
        also=["grad-spike"],
    )


_CODE = None


def _near_empty(g):
    import torch

    global _CODE
    _CODE = _CODE or ByteChunks(text("code"))
    x = _CODE.x[int(torch.randint(len(_CODE), (1,), generator=g))]
    y = torch.full((SEQ,), -100)
    y[20] = x[20]  # one real target token of real text; the rest is masked like padding
    return {"input_ids": x, "labels": y}


@case("grad-spike", ["grad-spike"])
def grad_spike(out: Path) -> None:
    ds = _iterable(StreamChunks(text("code"), 4, bad_steps=(120, 180, 240), garbage=_near_empty))
    t = trainer(
        out,
        new_model(seed=0),
        ds,
        lr=2e-3,
        max_steps=300,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
    )
    _std(
        out,
        t,
        ["grad-spike"],
        "Healthy pre-training with clipping (max_grad_norm 1), but "
        "steps 120/180/240 get near-empty batches (real text, but every label masked as "
        "padding except one token per batch): the pre-clip grad norm spikes, the loss barely follows.",
    )


class _Poison:
    """TrainerCallback: at step k, write Inf into one weight (a corrupted tensor)."""

    def __init__(self, k):
        self.k = k

    def __call__(self):
        from transformers import TrainerCallback

        k = self.k

        class P(TrainerCallback):
            def on_step_end(self, args, state, control, model=None, **kw):
                if state.global_step == k:
                    import torch

                    with torch.no_grad():
                        model.transformer.h[0].mlp.c_fc.weight[0, 0] = float("inf")

        return P()


@case("nonfinite-loss", ["nonfinite-loss"])
def nonfinite_loss(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=2e-3,
        max_steps=200,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
        callbacks=[_Poison(120)()],
        logging_nan_inf_filter=False,
        logging_steps=2,
    )
    _std(
        out,
        t,
        ["nonfinite-loss"],
        "Healthy pre-training; a callback writes Inf into one MLP "
        "weight after step 120; logging_nan_inf_filter=False so the NaN losses are logged.",
        also=["nonfinite-gradients"],
    )


@case("nonfinite-gradients", ["nonfinite-gradients"])
def nonfinite_grads(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=2e-3,
        max_steps=200,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
        callbacks=[_Poison(120)()],
        logging_steps=2,
    )
    _std(
        out,
        t,
        ["nonfinite-gradients"],
        "Same Inf weight at step 120, default "
        "logging_nan_inf_filter=True: the NaN step losses are replaced by the window "
        "average (0.0 once every step is NaN) while grad_norm shows NaN.",
        also=["nonfinite-loss", "degenerate-loss"],
    )


def _mask_bug_trainer():
    from transformers import Trainer

    class MaskBugTrainer(Trainer):
        """Custom loss with an inverted mask: keeps only pad positions (there are none)."""

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            import torch.nn.functional as F

            labels = inputs.pop("labels")
            out = model(**inputs)
            logits = out.logits[:, :-1].float()
            y = labels[:, 1:]
            mask = (y == 50256).float()  # BUG: should be (y != -100)
            ce = F.cross_entropy(
                logits.reshape(-1, logits.size(-1)), y.clamp(min=0).reshape(-1), reduction="none"
            )
            loss = (ce * mask.reshape(-1)).sum() / mask.sum().clamp(min=1)
            return (loss, out) if return_outputs else loss

    return MaskBugTrainer


@case("degenerate-loss", ["degenerate-loss"])
def degenerate(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=1e-3,
        max_steps=150,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
        logging_steps=2,
        cls=_mask_bug_trainer(),
    )
    _std(
        out,
        t,
        ["degenerate-loss"],
        "Custom compute_loss with an inverted loss mask "
        "(keeps only pad positions, of which there are none): loss exactly 0.0 every step, "
        "grad_norm 0.",
    )


@case("overfitting", ["overfitting"])
def overfitting(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        ByteChunks(text("code"), limit=16),
        lr=3e-3,
        max_steps=300,
        batch=4,
        logging_steps=2,
        eval_ds=eval_ds(),
        eval_steps=10,
    )
    _std(
        out,
        t,
        ["overfitting"],
        "Pre-training from scratch on only 16 samples (75 epochs), "
        "eval on held-out modules every 10 steps: train falls, eval turns up.",
        also=["dataset-too-small"],
        final_eval=True,
    )


class JsonlText:
    """The rows of a `{"text": ...}` JSONL file as byte-token samples: what the run
    trains on is exactly the file it carries (so the data audit reads the truth)."""

    def __init__(self, path: Path):
        import torch

        rows = [json.loads(line)["text"] for line in path.read_text().splitlines()]
        self.x = [torch.tensor(list(r.encode("utf-8")), dtype=torch.long) for r in rows]

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return item(self.x[i])


def _write_rows(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _ascii_chunks(kind: str, n: int) -> list[str]:
    """n distinct 32-byte ASCII chunks of stdlib text (no split UTF-8 characters)."""
    data, out, seen = text(kind), [], set()
    for k in range(0, len(data) - SEQ, SEQ):
        c = data[k : k + SEQ]
        if c.isascii() and c not in seen:
            seen.add(c)
            out.append(c.decode("ascii"))
        if len(out) == n:
            break
    return out


@case("data-duplicates-overfitting", ["overfitting", "duplicate-samples"])
def data_duplicates_overfitting(out: Path) -> None:
    """The run dir carries its data: data/train.jsonl is 24 code chunks, each copied
    ten times and shuffled (240 rows, 90% exact copies), data/eval.jsonl 48 held-out
    chunks. The trainer reads those files; the memorised copies make eval turn up."""
    import random

    uniq = _ascii_chunks("code", 24)
    rows = [{"text": t} for t in uniq for _ in range(10)]
    random.Random(0).shuffle(rows)
    _write_rows(out / "data" / "train.jsonl", rows)
    _write_rows(out / "data" / "eval.jsonl", [{"text": t} for t in _ascii_chunks("code_eval", 48)])
    t = trainer(
        out,
        new_model(seed=0),
        JsonlText(out / "data" / "train.jsonl"),
        lr=3e-3,
        max_steps=300,
        batch=4,
        logging_steps=2,
        eval_ds=JsonlText(out / "data" / "eval.jsonl"),
        eval_steps=10,
    )
    _std(
        out,
        t,
        ["overfitting", "duplicate-samples"],
        "Pre-training from scratch on data/train.jsonl (in the run dir): 24 code chunks "
        "copied 10x each (240 rows, 216 exact duplicates), eval on data/eval.jsonl (48 "
        "held-out chunks) every 10 steps: train falls, eval turns up.",
        also=["dataset-too-small"],
        final_eval=True,
    )


@case("data-label-conflicts", ["label-conflicts"])
def data_label_conflicts(out: Path) -> None:
    """A text classifier (label: which of e/t/a/o a text holds most) whose
    data/train.jsonl gives 30% of its texts twice, with two different labels (a merge of two annotation rounds that disagreed). Plain PyTorch:
    bag-of-bytes features -> MLP, 4 classes; the loss cannot go below the conflicts."""
    import random

    import torch

    torch.set_num_threads(1)
    r = random.Random(0)
    texts = _ascii_chunks("prose", 600)
    rows = [{"text": t, "label": max(range(4), key=lambda k: t.count("etao"[k]))} for t in texts]
    for row in rows[:180]:
        rows.append({"text": row["text"], "label": (row["label"] + 1 + r.randrange(3)) % 4})
    r.shuffle(rows)
    _write_rows(out / "data" / "train.jsonl", rows)
    rows = [json.loads(line) for line in (out / "data" / "train.jsonl").read_text().splitlines()]
    x = torch.zeros(len(rows), 128)
    for i, row in enumerate(rows):
        for b in row["text"].encode("ascii"):
            x[i, b] += 1.0
    y = torch.tensor([row["label"] for row in rows])
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 4))
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    (out / "run_config.json").write_text(
        json.dumps({"num_classes": 4, "learning_rate": 1e-3, "batch_size": 39}) + "\n"
    )
    g = torch.Generator().manual_seed(0)
    step, losses = 0, []
    with (out / "metrics.jsonl").open("w") as f:
        for epoch in range(20):
            order = torch.randperm(len(rows), generator=g)
            for i in range(0, len(rows), 39):
                idx = order[i : i + 39]
                logits = m(x[idx])
                loss = torch.nn.functional.cross_entropy(logits, y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                losses.append(loss.item())
                acc = (logits.argmax(-1) == y[idx]).float().mean().item()
                rec = {"step": step, "epoch": epoch + 1, "loss": loss.item(), "accuracy": acc}
                f.write(json.dumps(rec | {"lr": 1e-3}) + "\n")
    print(f"[{out.name}] loss {losses[0]:.3f} -> {losses[-1]:.3f} (min {min(losses):.3f})")
    expect(
        out,
        ["label-conflicts"],
        "Plain PyTorch bag-of-bytes MLP text classifier (4 classes: which of e/t/a/o "
        "a text holds most; 780 rows in data/train.jsonl: 600 texts, 180 of them given a "
        "second, different label), Adam 1e-3, batch 39, 20 epochs, metrics.jsonl.",
        also=["dataset-too-small", "epoch-staircase", "overfitting"],
        first=losses[0],
        last=losses[-1],
    )


@case("eval-stagnation", ["eval-stagnation"])
def eval_stagnation(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        code_ds(),
        lr=2e-6,
        max_steps=200,
        batch=4,
        logging_steps=2,
        eval_ds=eval_ds(),
        eval_steps=10,
    )
    _std(
        out,
        t,
        ["eval-stagnation"],
        "Continue the code-pretrained model on the same code at LR "
        "2e-6: train and eval both flat for 200 steps.",
        also=["no-learning", "lr-too-low", "small-effective-batch"],
        final_eval=True,
    )


@case("epoch-staircase", ["epoch-staircase"])
def epoch_staircase(out: Path) -> None:
    """Staircases come from memorisation: within an epoch every sample has been seen
    equally often, so the loss is flat; at each boundary all of them have been seen once
    more and it steps down. A plain PyTorch MLP memorising random labels (nothing to
    generalise) shows it cleanly; the tiny GPT-2 on text only gave smooth drops."""
    import torch

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(512, 32, generator=g), torch.randint(0, 10, (512,), generator=g)
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(32, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10))
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    (out / "run_config.json").write_text(
        json.dumps({"num_classes": 10, "learning_rate": 3e-3, "batch_size": 64}) + "\n"
    )
    step, losses = 0, []
    with (out / "metrics.jsonl").open("w") as f:
        for epoch in range(12):
            order = torch.randperm(512, generator=g)
            for i in range(0, 512, 64):
                idx = order[i : i + 64]
                loss = torch.nn.functional.cross_entropy(m(x[idx]), y[idx])
                opt.zero_grad()
                loss.backward()
                gn = torch.nn.utils.clip_grad_norm_(m.parameters(), 1e9).item()
                opt.step()
                step += 1
                losses.append(loss.item())
                f.write(
                    json.dumps(
                        {
                            "step": step,
                            "epoch": epoch + (i + 64) / 512,
                            "loss": loss.item(),
                            "grad_norm": gn,
                            "lr": 3e-3,
                            "time": time.time(),
                        }
                    )
                    + "\n"
                )
    per_epoch = [round(sum(losses[k : k + 8]) / 8, 3) for k in range(0, len(losses), 8)]
    print(f"[{out.name}] epoch means {per_epoch}")
    expect(
        out,
        ["epoch-staircase"],
        "Plain PyTorch MLP (32-2048-10) memorising 512 random "
        "labels, batch 64 (8 steps per epoch), 12 epochs, Adam 3e-3, metrics.jsonl with epoch: "
        "flat within each epoch, a step down at every boundary.",
        epoch_means=per_epoch,
    )


@case("no-trainable-parameters", ["no-trainable-parameters"])
def no_trainable(out: Path) -> None:
    import torch

    m = base_model()
    for p in m.parameters():
        p.requires_grad_(False)
    m.unused_scale = torch.nn.Parameter(torch.ones(1))  # the only 'trainable' tensor, unused
    m.enable_input_require_grads()  # the usual frozen-base recipe, so backward() still runs
    t = trainer(
        out,
        m,
        prose_ds(),
        lr=2e-4,
        max_steps=60,
        batch=8,
        accum=2,
        logging_steps=2,
        sched="cosine",
        warmup_ratio=0.03,
    )
    _std(
        out,
        t,
        ["no-trainable-parameters"],
        "Freeze every weight (a PEFT/freeze mistake: frozen "
        "base + enable_input_require_grads() but no adapter attached); only an unused dummy "
        "parameter is trainable: grad_norm 0, flat loss.",
    )


# ---- rate / schedule / batch ---------------------------------------------------


@case("lr-too-high", ["lr-too-high"])
def lr_too_high(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=0.3,
        max_steps=60,
        batch=8,
        accum=2,
        logging_steps=1,
        sched="constant",
    )
    _std(
        out,
        t,
        ["lr-too-high"],
        "Full fine-tune of the pretrained model at constant LR 0.3 "
        "(Adam, clipping 1.0): the loss jumps from the pretrained ~3.2 to ~8-9 and never gets "
        "back to where it started.",
        also=["warmup-too-short"],
    )


@case("warmup-too-long", ["warmup-too-long"])
def warmup_too_long(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=2e-3,
        max_steps=300,
        batch=4,
        sched="linear",
        warmup_ratio=0.5,
        logging_steps=3,
    )
    _std(out, t, ["warmup-too-long"], "Pre-training with warmup_ratio 0.5 (150 of 300 steps).")


@case("warmup-too-short", ["warmup-too-short"])
def warmup_too_short(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=0.1,
        max_steps=100,
        batch=8,
        accum=2,
        sched="cosine",
        warmup_steps=0,
        logging_steps=1,
    )
    _std(
        out,
        t,
        ["warmup-too-short"],
        "Fine-tune at peak LR 0.1 with no warmup (cosine decay): "
        "early instability, then it settles as the LR decays.",
        also=["lr-too-high"],
    )


class _StopAt:
    def __call__(self, k):
        from transformers import TrainerCallback

        class S(TrainerCallback):
            def on_step_end(self, args, state, control, **kw):
                if state.global_step == k:
                    control.should_training_stop = True  # the 'crash'

        return S()


def _two_part(out, damage, ids, story, also=None):
    """Train to checkpoint-150 and 'crash'; damage the checkpoint; resume to 300."""
    kw = dict(
        lr=2e-3,
        max_steps=300,
        batch=4,
        sched="cosine",
        warmup_ratio=0.1,
        logging_steps=2,
        save_steps=150,
    )
    t = trainer(out, new_model(seed=0), code_ds(), callbacks=[_StopAt()(150)], **kw)
    t.train()
    ck = out / "checkpoint-150"
    damage(ck)
    t = trainer(out, new_model(seed=0), code_ds(), **kw)
    _std(out, t, ids, story, also=also, resume=str(ck))


@case("schedule-restarted", ["schedule-restarted"])
def schedule_restarted(out: Path) -> None:
    _two_part(
        out,
        lambda ck: (ck / "scheduler.pt").unlink(),
        ["schedule-restarted"],
        "Cosine with 10% warmup over 300 steps; stopped at checkpoint-150; scheduler.pt "
        "deleted; resume_from_checkpoint: the schedule restarts its warmup at step 151.",
    )


def _fresh_weights(ck: Path) -> None:
    new_model(seed=123).save_pretrained(ck)


@case("resume-loss-jump", ["resume-loss-jump"])
def resume_loss_jump(out: Path) -> None:
    _two_part(
        out,
        _fresh_weights,
        ["resume-loss-jump"],
        "Stopped at checkpoint-150; its model.safetensors replaced by freshly initialised "
        "weights (optimizer/scheduler intact); resume: the loss jumps back to ~ln(V) at "
        "step 151.",
    )


@case("schedule-not-applied", ["schedule-not-applied"])
def schedule_not_applied(out: Path) -> None:
    warm = 20
    cls = lambda_trainer_cls(lambda s: min(1.0, s / warm), frozen=True)
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=5e-4,
        max_steps=80,
        batch=8,
        accum=2,
        sched="linear",
        warmup_steps=warm,
        logging_steps=2,
        cls=cls,
    )
    _std(
        out,
        t,
        ["schedule-not-applied"],
        "Configured linear schedule with 20 warmup steps, "
        "but a custom scheduler whose step() never advances: LR stays at warmup step 0 = 0.0 "
        "for the whole run; loss flat.",
        also=["no-learning", "warmup-too-long"],
    )


@case("small-effective-batch", ["small-effective-batch"])
def small_batch(out: Path) -> None:
    t = trainer(
        out,
        base_model(),
        prose_ds(),
        lr=3e-4,
        max_steps=300,
        batch=1,
        accum=1,
        sched="cosine",
        warmup_ratio=0.03,
        logging_steps=1,
    )
    _std(
        out,
        t,
        ["small-effective-batch"],
        "Full fine-tune with per-device batch 1, "
        "accumulation 1, 1 device (effective batch 1): very noisy loss.",
        also=["lr-too-high"],
    )


# ---- gradients / numerics -------------------------------------------------------


@case("grad-explosion", ["grad-explosion"])
def grad_explosion(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=3.0,
        max_steps=150,
        batch=4,
        optim="sgd",
        max_grad_norm=0.0,
        logging_steps=1,
    )
    _std(
        out,
        t,
        ["grad-explosion"],
        "Plain SGD at LR 3.0 with clipping disabled "
        "(max_grad_norm=0; v5 still logs the norm): the gradient norm grows 2.9 -> 1.5e8 "
        "in 7 steps, then NaN (the NaN-filtered loss then logs 0.0).",
        also=["divergence", "lr-too-high", "nonfinite-gradients", "degenerate-loss"],
    )


@case("vanishing-gradients", ["vanishing-gradients"])
def vanishing(out: Path) -> None:
    import torch

    m = new_model(seed=0, tie=False)
    with torch.no_grad():  # a 'dead' head init: output layers scaled to ~0
        m.lm_head.weight.mul_(1e-4)
        m.transformer.ln_f.weight.mul_(1e-4)
    t = trainer(out, m, code_ds(), lr=1e-2, max_steps=200, batch=4, optim="sgd", logging_steps=2)
    _std(
        out,
        t,
        ["vanishing-gradients"],
        "Untied tiny GPT-2 with lm_head and ln_f scaled by "
        "1e-4 (dead output layers), SGD at 1e-2: grad norm ~1e-5, loss stuck at ln(V).",
        also=["uniform-plateau"],
    )


@case("clipping-saturated", ["clipping-saturated"])
def clipping_saturated(out: Path) -> None:
    t = trainer(
        out,
        new_model(seed=0),
        code_ds(),
        lr=2e-3,
        max_steps=200,
        batch=4,
        sched="cosine",
        warmup_ratio=0.05,
        max_grad_norm=0.01,
        logging_steps=2,
    )
    _std(
        out,
        t,
        ["clipping-saturated"],
        "Pre-training with max_grad_norm=0.01: the pre-clip "
        "norm (logged) is above 0.01 on every step, so every update is rescaled.",
    )


# ---- other loggers: Lightning CSVLogger, plain-loop JSONL ------------------------


def _blobs(n, seed, C=4, D=16, noise=1.0):
    """Synthetic C-class Gaussian blobs (no sklearn): the floor is ln(C)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(C, D, generator=torch.Generator().manual_seed(99)) * 1.5
    y = torch.randint(C, (n,), generator=g)
    x = centers[y] + noise * torch.randn(n, D, generator=g)
    return torch.utils.data.TensorDataset(x, y)


def _lightning(out: Path, lr: float, epochs: int, optim: str):
    import lightning.pytorch as pl
    import torch
    from lightning.pytorch.callbacks import LearningRateMonitor
    from lightning.pytorch.loggers import CSVLogger
    from lightning.pytorch.utilities import grad_norm

    torch.set_num_threads(1)
    pl.seed_everything(0, workers=True)

    class MLP(pl.LightningModule):
        def __init__(self, lr: float, hidden: int = 64, num_classes: int = 4, optim: str = "adam"):
            super().__init__()
            self.save_hyperparameters()
            self.net = torch.nn.Sequential(
                torch.nn.Linear(16, hidden),
                torch.nn.ReLU(),
                torch.nn.Linear(hidden, hidden),
                torch.nn.ReLU(),
                torch.nn.Linear(hidden, num_classes),
            )

        def training_step(self, b, i):
            loss = torch.nn.functional.cross_entropy(self.net(b[0]), b[1])
            self.log("train_loss", loss, on_step=True, on_epoch=False)
            return loss

        def on_before_optimizer_step(self, optimizer):
            self.log(
                "grad_norm",
                grad_norm(self, norm_type=2)["grad_2.0_norm_total"],
                on_step=True,
                on_epoch=False,
            )

        def validation_step(self, b, i):
            self.log(
                "val_loss", torch.nn.functional.cross_entropy(self.net(b[0]), b[1]), on_epoch=True
            )

        def configure_optimizers(self):
            if self.hparams.optim == "sgd":
                opt = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
            else:
                opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
            sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_steps)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "interval": "step"}}

    dl = torch.utils.data.DataLoader(_blobs(1024, 0), batch_size=32, shuffle=True)
    vl = torch.utils.data.DataLoader(_blobs(256, 1), batch_size=128)
    steps = epochs * len(dl)
    tr = pl.Trainer(
        max_steps=steps,
        accelerator="cpu",
        devices=1,
        logger=CSVLogger(str(out)),
        callbacks=[LearningRateMonitor(logging_interval="step")],
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        num_sanity_val_steps=0,
    )
    tr.fit(MLP(lr=lr, optim=optim), dl, vl)
    import csv

    rows = list(csv.DictReader(open(out / "lightning_logs/version_0/metrics.csv")))
    tl = [float(r["train_loss"]) for r in rows if r.get("train_loss")]
    vl_ = [float(r["val_loss"]) for r in rows if r.get("val_loss")]
    gn = [float(r["grad_norm"]) for r in rows if r.get("grad_norm")]
    print(
        f"[{out.name}] train_loss first={tl[0]:.4g} last={tl[-1]:.4g} max={max(tl):.4g} | "
        f"val first={vl_[0]:.4g} last={vl_[-1]:.4g} | grad_norm first={gn[0]:.4g} last={gn[-1]:.4g} max={max(gn):.4g}"
    )
    return dict(
        train_loss_first=tl[0],
        train_loss_last=tl[-1],
        val_loss_first=vl_[0],
        val_loss_last=vl_[-1],
        grad_norm_max=max(gn),
    )


@case("lightning-healthy", [])
def lightning_healthy(out: Path) -> None:
    n = _lightning(out, lr=3e-3, epochs=6, optim="adam")
    expect(
        out,
        [],
        "Lightning 2.6 + CSVLogger: 3-layer MLP on 4-class synthetic blobs "
        "(floor ln 4 = 1.386), Adam 3e-3 cosine per step, 6 epochs; train_loss on_step, "
        "val_loss per epoch, lr-Adam from LearningRateMonitor, grad_norm per step.",
        **n,
    )


@case("lightning-divergence", ["divergence"])
def lightning_divergence(out: Path) -> None:
    n = _lightning(out, lr=2.0, epochs=6, optim="sgd")
    expect(
        out,
        ["divergence"],
        "Same Lightning MLP with SGD (momentum 0.9) at LR 2.0: the loss blows up.",
        also=["lr-too-high", "grad-explosion", "nonfinite-loss"],
        **n,
    )


def _jsonl_loop(out: Path, steps: int, stall_at_end: bool):
    import torch

    torch.set_num_threads(1)
    m = new_model(seed=0)
    m.config.to_json_file(str(out / "config.json"))
    ds = ByteChunks(text("code"))
    opt = torch.optim.AdamW(m.parameters(), lr=2e-3)
    sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
    g = torch.Generator().manual_seed(0)
    f = open(out / "metrics.jsonl", "w")
    times = []
    for step in range(1, steps + 1):
        x = ds.x[torch.randint(len(ds), (4,), generator=g)]
        loss = m(input_ids=x, labels=x).loss
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0).item()
        lr = sch.get_last_lr()[0]
        opt.step()
        sch.step()
        opt.zero_grad()
        if stall_at_end and step == steps:
            med = sorted(b - a for a, b in itertools.pairwise(times))[len(times) // 2]
            time.sleep(max(3.0, 30 * med))  # the 'hang' before the final logged step
        times.append(time.time())
        f.write(
            json.dumps(
                {"step": step, "loss": loss.item(), "grad_norm": gn, "lr": lr, "time": times[-1]}
            )
            + "\n"
        )
        f.flush()
    f.close()
    gaps = [b - a for a, b in itertools.pairwise(times)]
    med = sorted(gaps)[len(gaps) // 2]
    print(
        f"[{out.name}] steps={steps} median gap {med:.3f}s last gap {gaps[-1]:.2f}s "
        f"({gaps[-1] / med:.0f}x)"
    )
    return med, gaps[-1]


@case("jsonl-healthy", [])
def jsonl_healthy(out: Path) -> None:
    med, _last = _jsonl_loop(out, 150, False)
    lines = [json.loads(x) for x in open(out / "metrics.jsonl")]
    expect(
        out,
        [],
        "Plain PyTorch loop (tiny GPT-2, AdamW 2e-3, 10-step warmup, clip 1.0) "
        "writing metrics.jsonl {step, loss, grad_norm, lr, time} every step.",
        loss_first=lines[0]["loss"],
        loss_last=lines[-1]["loss"],
        median_gap_s=med,
    )


@case("jsonl-stalled", ["stalled-training"])
def jsonl_stalled(out: Path) -> None:
    med, last = _jsonl_loop(out, 100, True)
    expect(
        out,
        ["stalled-training"],
        "Same plain loop; before the final logged step the "
        "process sleeps (a hang), so the last wall-clock gap is >= 30x the median step "
        "interval.",
        median_gap_s=med,
        last_gap_s=last,
    )


@case("seed-a-resume-hang", ["stalled-training"])
def seed_a_resume_hang(out: Path) -> None:
    """Seed A's resume bug in a plain loop. Run 1: 300 optimizer steps at gradient
    accumulation 16 (tqdm over micro-batches, one printed line and one metrics.jsonl
    record per step), checkpoint. Run 2 resumes at step 300 but restores the
    micro-batch counter as the *optimizer-step* counter (300, not 4800); its step
    condition `micro % 16 == 0 and micro // 16 == step + 1` first holds 4516
    micro-batches later. The remaining 5 epochs (1000 micro-batches) run with
    no optimizer step and no log line, then the loop ends."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    m = new_model(seed=0)
    m.config.to_json_file(str(out / "config.json"))
    ds = ByteChunks(text("code"), limit=800)
    accum, batch, lr = 16, 4, 2e-3
    per_epoch = len(ds) // batch
    (out / "run_config.json").write_text(
        json.dumps({"learning_rate": lr, "batch_size": batch, "gradient_accumulation_steps": accum})
        + "\n"
    )
    opt = torch.optim.AdamW(m.parameters(), lr=lr)
    g = torch.Generator().manual_seed(0)

    def loader():
        order = torch.randperm(len(ds), generator=g)
        for i in range(per_epoch):
            yield ds.x[order[i * batch : (i + 1) * batch]]

    console = (out / "stdout.log").open("w")
    metrics = (out / "metrics.jsonl").open("w")

    def log(rec: dict) -> None:
        metrics.write(json.dumps(rec) + "\n")
        metrics.flush()

    step, micro, epoch = 0, 0, 0
    while step < 300:  # run 1: correct accumulation
        for x in tqdm(loader(), total=per_epoch, desc=f"epoch {epoch}", file=console):
            loss = m(input_ids=x, labels=x).loss / accum
            loss.backward()
            micro += 1
            if micro % accum == 0:
                gn = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0).item()
                opt.step()
                opt.zero_grad()
                step += 1
                v = loss.item() * accum
                tqdm.write(f"step {step} | loss {v:.4f} | lr {lr:.2e}", file=console)
                log({"step": step, "epoch": epoch, "loss": v, "grad_norm": gn, "lr": lr})
                if step == 300:
                    break
        epoch += 1
    saved = {"step": step, "epoch": epoch, "model": m.state_dict(), "opt": opt.state_dict()}
    console.write(f"saved checkpoint at step {step}\n")
    # run 2: a new process resumes from the checkpoint
    m.load_state_dict(saved["model"])
    opt.load_state_dict(saved["opt"])
    step, epoch = saved["step"], saved["epoch"]
    micro = step  # the bug: the optimizer-step counter restored as the micro-batch counter
    console.write(f"resumed from checkpoint: step {step}, epoch {epoch}\n")
    log({"event": "resume", "step": step, "epoch": epoch, "time": time.time()})
    for e in range(epoch, epoch + 5):
        for x in tqdm(loader(), total=per_epoch, desc=f"epoch {e}", file=console):
            loss = m(input_ids=x, labels=x).loss / accum
            loss.backward()
            micro += 1
            if micro % accum == 0 and micro // accum == step + 1:  # first true 4516 later
                opt.step()
                opt.zero_grad()
                step += 1
                tqdm.write(f"step {step} | loss {loss.item() * accum:.4f}", file=console)
    console.close()
    metrics.close()
    print(f"[{out.name}] resumed at 300, {5 * per_epoch} micro-batches after, steps={step}")
    expect(
        out,
        ["stalled-training"],
        "Seed A's resume bug in a plain PyTorch loop (tiny GPT-2, AdamW 2e-3, batch 4, "
        "gradient accumulation 16, 200 micro-batches per epoch): 300 steps logged to "
        "metrics.jsonl and stdout.log (tqdm over micro-batches), then a resume at step 300 "
        "that restores the micro-batch counter as 300: the step condition never holds in "
        "the 5 remaining epochs, whose 1000 micro-batches the console's bar shows with no "
        "optimizer step logged.",
        micro_batches_after_resume=5 * per_epoch,
        final_step=step,
    )


@case("fp16-instability", ["fp16-instability"])
def fp16_instability(out: Path) -> None:
    """Pure fp16 training on CPU: model.half() + Adam with eps=1e-8 (0 in fp16)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    m = new_model(seed=0).half()
    cfg = m.config.to_dict()
    cfg["dtype"] = "float16"
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (out / "run_config.json").write_text(
        json.dumps(
            {
                "precision": "fp16",
                "optimizer": "adamw",
                "lr": 1e-3,
                "eps": 1e-8,
                "batch_size": 4,
                "seq_len": SEQ,
                "grad_scaler": False,
                "device": "cpu",
            },
            indent=2,
        )
        + "\n"
    )
    ds = ByteChunks(text("code"))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, eps=1e-8)
    g = torch.Generator().manual_seed(0)
    f = open(out / "metrics.jsonl", "w")
    first_bad = None
    for step in range(1, 31):
        x = ds.x[torch.randint(len(ds), (4,), generator=g)]
        loss = m(input_ids=x, labels=x).loss
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(m.parameters(), float("inf")).item()
        opt.step()
        opt.zero_grad()
        lv = loss.item()
        if first_bad is None and not (math.isfinite(lv) and math.isfinite(gn)):
            first_bad = step
        f.write(
            json.dumps({"step": step, "loss": lv, "grad_norm": gn, "lr": 1e-3, "time": time.time()})
            + "\n"
        )
    f.close()
    lines = [json.loads(x) for x in open(out / "metrics.jsonl")]
    print(
        f"[{out.name}] loss first={lines[0]['loss']:.4g} last={lines[-1]['loss']} "
        f"first nonfinite step={first_bad}"
    )
    expect(
        out,
        ["fp16-instability"],
        "Plain loop, whole model in fp16 (model.half(), no master "
        "weights, no GradScaler), AdamW eps=1e-8 (rounds to 0 in fp16): NaN/Inf appear.",
        also=["nonfinite-loss", "nonfinite-gradients"],
        loss_first=lines[0]["loss"],
        first_nonfinite_step=first_bad,
    )


def write_index(root: Path) -> None:
    """tests/corpus/README.md: one line per case, built from each expected.json."""
    corpus = root / "tests" / "corpus"
    if not corpus.is_dir():
        return
    lines = [
        "# tests/corpus: real tiny training runs with real faults",
        "",
        "Made by `scripts/make_fixtures.py` (see its docstring; regenerate one case with",
        "`OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py --only NAME`).",
        "Every case is a real CPU run (HF `Trainer` 5.24 unless noted; Lightning 2.6; plain",
        "PyTorch loops) of a tiny GPT-2 built from a config (vocab 50257, n_embd 32, 2 layers,",
        "2 heads; floor ln 50257 = 10.8249) on Python stdlib source/docstrings tokenised as",
        "UTF-8 bytes (sequence 32). 'pretrained' = that model after 300 steps on stdlib code",
        "(LR 3e-3 cosine). Weights, optimizer, scheduler and RNG files were deleted after the",
        "run; kept: trainer_state.json (top level and checkpoint-N/), config.json,",
        "training_args.bin, adapter_config.json, *_results.json, metrics.csv/jsonl, hparams.yaml.",
        "",
        "`expected.json`: `expect` = RULES.md ids a correct diagnosis must flag (primary);",
        "`also_applies` = ids that honestly also apply (consequences; allowed, not required);",
        "`numbers` = first/last/min/max of the logged signals, for checking.",
        "",
        "| case | expect | how it was made |",
        "|---|---|---|",
    ]
    for d in sorted(p for p in corpus.iterdir() if (p / "expected.json").exists()):
        e = json.loads((d / "expected.json").read_text())
        ids = ", ".join(e["expect"]) or (
            f"(healthy; info: {', '.join(e['expect_info'])})"
            if e.get("expect_info")
            else "(healthy)"
        )
        lines.append(f"| `{d.name}` | {ids} | {e['story']} |")
    (corpus / "README.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="case name (repeatable, or comma list)")
    ap.add_argument("--out", default=str(ROOT), help="repository root to write into")
    ap.add_argument("--list", action="store_true", help="list cases and exit")
    ap.add_argument("--jobs", type=int, default=1, help="run cases in N parallel processes")
    a = ap.parse_args(argv)
    if a.list:
        for n, (_, e, w) in REGISTRY.items():
            print(f"{w}/{n}: {', '.join(e) or 'healthy'}")
        return 0
    names = [x for o in (a.only or []) for x in o.split(",") if x] or list(REGISTRY)
    bad = [n for n in names if n not in REGISTRY]
    if bad:
        ap.error(f"unknown case(s) {bad}; known: {', '.join(REGISTRY)}")
    root = Path(a.out).resolve()
    os.chdir(root)  # output_dir paths recorded in the artefacts stay repo-relative
    t0 = time.time()
    if a.jobs > 1 and len(names) > 1:
        base_model()  # build the shared caches once, before forking
        seed_a_best()
        procs: list = []
        failed = []
        queue = list(names)
        while queue or procs:
            while queue and len(procs) < a.jobs:
                n = queue.pop(0)
                procs.append(
                    (
                        n,
                        subprocess.Popen(
                            [sys.executable, __file__, "--only", n, "--out", str(root)]
                        ),
                    )
                )
            time.sleep(0.5)
            for n, p in list(procs):
                if p.poll() is not None:
                    procs.remove((n, p))
                    if p.returncode:
                        failed.append(n)
        write_index(root)
        print(f"total {time.time() - t0:.0f}s; failed: {failed or 'none'}")
        return 1 if failed else 0
    failed = []
    for n in names:
        fn, _, where = REGISTRY[n]
        out = fresh(Path(where) / n)
        t1 = time.time()
        try:
            fn(out)
        except Exception as e:  # keep going; report at the end
            import traceback

            traceback.print_exc()
            failed.append(n)
            print(f"[{n}] FAILED: {e}")
            continue
        prune(out)
        kb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1024
        print(f"[{n}] done in {time.time() - t1:.1f}s, {kb:.0f} KB", flush=True)
    write_index(root)
    print(f"total {time.time() - t0:.0f}s; failed: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
