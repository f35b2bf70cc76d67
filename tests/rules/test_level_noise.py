"""measure.level_noise: the noise of a curve's independent stretches."""

from __future__ import annotations

import math

import numpy as np

from traindoc.measure.stats import diff_mad, level_noise


def _mean_of_last(x: np.ndarray, w: int) -> np.ndarray:
    return np.convolve(x, np.ones(w) / w, "valid")


def test_raw_noise_is_the_difference_estimate() -> None:
    x = 0.1 * np.random.default_rng(0).gamma(1.5, 1 / 1.5, 3000)
    sigma, lag = level_noise(x)
    assert lag == 1 and sigma == diff_mad(x) / math.sqrt(2)


def test_a_running_mean_has_the_noise_of_its_window() -> None:
    x = 0.1 * np.random.default_rng(0).gamma(1.5, 1 / 1.5, 3000)
    for w in (10, 40, 100):
        m = _mean_of_last(x, w)
        sigma, lag = level_noise(m)
        assert lag >= w / 2
        assert 0.7 * m.std() < sigma < 1.4 * m.std()  # differences say ~1/sqrt(W) of it
        assert diff_mad(m) / math.sqrt(2) < 0.3 * m.std()


def test_near_misses_stay_raw() -> None:
    rng = np.random.default_rng(1)
    # a saw-tooth band (periodic): its spread falls back at its period
    wave = 1.11 + 0.025 * np.sin(2 * np.pi * np.arange(200) / 7) + 0.01 * rng.standard_normal(200)
    assert level_noise(wave)[1] == 1
    # a short noisy curve (120 points) whose spread grew over one doubling by chance
    short = np.linspace(30, 60, 120) + 15 * rng.standard_normal(120)
    assert level_noise(short)[1] == 1
    # a trend under independent noise: second differences cancel it
    trend = np.linspace(3, 1, 500) + 0.01 * rng.standard_normal(500)
    assert level_noise(trend)[1] == 1
