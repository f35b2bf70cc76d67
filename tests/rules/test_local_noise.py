"""The local-noise measure and the density invariance it buys the spike and rise readings.

A point is a spike, or a stretch is a rise, when it stands apart from the noise of its
own neighbourhood, and the same curve shape gives the same verdict at 300, 3,000 or
100,000 points (measure.noise). Per-batch loss noise scales with the level (large at
the start, small at the end): a whole-curve noise figure flagged a healthy LoRA run
logged at every step, and missed nothing the local one catches.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.measure.noise import local_noise, local_scale, neighbourhood
from traindoc.rules.registry import load_all

RULES = ("warmup-too-short", "loss-spike", "grad-spike")
DENSITIES = (300, 3_000, 100_000)


def _found(case: dict) -> set[str]:
    specs = load_all()
    d = diagnose(build_run(case), [specs[r] for r in RULES])
    assert not d.errors, d.errors
    return {f.rule for f in d.findings}


def _run(n: int, seed: int, *, loss: dict, lr: float, grad: dict | None = None) -> dict:
    every = max(1, 100_000 // n)  # the same run of 100k steps, logged every `every`
    series = {
        "loss": {**loss, "seed": seed, "every": every},
        "lr": {"segments": [{"n": n, "const": lr}], "every": every},
    }
    if grad is not None:
        series["grad_norm"] = {**grad, "seed": seed + 10, "every": every}
    return {"name": f"{n} points", "facts": {"regime": "lora"}, "series": series}


def _at(n: int, share: float) -> int:
    """The step at `share` of a 100k-step run logged at n points."""
    every = max(1, 100_000 // n)
    return 1 + every * int(share * n)


@pytest.mark.parametrize("n", DENSITIES)
@pytest.mark.parametrize("seed", range(3))
def test_healthy_heteroscedastic_run_is_clean_at_every_density(n: int, seed: int) -> None:
    # loss 2.2 -> 1.0 with batch noise 20% of the level, constant LR 2e-4 without warmup
    case = _run(
        n,
        seed,
        loss={"segments": [{"n": n, "from": 2.2, "to": 1.0, "shape": "exp"}], "noise_rel": 0.2},
        lr=2e-4,
        grad={"segments": [{"n": n, "from": 3.0, "to": 1.0, "shape": "exp"}], "noise_rel": 0.2},
    )
    assert _found(case) == set()


@pytest.mark.parametrize("n", DENSITIES)
def test_early_rise_is_flagged_at_every_density(n: int) -> None:
    r = n // 15  # the loss climbs 2.0 -> 3.0 over the first 7% of the run
    segs = [{"n": r, "from": 2.0, "to": 3.0}, {"n": n - r, "from": 3.0, "to": 1.2, "shape": "exp"}]
    case = _run(n, 0, loss={"segments": segs, "noise_rel": 0.05}, lr=2e-4)
    assert "warmup-too-short" in _found(case)


@pytest.mark.parametrize("n", DENSITIES)
def test_real_spike_is_flagged_at_every_density(n: int) -> None:
    at = _at(n, 0.5)
    every = max(1, 100_000 // n)
    loss = {
        "segments": [{"n": n, "from": 2.2, "to": 1.0, "shape": "exp"}],
        "noise_rel": 0.05,
        "set": {at: 3.0, at + every: 2.8, at + 2 * every: 2.5},
    }
    grad = {
        "segments": [{"n": n, "from": 3.0, "to": 1.0, "shape": "exp"}],
        "noise_rel": 0.1,
        "set": {at: 40.0, at + every: 30.0},
    }
    assert _found(_run(n, 0, loss=loss, lr=2e-5, grad=grad)) >= {"loss-spike", "grad-spike"}


def test_local_scale_follows_the_level() -> None:
    rng = np.random.default_rng(0)
    for n in DENSITIES:
        level = 1.0 + 1.2 * np.exp(-5 * np.linspace(0, 1, n))
        y = level * (1 + 0.2 * rng.normal(size=n))
        _, sigma = local_noise(y)
        # early noise ~0.2 x 2.2, late ~0.2 x 1.0: the start is judged by its own
        assert sigma[: n // 50].mean() > 1.5 * sigma[-n // 50 :].mean()
        every = sigma[:]
        assert np.all(np.isfinite(every)) and np.all(every > 0)


def test_local_scale_ignores_a_short_spike_and_floors_a_flat_stretch() -> None:
    resid = np.random.default_rng(1).normal(0, 0.1, 1000)
    before = local_scale(resid)
    resid[500:505] = 50.0  # five wild points do not move a median of 101
    after = local_scale(resid)
    assert after[500] < 1.2 * before[500]
    flat = local_scale(np.zeros(200), np.full(200, 2.0))
    assert np.allclose(flat[:], 2e-3)


def test_neighbourhood_is_a_share_of_the_run_with_a_floor() -> None:
    assert neighbourhood(300) == 101
    assert neighbourhood(100_000) == 2001
    assert neighbourhood(10) == 101  # the whole curve: one scale, as before
    ten = local_scale(np.arange(10.0))
    assert np.allclose(ten[:], ten[0])
