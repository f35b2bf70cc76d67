#!/usr/bin/env python3
"""Real W&B offline runs for the wandb reader and the corpus (FORMATS.md 5.1).

Runs the tiny GPT-2 loop of scripts/_tiny_loop.py with `wandb.init(mode="offline")`
(no server, no account, no network), logging the keys HF's WandbCallback uses
(train/loss, train/learning_rate, train/grad_norm, train/global_step) plus the run
config. Keeps only `wandb/offline-run-*/run-<id>.wandb` (the debug logs hold host
paths) and writes, next to it, `leet.json`: per-key point counts and sums plus the
last values, taken from `wandb leet inspect --json` (wandb's own reader) when that
CLI works, so the tests check our decoder against wandb without needing wandb.

    .venv-train/bin/python scripts/make_wandb_fixtures.py
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tiny_loop import train

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"

CASES = {
    "wandb-divergence": dict(
        expect=["divergence"],
        also=["lr-too-high", "warmup-too-short", "absurd-initial-loss", "grad-spike"],
        kw=dict(steps=120, lr=1.0, clip=None, warmup=1),
        story="W&B offline run: tiny GPT-2 from scratch, AdamW at LR 1.0 with a 1-step warmup "
        "and no clipping: the loss blows up and ends above where it started.",
    ),
    "wandb-healthy": dict(
        expect=[],
        kw=dict(steps=150, lr=2e-3, clip=1.0, warmup=5),
        story="W&B offline run: tiny GPT-2 from scratch, AdamW 2e-3, 5-step warmup, clip 1.0, "
        "150 steps, loss/lr/grad_norm logged every step.",
    ),
}


def make(name: str, spec: dict) -> None:
    os.environ.update(
        WANDB_MODE="offline",
        WANDB_SILENT="true",
        WANDB_DISABLE_GIT="true",
        WANDB_DISABLE_CODE="true",
    )
    import wandb

    out = CORPUS / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        kw = spec["kw"]
        config = {
            "learning_rate": kw["lr"],
            "max_grad_norm": kw["clip"] or 0.0,
            "warmup_steps": kw["warmup"],
            "max_steps": kw["steps"],
            "per_device_train_batch_size": 4,
            "optimizer": "adamw",
            "model": "tiny-gpt2",
        }
        run = wandb.init(
            project="traindoc-fixtures",
            name=name,
            dir=tmp,
            mode="offline",
            config=config,
            settings=wandb.Settings(x_disable_stats=True),
        )

        def log(step: int, m: dict[str, float]) -> None:
            run.log(
                {
                    "train/loss": m["loss"],
                    "train/learning_rate": m["lr"],
                    "train/grad_norm": m["grad_norm"],
                    "train/global_step": step,
                }
            )

        losses = train(log, **kw)
        run.finish()
        src = next(Path(tmp, "wandb").glob("offline-run-*"))
        dst = out / "wandb" / src.name
        dst.mkdir(parents=True)
        wb = next(src.glob("run-*.wandb"))
        shutil.copy2(wb, dst / wb.name)
    numbers = {
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "loss_max": max((v for v in losses if math.isfinite(v)), default=None),
    }
    exp = {
        "expect": spec["expect"],
        "healthy": not spec["expect"],
        "story": spec["story"],
        "numbers": numbers,
    }
    if spec.get("also"):
        exp["also_applies"] = spec["also"]
    (out / "expected.json").write_text(json.dumps(exp, indent=2) + "\n")
    leet = inspect(dst / wb.name)
    if leet is not None:
        (out / "leet.json").write_text(json.dumps(leet, indent=1, sort_keys=True) + "\n")
    print(
        f"[{name}] {(dst / wb.name).stat().st_size} bytes, loss {losses[0]:.3f} -> {losses[-1]:.3f}"
    )


def inspect(path: Path) -> dict | None:
    """What wandb's own Go reader sees: per history key (count, sum), last values."""
    exe = Path(sys.executable).parent / "wandb"
    try:
        out = subprocess.run(
            [str(exe), "leet", "inspect", "--json", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"wandb leet inspect not usable here: {exc}")
        return None
    keys: dict[str, list[float]] = {}
    records = 0
    for line in out.splitlines():
        rec = json.loads(line)
        records += 1
        if rec.get("type") != "history":
            continue
        for k, v in rec["history"]["item"].items():
            if isinstance(v, (int, float)):
                keys.setdefault(k, []).append(float(v))
    return {
        "records": records,
        "history": {
            k: {"count": len(v), "sum": sum(v), "last": v[-1]} for k, v in sorted(keys.items())
        },
    }


if __name__ == "__main__":
    for n, s in CASES.items():
        make(n, s)
