"""A total printed beside its terms is the loss, not one more term to sum.

TF Object Detection's model_lib_v2 logs each step's loss dict as
{'Loss/classification_loss': ..., 'Loss/localization_loss': ...,
'Loss/regularization_loss': ..., 'Loss/total_loss': ...}: summed, the terms and their
total counted the loss twice (2.90 where the run's loss was 1.45).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from traindoc.readers import load_run

# constructed on model_lib_v2.py's format ("Step N per-step time Xs", then the loss
# dict pretty-printed over several lines)
_TFOD = "I0819 10:12:01.123456 140123 model_lib_v2.py:705] Step 100 per-step time 0.512s\nI0819 10:12:01.123999 140123 model_lib_v2.py:708] {'Loss/classification_loss': 0.7834318,\n 'Loss/localization_loss': 0.51020414,\n 'Loss/regularization_loss': 0.15394,\n 'Loss/total_loss': 1.4475759,\n 'learning_rate': 0.0319994}\nI0819 10:13:01.123456 140123 model_lib_v2.py:705] Step 200 per-step time 0.498s\nI0819 10:13:01.123999 140123 model_lib_v2.py:708] {'Loss/classification_loss': 0.5834318,\n 'Loss/localization_loss': 0.41020414,\n 'Loss/regularization_loss': 0.15294,\n 'Loss/total_loss': 1.1475759,\n 'learning_rate': 0.0399994}\nI0819 10:14:01.123456 140123 model_lib_v2.py:705] Step 300 per-step time 0.498s\nI0819 10:14:01.123999 140123 model_lib_v2.py:708] {'Loss/classification_loss': nan,\n 'Loss/localization_loss': nan,\n 'Loss/regularization_loss': nan,\n 'Loss/total_loss': nan,\n 'learning_rate': 0.0479994}\n"


def test_total_beside_its_terms_is_the_loss(tmp_path: Path) -> None:
    path = tmp_path / "train.log"
    path.write_text(_TFOD, encoding="utf-8")
    loss = load_run(path).series["loss"]
    assert list(loss.steps) == [100, 200, 300]
    assert np.allclose(loss.values[:2], [1.4475759, 1.1475759])
    assert np.isnan(loss.values[2])


def test_terms_without_a_total_are_summed(tmp_path: Path) -> None:
    # near miss: the same dict without its total still gives the terms' sum
    text = "".join(ln for ln in _TFOD.splitlines(keepends=True) if "total_loss" not in ln)
    text = text.replace("0.15394,", "0.15394}").replace("0.15294,", "0.15294}")
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    loss = load_run(path).series["loss"]
    assert np.isclose(loss.values[0], 0.7834318 + 0.51020414 + 0.15394)
