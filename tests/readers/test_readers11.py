"""Reader fixes found on real cases (issue 12, readers11): PaddleSeg's `[EVAL]` line,
MS-G3D's eval lines, mmdet's COCO `bbox_mAP` on an epoch line, ultralytics' results.csv with validation off,
rasbt's `# Epoch: 001/010 | Train: 10.000%` lines and trainers' bookkeeping fields.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.readers import load_run

REAL = Path(__file__).resolve().parents[1] / "real"


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. PaddleSeg "[EVAL] #Images: 200 mIoU: 0.5000 Acc: 1.0000 Kappa: nan" ------------

_PADDLESEG = (
    REAL / "no_learning_paddleseg_binary_miou_0p5_class_iou_1_0_loss_0p1503_frozen_two_evals"
)


def test_paddleseg_eval_line_is_eval_metrics_and_its_image_count_is_not_a_series() -> None:
    run = load_run(_PADDLESEG / "log_excerpt.txt")
    for name in ("eval_miou", "eval_acc", "eval_kappa"):
        assert _steps(run, name) == [1300.0, 1400.0], name
    assert values(run, "eval_miou") == [0.5, 0.5]
    assert values(run, "eval_acc") == [1.0, 1.0]
    assert "kappa" not in run.series  # an eval line's kappa is an eval name
    assert "images" not in run.series  # "#Images: 200" counts the eval set
    assert values(run, "loss") == [0.1503, 0.1503]


def test_a_hash_before_a_step_key_still_counts_the_step(tmp_path: Path) -> None:
    # near miss: "#" before the step's own key does not make the step a count to drop
    body = "".join(f"[TRAIN] #iter: {i} loss: {2.0 - i / 10:.2f}\n" for i in range(1, 5))
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0, 4.0]


def test_kappa_outside_an_eval_line_keeps_its_name(tmp_path: Path) -> None:
    body = "".join(f"iter: {i} loss: {2.0 - i / 10:.2f} kappa: 0.{i}\n" for i in range(1, 5))
    run = one_log(tmp_path, body)
    assert "kappa" in run.series and "eval_kappa" not in run.series


# -- 2. MS-G3D: "Eval epoch: 18" / "Mean test loss of 155 batches: 3.71." / "Top1: 23.71%"

_MSG3D = REAL / "healthy_msg3d_kinetics_skeleton_maintainer_log_slow_noisy_top1_23p7_to_25p4_lr0p1"


def test_msg3d_eval_lines_are_eval_points_at_their_epoch() -> None:
    run = load_run(_MSG3D / "log_excerpt.txt")
    assert _steps(run, "eval_loss") == [18.0, 19.0, 20.0, 21.0, 33.0, 34.0, 35.0]
    assert abs(values(run, "eval_loss")[3] - 3.621506498705956) < 1e-12  # not the post-gap one
    # the lines right after the excerpt gap name no epoch: no point is made of them
    assert _steps(run, "eval_top1") == [18.0, 19.0, 20.0, 33.0, 34.0, 35.0]
    assert values(run, "eval_top1")[:3] == [23.71, 24.47, 23.75]
    assert _steps(run, "eval_top5") == [18.0, 19.0, 20.0, 33.0, 34.0]
    assert _steps(run, "loss") == [19.0, 20.0, 21.0, 33.0, 34.0, 35.0]
    # "[ Sun Oct 20 09:00:31 2019 ]" is a date, not a value named "Sun Oct"
    assert not any("oct" in n for n in run.series)
    assert "top1" not in run.series


def test_a_top1_line_without_an_eval_heading_is_left_to_the_generic_reader(
    tmp_path: Path,
) -> None:
    body = "".join(f"epoch: {e} loss: 1.{e}0 Top1: 5{e}.0%\n" for e in range(1, 5))
    run = one_log(tmp_path, body)
    assert values(run, "top1") == [51.0, 52.0, 53.0, 54.0]
    assert not any(n.startswith("eval_") for n in run.series)


# -- 3. mmdet 2.x: "Epoch [8][4015/4015] lr: 2.000e-02, bbox_mAP: 0.7220, ..." ----------

_MMDET = (
    REAL / "healthy_mmdet_cascade_rcnn_loss_hovers_0p58_to_0p73_bbox_map_0p722_maintainer_normal"
)


def test_mmdet_coco_eval_on_an_epoch_line_is_eval_series() -> None:
    run = load_run(_MMDET / "log_excerpt.txt")
    assert values(run, "eval_bbox_map") == [0.722]
    assert values(run, "eval_bbox_map_50") == [0.919]
    assert values(run, "eval_bbox_map_l") == [0.898]
    assert not any(n.startswith("bbox_map") for n in run.series)
    assert not any("copypaste" in n for n in run.series)  # the same numbers as a string
    assert len(run.get("loss").values) == 5  # the train lines are untouched


def test_mmdet_train_losses_named_bbox_stay_train(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch [1][{i * 50}/500]\tlr: 2.000e-02, loss_bbox: 0.{i}5, loss: 0.{i}9\n"
        for i in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert "loss_bbox" in run.series and not any(n.startswith("eval_") for n in run.series)


# -- 4. ultralytics results.csv with `val: false` ----------------------------------------

_YOLO = REAL / (
    "healthy_ultralytics_yolo11n_drone_20ep_val_false_zero_metrics_until_final_epoch_map50_0p95"
    "_results_csv"
)


def test_yolo_val_columns_all_zero_are_validation_not_run() -> None:
    run = load_run(_YOLO)
    assert _steps(run, "eval_loss") == [20.0]  # only the final epoch validated
    assert min(values(run, "eval_loss")) > 1.0
    assert _steps(run, "metrics/mAP50(B)") == [20.0]
    assert _steps(run, "val/box_loss") == [20.0]
    assert len(run.get("loss").values) == 20  # the train columns keep every epoch


_HEAD = "epoch,train/box_loss,metrics/mAP50(B),val/box_loss,val/cls_loss,lr/pg0\n"


def test_yolo_one_val_loss_at_zero_is_still_a_validation(tmp_path: Path) -> None:
    # near miss: one component at 0 while another is not is a real (odd) validation
    rows = "".join(f"{e},1.{e},0.{e},0,0.{e},0.01\n" for e in range(1, 5))
    (tmp_path / "results.csv").write_text(_HEAD + rows)
    run = load_run(tmp_path)
    assert _steps(run, "val/box_loss") == [1.0, 2.0, 3.0, 4.0]
    assert _steps(run, "metrics/mAP50(B)") == [1.0, 2.0, 3.0, 4.0]


_CLS_HEAD = "epoch,time,train/loss,metrics/accuracy_top1,metrics/accuracy_top5,val/loss,lr/pg0\n"


def test_yolo_classify_train_and_val_loss_are_the_losses(tmp_path: Path) -> None:
    # a classify run logs one `train/loss` / `val/loss`, no components to sum
    rows = "".join(f"{e},{e}0.5,1.{5 - e},0.{e + 4},0.99,0.{9 - e},0.001\n" for e in range(1, 5))
    (tmp_path / "results.csv").write_text(_CLS_HEAD + rows)
    run = load_run(tmp_path)
    assert values(run, "loss") == [1.4, 1.3, 1.2, 1.1]
    assert values(run, "eval_loss") == [0.8, 0.7, 0.6, 0.5]


# -- 5. rasbt "# Epoch: 001/010 | Train: 10.000% | Loss: 2.520%" -------------------------

_RASBT = REAL / "no_learning_rasbt_vgg16_cifar10_train_acc_10pct_loss_ln10_two_epoch_lines"


def test_rasbt_commented_epoch_lines_read_train_accuracy_and_loss() -> None:
    run = load_run(_RASBT / "log_excerpt.txt")
    assert _steps(run, "loss") == [1.0, 10.0]
    assert values(run, "loss") == [2.52, 2.303]  # the stray "%" is no percentage
    assert values(run, "train_acc") == [10.0, 10.0]


def test_rasbt_valid_field_is_an_eval_accuracy(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch: {e:03d}/010 | Train: 5{e}.000% | Valid: 4{e}.500% | Loss: 1.{e}00\n"
        for e in range(1, 4)
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_acc") == [41.5, 42.5, 43.5]
    assert values(run, "train_acc") == [51.0, 52.0, 53.0]


def test_a_comment_that_is_not_a_loop_line_stays_a_comment(tmp_path: Path) -> None:
    # near miss: "# lr: 0.1 | ..." is no epoch line; the real records are read alone
    body = "# lr: 0.5 | momentum: 0.9\n" + "".join(
        f"step {i}: loss {2.0 - i / 10:.2f}\n" for i in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert "momentum" not in run.series
    assert _steps(run, "loss") == [1.0, 2.0, 3.0, 4.0]


# -- 6. trainers' bookkeeping: no series ---------------------------------------------------


def test_llamafactory_and_swift_bookkeeping_make_no_series(tmp_path: Path) -> None:
    recs = [
        {
            "loss": 2.0 - i / 10,
            "learning_rate": 1e-4,
            "global_step/max_steps": f"{i}/4",
            "total_steps": 4,
            "percentage": 25.0 * i,
            "memory(GiB)": 20.5,
            "train_speed(iter/s)": 0.3,
            "step": i,
        }
        for i in range(1, 5)
    ]
    p = tmp_path / "logging.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = load_run(p)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0, 4.0]
    for n in run.series:
        assert not any(w in n for w in ("percentage", "total_steps", "memory", "train_speed"))


def test_bookkeeping_in_a_text_log_makes_no_series(tmp_path: Path) -> None:
    body = "".join(
        f"{{'loss': {2.0 - i / 10:.2f}, 'grad_norm': 0.5, 'learning_rate': 1e-4, "
        f"'memory(GiB)': 20.5, 'train_speed(iter/s)': 0.3, 'percentage': '{25 * i}%', "
        f"'current_steps': {i}, 'total_steps': 4}}\n"
        for i in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert len(run.get("loss").values) == 4
    assert not {"memory", "train_speed", "percentage", "total_steps"} & set(run.series)
    assert "grad_norm" in run.series  # a metric beside them stays
