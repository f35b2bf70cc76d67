"""measure.spikes.highest_ordinary: what a lone spike is set against in the tail test."""

from __future__ import annotations

import numpy as np

from traindoc.measure.spikes import highest_ordinary


def test_two_spikes_do_not_mask_each_other() -> None:
    # a paste logging 2.7e10 and 6.9e9 between losses of 2-5: each is set against 5.2
    y = np.array([2.66e10, 5.227, 6.93e9, 2.157, 2.073])
    out = highest_ordinary(y, float(np.median(y)), [0, 2])
    assert out.tolist() == [5.227, 5.227]


def test_three_spike_sized_points_are_the_heavy_tail() -> None:
    # 3+ points 3x their level are the top of the log's own noise: they count
    y = np.array([1.0, 6.0, 1.05, 5.5, 0.98, 4.0, 1.0])
    assert highest_ordinary(y, 1.0, [3]).tolist() == [6.0]
    assert highest_ordinary(y, 1.0, [1]).tolist() == [5.5]


def test_a_point_under_spike_size_is_ordinary() -> None:
    y = np.array([1.0, 0.95, 2.9, 1.05, 5.5, 1.0])
    assert highest_ordinary(y, 1.0, [4]).tolist() == [2.9]


def test_per_point_level_and_the_highest_ordinary_point_itself() -> None:
    # a rolling level: 3.0 on a level of 2 is ordinary, 9.0 on a level of 1 is a spike;
    # asked about the highest ordinary point itself, the next one answers
    y = np.array([1.0, 9.0, 1.1, 3.0, 2.0])
    level = np.array([1.0, 1.0, 1.0, 2.0, 2.0])
    assert highest_ordinary(y, level, [1, 3]).tolist() == [3.0, 2.0]


def test_nothing_left() -> None:
    assert highest_ordinary(np.array([7.0]), 1.0, [0]).tolist() == [0.0]
