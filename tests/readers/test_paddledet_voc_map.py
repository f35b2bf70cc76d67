"""PaddleDetection's VOCMetric prints its evaluation's result as "mAP(0.50, 11point) =
75.81%" (ppdet/metrics/metrics.py, VOCMetric.log; "integral" for the area under the
whole curve): the eval's mAP@0.5, in percent, read as a fraction like YOLO's and COCO's
(layouts.py, _VOC_MAP), numbered by the train line before it."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import console

# PaddleDetection's train and VOC eval lines, as ppdet.engine / ppdet.metrics print them
_LINES = [
    "[12/16 15:35:10] ppdet.engine INFO: Epoch: [0] [320/323] learning_rate: 0.001000"
    " loss: 12.400000 eta: 1 day, 0:10:11",
    "[12/16 15:36:10] ppdet.metrics.metrics INFO: Accumulating evaluatation results...",
    "[12/16 15:36:11] ppdet.metrics.metrics INFO: mAP(0.50, 11point) = 12.34%",
    "[12/16 15:37:10] ppdet.engine INFO: Epoch: [1] [320/323] learning_rate: 0.001000"
    " loss: 11.400000 eta: 1 day, 0:09:11",
    "[12/16 15:38:11] ppdet.metrics.metrics INFO: mAP(0.50, integral) = 0.00%",
]


def _read(tmp: Path, lines: list[str]):
    p = tmp / "log.txt"
    p.write_text("\n".join(lines) + "\n")
    return console.read(p)


def test_voc_map_is_the_evals_map50(tmp_path: Path) -> None:
    run = _read(tmp_path, _LINES)
    m, loss = run.get("eval_map50"), run.get("loss")
    assert m is not None and loss is not None
    assert m.values.tolist() == [0.1234, 0.0]
    assert m.steps.tolist() == loss.steps.tolist()  # each at the train line before it


def test_a_map_at_another_iou_is_not_map50(tmp_path: Path) -> None:
    """Near miss: the mAP at IoU 0.75 is not the mAP@0.5."""
    lines = [ln.replace("mAP(0.50,", "mAP(0.75,") for ln in _LINES]
    assert _read(tmp_path, lines).get("eval_map50") is None
