"""YOLACT's training line and its non-finite warning (helper spike6): the one-letter loss
names between "||" bars are its loss terms and "T" their total (the loss); "Warning:
Moving average ignored a value of nan" is a NaN loss dropped from the printed average.
Lines verbatim from dbolya/yolact issue pastes (#56, #359)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log

# dbolya/yolact#359 (verbatim, first two lines)
_HEALTHY = (
    "[  1]    1440 || B: 5.495 | C: 3.668 | M: 6.919 | S: 1.564 | T: 17.647 || "
    "ETA: 197 days, 23:50:39 || timer: 0.298\n"
    "[  1]    1450 || B: 5.514 | C: 3.519 | M: 6.986 | S: 1.640 | T: 17.658 || "
    "ETA: 197 days, 3:40:56 || timer: 0.291\n"
)

# dbolya/yolact#56 (verbatim, the blown-up line and the NaN warning after it)
_NAN = (
    "[  0]    7860 || B: 20381994142686931931996316762112.000 | C: 1450343373374326503135973998592"
    ".000 | M: 1831.892 | S: 401324281.028 | T: 21832337516061260686932104445952.000 || "
    "ETA: 20:27:56 || timer: 0.341\n"
    "Warning: Moving average ignored a value of nan\n"
)


def test_t_is_the_loss_and_the_letters_its_terms(tmp_path: Path) -> None:
    run = one_log(tmp_path, _HEALTHY)
    loss = run.get("loss")
    assert loss is not None
    assert list(loss.steps) == [1440, 1450]
    assert np.allclose(loss.values, [17.647, 17.658])
    assert run.get("box_loss") is not None and run.get("semantic_loss") is not None
    assert run.get("epoch") is not None


def test_moving_average_ignoring_nan_is_a_nan_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _NAN)
    assert "nonfinite-loss" in [e.kind for e in run.events]
    loss = run.get("loss")
    assert loss is not None and np.isnan(loss.values).any()


def test_near_miss_a_table_row_with_bars_and_a_t_column_is_not_rewritten(tmp_path: Path) -> None:
    # no "[ epoch]  iteration ||" head: not YOLACT's line, read as printed
    run = one_log(tmp_path, "step 10 || T: 3.5 | lr: 0.1\nstep 20 || T: 3.4 | lr: 0.1\n")
    assert run.get("box_loss") is None


# Daniil-Osokin/lightweight-human-pose-estimation.pytorch#100 (verbatim)
_POSE = (
    "stage1_pafs_loss:     132.33322006225586\n"
    "stage2_heatmaps_loss: 47.89024211883545\n"
    "  1%|          | 4/516 [00:13<27:49,  3.26s/it]Iter: 3100\n"
    "stage1_pafs_loss:     5.463875732421875\n"
    "stage1_heatmaps_loss: 2.0516973876953126\n"
    "stage2_pafs_loss:     5.2807315063476565\n"
    "stage2_heatmaps_loss: 1.9725639724731445\n"
    " 20%|██        | 104/516 [02:42<10:42,  1.56s/it]Iter: 3200\n"
    "stage1_pafs_loss:     131.51344520568847\n"
    "stage1_heatmaps_loss: 49.36172973632812\n"
)


def test_pose_terms_under_an_iter_heading_are_points_and_their_sum_the_loss(
    tmp_path: Path,
) -> None:
    run = one_log(tmp_path, _POSE)
    loss = run.get("loss")
    assert loss is not None
    assert list(loss.steps) == [3100, 3200]  # the terms before any heading have no step
    assert np.allclose(loss.values, [14.769, 180.875], atol=1e-3)
    assert run.get("stage1_pafs_loss") is not None
