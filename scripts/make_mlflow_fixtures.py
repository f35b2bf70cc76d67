#!/usr/bin/env python3
"""Real MLflow file-store runs for the mlflow reader and the corpus (FORMATS.md 5.2).

Runs the tiny GPT-2 loop of scripts/_tiny_loop.py with mlflow-skinny logging to
a local file store (MLFLOW_ALLOW_FILE_STORE=true, no server): metrics train/loss
(nested dirs on disk), learning_rate, grad_norm every step, params as the HF
integration logs them. Keeps mlruns/<exp>/meta.yaml and the run's meta.yaml,
metrics/, params/ and the runName tag (artifacts/ and the user/path/git tags are dropped).

    .venv-train/bin/python scripts/make_mlflow_fixtures.py
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tiny_loop import train

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"

CASES = {
    "mlflow-nonfinite": dict(
        expect=["nonfinite-loss"],
        also=["lr-too-high", "nonfinite-gradients", "grad-explosion", "divergence"],
        kw=dict(steps=60, lr=3.0, clip=None, optim="sgd", warmup=1),
        story="MLflow file store: tiny GPT-2 from scratch, SGD (momentum 0.9) at LR 3.0, no "
        "clipping: the loss and gradient norm go to NaN (written as 'nan' in the metric files).",
    ),
    "mlflow-healthy": dict(
        expect=[],
        kw=dict(steps=150, lr=2e-3, clip=1.0, warmup=5),
        story="MLflow file store: tiny GPT-2 from scratch, AdamW 2e-3, 5-step warmup, clip 1.0, "
        "150 steps.",
    ),
}


def make(name: str, spec: dict) -> None:
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    import mlflow

    out = CORPUS / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    mlflow.set_tracking_uri((out / "mlruns").as_uri())
    mlflow.set_experiment("traindoc-fixtures")
    kw = spec["kw"]
    with mlflow.start_run(run_name=name):
        mlflow.log_params(
            {
                "learning_rate": kw["lr"],
                "max_grad_norm": kw["clip"] or 0.0,
                "warmup_steps": kw["warmup"],
                "max_steps": kw["steps"],
                "per_device_train_batch_size": 4,
                "lr_scheduler_type": "constant",
                "optim": kw.get("optim", "adamw"),
            }
        )

        def log(step: int, m: dict[str, float]) -> None:
            mlflow.log_metrics(
                {"train/loss": m["loss"], "learning_rate": m["lr"], "grad_norm": m["grad_norm"]},
                step=step,
            )

        losses = train(log, **kw)
    for art in (out / "mlruns").glob("*/*/artifacts"):
        shutil.rmtree(art)
    for tag in (out / "mlruns").glob("*/*/tags/*"):  # user name, host paths, git commit
        if tag.name != "mlflow.runName":
            tag.unlink()
    finite = [v for v in losses if math.isfinite(v)]
    exp = {
        "expect": spec["expect"],
        "healthy": not spec["expect"],
        "story": spec["story"],
        "numbers": {
            "loss_first": losses[0],
            "loss_max_finite": max(finite),
            "nan_points": len(losses) - len(finite),
        },
    }
    if spec.get("also"):
        exp["also_applies"] = spec["also"]
    (out / "expected.json").write_text(json.dumps(exp, indent=2) + "\n")
    print(f"[{name}] loss {losses[0]:.3f} -> {losses[-1]}")


if __name__ == "__main__":
    for n, s in CASES.items():
        make(n, s)
