"""Keypoint, landmark and optical-flow quality on an eval line: PCK (the share of
keypoints within a threshold, MPII's PCKh), NME (the normalised mean landmark error)
and EPE (a flow's end-point error) are task metrics of held-out data, like an mAP:
PCK higher better, NME and EPE lower. Lines verbatim from mmpose 1.x's mmengine log
(tests/real/healthy_mmpose1_rtmpose_ear_250ep_ap_0_to_0p728)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.measure.metrics import direction, task_metrics
from traindoc.model.signals import kind

_PREFIX = "2023/06/03 22:36:06 - mmengine - INFO - "
_LOG = (
    _PREFIX + "Epoch(train)  [10][6/6]  lr: 4.000000e-03  eta: 4:20:57  time: 10.756042  "
    "data_time: 10.611325  memory: 568  loss: 0.398414  loss_kpt: 0.398414  acc_pose: 0.226190\n"
    + _PREFIX
    + "Epoch(val) [10][6/6]    coco/AP: 0.000000  coco/AP .5: 0.000000  coco/AP .75: 0.000000"
    "  coco/AP (M): -1.000000  coco/AP (L): 0.000000  coco/AR: 0.000000  coco/AR .5: 0.000000"
    "  coco/AR .75: 0.000000  coco/AR (M): -1.000000  coco/AR (L): 0.000000  PCK: 0.278912  "
    "AUC: 0.008447  NME: 0.270457  data_time: 1.903511  time: 1.948037\n"
    + _PREFIX
    + "Epoch(train)  [20][6/6]  lr: 4.000000e-03  eta: 4:11:02  time: 10.849455  "
    "data_time: 10.705212  memory: 568  loss: 0.234285  loss_kpt: 0.234285  acc_pose: 0.238095\n"
    + _PREFIX
    + "Epoch(val) [20][6/6]    coco/AP: 0.000469  coco/AP .5: 0.002829  coco/AP .75: 0.000000"
    "  coco/AP (M): -1.000000  coco/AP (L): 0.000469  coco/AR: 0.009524  coco/AR .5: 0.047619"
    "  coco/AR .75: 0.000000  coco/AR (M): -1.000000  coco/AR (L): 0.009524  PCK: 0.348073  "
    "AUC: 0.008957  NME: 0.233170  data_time: 1.638250  time: 1.681802\n"
)


def test_pck_and_nme_on_an_mmengine_val_line_are_eval_task_metrics(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LOG)
    assert values(run, "eval_pck") == [0.278912, 0.348073]
    assert values(run, "eval_nme") == [0.270457, 0.23317]
    assert run.get("pck") is None and run.get("nme") is None  # not train series
    found = {s.name: higher for s, higher in task_metrics(run)}
    assert found["eval_pck"] is True and found["eval_nme"] is False


def test_pose_and_flow_metric_names() -> None:
    for name in ("PCK", "PCKh@0.5", "PCK@0.2", "mpii/PCKh", "NME", "EPE", "val_epe", "EPE_all"):
        assert kind(name) == "task", name
    assert direction("PCKh@0.5") is True and direction("PCK") is True
    assert direction("NME") is False and direction("val_epe") is False
    # near misses: words that only contain the letters
    for name in ("epoch", "eps", "peck", "npme", "pcks_total"):
        assert direction(name) is None, name
