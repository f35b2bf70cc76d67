#!/usr/bin/env python3
"""Generate the console-log fixtures: REAL stdout+stderr of tiny CPU trainings.

Each scenario runs in a child process whose stdout and stderr go, merged, to one
file (what `python train.py > train.log 2>&1` leaves), so tqdm's `\\r` bars,
`tqdm.write` dicts and logging lines interleave exactly as they do for users.

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_console_fixtures.py [--only NAME]

Scenarios (tiny GPT-2 from a config: vocab 256 = byte tokens, n_embd 32, 2 layers;
data = Python stdlib source as UTF-8 bytes, sequence 32; floor ln 256 = 5.545):

* hf-v5-healthy / hf-v5-divergence: transformers 5.x Trainer, disable_tqdm=False
  (quoted '.4g' dicts glued to tqdm bars); the faulty one ramps Adam's LR to 1.0.
* hf-v5-resume: 20 steps, then resume_from_checkpoint=checkpoint-10 with logging
  at INFO ("Resuming training ... global step 10", "Fast-forwarding the dataloader").
* nanogpt-healthy / nanogpt-nan: a plain loop printing nanoGPT's
  `iter N: loss X, time Yms, mfu Z%` and `step N: train loss X, val loss Y`;
  the faulty one uses SGD at LR 300 without clipping, so the loss goes NaN.
* peft-healthy / peft-frozen: LoRA (r=16, attention + MLP) via peft, `print_trainable_parameters()`; the
  faulty one freezes everything after get_peft_model (trainable params: 0) and
  trains in a plain loop that logs the flat loss.

Outputs go to tests/readers/assets/console/<name>.log (each a few KB), and the
corpus cases tests/corpus/console-*/ get a copy plus config.json and expected.json.
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
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "tests" / "readers" / "assets" / "console"
CORPUS = ROOT / "tests" / "corpus"
WORK = ROOT / ".cache" / "console-fixtures"
SEQ, VOCAB = 32, 256


def _config():
    from transformers import GPT2Config

    return GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=32, n_layer=2, n_head=2)


def _model(seed: int = 0):
    import torch
    from transformers import GPT2LMHeadModel

    torch.manual_seed(seed)
    return GPT2LMHeadModel(_config())


def _data(n: int, offset: int = 0):
    import inspect
    import json as _json  # noqa: F401  (a module whose source we read)

    import torch

    mods = ["json.decoder", "json.encoder", "argparse", "textwrap", "string"]
    raw = "\n".join(inspect.getsource(__import__(m, fromlist=["x"])) for m in mods).encode()
    ids = torch.tensor(list(raw[offset : offset + n * SEQ]), dtype=torch.long).view(n, SEQ)
    return [{"input_ids": r, "labels": r} for r in ids]


def _hf(lr: float, max_steps: int, out: Path, ramp: bool = False, resume: str | None = None):
    import torch
    from transformers import Trainer, TrainingArguments
    from transformers.utils import logging as hf_logging

    torch.set_num_threads(1)
    if resume:
        hf_logging.set_verbosity_info()
    args = TrainingArguments(
        output_dir=str(out),
        max_steps=max_steps,
        per_device_train_batch_size=8,
        learning_rate=lr,
        lr_scheduler_type="linear",
        warmup_steps=max_steps if ramp else 3,
        logging_steps=2,
        eval_strategy="steps",
        eval_steps=10,
        save_steps=10,
        report_to=[],
        disable_tqdm=False,
        use_cpu=True,
        seed=0,
    )
    if ramp:  # the fault: the LR ramps over the whole run to an absurd peak
        args.warmup_ratio = 1.0
    t = Trainer(model=_model(), args=args, train_dataset=_data(240), eval_dataset=_data(16, 9000))
    t.train(resume_from_checkpoint=resume)


def _nano_loop(opt_name: str, lr: float, iters: int, peft_mode: str | None = None) -> None:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = _model()
    if peft_mode:  # LoRA needs a base that learned something: 100 quiet steps on code
        base_opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        for b in torch.stack([d["input_ids"] for d in _data(800, 40000)]).split(8):
            base_opt.zero_grad()
            model(input_ids=b, labels=b).loss.backward()
            base_opt.step()
        from peft import LoraConfig, get_peft_model

        targets = ["c_attn", "c_proj", "c_fc"]
        model = get_peft_model(model, LoraConfig(r=16, target_modules=targets, lora_alpha=32))
        if peft_mode == "frozen":  # the fault: "freeze the base" freezes the adapter too
            model.requires_grad_(False)
            model.enable_input_require_grads()
        model.print_trainable_parameters()
    params = list(model.parameters())
    opt = (
        torch.optim.SGD(params, lr=lr)
        if opt_name == "sgd"
        else torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    )
    data = torch.stack([d["input_ids"] for d in _data(400)])
    val = torch.stack([d["input_ids"] for d in _data(16, 14000)])
    for it in range(iters + 1):
        if it % 50 == 0:
            with torch.no_grad():
                tl = model(input_ids=data[:16], labels=data[:16]).loss.item()
                vl = model(input_ids=val, labels=val).loss.item()
            print(f"step {it}: train loss {tl:.4f}, val loss {vl:.4f}", flush=True)
        t0 = time.time()
        b = data[(it * 8) % 392 : (it * 8) % 392 + 8]
        loss = model(input_ids=b, labels=b).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        dt = time.time() - t0
        if it % 5 == 0:
            mfu = -100.0 if it < 5 else 0.01 * (it % 7 + 1)  # nanoGPT: -100% for 5 iters
            print(f"iter {it}: loss {loss.item():.4f}, time {dt * 1000:.2f}ms, mfu {mfu:.2f}%")


SCENARIOS = {
    "hf-v5-healthy": lambda out: _hf(2e-3, 60, out),
    "hf-v5-divergence": lambda out: _hf(1.0, 60, out, ramp=True),
    "hf-v5-resume": lambda out: (
        _hf(2e-3, 10, out),
        _hf(2e-3, 20, out, resume=str(out / "checkpoint-10")),
    ),
    "nanogpt-healthy": lambda out: _nano_loop("adamw", 2e-3, 200),
    "nanogpt-nan": lambda out: _nano_loop("sgd", 300.0, 200),
    "peft-healthy": lambda out: _nano_loop("adamw", 1e-2, 200, peft_mode="lora"),
    "peft-frozen": lambda out: _nano_loop("adamw", 1e-2, 200, peft_mode="frozen"),
}

# corpus case -> (scenario, expected rule ids, story)
CASES = {
    "console-hf-healthy": (
        "hf-v5-healthy",
        [],
        "HF Trainer 5.24 console (quoted .4g dicts, tqdm bars): healthy pre-training, LR 2e-3 linear, 60 steps.",
    ),
    "console-hf-divergence": (
        "hf-v5-divergence",
        ["divergence"],
        "Same HF console run, but the LR ramps linearly over the whole run to 1.0 (warmup_ratio=1): the loss climbs back up.",
    ),
    "console-nanogpt-healthy": (
        "nanogpt-healthy",
        [],
        "nanoGPT-style loop printing iter/step lines: AdamW 2e-3, 200 iters.",
    ),
    "console-nanogpt-nonfinite": (
        "nanogpt-nan",
        ["nonfinite-loss"],
        "Same loop with SGD at LR 300 and no clipping: the printed loss becomes nan.",
    ),
    "console-peft-healthy": (
        "peft-healthy",
        [],
        "LoRA r=16 on c_attn/c_proj/c_fc (peft) of the tiny GPT-2 after 100 quiet full-model steps on other code, print_trainable_parameters, plain loop, AdamW 1e-2, 200 iters.",
    ),
    "console-peft-frozen": (
        "peft-frozen",
        ["no-trainable-parameters"],
        "Same, but the model is frozen after get_peft_model (trainable params: 0): the loss stays flat.",
    ),
}


# consequences that honestly also apply (allowed, not required)
ALSO = {
    "console-hf-divergence": ["lr-too-high", "no-learning", "warmup-too-long"],
    "console-peft-frozen": ["eval-stagnation"],
}


def run_child(name: str) -> Path:
    out = WORK / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    log = out / "train.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    with log.open("wb") as f:
        subprocess.run(
            [sys.executable, __file__, "--child", name],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            check=False,
            cwd=out,
        )
    ASSETS.mkdir(parents=True, exist_ok=True)
    shutil.copy(log, ASSETS / f"{name}.log")
    return log


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        SCENARIOS[a.child](Path.cwd())
        return
    names = [a.only] if a.only else list(SCENARIOS)
    logs = {n: run_child(n) for n in names}
    for case, (scen, expect, story) in CASES.items():
        if scen not in logs:
            continue
        d = CORPUS / case
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        shutil.copy(logs[scen], d / "train.log")
        (d / "config.json").write_text(_config().to_json_string())
        exp = {"expect": expect, "healthy": not expect, "story": story, "floor": math.log(VOCAB)}
        if case in ALSO:
            exp["also_applies"] = ALSO[case]
        (d / "expected.json").write_text(json.dumps(exp, indent=2) + "\n")
        print(case, "<-", scen)


if __name__ == "__main__":
    main()
