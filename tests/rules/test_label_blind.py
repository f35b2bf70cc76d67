"""measure.floor.label_blind: the losses an output of 0.5 scores on every 0/1 target alike."""

from __future__ import annotations

import numpy as np

from traindoc.measure.floor import label_blind


def test_the_squared_error_of_an_output_of_half_on_zero_one_targets_is_a_quarter() -> None:
    targets = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    per_sample = (0.5 - targets) ** 2  # the same for either label
    got = label_blind(per_sample, 1e-3)
    assert got is not None and got[0] == 0.25 and "MSE" in got[1]


def test_the_absolute_error_reads_as_a_half() -> None:
    got = label_blind(np.array([0.50002, 0.49998, 0.5]), 1e-3)
    assert got is not None and got[0] == 0.5


def test_a_value_off_the_level_by_more_than_the_tolerance_is_not_read() -> None:
    assert label_blind(np.array([0.25, 0.25, 0.2504]), 1e-3) is None
    assert label_blind(np.array([0.25, 0.25, 0.2502]), 1e-3) is not None


def test_empty_or_non_finite_values_are_not_read() -> None:
    assert label_blind(np.array([]), 1e-3) is None
    assert label_blind(np.array([0.25, np.nan]), 1e-3) is None
