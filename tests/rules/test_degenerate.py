"""Every rule survives the series a broken logger writes: all NaN, all Inf, one point,
constants, zeros. A rule that crashes becomes an internal-error line in the report (the
engine catches it), so the test asserts there is none."""

from __future__ import annotations

import numpy as np
import pytest

from traindoc.engine import diagnose
from traindoc.model import Fact, Run, Series

SIGNALS = ("loss", "eval_loss", "grad_norm", "lr", "throughput", "reward", "reward_std", "epoch")
SHAPES = {
    "all NaN": lambda n: np.full(n, np.nan),
    "all +Inf": lambda n: np.full(n, np.inf),
    "all zero": lambda n: np.zeros(n),
    "NaN then finite": lambda n: np.r_[np.full(n // 2, np.nan), np.linspace(2.0, 1.0, n - n // 2)],
    "finite then -Inf": lambda n: np.r_[np.linspace(2.0, 1.0, n - 1), -np.inf],
    "huge": lambda n: np.full(n, 1e308),
    "tiny": lambda n: np.full(n, 5e-324),
}


def _run(shape: str, n: int) -> Run:
    steps = np.arange(1, n + 1)
    series = {s: Series.from_arrays(s, steps, SHAPES[shape](n)) for s in SIGNALS}
    facts = {"vocab_size": Fact(32000, "test"), "max_steps": Fact(n, "test")}
    return Run(f"{shape} x{n}", series=series, facts=facts)


@pytest.mark.parametrize("n", [1, 2, 7, 400])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_no_rule_crashes_on_degenerate_series(shape: str, n: int) -> None:
    d = diagnose(_run(shape, n))
    assert not d.errors, d.errors
