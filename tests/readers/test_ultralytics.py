"""Ultralytics run dirs: results.csv (space-padded, one row per epoch) + args.yaml.

The excerpts keep the layouts of the real cases in tests/real/healthy_yolov8*:
early YOLOv8 numbers epochs from 0, later releases from 1 and add a time column,
YOLOv5 writes x/lr* columns and opt.yaml + hyp.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_checked
from traindoc.readers import ReadError, discover_runs, load_run

V8 = (
    "                  epoch,         train/box_loss,         train/cls_loss,         "
    "train/dfl_loss,   metrics/precision(B),      metrics/recall(B),       metrics/mAP50(B),"
    "    metrics/mAP50-95(B),           val/box_loss,           val/cls_loss,           "
    "val/dfl_loss,                 lr/pg0,                 lr/pg1,                 lr/pg2\n"
    "                      0,                 1.6878,                 3.3859,                  "
    "2.143,                 0.1762,                    0.2,                0.15826,"
    "                0.05583,                  2.335,                  2.822,                 "
    "3.3394,               0.070545,              0.0032727,              0.0032727\n"
    "                      1,                  1.267,                 1.9629,                 "
    "1.8428,                0.34394,                0.30556,                0.25946,"
    "                0.12497,                 2.2896,                 2.6209,                 "
    "3.4364,               0.040284,              0.0063445,              0.0063445\n"
    "                      2,                 1.1897,                 1.7105,                 "
    "1.7963,                0.59132,                0.46667,                0.48179,"
    "                0.22066,                 1.9873,                 2.1012,                 "
    "3.0045,              0.0097583,              0.0091522,              0.0091522\n"
)
ARGS = (
    "task: detect\nmode: train\nmodel: yolov8s.yaml\ndata: fire-8/data.yaml\nepochs: 25\n"
    "batch: 16\ndevice: ''\noptimizer: SGD\nseed: 0\ncos_lr: false\nclose_mosaic: 10\n"
    "lr0: 0.01\nlrf: 0.01\nmomentum: 0.937\nweight_decay: 0.001\nwarmup_epochs: 3.0\n"
    "warmup_bias_lr: 0.1\nnbs: 64\nsave_dir: runs/detect/train\n"
)


def _train_dir(root: Path, csv: str = V8, args: str | None = ARGS, name: str = "train") -> Path:
    d = root / "runs" / "detect" / name
    d.mkdir(parents=True)
    (d / "results.csv").write_text(csv)
    if args is not None:
        (d / "args.yaml").write_text(args)
    return d


def test_a_run_dir_is_read_by_epoch_with_its_args(tmp_path: Path) -> None:
    run = load_checked(_train_dir(tmp_path))
    assert run.fact("trainer") == "ultralytics"
    loss, ev, lr = run.get("loss"), run.get("eval_loss"), run.get("lr")
    assert loss is not None and ev is not None and lr is not None
    assert loss.steps.tolist() == [1, 2, 3]  # epochs done: numbered from 0 in the file
    # the total is the sum of the logged components (readers/derived.py)
    assert loss.values.tolist() == pytest.approx(
        [1.6878 + 3.3859 + 2.143, 1.267 + 1.9629 + 1.8428, 1.1897 + 1.7105 + 1.7963]
    )
    assert loss.source.startswith("derived: sum of train/box_loss")
    assert ev.values[0] == pytest.approx(2.335 + 2.822 + 3.3394)
    # the weights' group, not pg0 (the biases, warming down from warmup_bias_lr)
    assert lr.values.tolist() == [0.0032727, 0.0063445, 0.0091522]
    assert run.get("lr/pg0").values[0] == 0.070545
    assert run.get("epoch").values.tolist() == [1, 2, 3]
    assert run.get("metrics/mAP50(B)").values[-1] == 0.48179
    assert run.fact("learning_rate") == 0.01 and run.fact("num_train_epochs") == 25
    assert run.fact("warmup_ratio") == pytest.approx(3 / 25)
    assert run.fact("per_device_batch") == 16 and run.fact("grad_accum") == 4
    assert run.fact("effective_batch") == 64
    assert run.fact("lr_scheduler") == "linear" and run.fact("optim") == "SGD"
    assert run.fact("task") == "detection" and run.fact("seed") == 0
    assert [i.kind for i in run.inputs] == ["ultralytics-csv", "ultralytics-args"]
    assert run.inputs[0].series is not None and run.inputs[0].series["loss"] == 3
    assert not run.notes


def test_close_mosaic_gives_the_step_the_train_loss_changes(tmp_path: Path) -> None:
    """close_mosaic 10 of 25 epochs: epochs 16-25 train without mosaic, so the summed
    train loss is computed differently from step (epochs done) 16 on; 0 turns it off."""
    run = load_checked(_train_dir(tmp_path))
    assert run.fact("objective_change_step") == 16
    off = load_checked(
        _train_dir(tmp_path, args=ARGS.replace("close_mosaic: 10", "close_mosaic: 0"), name="t2")
    )
    assert off.fact("objective_change_step") is None


def test_the_results_file_itself_reads_the_args_beside_it(tmp_path: Path) -> None:
    run = load_checked(_train_dir(tmp_path) / "results.csv")
    assert run.fact("trainer") == "ultralytics" and run.fact("learning_rate") == 0.01


def test_later_releases_number_epochs_from_1_and_log_the_time(tmp_path: Path) -> None:
    csv = (
        "epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/mAP50(B),"
        "val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2\n"
        "1,30.1,3.1458,3.4616,4.1755,0.01654,2.6153,3.9684,4.1245,0.00056,0.00056,0.00056\n"
        "2,58.7,3.1205,3.3402,4.0059,0.03731,2.8777,4.4506,3.7605,0.00113,0.00113,0.00113\n"
    )
    run = load_checked(_train_dir(tmp_path, csv, args="batch: 4\ndevice: 0,1\ncos_lr: true\n"))
    assert run.get("loss").steps.tolist() == [1, 2]
    assert run.get("time").values.tolist() == [30.1, 58.7]
    assert run.fact("per_device_batch") == 2 and run.fact("devices") == 2
    assert run.fact("grad_accum") == 16  # round(nbs 64 / batch 4)
    assert run.fact("lr_scheduler") == "cosine"


def test_yolov5_keeps_its_settings_in_opt_and_hyp(tmp_path: Path) -> None:
    d = tmp_path / "runs" / "train" / "exp"
    d.mkdir(parents=True)
    (d / "results.csv").write_text(
        "               epoch,      train/box_loss,      train/obj_loss,      train/cls_loss,"
        "   metrics/precision,        val/box_loss,        val/obj_loss,        val/cls_loss,"
        "               x/lr0,               x/lr1,               x/lr2\n"
        "                   0,             0.13071,            0.015376,            0.057805,"
        "          0.00013152,             0.12547,            0.015036,             0.05584,"
        "             0.00023,             0.00023,             0.09793\n"
        "                   1,             0.12429,            0.017283,            0.052486,"
        "            0.001327,             0.11867,            0.016385,            0.050149,"
        "             0.00047,             0.00047,             0.09577\n"
    )
    (d / "opt.yaml").write_text("epochs: 500\nbatch_size: 16\nlinear_lr: false\nhyp: hyp.yaml\n")
    (d / "hyp.yaml").write_text("lr0: 0.01\nwarmup_epochs: 3.0\nweight_decay: 0.0005\n")
    (d / "events.out.tfevents.1637127080.host.1.0").write_bytes(b"")
    run = load_checked(d)
    assert run.fact("trainer") == "ultralytics"
    assert run.get("lr").values.tolist() == [0.00023, 0.00047]  # x/lr2 is the biases here
    assert run.get("loss").values[0] == pytest.approx(0.13071 + 0.015376 + 0.057805)
    assert run.fact("learning_rate") == 0.01 and run.fact("num_train_epochs") == 500
    assert run.fact("warmup_ratio") == pytest.approx(3 / 500)
    assert run.fact("lr_scheduler") == "cosine"  # YOLOv5's one-cycle unless linear_lr
    assert any("also found, not read" in n.message for n in run.notes)  # its TB events


def test_a_lightning_csv_that_starts_with_epoch_stays_lightning(tmp_path: Path) -> None:
    # near miss: Lightning logs train/..._loss too, but always with a step column
    d = tmp_path / "lightning_logs" / "version_0"
    d.mkdir(parents=True)
    (d / "metrics.csv").write_text("epoch,lr-Adam,step,train/nll_loss\n0,0.01,9,2.5\n")
    assert load_run(tmp_path).fact("trainer") == "lightning"
    (tmp_path / "results.csv").write_text("epoch,step,train/box_loss,lr/pg0\n0,9,1.2,0.01\n")
    assert load_run(tmp_path / "results.csv").fact("trainer") == "lightning"


def test_bad_rows_are_counted_and_an_empty_table_is_one_line(tmp_path: Path) -> None:
    bad = V8 + "                      3,                 1.1\n"
    run = load_checked(_train_dir(tmp_path, bad, args=None))
    assert run.get("loss").steps.tolist() == [1, 2, 3]
    assert any("skipped 1 row" in n.message and n.line == 5 for n in run.notes)
    empty = _train_dir(tmp_path, V8.split("\n", 1)[0] + "\n", args=None, name="train2")
    with pytest.raises(ReadError, match=r"results\.csv: no epoch rows"):
        load_run(empty)


def test_every_train_dir_under_runs_is_a_run(tmp_path: Path) -> None:
    _train_dir(tmp_path)
    _train_dir(tmp_path, name="train2")
    found = discover_runs(tmp_path)
    assert [p.name for p in found] == ["train", "train2"]


# YOLOv5 before v6.0 / YOLOv7: results.txt, no header, 15 whitespace-separated cells per
# epoch (rows of tests/real/healthy_yolov5_mushrooms_100ep_results_txt_*, exp2)
V5_TXT = (
    "      0/99     1.86G   0.09831   0.09352         0    0.1918        24       416"
    "         0         0  0.005487  0.001083   0.09149   0.05837         0\n"
    "      1/99     1.93G   0.09291    0.1008         0    0.1937        37       416"
    "    0.0335    0.1213   0.01098  0.002406   0.08727   0.06239         0\n"
    "      2/99     1.93G   0.08762    0.1066         0    0.1942        40       416"
    "   0.04563    0.2158   0.02475  0.005617   0.08302   0.06479         0\n"
)


def test_yolov5_results_txt_is_read_by_position_under_results_csv_names(tmp_path: Path) -> None:
    d = tmp_path / "runs" / "train" / "exp2"
    d.mkdir(parents=True)
    (d / "results.txt").write_text(V5_TXT)
    for target in (d, d / "results.txt"):
        run = load_checked(target)
        assert run.fact("trainer") == "ultralytics"
        assert [i.kind for i in run.inputs] == ["ultralytics-txt"]
        loss, ev = run.get("loss"), run.get("eval_loss")
        assert loss.steps.tolist() == [1, 2, 3]  # epochs done
        # box + obj + cls; the file's own total (0.1918) is not a component
        assert loss.values[0] == pytest.approx(0.09831 + 0.09352 + 0)
        assert ev.values[-1] == pytest.approx(0.08302 + 0.06479 + 0)
        assert run.get("metrics/mAP_0.5").values.tolist() == [0.005487, 0.01098, 0.02475]
        assert run.get("metrics/mAP_0.5:0.95").values[0] == 0.001083
        assert run.get("lr") is None  # results.txt logs no LR
        assert run.fact("num_train_epochs") == 100  # "0/99": epochs 0..99


def test_yolov5_results_txt_with_opt_yaml_takes_its_epochs(tmp_path: Path) -> None:
    d = tmp_path / "exp"
    d.mkdir()
    (d / "results.txt").write_text(V5_TXT)
    (d / "opt.yaml").write_text("epochs: 300\nbatch_size: 16\n")
    run = load_checked(d)
    assert run.fact("num_train_epochs") == 300 and run.fact("per_device_batch") == 16


def test_a_text_log_named_results_txt_is_not_taken_for_yolo(tmp_path: Path) -> None:
    # near misses: a console log under the name, a row without the GPU memory cell,
    # a row of 14 cells
    log = tmp_path / "results.txt"
    log.write_text("epoch 1/10 loss 0.52 acc 0.81\nepoch 2/10 loss 0.41 acc 0.85\n")
    assert load_run(log).fact("trainer") != "ultralytics"
    no_mem = tmp_path / "a" / "results.txt"
    no_mem.parent.mkdir()
    no_mem.write_text(V5_TXT.replace("1.86G", "x").replace("1.93G", "x"))
    with pytest.raises(ReadError):
        load_run(no_mem)
    short = tmp_path / "b" / "results.txt"
    short.parent.mkdir()
    short.write_text("".join(" ".join(ln.split()[:14]) + "\n" for ln in V5_TXT.splitlines()))
    with pytest.raises(ReadError):
        load_run(short)


# YOLOv10's two heads: box / cls / dfl of the one-to-many (om) and one-to-one (oo) head,
# no `_loss` suffix (the layout of tests/real/healthy_yolov10n_signature_*, two epochs).
V10_COLS = (
    "epoch",
    "train/box_om",
    "train/cls_om",
    "train/dfl_om",
    "train/box_oo",
    "train/cls_oo",
    "train/dfl_oo",
    "metrics/precision(B)",
    "metrics/recall(B)",
    "metrics/mAP50(B)",
    "metrics/mAP50-95(B)",
    "val/box_om",
    "val/cls_om",
    "val/dfl_om",
    "val/box_oo",
    "val/cls_oo",
    "val/dfl_oo",
    "lr/pg0",
    "lr/pg1",
    "lr/pg2",
)
V10_ROWS = (
    (1, 1.5593, 4.4829, 1.7762, 1.2641, 12.607, 1.6947, 0.00791, 1, 0.20336, 0.08749,
     0.67505, 3.3828, 1.0579, 0.48675, 9.6165, 1.0323, 3.334e-05, 3.334e-05, 3.334e-05),
    (2, 1.2113, 2.8409, 1.4655, 1.0321, 6.5012, 1.4137, 0.4102, 0.6667, 0.5120, 0.3331,
     0.6101, 2.1554, 1.0010, 0.4512, 4.2207, 0.9876, 6.1e-05, 6.1e-05, 6.1e-05),
)  # fmt: skip
V10 = "".join(",".join(f"{c:>23}" for c in row) + "\n" for row in (V10_COLS, *V10_ROWS))


def test_yolov10_two_head_terms_sum_to_the_loss_and_the_eval_loss(tmp_path: Path) -> None:
    run = load_checked(_train_dir(tmp_path, csv=V10))
    assert run.fact("trainer") == "ultralytics"
    loss, ev = run.get("loss"), run.get("eval_loss")
    assert loss is not None and ev is not None
    assert loss.steps.tolist() == [1, 2]
    assert loss.values.tolist() == pytest.approx([sum(r[1:7]) for r in V10_ROWS])
    assert ev.values.tolist() == pytest.approx([sum(r[11:17]) for r in V10_ROWS])
    assert "YOLOv10" in loss.source
    # the six terms stay as logged, and the mAP is a task metric beside them
    assert run.get("train/cls_oo") is not None and run.get("metrics/mAP50-95(B)") is not None


def test_a_v10_run_without_val_writes_zero_val_terms_and_no_eval_loss(tmp_path: Path) -> None:
    rows = [list(r) for r in V10_ROWS]
    for r in rows:
        r[11:17] = [0.0] * 6  # `val: false`: every val term 0, the validation not run
    csv = "".join(",".join(f"{c:>23}" for c in row) + "\n" for row in (V10_COLS, *rows))
    run = load_checked(_train_dir(tmp_path, csv=csv))
    assert run.get("loss") is not None
    assert run.get("eval_loss") is None


def test_yolov7_opt_yaml_takes_the_total_batch_and_the_nominal_batch_accumulation(
    tmp_path: Path,
) -> None:
    # YOLOv7's train.py: accumulate = max(round(nbs 64 / total_batch_size), 1), and the
    # optimizer steps once per `accumulate` batches: batch 16 on one GPU steps on 64 images
    d = tmp_path / "exp"
    d.mkdir()
    (d / "results.txt").write_text(V5_TXT)
    opt = "epochs: 10\nbatch_size: 16\ndevice: '0'\nworld_size: 1\ntotal_batch_size: 16\n"
    (d / "opt.yaml").write_text(opt)
    run = load_checked(d)
    assert run.fact("per_device_batch") == 16 and run.fact("devices") == 1
    assert run.fact("grad_accum") == 4 and run.fact("effective_batch") == 64
    assert "assumed" not in run.facts["effective_batch"].source
    # a DDP launch dumps opt.yaml after splitting the batch: batch_size is one process's
    # (8 of the 32), and the accumulation follows the total (round(64 / 32) = 2)
    opt = "batch_size: 8\ndevice: 0,1,2,3\nworld_size: 4\ntotal_batch_size: 32\n"
    (d / "opt.yaml").write_text(opt)
    run = load_checked(d)
    assert run.fact("per_device_batch") == 8 and run.fact("devices") == 4
    assert run.fact("grad_accum") == 2 and run.fact("effective_batch") == 64
    # a total at or above the nominal batch accumulates nothing
    (d / "opt.yaml").write_text("batch_size: 32\nworld_size: 2\ntotal_batch_size: 64\n")
    assert load_checked(d).fact("effective_batch") == 64
    (d / "opt.yaml").write_text("batch_size: 64\nworld_size: 2\ntotal_batch_size: 128\n")
    assert load_checked(d).fact("grad_accum") == 1
    assert load_checked(d).fact("effective_batch") == 128
