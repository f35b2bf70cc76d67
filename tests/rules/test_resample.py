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


def spikes(base: Shape, at: tuple[float, ...], factor: float, width: int = 1) -> Shape:
    """`base` with spikes at the given fractions of the run, each `width` logged points
    wide at any length (a spike is a few bad batches however often the run logs)."""

    def f(t: np.ndarray) -> np.ndarray:
        y = base(t).copy()
        for a in at:
            i = round(a * (t.size - 1))
            y[i : i + width] *= factor
        return y

    return f


def const(v: float) -> Shape:
    return lambda t: np.full_like(t, v)


def warm_cos(peak: float, warm: float = 0.03) -> Shape:
    return lambda t: np.where(
        t < warm, peak * t / warm, peak * 0.5 * (1 + np.cos(np.pi * (t - warm) / (1 - warm)))
    )


def restart(peak: float) -> Shape:
    """Warmup + cosine planned over the run, restarted from 0 at 60% (state not restored)."""
    one = warm_cos(peak)
    return lambda t: np.where(t < 0.6, one(t), one((t - 0.6) / 0.4))


def explode(t: np.ndarray) -> np.ndarray:
    """A grad norm at ~1 that grows 1e4x over the last 10% of the run."""
    return np.where(t < 0.9, 1.0, 10.0 ** (40 * (t - 0.9)))


def absurd(t: np.ndarray) -> np.ndarray:
    """Seed A's start: 96 at the first point, down to 3 within 5% of the run."""
    return 3.0 + 93.0 * np.exp(-80 * t)


HEALTHY_GN = _exp(2.0, 0.5, 5.0)
# (rule, shape or {series: shape}, relative noise, facts, eval shape or None, expect flag)
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
    # train and eval both flat after the first 10% (seed B's "validation did not improve")
    (
        "eval-stagnation",
        lambda t: np.where(t < 0.1, 3.0 - 10 * t, 2.0),
        0.01,
        {},
        lambda t: np.where(t < 0.2, 2.6 - 2.5 * t, 2.1),
        True,
    ),
    ("eval-stagnation", _exp(3.0, 1.5, 3.0), 0.01, {}, _exp(2.6, 1.2, 3.0), False),
    # two spikes held for two logged points each: a warning at any length
    ("loss-spike", spikes(healthy, (0.3, 0.6), 3.0, width=2), 0.01, {}, None, True),
    ("loss-spike", healthy, 0.01, {}, None, False),
    ("absurd-initial-loss", absurd, 0.01, {"vocab_size": 50257}, None, True),
    ("absurd-initial-loss", healthy, 0.01, {"vocab_size": 50257}, None, False),
    ("degenerate-loss", lambda t: np.where(t < 0.2, 2.0 - t, 0.0), 0.0, {}, None, True),
    ("degenerate-loss", healthy, 0.01, {}, None, False),
    (
        "grad-spike",
        {"loss": healthy, "grad_norm": spikes(HEALTHY_GN, (0.4, 0.6), 40.0)},
        0.02,
        {},
        None,
        True,
    ),
    ("grad-spike", {"loss": healthy, "grad_norm": HEALTHY_GN}, 0.02, {}, None, False),
    ("grad-explosion", {"loss": healthy, "grad_norm": explode}, 0.02, {}, None, True),
    ("grad-explosion", {"loss": healthy, "grad_norm": HEALTHY_GN}, 0.02, {}, None, False),
    ("no-trainable-parameters", {"loss": flat, "grad_norm": const(0.0)}, 0.02, {}, None, True),
    (
        "no-trainable-parameters",
        {"loss": healthy, "grad_norm": HEALTHY_GN},
        0.02,
        {},
        None,
        False,
    ),
    ("schedule-restarted", {"loss": healthy, "lr": restart(3e-4)}, 0.0, {}, None, True),
    ("schedule-restarted", {"loss": healthy, "lr": warm_cos(3e-4)}, 0.0, {}, None, False),
    (
        "lr-too-low",
        {"loss": const(10.82), "lr": const(1e-6)},
        0.001,
        {"regime": "pretraining", "vocab_size": 50257},
        None,
        True,
    ),
    (
        "lr-too-low",
        {"loss": healthy, "lr": warm_cos(3e-4)},
        0.01,
        {"regime": "pretraining", "vocab_size": 50257},
        None,
        False,
    ),
]


def _run(
    shape: Shape | dict[str, Shape], n: int, noise: float, facts: dict, eval_shape: Shape | None
) -> Run:
    rng = np.random.default_rng(0)
    t = np.linspace(0.0, 1.0, n)
    steps = np.arange(1, n + 1)
    shapes = shape if isinstance(shape, dict) else {"loss": shape}
    series = {}
    for name, f in shapes.items():
        jitter = 0.0 if name == "lr" else noise  # an LR is exact, a loss is noisy
        y = f(t) * (1 + rng.normal(0, jitter, n))
        series[name] = Series.from_arrays(name, steps, y, None, "synthetic")
    if eval_shape is not None:
        te = np.linspace(0.05, 1.0, 20)
        se = np.round(te * n).astype(np.int64)
        series["eval_loss"] = Series.from_arrays(
            "eval_loss", se, eval_shape(te) * (1 + rng.normal(0, 0.001, te.size)), None, "synth"
        )
    return Run("resampled", series, {k: Fact(v, "test") for k, v in facts.items()})


def _name(c: tuple) -> str:
    shape = c[1]
    name = "+".join(shape) if isinstance(shape, dict) else getattr(shape, "__name__", "shape")
    return f"{c[0]}-{name}-{c[5]}"


@pytest.mark.parametrize(
    ("rule_id", "shape", "noise", "facts", "eval_shape", "flag"),
    CASES,
    ids=[_name(c) for c in CASES],
)
def test_same_verdict_at_any_length(
    rule_id: str,
    shape: Shape | dict[str, Shape],
    noise: float,
    facts: dict,
    eval_shape: Shape | None,
    flag: bool,
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
