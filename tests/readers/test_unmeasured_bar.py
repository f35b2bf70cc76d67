"""A tqdm bar drawn at 0/N whose every postfix value is inf measured nothing yet.

A Faster R-CNN loop (RanShui/PRML, a wandb run's committed output.log) shows running
averages that start at inf before each epoch's first batch: its first bar reads
"0/1541 [..., total_loss=inf]". Read as a loss, that placeholder gave a healthy run a
nonfinite-loss error. A finite or NaN value at 0/N is a real first batch's (tqdm counts
a batch only when the next one is drawn) and stays.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from traindoc.readers import load_runs

# verbatim bar lines from the run's output.log (its \r redraws split into lines)
START = (
    "  0%|                                                       | 0/1541 [00:00<?, ?it/s, "
    "detector_class_loss=inf, detector_regr_loss=inf, rpn_class_loss=inf, "
    "rpn_regr_loss=inf, total_loss=inf]\n"
)
EPOCHS = (
    "100%|███████████████████████████████| 1541/1541 [04:34<00:00,  5.62it/s, "
    "detector_class_loss=0.4583, detector_regr_loss=0.3038, rpn_class_loss=0.2896, "
    "rpn_regr_loss=0.0607, total_loss=1.11]\n"
    "100%|██████████████| 1541/1541 [03:39<00:00,  7.01it/s, detector_class_loss=0.3393, "
    "detector_regr_loss=0.2953, rpn_class_loss=0.1971, rpn_regr_loss=0.0574, total_loss=0.89]\n"
    "100%|██████████████| 1541/1541 [03:41<00:00,  6.97it/s, detector_class_loss=0.2763, "
    "detector_regr_loss=0.2822, rpn_class_loss=0.1834, rpn_regr_loss=0.0566, total_loss=0.80]\n"
)


def _loss(tmp_path: Path, text: str) -> np.ndarray:
    p = tmp_path / "output.log"
    p.write_text(text, encoding="utf-8")
    values = [r.get("loss").values for r in load_runs(p) if r.get("loss") is not None]
    return np.concatenate(values)


def test_an_all_inf_bar_at_zero_is_no_loss(tmp_path: Path) -> None:
    loss = _loss(tmp_path, START + EPOCHS)
    assert np.isfinite(loss).all()
    assert loss.tolist() == [1.11, 0.89, 0.80]


def test_a_nan_at_zero_is_a_first_batch_and_kept(tmp_path: Path) -> None:
    loss = _loss(tmp_path, START.replace("total_loss=inf", "total_loss=nan") + EPOCHS)
    assert np.isnan(loss).sum() == 1


def test_near_miss_one_finite_value_at_zero_keeps_the_record(tmp_path: Path) -> None:
    loss = _loss(tmp_path, START.replace("total_loss=inf", "total_loss=2.31") + EPOCHS)
    assert 2.31 in loss.tolist()


def test_an_inf_after_the_first_batch_is_read(tmp_path: Path) -> None:
    later = START.replace("0/1541", "9/1541").replace("  0%", "  1%")
    loss = _loss(tmp_path, EPOCHS + later)
    assert np.isinf(loss).any()
