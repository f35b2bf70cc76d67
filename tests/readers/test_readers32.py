"""Reader fixes for OpenMMLab logs (readers32): mmengine's scalars.json read at the top of
the folder given, its epoch-numbered validation records placed at their iteration, and a
terminal-wrapped mmcv/mmdet train line read as the one record it is.

Built on lines as the frameworks print them; each has a near miss it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from traindoc.readers import load_run


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. mmengine's vis_data/scalars.json ---------------------------------------------------

# mmengine LoggerHook: train records at step=runner.iter + 1 with `epoch` (epoch-based
# LogProcessor); a val record, with log_metric_by_epoch (default), at step=runner.epoch.
# Lines as in an mmdet 3 RTMDet run (8 iterations per epoch, val every epoch).
_TRAIN = (
    '{{"lr": {lr}, "data_time": 0.1367, "loss": {loss}, "loss_cls": 2.07, '
    '"loss_bbox": 0.68, "time": 0.4214, "epoch": {epoch}, "memory": 2663, "step": {step}}}'
)
_VAL = (
    '{{"coco/bbox_mAP": {m}, "coco/bbox_mAP_50": 0.428, "coco/bbox_mAP_75": 0.428, '
    '"data_time": 0.1287, "time": 0.1733, "step": {epoch}}}'
)


def _scalars(epochs: int = 4, per: int = 8, val: bool = True) -> str:
    lines = []
    for e in range(1, epochs + 1):
        lines.append(_TRAIN.format(lr=1e-4 * e, loss=2.7 - 0.3 * e, epoch=e, step=e * per))
        if val:
            lines.append(_VAL.format(m=0.3 + 0.1 * e, epoch=e))
    return "\n".join(lines) + "\n"


def test_scalars_json_at_top_of_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / "scalars.json").write_text(_scalars())
    run = load_run(tmp_path)
    assert [i.kind for i in run.inputs] == ["jsonl"]
    assert _steps(run, "loss") == [8, 16, 24, 32]


def test_epoch_numbered_val_record_sits_at_its_epochs_last_iteration(tmp_path: Path) -> None:
    (tmp_path / "scalars.json").write_text(_scalars())
    run = load_run(tmp_path)
    assert _steps(run, "coco/bbox_map") == [8, 16, 24, 32]


def test_val_record_logged_by_iteration_keeps_its_step(tmp_path: Path) -> None:
    # near miss: an iteration-based run (log_metric_by_epoch=False, mmseg's configs):
    # train records carry no `epoch`, a val record's step is already runner.iter
    rows = [{"lr": 0.01, "loss": 2.0 - 0.1 * k, "step": 50 * k, "time": 0.3} for k in range(1, 9)]
    rows.insert(4, {"aAcc": 80.0, "mIoU": 40.0, "step": 200})
    rows.append({"aAcc": 85.0, "mIoU": 45.0, "step": 400})
    (tmp_path / "vis_data").mkdir()
    (tmp_path / "vis_data" / "scalars.json").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n"
    )
    run = load_run(tmp_path)
    assert _steps(run, "miou") == [200, 400]


def test_record_without_epoch_that_is_not_the_epoch_keeps_its_step(tmp_path: Path) -> None:
    # near miss: a record without `epoch` whose step is an iteration past the last one
    body = _scalars(epochs=3, val=False) + '{"coco/bbox_mAP": 0.5, "step": 30}\n'
    (tmp_path / "scalars.json").write_text(body)
    assert _steps(load_run(tmp_path), "coco/bbox_map") == [30]


def test_mmengine_log_beside_scalars_json_stays_the_run_read(tmp_path: Path) -> None:
    # the <timestamp>.log beside it holds the same records plus the config dump
    (tmp_path / "scalars.json").write_text(_scalars())
    log = (
        "2023/06/09 08:20:05 - mmengine - INFO - Epoch(train) [1][8/8]  lr: 1.0000e-04  "
        "eta: 0:02:48  time: 0.4214  data_time: 0.1367  memory: 2663  loss: 2.4000  "
        "loss_cls: 2.0700  loss_bbox: 0.6800\n"
        "2023/06/09 08:20:07 - mmengine - INFO - Epoch(train) [2][8/8]  lr: 2.0000e-04  "
        "eta: 0:02:30  time: 0.3531  data_time: 0.1443  memory: 2663  loss: 2.1000  "
        "loss_cls: 2.0700  loss_bbox: 0.6800\n"
    )
    (tmp_path / "20230609_081929.log").write_text(log)
    run = load_run(tmp_path)
    assert run.inputs[0].kind == "text-log"
