"""Detector loss terms by the names the common detectors log (YOLOX, YOLOv5/v8, mmdet,
DETR): the run is a detector's, so no AdamW LM table judges its SGD LR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traindoc.engine import diagnose
from traindoc.pipeline import load

_YOLOX = (
    "2021-10-18 20:51:{s:02d} | INFO     | yolox.core.trainer:246 - epoch: 8/40, "
    "iter: {i}/1816, mem: 34235Mb, iter_time: 1.270s, data_time: 0.548s, "
    "total_loss: {t}, iou_loss: {iou}, l1_loss: 0.0, conf_loss: {conf}, cls_loss: {cls}, "
    "lr: 9.417e-03, size: 640, ETA: 1 day, 0:02:28\n"
)


def _yolox(tmp_path: Path, conf: list[str]) -> Path:
    lines = []
    for k, c in enumerate(conf):
        iou, cls = 4.6 - k * 0.01, 0.7 - k * 0.01
        t = "nan" if c == "nan" else f"{iou + float(c) + cls:.1f}"
        lines.append(
            _YOLOX.format(s=k % 60, i=10 * (k + 1), t=t, iou=f"{iou:.1f}", conf=c, cls=f"{cls:.1f}")
        )
    path = tmp_path / "train_log.txt"
    path.write_text("".join(lines))
    return path


def test_a_yolox_log_is_a_detector_and_its_zero_l1_loss_is_no_finding(tmp_path: Path) -> None:
    """YOLOX's l1_loss is 0.0 by design until its last no-aug epochs: not degenerate,
    and lr 9.4e-3 under YOLOX's SGD is not held against a transformer's table."""
    confs = [f"{8.0 - 0.1 * k:.1f}" for k in range(12)]
    run = load(_yolox(tmp_path, confs))
    assert run.fact("task") == "detection"
    assert "iou_loss" in run.facts["task"].source
    ids = {f.rule for f in diagnose(run).findings}
    assert "degenerate-loss" not in ids and "lr-too-high" not in ids


def test_a_yolox_loss_that_breaks_is_told_a_cut_of_its_own_lr_not_the_adamw_value(
    tmp_path: Path,
) -> None:
    confs = [f"{8.0 - 0.1 * k:.1f}" for k in range(10)] + ["nan", "nan", "nan"]
    d = diagnose(load(_yolox(tmp_path, confs)))
    hits = [f for f in d.findings if f.rule == "lr-too-high"]
    assert hits
    for f in hits:
        assert f.evidence["target_lr"] > 1e-3  # a few times under 9.4e-3, never 3e-4
        assert "3.00e-04" not in f.prescription


@pytest.mark.parametrize(
    ("terms", "task"),
    [
        (("box_loss", "obj_loss", "cls_loss"), "detection"),  # YOLOv5
        (("box_loss", "cls_loss", "dfl_loss"), "detection"),  # YOLOv8
        (("loss_cls", "loss_bbox", "loss_iou"), "detection"),  # mmdet
        (("loss_ce", "loss_bbox", "loss_giou"), "detection"),  # DETR
        (("iou_loss", "l1_loss", "conf_loss", "cls_loss"), "detection"),  # YOLOX
        (("giou_loss", "conf_loss", "prob_loss"), "detection"),  # TF2 YOLOv3
        (("loss_cls",), None),  # mmaction2's recogniser: a class term alone names no detector
        (("decode.loss_ce", "aux.loss_ce"), None),  # mmseg
    ],
)
def test_detector_terms_name_the_task(tmp_path: Path, terms: tuple[str, ...], task: str) -> None:
    rows = [
        {"iter": i, **{t: 1.0 - i / 100 + 0.01 * j for j, t in enumerate(terms)}, "lr": 0.01}
        for i in range(1, 40)
    ]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load(tmp_path / "log.jsonl").fact("task") == task
