"""WaveGlow's per-iteration print: `print("{}:\\t{:.9f}".format(iteration, reduced_loss))`,
an iteration counter and the loss alone on a line (NVIDIA/waveglow#38), and a fork that
glues each name to its value ("step_78540:\\tloss_-4.06", NVIDIA/waveglow#32).

Built on the real lines; each has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, read_log, values
from traindoc.readers._base import ReadError

_WAVEGLOW = (
    "123873: -5.480178833\n123874: -5.352289200\n123875: -5.298225403\n123876:\t-5.460500240\n"
)


def test_waveglow_iteration_loss_lines(tmp_path: Path) -> None:
    run = one_log(tmp_path, _WAVEGLOW)
    assert values(run, "loss") == pytest.approx(
        [-5.480178833, -5.3522892, -5.298225403, -5.46050024]
    )
    assert [int(s) for s in run.get("loss").steps] == [123873, 123874, 123875, 123876]


def test_glued_step_loss_lines(tmp_path: Path) -> None:
    body = "step_78600:\tloss_-4.322495461\nstep_78620:\tloss_4191.683593750\nstep_78640:\tloss_-2.408614397\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([-4.322495461, 4191.68359375, -2.408614397])
    assert [int(s) for s in run.get("loss").steps] == [78600, 78620, 78640]


def test_near_miss_lines_with_more_than_a_counter_and_a_number(tmp_path: Path) -> None:
    # a name before the counter, or a second number, is not that print: nothing is read
    body = "epoch 1: 0.5 0.7\nclass 2: 0.61 0.3\n"
    with pytest.raises(ReadError):
        read_log(tmp_path, body)
