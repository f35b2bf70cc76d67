"""GluonCV's detection scripts print the terms of their loss as mx.metric.Loss values
named after the head and its loss function ("WHL1=4.125, CenterRegL1=0.486,
HeatmapFocal=278.131"; Faster R-CNN's "RPN_Conf=..., RCNN_SmoothL1=..."). They were
read as unknown extras, so a CenterNet log had no loss at all: now they are the loss's
terms, and the loss is their sum where no `loss` is printed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.model.signals import kind
from traindoc.readers import load_run

# tests/real/healthy_gluoncv_centernet_resnet18_voc_warmup_heatmap_focal_278_start_map_0p51_to_0p69_released_log
_CENTERNET = (
    "Start training from [Epoch 0]\n"
    "[Epoch 0][Batch 9], Speed: 218.798 samples/sec, LR=0.000125, WHL1=4.125, "
    "CenterRegL1=0.486, HeatmapFocal=278.131\n"
    "[Epoch 0][Batch 379], Speed: 180.911 samples/sec, LR=0.000125, WHL1=3.347, "
    "CenterRegL1=0.266, HeatmapFocal=23.004\n"
    "[Epoch 0][Batch 389], Speed: 187.447 samples/sec, LR=0.000125, WHL1=3.319, "
    "CenterRegL1=0.266, HeatmapFocal=22.526\n"
    "[Epoch 0][Batch 399], Speed: 186.781 samples/sec, LR=0.000125, WHL1=3.290, "
    "CenterRegL1=0.266, HeatmapFocal=22.073\n"
)


def test_centernet_terms_make_the_loss(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    p.write_text(_CENTERNET)
    run = load_run(p)
    loss = run.series["loss"]
    assert len(loss) == 4
    # the sum of the three terms on the first line
    assert loss.values[0] == pytest.approx(4.125 + 0.486 + 278.131, rel=1e-3)
    assert "lr" in run.series


@pytest.mark.parametrize(
    "name", ["RPN_Conf", "RPN_SmoothL1", "RCNN_CrossEntropy", "RCNN_SmoothL1", "RCNN_Mask"]
)
def test_faster_rcnn_terms_are_loss_terms(name: str) -> None:
    assert kind(name) == "component_loss"


@pytest.mark.parametrize("name", ["L1", "val_L1", "focal_alpha"])
def test_bare_distances_stay_apart(name: str) -> None:
    assert kind(name) != "component_loss"
