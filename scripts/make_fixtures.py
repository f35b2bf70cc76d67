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
SEQ = 64
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "fixtures"  # /.cache/ is gitignored

# Files a user would have and that we keep; everything else (weights, optimizer,
# rng, scheduler) is deleted after the run to keep the corpus small.
KEEP = {
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
        return {"input_ids": self.x[i], "labels": self.x[i].clone()}


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
    return Trainer(
        model=model,
        args=args,
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        callbacks=callbacks,
        optimizers=optimizers,
        **(trainer_kw or {}),
    )


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
