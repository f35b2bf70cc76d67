"""Plain training loops with traindoc.Monitor: stop on NaN, and seed A's resume hang."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path

import pytest

import traindoc
from traindoc.engine import diagnose
from traindoc.live.persist import read_findings
from traindoc.pipeline import load
from traindoc.report._live import live_line


def test_plain_loop_raises_a_clear_exception_on_nan(tmp_path: Path) -> None:
    m = traindoc.Monitor(vocab_size=50257, output_dir=tmp_path, watchdog=False)
    with m, pytest.raises(traindoc.TrainingStopped, match="nonfinite-loss") as err:
        for step in range(1, 100):
            loss = 10.8 - 0.05 * step if step != 40 else math.nan
            m.step(step, loss=loss, lr=3e-4)
    assert err.value.finding.step == 40
    assert read_findings(tmp_path)[0].evidence["live"]["action"] == "stop"


def _resume_bug_loop(monitor: traindoc.Monitor, stop: threading.Event, interval: float) -> None:
    """Seed A: resumed at step 300 with accumulation 16; the optimizer step waits for a
    counter that was restored as a *global step* but is compared as a micro-step."""
    import torch

    torch.set_num_threads(1)
    model = torch.nn.Linear(8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    accum, start = 16, 300
    micro = 0
    for step in range(1, 11):  # the healthy run before the resume
        loss = model(torch.randn(4, 8)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        time.sleep(interval)
        monitor.step(step, loss=loss.item(), lr=0.1)
    micro = start  # the bug: resumed "micro-step" counter = global step 300
    while not stop.is_set():
        loss = model(torch.randn(4, 8)).pow(2).mean()
        loss.backward()
        micro += 1
        if micro == start * accum:  # only true when counting from step 0: never fires
            opt.step()
            monitor.step(micro // accum, loss=loss.item())
        time.sleep(interval / accum)


def test_resume_bug_reported_stalled_within_3x_step_interval(tmp_path: Path) -> None:
    interval = 0.2
    m = traindoc.Monitor(vocab_size=50257, output_dir=tmp_path, stall_factor=2.0, stall_floor_s=0.3)
    stop = threading.Event()
    worker = threading.Thread(target=_resume_bug_loop, args=(m, stop, interval), daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 20
        while m.stall is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert m.stall is not None, "stall not reported"
        # reported at most 3 step intervals after the last step (the interval the
        # loop really had: on a loaded machine a step takes longer than its sleep)
        assert m.stall.silence_s <= 3 * max(interval, m.stall.usual_s), m.stall
        (f,) = [f for f in m.findings if f.rule == "stalled-training"]
        assert f.evidence["stalled_after_step"] == 10
        assert "_resume_bug_loop" in f.evidence["stuck_thread_stack"]
        assert (
            "traindoc-watchdog" in f.evidence["all_threads"]
            or "Thread" in f.evidence["all_threads"]
        )
    finally:
        stop.set()
        worker.join(5)
        m.close()
    rec = [r for r in read_findings(tmp_path) if r.rule == "stalled-training"]
    assert rec and "_resume_bug_loop" in rec[0].evidence["stuck_thread_stack"]
    # read back: whether or not the log's end already looks like a stall offline,
    # the report carries what only the live run saw (the stuck thread)
    d = diagnose(load(tmp_path))
    (f,) = [f for f in d.findings if f.rule == "stalled-training"]
    assert f.evidence["live"]["action"] == "warn" and "_resume_bug_loop" in live_line(f)


def test_live_log_reads_back_with_traindoc_diagnose(tmp_path: Path) -> None:
    from traindoc.engine import diagnose
    from traindoc.readers import load_run

    m = traindoc.Monitor(vocab_size=50257, output_dir=tmp_path, watchdog=False)
    with m, pytest.raises(traindoc.TrainingStopped):
        m.step(1, loss=96.0, grad_norm=50.0, lr=1e-6)
    run = load_run(tmp_path / "traindoc")
    assert run.vocab_size == 50257
    assert "absurd-initial-loss" in {f.rule for f in diagnose(run).findings}
    assert json.loads((tmp_path / "traindoc/run_config.json").read_text())["vocab_size"] == 50257


def test_monitor_is_incremental_not_a_rescan() -> None:
    m = traindoc.Monitor(vocab_size=50257, watchdog=False)
    calls = []
    real = m.check_all

    def counting():
        calls.append(m._progress.n)
        return real()

    m.check_all = counting  # type: ignore[method-assign]
    m._budget_ok = lambda: True  # type: ignore[method-assign]  # the schedule alone
    for step in range(1, 2001):
        m.step(step, loss=10.8 * math.exp(-step / 500) + 2, lr=3e-4)
    assert calls[:6] == [8, 16, 32, 64, 128, 256]
    assert len(calls) < 12


def test_bad_arguments_fail_at_construction() -> None:
    with pytest.raises(ValueError, match="valid: pretraining"):
        traindoc.Monitor(regime="pretrain")
    with pytest.raises(ValueError, match="valid: log, warn, stop"):
        traindoc.Policy(rules={"nonfinite-loss": "halt"})
    with pytest.raises(ValueError, match="unknown rule id"):
        traindoc.Monitor(policy=traindoc.Policy(rules={"nan-loss": "stop"}), watchdog=False)


def test_internal_error_disables_monitor_without_raising() -> None:
    m = traindoc.Monitor(watchdog=False)
    m._bufs = None  # type: ignore[assignment]  # simulate a bug of traindoc's own
    assert m.step(1, loss=1.0) == []
    assert m.disabled and m.errors
    assert m.step(2, loss=1.0) == []


def test_no_plateau_verdict_at_step_8_of_a_100k_run_in_warmup() -> None:
    """A fresh model sits at ln(V) while its LR ramps up: not a uniform plateau yet."""
    import math
    import random

    r = random.Random(0)
    facts = {"warmup_steps": 2000, "max_steps": 100_000}
    m = traindoc.Monitor(vocab_size=50257, regime="pretraining", facts=facts, watchdog=False)
    for step in range(1, 65):
        m.step(step, loss=math.log(50257) + 0.02 + r.gauss(0, 0.005), lr=3e-4 * step / 2000)
    m.check_all()
    assert "uniform-plateau" not in {f.rule for f in m.findings}
    d = m.diagnose()
    assert any(s.rule == "uniform-plateau" and "warmup" in s.reason for s in d.not_judged)


@pytest.mark.parametrize(
    ("facts", "flagged"),
    [
        ({"warmup_steps": 2000, "max_steps": 100_000}, False),  # inside the warmup
        ({"max_steps": 100_000}, False),  # 400 steps are 0.4% of a 100,000-step plan
        ({}, True),  # nothing known: 400 updates at ln(V) are the whole run
    ],
)
def test_live_plateau_is_judged_against_the_plan(facts: dict, flagged: bool) -> None:
    """Issue 12: 400 steps of a run with warmup_steps=2000 are no plateau; the periodic
    pass measures against the warmup and max_steps it was given. (Under 300 updates a
    log that sat at ln(V) from its start is a fresh model whatever the plan: see
    test_the_first_steps_at_ln_v_are_a_fresh_model.)"""
    m = traindoc.Monitor(
        vocab_size=50257, facts=facts, watchdog=False, settings=traindoc.Settings()
    )
    for step in range(1, 401):
        m.step(step, loss=math.log(50257) + 0.001 * (step % 2))
    m.check_all()
    assert ("uniform-plateau" in {f.rule for f in m.findings}) is flagged
    if not flagged:
        (why,) = [s.reason for s in m.diagnose().not_judged if s.rule == "uniform-plateau"]
        assert "warmup" in why or "100000-step plan" in why


def test_the_first_steps_at_ln_v_are_a_fresh_model() -> None:
    """Step 8 of a run that sat at ln(V) from its first step, nothing else known: a
    fresh model starts there; the plateau is not judged yet, and the report says why."""
    m = traindoc.Monitor(vocab_size=50257, watchdog=False, settings=traindoc.Settings())
    found = []
    for step in range(1, 9):
        found += m.step(step, loss=math.log(50257) + 0.001 * (step % 2))
    assert "uniform-plateau" not in {f.rule for f in found}
    (why,) = [s.reason for s in m.diagnose().not_judged if s.rule == "uniform-plateau"]
    assert "fresh model" in why


def test_an_adapters_findings_are_stamped_by_the_rule_spec(tmp_path: Path) -> None:
    """What an adapter sees (another rank's NaN, the ranks' step times) goes through a
    registered rule: its id, family and severity, never hand-made ones."""
    from traindoc.live.persist import read_findings
    from traindoc.model import Run, Series
    from traindoc.rules.api import Hit

    m = traindoc.Monitor(output_dir=tmp_path, watchdog=False, rank=0, world_size=2)
    assert m.report("nonfinite-loss", Hit(title="NaN on rank 1", step=5, evidence={"ranks": [1]}))
    (nan,) = m.findings
    assert (nan.id, nan.family, str(nan.severity)) == ("nonfinite-loss", "loss", "error")
    times = {
        f"rank_step_time_s/{r}": Series.from_arrays(
            f"rank_step_time_s/{r}", list(range(1, 21)), [0.1 * (1 + 2 * r)] * 20
        )
        for r in range(2)
    }
    (slow,) = m.judge(Run("live", times), [m.rules["throughput-drop"]])
    assert slow.id == "throughput-drop@rank-1" and slow.evidence["rank"] == 1  # not rank 0's
    assert slow.step == 20 and slow.family == "resume"
    m.close()
    assert [f.id for f in read_findings(tmp_path)] == ["nonfinite-loss", "throughput-drop@rank-1"]
    m2 = traindoc.Monitor(watchdog=False)
    assert not m2.report("no-such-rule", Hit(title="x"))  # a bug of the adapter: disabled
    assert m2.disabled and "no-such-rule" in m2.errors[0]
    quiet = traindoc.Monitor(watchdog=False, settings=traindoc.Settings(ignore=("nonfinite-loss",)))
    assert not quiet.report("nonfinite-loss", Hit(title="x")) and not quiet.disabled
