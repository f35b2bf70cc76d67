"""COCO detection metrics under the names every reader gives them.

pycocotools' COCOeval.stats is twelve numbers (ten for keypoints) in a fixed order: AP
at IoU=0.50:0.95, AP at 0.50, AP at 0.75, then the per-area APs and the recalls. The
first is the COCO mAP, the next two its other headline values; the rest are left out.
Printed as COCOeval.summarize()'s block (readers/logs/layouts.py) or written whole as a
list by the DETR family's log.txt (DETR, Deformable DETR, Conditional DETR, DINO:
`"test_coco_eval_bbox": [0.043, 0.115, ...]`), they are the same eval series.
"""

from __future__ import annotations

import re
from typing import Any

# COCOeval.stats[0:3], in order
STATS = ("map50_95", "map50", "map75")
# the iou type -> the prefix of its series (a mask AP is not the box AP of the same run)
PREFIX = {"bbox": "eval_", "segm": "eval_mask_", "masks": "eval_mask_", "keypoints": "eval_pose_"}

# detectron2's COCOEvaluator: the eval record in metrics.json names the same values by
# task, in percent ({"bbox/AP": 12.5, "bbox/AP50": 30.1, "bbox/AP75": 8.2, "bbox/APs": ...,
# "bbox/AP-person": ..., "iteration": 999}); the per-area and per-class APs are left as
# they are
_D2 = re.compile(r"^(bbox|segm|keypoints)/AP(50|75)?$")
_D2_STATS = {None: STATS[0], "50": STATS[1], "75": STATS[2]}
# mmpose 1.x's CocoMetric (its default keypoint metric) names the same stats "coco/AP",
# "coco/AP .5", "coco/AP .75" (then "coco/AP (M)", "coco/AR", ...), as scalars.json keys
# and on its "Epoch(val) [10][6/6]  coco/AP: 0.000891  coco/AP .5: 0.002970" lines (the
# text reader joins "AP .5" into "AP50", lower-cased: lines.mmpose_coco_names)
_MMPOSE = re.compile(r"^coco/AP(?: ?\.5|50| ?\.75|75)?$", re.IGNORECASE)

# DETR's engine.evaluate returns coco_evaluator.coco_eval[iou_type].stats as
# "coco_eval_bbox" / "coco_eval_masks", and main.py logs it under the split's prefix
_LISTED = re.compile(r"^(?:(?:test|val|valid|eval)_)?coco_eval_(bbox|segm|masks|keypoints)$")


def listed_type(key: str) -> str | None:
    """The iou type when `key` names a whole COCOeval.stats list, else None."""
    m = _LISTED.match(key.lower())
    return m.group(1) if m else None


def stats_pairs(key: str, value: Any) -> list[tuple[str, float]] | None:
    """The headline APs of a COCOeval.stats list logged under `key`, as (name, value);
    None when `key` names no such list or the value is not one. -1 (pycocotools' mark
    of an area or type with no ground truth) is no score and is left out."""
    iou = listed_type(key)
    if iou is None or not isinstance(value, (list, tuple)):
        return None
    out = []
    for name, v in zip(STATS, value, strict=False):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            out.append((PREFIX[iou] + name, float(v)))
    return out


def named(key: str) -> str | None:
    """The series a detectron2 COCO eval key is (`bbox/AP50` -> eval_map50), else None."""
    m = _D2.match(key)
    if m is not None:
        return PREFIX[m.group(1)] + _D2_STATS[m.group(2)]
    if _MMPOSE.match(key) is None:
        return None
    low = key.lower().replace(" ", "")
    iou = "50" if low.endswith((".5", "50")) else "75" if low.endswith("75") else None
    return PREFIX["keypoints"] + _D2_STATS[iou]
