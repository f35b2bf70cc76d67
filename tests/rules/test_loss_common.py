"""Where a loss log sits in its run: a late window, or the run from its start."""

from __future__ import annotations

import numpy as np

from traindoc.model import Series
from traindoc.rules.loss._common import starts_mid_run


def _s(steps: list[int]) -> Series:
    return Series.from_arrays("loss", np.array(steps), np.linspace(2.0, 1.0, len(steps)))


def test_first_log_one_interval_in_is_the_start() -> None:
    assert not starts_mid_run(_s([250, 500, 750, 1000]))  # logging_steps=250 from step 0


def test_a_late_window_of_a_long_run_is_mid_run() -> None:
    assert starts_mid_run(_s([95000, 96000, 97000, 98000]))


def test_near_miss_first_log_two_intervals_in_is_mid_run() -> None:
    assert starts_mid_run(_s([500, 750, 1000, 1250]))


def test_empty_and_single_logs() -> None:
    assert not starts_mid_run(_s([]))
    assert not starts_mid_run(_s([10]))
    assert starts_mid_run(_s([5000]))
