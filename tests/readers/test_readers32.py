"""Reader fixes for OpenMMLab logs (readers32): mmengine's scalars.json read at the top of
the folder given, its epoch-numbered validation records placed at their iteration, and a
terminal-wrapped mmcv/mmdet train line read as the one record it is.

Built on lines as the frameworks print them; each has a near miss it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.readers.helpers import one_log, values
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


# -- 2. an mmcv TextLoggerHook line wrapped by the terminal at a field boundary -------------

# mmcv v1 / mmdet 2 (TextLoggerHook): "Epoch [e][i/n]\tlr: ..., key: value, ..." on one
# line; a terminal or a paste wraps a long one, the rest of its fields on the next line.
_MMCV = (
    "2019-07-30 10:12:{s:02d},386 - INFO - Epoch [1][{i}/7330]\tlr: 0.02000, eta: 3 days, "
    "0:30:54, time: 0.403, data_time: 0.004, memory: 3791, loss_rpn_cls: 0.{a:04d}, "
    "loss_rpn_bbox: 0.1148, loss_cls: 1.{a:04d},"
)
_REST = "acc: 85.{a:04d}, loss_bbox: 0.4321, loss: 2.{a:04d}"


def _mmcv(wrapped: bool) -> str:
    out = []
    for k, i in enumerate((50, 100, 150, 200)):
        a = 5000 - 1000 * k
        head, rest = _MMCV.format(s=10 + k, i=i, a=a), _REST.format(a=a)
        out.append(head + ("\n" if wrapped else " ") + rest)
    return "\n".join(out) + "\n"


def test_wrapped_mmcv_line_is_one_record(tmp_path: Path) -> None:
    run = one_log(tmp_path, _mmcv(wrapped=True))
    assert _steps(run, "loss") == [50, 100, 150, 200]
    assert values(run, "loss") == [2.5, 2.4, 2.3, 2.2]
    assert _steps(run, "loss_cls") == [50, 100, 150, 200]
    (tmp_path / "w").mkdir()
    whole = one_log(tmp_path / "w", _mmcv(wrapped=False))
    assert sorted(run.series) == sorted(whole.series)


def test_wrapped_rest_over_two_lines(tmp_path: Path) -> None:
    head = _MMCV.format(s=10, i=50, a=5000)
    body = (
        head
        + "\nacc: 85.5000,\nloss_bbox: 0.4321, loss: 2.5000\n"
        + head.replace("[50/", "[100/").replace("10,386", "11,386")
        + " acc: 86.0, loss_bbox: 0.4, loss: 2.4\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [50, 100]
    assert values(run, "acc") == [85.5, 86.0]


def test_line_after_a_comma_with_a_step_of_its_own_is_not_joined(tmp_path: Path) -> None:
    # near miss: a record ending in a comma, then a record with its own counter
    body = (
        "step: 10, loss: 2.5000, acc: 0.1000,\n"
        "step: 20, loss: 2.4000, acc: 0.2000,\n"
        "step: 30, loss: 2.3000, acc: 0.3000,\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [10, 20, 30]
    assert values(run, "loss") == [2.5, 2.4, 2.3]


def test_field_line_after_a_line_that_is_not_cut_stays_its_own(tmp_path: Path) -> None:
    # near miss: the line before ends whole (no trailing comma): nothing is carried
    body = "".join(
        f"Epoch [1][{i}/100]\tlr: 0.01, loss: {2 - i / 100:.4f}\nval_loss: {3 - i / 100:.4f}\n"
        for i in (10, 20, 30)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [1.9, 1.8, 1.7]
