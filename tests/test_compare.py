"""Where two runs part: noise-aware, never "the first point that differs"."""

from __future__ import annotations

import json

import numpy as np
import pytest

from traindoc.compare import Params, compare_runs, first_parting
from traindoc.model import Run, Series

from .test_cli import HEALTHY, SEED_A, needs_examples, traindoc

STEPS = np.arange(1, 1001)


def loss_curve(seed: int, noise: float = 0.05, steps: np.ndarray = STEPS) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 2.0 + 8.0 * np.exp(-steps / 150) + rng.normal(0, noise, steps.size)


def s(values: np.ndarray, steps: np.ndarray = STEPS, name: str = "loss") -> Series:
    return Series.from_arrays(name, steps, values)


def test_same_recipe_different_noise_never_parts() -> None:
    # Different data order: every point differs from step 1, yet the runs agree.
    for seed in range(10):
        p = first_parting(s(loss_curve(seed)), s(loss_curve(seed + 100)), "loss")
        assert p.step is None, (seed, p)


def test_parting_is_found_where_the_trend_separates() -> None:
    a = loss_curve(1)
    b = loss_curve(2)
    b[500:] -= np.linspace(0, 1.0, 500)  # b starts learning faster at step 501
    p = first_parting(s(a), s(b), "loss")
    assert p.step is not None
    # a gradual separation is detected once it clears the noise, not at step 1
    assert 501 <= p.step <= 620, p
    assert p.a is not None and p.b is not None and p.b < p.a


def test_step_change_is_located_to_a_few_points() -> None:
    a, b = loss_curve(3), loss_curve(4)
    b[400:] += 0.8
    p = first_parting(s(a), s(b), "loss")
    assert p.step is not None and abs(p.step - 401) <= 3, p


def test_a_spike_in_one_run_is_not_a_parting() -> None:
    a, b = loss_curve(5), loss_curve(6)
    b[300:303] += 20.0
    assert first_parting(s(a), s(b), "loss").step is None


def test_bf16_rounding_is_not_a_parting() -> None:
    a = np.full(300, 10.8249)
    b = np.full(300, 10.8125)  # ln(50257) rounded to bf16
    assert first_parting(s(a, STEPS[:300]), s(b, STEPS[:300]), "loss").step is None


def test_lr_schedules_part_exactly_where_they_differ() -> None:
    lr_a = np.full(1000, 3e-4)
    lr_b = lr_a.copy()
    lr_b[299:] = 3e-4 * np.linspace(1, 0.1, 701)  # b decays from step 300
    p = first_parting(s(lr_a, name="lr"), s(lr_b, name="lr"), "lr")
    # a 2% ratio is reached a few steps into the decay
    assert p.step is not None and 300 <= p.step <= 320, p
    # and LR 1e-6 vs 3e-4 parts at the first step
    p = first_parting(s(np.full(1000, 1e-6), name="lr"), s(lr_a, name="lr"), "lr")
    assert p.step == 1


def test_different_logging_intervals_are_aligned() -> None:
    a = loss_curve(7)
    steps_b = np.arange(10, 1001, 10)
    b = loss_curve(8, steps=steps_b)
    b[steps_b > 600] += 1.0
    p = first_parting(s(a), s(b, steps_b), "loss")
    assert p.step is not None and 600 <= p.step <= 640, p


def test_no_common_steps_is_said() -> None:
    p = first_parting(
        s(loss_curve(1)[:100], STEPS[:100]), s(loss_curve(2)[:100], STEPS[:100] + 500), "loss"
    )
    assert p.step is None and "no common steps" in p.reason


def test_a_run_turning_nan_parts_there() -> None:
    a, b = loss_curve(9), loss_curve(10)
    b[700:] = np.nan
    p = first_parting(s(a), s(b), "loss")
    assert p.step == 701 and "non-finite" in p.reason


def test_compare_runs_reports_each_signal_and_the_first() -> None:
    lr = np.full(1000, 3e-4)
    a = Run("a", {"loss": s(loss_curve(1)), "lr": s(lr, name="lr")})
    lb = loss_curve(2)
    lb[200:] += 1.0
    b = Run("b", {"loss": s(lb), "lr": s(lr * 3, name="lr")})
    (cmp,) = compare_runs([a, b])
    by = {p.signal: p for p in cmp.partings}
    assert by["lr"].step == 1
    assert by["loss"].step is not None and abs(by["loss"].step - 201) <= 3
    assert "not logged" in by["grad_norm"].reason
    assert cmp.first is by["lr"]
    assert cmp.to_dict()["first_signal"] == "lr"


@pytest.mark.parametrize("k", [3.0, 6.0])
def test_params_shift_sensitivity(k: float) -> None:
    a, b = loss_curve(11), loss_curve(12)
    b[500:] += 2.0
    assert first_parting(s(a), s(b), "loss", Params(k=k)).step is not None


@needs_examples
def test_cli_compare_json_and_html(tmp_path) -> None:
    out = tmp_path / "cmp.html"
    p = traindoc("compare", str(SEED_A), str(HEALTHY), "--format", "json", "--html", str(out))
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    (pair,) = report["comparisons"]
    assert pair["reference"] == "seed-a" and pair["other"] == "healthy"
    assert pair["first_step"] is not None  # LR 1e-6 vs 2e-3: apart from the start
    html = out.read_text()
    assert 'class="parting' in html and "seed-a" in html and "healthy" in html


def test_cli_compare_needs_two_runs(tmp_path) -> None:
    p = traindoc("compare", str(tmp_path))
    assert p.returncode == 2
