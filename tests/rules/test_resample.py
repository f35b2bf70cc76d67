"""The same curve shape gets the same verdict at 300, 3,000 and 100,000 points.

A rule judges the size of an effect (a plateau, a drift, a rise as a fraction of the
run), not how significant it becomes as the log grows. Each shape below is a function
of the run's progress t in [0, 1], sampled at three lengths with the same per-point
noise; eval curves keep their count of evaluations (users evaluate 3-50 times per run
whatever its length).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from traindoc.engine import diagnose
from traindoc.model import Fact, Run, Series
from traindoc.rules.registry import load_all

LENGTHS = (300, 3_000, 100_000)
Shape = Callable[[np.ndarray], np.ndarray]


def _exp(a: float, b: float, rate: float) -> Shape:
    return lambda t: b + (a - b) * np.exp(-rate * t)


def seed_a(t: np.ndarray) -> np.ndarray:
    """96 -> ln(50257) in the first 13%, then on the bf16-rounded floor."""
    return np.where(t < 0.13, 10.82 + (96 - 10.82) * np.exp(-40 * t), 10.8125)


def seed_b(t: np.ndarray) -> np.ndarray:
    """2.3 -> 1.11 in the first third, then a saw-tooth band drifting 1.2% down."""
    fall = 1.11 + 1.19 * np.exp(-15 * t)
    band = 1.11 * (1 - 0.012 * np.clip((t - 0.33) / 0.67, 0, 1))
    return np.where(t < 0.33, fall, band) + 0.025 * np.sin(2 * np.pi * t * 40)


def healthy(t: np.ndarray) -> np.ndarray:
    return _exp(10.9, 3.2, 6.0)(t)


def rises(t: np.ndarray) -> np.ndarray:
    """Learns to 2.0 by mid-run, then climbs 40% and stays up."""
    return np.where(t < 0.5, 2.0 + 1.5 * np.exp(-12 * t), 2.0 * (1 + 0.8 * (t - 0.5)))


def flat(t: np.ndarray) -> np.ndarray:
    return np.full_like(t, 2.6)


# (rule, train-loss shape, relative noise, facts, eval shape or None, expect flag)
CASES = [
    ("uniform-plateau", seed_a, 0.0005, {"vocab_size": 50257}, None, True),
    ("uniform-plateau", healthy, 0.01, {"vocab_size": 50257}, None, False),
    ("oscillating-plateau", seed_b, 0.01, {"regime": "lora"}, None, True),
    ("oscillating-plateau", healthy, 0.01, {"regime": "lora"}, None, False),
    ("divergence", rises, 0.02, {}, None, True),
    ("divergence", healthy, 0.02, {}, None, False),
    ("no-learning", flat, 0.02, {"regime": "full-finetune"}, None, True),
    ("no-learning", healthy, 0.02, {"regime": "full-finetune"}, None, False),
    # eval falls to its minimum at 40% of the run, then rises 15% while train falls
    (
        "overfitting",
        _exp(3.0, 0.5, 4.0),
        0.02,
        {},
        lambda t: 1.0 + 1.2 * np.exp(-10 * t) + 0.25 * np.clip(t - 0.4, 0, None),
        True,
    ),
    ("overfitting", _exp(3.0, 0.5, 4.0), 0.02, {}, _exp(2.2, 1.0, 5.0), False),
]


def _run(shape: Shape, n: int, noise: float, facts: dict, eval_shape: Shape | None) -> Run:
    rng = np.random.default_rng(0)
    t = np.linspace(0.0, 1.0, n)
    y = shape(t) * (1 + rng.normal(0, noise, n))
    steps = np.arange(1, n + 1)
    series = {"loss": Series.from_arrays("loss", steps, y, None, "synthetic")}
    if eval_shape is not None:
        te = np.linspace(0.05, 1.0, 20)
        se = np.round(te * n).astype(np.int64)
        series["eval_loss"] = Series.from_arrays(
            "eval_loss", se, eval_shape(te) * (1 + rng.normal(0, 0.002, te.size)), None, "synth"
        )
    return Run("resampled", series, {k: Fact(v, "test") for k, v in facts.items()})


@pytest.mark.parametrize(
    ("rule_id", "shape", "noise", "facts", "eval_shape", "flag"),
    CASES,
    ids=[f"{c[0]}-{c[1].__name__ if hasattr(c[1], '__name__') else 'shape'}-{c[5]}" for c in CASES],
)
def test_same_verdict_at_any_length(
    rule_id: str, shape: Shape, noise: float, facts: dict, eval_shape: Shape | None, flag: bool
) -> None:
    spec = load_all()[rule_id]
    verdicts = []
    for n in LENGTHS:
        d = diagnose(_run(shape, n, noise, facts, eval_shape), [spec])
        assert not d.errors, d.errors
        found = [f for f in d.findings if f.rule == rule_id]
        verdicts.append((bool(found), str(found[0].severity) if found else None))
    assert {v[0] for v in verdicts} == {flag}, dict(zip(LENGTHS, verdicts, strict=True))
    assert len({v[1] for v in verdicts}) == 1, dict(zip(LENGTHS, verdicts, strict=True))
