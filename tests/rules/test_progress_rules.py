"""Timing cases the YAML synthesiser cannot express (gaps mid-run, varying step times).

stalled-training and throughput-drop read wall-clock times; these build Runs with
hand-made time arrays: a pause the run recovered from, periodic eval pauses, a
slow checkpoint save, a restart gap at a known resume, steps/s derived from times.
"""

from __future__ import annotations

import numpy as np

from traindoc.engine import diagnose
from traindoc.model import Fact, Run, Series
from traindoc.rules.registry import get

T0 = 1_700_000_000.0


def _run(dt: np.ndarray, facts: dict | None = None, n_loss: int | None = None) -> Run:
    n = dt.size
    steps = np.arange(1, n + 1)
    loss = 3.0 - np.log1p(steps) * 0.2 + np.random.default_rng(0).normal(0, 0.02, n)
    times = T0 + np.cumsum(dt)
    s = Series.from_arrays("loss", steps, loss, times)
    f = {k: Fact(v, "test") for k, v in (facts or {}).items()}
    return Run("t", {"loss": s}, f)


def _find(rule_id: str, run: Run):
    found = [f for f in diagnose(run, [get(rule_id)]).findings if f.rule == rule_id]
    return found[0] if found else None


def test_recovered_pause_is_info() -> None:
    # the job was not hung and went on at its pace: a pause costs time, not learning
    dt = np.ones(300)
    dt[150] = 300.0  # 5 minutes of silence after step 151, then normal again
    f = _find("stalled-training", _run(dt))
    assert f is not None and str(f.severity) == "info"
    assert f.evidence["stalled_after_step"] == 150
    assert f.evidence["resumed_logging_at_step"] == 151
    assert f.evidence["ended_in_stall"] is False


def test_periodic_eval_pauses_are_not_a_stall() -> None:
    dt = np.ones(400)
    dt[49::50] = 60.0  # a 1-minute eval every 50 logs: 60x a step, but every time
    assert _find("stalled-training", _run(dt)) is None


def test_one_slow_checkpoint_save_is_excused() -> None:
    dt = np.ones(300)
    dt[199] = 120.0  # the gap between steps 200 and 201, where save_steps=200 falls
    assert _find("stalled-training", _run(dt, {"save_steps": 200})) is None
    # ... but not when no save is scheduled there
    assert _find("stalled-training", _run(dt, {"save_steps": 300})) is not None


def test_restart_gap_at_a_known_resume_is_info() -> None:
    dt = np.ones(300)
    dt[99] = 7200.0  # job down for 2 h, resumed from the step-100 checkpoint
    f = _find("stalled-training", _run(dt, {"resume_steps": [100]}))
    assert f is not None and str(f.severity) == "info"
    assert f.evidence["resume_step"] == 100
    assert "resume-data-skip" in f.explanation


def test_relative_times_with_epoch_mtime_are_not_compared() -> None:
    dt = np.ones(200)
    run = _run(dt, {"now": T0 + 10_000})
    rel = Series.from_arrays(
        "loss", run.series["loss"].steps, run.series["loss"].values, np.cumsum(dt)
    )
    run = Run("t", {"loss": rel}, run.facts)
    assert _find("stalled-training", run) is None


def test_throughput_drop_derived_from_loss_times() -> None:
    dt = np.r_[np.full(200, 0.5), np.full(200, 1.5)]  # 2 steps/s -> 0.67 steps/s
    dt = dt * (1 + np.random.default_rng(1).normal(0, 0.05, dt.size))
    f = _find("throughput-drop", _run(dt))
    assert f is not None
    assert abs(f.evidence["ratio"] - 1 / 3) < 0.05
    assert 195 <= f.step <= 210
    assert f.evidence["source"].startswith("steps/s")


def test_throughput_steady_with_eval_pauses_is_quiet() -> None:
    dt = np.full(400, 0.5)
    dt[49::50] = 30.0
    assert _find("throughput-drop", _run(dt)) is None
