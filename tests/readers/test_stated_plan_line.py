"""A line whose only measure is an LR and whose step is a count closing it ("N=50,
LR=0.001, 10,000 iterations") states the run's plan: train at that LR for that many
iterations. It is no record of step 10,000 (read as one, the log seemed to hold two runs,
the second starting over at iteration 1). Lines verbatim from the GaussianImage
research note (tests/real/divergence_gaussianimage_rust_adam_const_lr1e-3_loss_0p071_
to_0p300_after_iter1500_md)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, read_log, values

_NOTE = """# CRITICAL RESEARCH FINDING: Baseline 1 Divergence at 1600 Iterations

**Date:** 2025-11-15
**Experiment:** Baseline 1, N=50, LR=0.001, 10,000 iterations
**Status:** DIVERGED

```
Iter    1: 0.245190  \u2190 Start
Iter  100: 0.115349  (53% improvement)
Iter  500: 0.089064  (64% improvement)
Iter 1000: 0.075008  (69% improvement)
```
"""


def test_the_experiment_line_is_the_plan_not_a_record(tmp_path: Path) -> None:
    run = one_log(tmp_path, _NOTE, "FINDING.md")
    assert values(run, "loss") == [0.24519, 0.115349, 0.089064, 0.075008]
    assert list(run.get("loss").steps) == [1, 100, 500, 1000]
    assert run.get("lr") is None and run.get("n") is None
    assert run.fact("learning_rate") == 0.001  # the LR it states


def test_a_record_with_a_measure_keeps_its_counted_step(tmp_path: Path) -> None:
    # near misses: the count closes a line that measures something ("lr" beside a loss),
    # and an LR record numbered by its key (Caffe's "Iteration 100, lr = 0.01")
    body = "lr=0.001, loss=2.31, 100 iterations\nlr=0.001, loss=2.05, 200 iterations\n"
    run = one_log(tmp_path, body)
    assert list(run.get("loss").steps) == [100, 200] and values(run, "lr") == [0.001, 0.001]
    (caffe,) = read_log(tmp_path, "Iteration 100, lr = 0.01\nIteration 200, lr = 0.01\n")
    assert list(caffe.get("lr").steps) == [100, 200]
