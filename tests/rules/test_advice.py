"""Advice reads the run: no prescription tells a run to switch to what it already does.

The corpus check reads every prescription of every finding on every run we hold
(our own trainings, the examples, the real third-party runs) against that run's
facts, with patterns written here, independent of `rules/advice.py`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from traindoc.corpus import cases, real_cases, target
from traindoc.engine import diagnose
from traindoc.model import Fact, Run
from traindoc.pipeline import load_all
from traindoc.rules import advice

ROOT = Path(__file__).parents[2]
OWN = cases(ROOT / "tests" / "corpus") + cases(ROOT / "examples")
# The corpus cases traindoc can read: one unreadable holdout case is allowed and counted
# by tests/real/test_reads.py (the snapshot records its error); no advice to check there.
_READS = json.loads((ROOT / "tests" / "real" / "reads.json").read_text(encoding="utf-8"))
REAL = [c for c in real_cases(ROOT / "tests" / "real") if "error" not in _READS.get(c.name, {})]

# What a prescription must not say, given a fact of the run (checked case-insensitively).
TO_COSINE = re.compile(r"(switch|use|to) cosine|cosine decay with")
TO_BF16 = re.compile(r"\bbf16\b")
MORE_WARMUP = re.compile(r"(add|lengthen|longer|with) (a )?(linear )?(\d-\d% )?warmup")
CLIP_ON = re.compile(r"turn gradient clipping on|clip gradients")
LR_MOVE = re.compile(r"(lower|raise) the peak lr from ([\d.e+-]+) to ~?([\d.e+-]+)")
# Rules whose subject is fp16 itself (they fire only on an fp16 run).
FP16_RULES = {"fp16-instability", "precision-suboptimal"}


def _run(lr_sched: str | None = None, **facts: object) -> Run:
    f = {k: Fact(v, "test") for k, v in facts.items() if v is not None}
    if lr_sched:
        f["lr_scheduler"] = Fact(lr_sched, "test")
    return Run("r", {}, f)  # no LR logged: the warmup is the config's


def test_schedule_advice_is_what_the_run_lacks() -> None:
    cosine_warm = _run("cosine", warmup_steps=3, max_steps=100)
    assert advice.schedule(cosine_warm) is None
    assert "warmup" in advice.schedule(_run("cosine", warmup_steps=0, max_steps=100))
    linear_warm = advice.schedule(_run("linear", warmup_steps=3, max_steps=100))
    assert linear_warm == "switch the LR schedule from linear to cosine decay"
    assert "2-5% warmup" in advice.schedule(_run("constant", max_steps=100))


def test_precision_advice_only_for_fp16() -> None:
    assert advice.precision(_run(precision="fp32")) is None
    assert advice.precision(_run(precision="bf16")) is None
    assert advice.precision(_run(precision="fp16")).startswith("switch fp16 to bf16")
    assert advice.precision(_run()).startswith("if it trains in fp16")


def test_clipping_and_batch_advice() -> None:
    assert advice.clipping(_run(max_grad_norm=1.0)) is None
    assert "now off" in advice.clipping(_run(max_grad_norm=0.0))
    assert advice.batch(_run(effective_batch=32)) is None
    assert "now 4" in advice.batch(_run(effective_batch=4))
    assert advice.join("a", None, "b", "c") == "a, b and c"


def _conflicts(run: Run, findings) -> list[str]:
    sched = str(run.fact("lr_scheduler") or "").lower()
    prec = str(run.fact("precision") or "").lower()
    share = advice.warmup_share(run)
    mg = run.fact("max_grad_norm")
    out = []
    for f in findings:
        text = (f.prescription or "").lower()
        say = f"{run.name}: {f.rule}: {text[:120]}"
        if "cosine" in sched and TO_COSINE.search(text):
            out.append(f"cosine already: {say}")
        if prec in ("bf16", "fp32") and f.rule not in FP16_RULES and TO_BF16.search(text):
            out.append(f"{prec} already: {say}")
        if share is not None and share >= 0.05 and MORE_WARMUP.search(text):
            out.append(f"warmup {share:.0%} already: {say}")
        if mg and float(mg) > 0 and CLIP_ON.search(text):
            out.append(f"clipping at {mg} already: {say}")
        for verb, a, b in LR_MOVE.findall(text):
            x, y = float(a.rstrip(".")), float(b.rstrip("."))
            if (verb == "lower") != (y < x):
                out.append(f"LR {verb} from {x} to {y}: {say}")
    return out


def _real_target(case: Path) -> Path:
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    return target(case, meta.get("files", []))


@pytest.mark.parametrize(
    "path",
    [c for c in OWN] + [_real_target(c) for c in REAL],
    ids=[c.name for c in OWN] + [c.name for c in REAL],
)
def test_no_prescription_asks_for_what_the_run_does(path: Path) -> None:
    bad = []
    for run in load_all(path):
        bad += _conflicts(run, diagnose(run).findings)
    assert not bad, bad


def test_the_check_can_fail() -> None:
    """The oracle flags the advice traindoc used to give a cosine, fp32, clipped run."""
    run = _run("cosine", precision="fp32", max_grad_norm=1.0, warmup_steps=10, max_steps=100)

    class F:
        rule = "lr-too-high"
        prescription = (
            "Lower the peak LR to ~1e-5, switch to cosine decay with a 2-5% warmup; "
            "if the loss has NaNs under fp16, switch to bf16 first; lengthen warmup"
        )

    assert len(_conflicts(run, [F()])) == 3


def test_hot_lr_before_the_first_row_is_the_root_cause() -> None:
    """A fresh model's first row at step 4, after three updates at LR 1.0: the report
    puts the LR first, and the absurd first loss is its consequence, not the start's."""
    import numpy as np

    from traindoc.model import Series

    steps = np.arange(4, 204, 4)
    loss = np.concatenate([np.linspace(96, 60, 25), 60 + 20 * np.sin(np.arange(25))])
    run = Run(
        "hot",
        {
            "loss": Series.from_arrays("loss", steps, loss),
            "lr": Series.from_arrays("lr", steps, np.full(steps.size, 1.0)),
        },
        {"vocab_size": Fact(50257, "test"), "regime": Fact("pretraining", "test")},
    )
    found = {f.rule: f for f in diagnose(run).findings}
    assert found["absurd-initial-loss"].caused_by == ("lr-too-high",)
    assert not found["lr-too-high"].caused_by
