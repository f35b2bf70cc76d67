"""LR-sweep siblings (measure/sweep.py): a folder of runs that differ in their peak LR is
read arm against arm at one budget, and lr-too-low names the arm under the best LR."""

from __future__ import annotations

import json
import math
from pathlib import Path

import traindoc
from traindoc.pipeline import load_folder


def _arm(path: Path, lr: float, end: float, steps: int = 2000, optim: str | None = None) -> None:
    """A from-scratch LM arm: warmup then constant LR, the loss falling from ln(10000)
    towards `end`, an eval every 200 steps."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for s in range(10, steps + 1, 10):
        loss = end + (9.21 - end) * math.exp(-s / (steps / 6))
        row = {"step": s, "train_loss": round(loss, 4), "lr": lr * min(1.0, s / 100)}
        if s % 200 == 0:
            row["val_loss"] = round(loss + 0.02, 4)
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if optim:
        (path.parent / "config.json").write_text(json.dumps({"optimizer": optim, "lr": lr}))


def _low(d: traindoc.Diagnosis) -> dict[str, float]:
    return {
        r.run.name.split("/")[0]: r.findings[0].evidence["sweep_gap"]
        for r in d.runs
        if r.findings
        and r.findings[0].rule == "lr-too-low"
        and "sweep_gap" in r.findings[0].evidence
    }


def test_the_arm_below_the_best_lr_is_too_low(tmp_path: Path) -> None:
    _arm(tmp_path / "lr_1e-4" / "metrics.jsonl", 1e-4, 2.2)
    _arm(tmp_path / "lr_1e-3" / "metrics.jsonl", 1e-3, 1.5)
    _arm(tmp_path / "lr_3e-3" / "metrics.jsonl", 3e-3, 1.46)  # the best
    _arm(tmp_path / "lr_1e-2" / "metrics.jsonl", 1e-2, 1.9)  # above it: not lr-too-low's
    runs = [r.fact("lr_sweep") for r in load_folder(tmp_path)]
    assert len(runs) == 4 and all(v is not None and v["arms"] == 4 for v in runs)
    assert {v["best_lr"] for v in runs} == {3e-3}
    gaps = _low(traindoc.diagnose(tmp_path, select=["lr-too-low"]))
    assert set(gaps) == {"lr_1e-4"}  # 1e-3 is 3% off the best: within the basin
    assert 0.4 < gaps["lr_1e-4"] < 0.55


def test_an_arm_that_stopped_early_does_not_cut_the_budget(tmp_path: Path) -> None:
    _arm(tmp_path / "a" / "metrics.jsonl", 1e-4, 2.2)
    _arm(tmp_path / "b" / "metrics.jsonl", 1e-3, 1.5)
    _arm(tmp_path / "c" / "metrics.jsonl", 3e-3, 1.46)
    _arm(tmp_path / "d" / "metrics.jsonl", 1.0, 9.0, steps=200)  # diverged and was stopped
    facts = {
        r.fact("learning_rate") or r.get("lr").values.max(): r.fact("lr_sweep")
        for r in load_folder(tmp_path)
    }
    assert facts[1e-4]["step"] == 2000 and facts[1e-4]["arms"] == 3
    assert facts[1.0] is None  # no value at the common budget: not compared


def test_two_arms_or_two_optimizers_are_no_sweep(tmp_path: Path) -> None:
    _arm(tmp_path / "a" / "metrics.jsonl", 1e-4, 2.2)
    _arm(tmp_path / "b" / "metrics.jsonl", 1e-3, 1.5)
    assert not any(r.fact("lr_sweep") for r in load_folder(tmp_path))
    _arm(tmp_path / "c" / "metrics.jsonl", 3e-3, 1.46, optim="sgd")
    _arm(tmp_path / "d" / "metrics.jsonl", 1e-2, 1.46, optim="sgd")
    # an SGD arm is not an AdamW arm's sibling: still two arms per optimizer
    assert not any(r.fact("lr_sweep") for r in load_folder(tmp_path))
