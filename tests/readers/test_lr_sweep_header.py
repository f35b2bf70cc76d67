"""A sweep's comparison table under a pasted run names the LR once per arm ("Metric
lr=0.0001  lr=0.001  ⭐lr=0.01"): the arms' LRs, not the LR this run was at."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values
from tests.readers.test_prose import _facts

_RUN = "".join(
    f"Train Epoch: 5 [{b * 6400}/60000 ({b * 11}%)]\tLoss: {0.3 - b / 100:.6f}\n" for b in range(4)
)
_TABLE = (
    "\nMetric          lr=0.0001           lr=0.001            \u2b50lr=0.01\n"
    "Speed\U0001f40c         Slow\U0001f680              Fast\u26a1               Too fast\n"
)


def test_the_arms_lrs_of_a_comparison_header_are_not_the_runs_lr(tmp_path: Path) -> None:
    run = one_log(tmp_path, "## LR = 0.01\n\n" + _RUN + _TABLE)
    assert run.get("lr") is None
    assert len(values(run, "loss")) == 4
    assert _facts(tmp_path, "## LR = 0.01\n\n" + _RUN + _TABLE)["learning_rate"] == 0.01


def test_near_miss_a_record_that_prints_its_lr_once_keeps_it(tmp_path: Path) -> None:
    body = "".join(f"step {i} loss={1 - i / 10:.2f} lr=0.01\n" for i in range(3))
    run = one_log(tmp_path, body)
    assert values(run, "lr") == [0.01, 0.01, 0.01]
