"""Two console prints that named no step or broke a record (helper collect18).

A CRNN trainer's `print("train_batch_loss[", step, "]: ", loss)` puts the step in
brackets inside the name: "train_batch_loss[ 6590 ]:  nan" is the loss at step 6590.
A DDPM loop's tqdm postfix carries the batch's shape, `img shape: =torch.Size([80, 3, 32,
32])`: a shape, not a metric, whose inner commas split the postfix's fields. Lines
verbatim from GitYCC/crnn-pytorch#7 and zoubohao/DenoisingDiffusionProbabilityModel-ddpm-#5.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.readers.helpers import load_log

_INDEXED = (
    "epoch: 1\n"
    "train_batch_loss[ 6570 ]:  1.6885172128677368\n"
    "train_batch_loss[ 6580 ]:  1.9712326526641846\n"
    "train_batch_loss[ 6590 ]:  nan\n"
    "train_batch_loss[ 6600 ]:  nan\n"
)

_DDPM = (
    "100%|██████████| 625/625 [03:20<00:00,  3.12it/s, epoch=4, loss: =6.78, img shape: "
    "=torch.Size([80, 3, 32, 32]), LR=0.00012]  \n"
    "100%|██████████| 625/625 [03:20<00:00,  3.12it/s, epoch=5, loss: =8.38, img shape: "
    "=torch.Size([80, 3, 32, 32]), LR=0.000125]  \n"
    "100%|██████████| 625/625 [03:21<00:00,  3.11it/s, epoch=168, loss: =6.01, img shape: "
    "=torch.Size([80, 3, 32, 32]), LR=3.27e-5]  \n"
)


def test_the_bracketed_index_is_the_step(tmp_path: Path) -> None:
    run = load_log(tmp_path, _INDEXED)
    loss = run.get("loss")
    assert loss is not None
    assert list(loss.steps) == [6570, 6580, 6590, 6600]
    assert np.allclose(loss.values[:2], [1.6885172128677368, 1.9712326526641846])
    assert all(math.isnan(v) for v in loss.values[2:])


def test_a_bracketed_list_after_a_name_is_not_a_step(tmp_path: Path) -> None:
    run = load_log(tmp_path, "step 1 loss: 2.5 dims[ 3 ]: 4\nstep 2 loss: 2.4 dims[ 3 ]: 4\n")
    loss = run.get("loss")
    assert loss is not None and list(loss.steps) == [1, 2]


def test_a_shape_field_in_the_postfix_is_dropped(tmp_path: Path) -> None:
    run = load_log(tmp_path, _DDPM)
    loss, lr = run.get("loss"), run.get("lr")
    assert loss is not None and lr is not None
    assert np.allclose(loss.values, [6.78, 8.38, 6.01])
    assert np.allclose(lr.values, [0.00012, 0.000125, 3.27e-5])
    assert not [k for k in run.series if "shape" in k]
