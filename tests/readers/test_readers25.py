"""Reader gaps seen on dev cases (readers25): the header of a YOLO validation table
(YOLOv5's val.py, ultralytics' validators), printed before its `all` row each epoch, was
counted as a line naming a metric the reader did not understand; and a segmentation
model's `all` row (Box and Mask groups, ten columns) was not read at all.

The formats are the frameworks' own: YOLOv5 val.py prints ('%20s' + '%11s' * 6) %
('Class', 'Images', 'Labels', 'P', 'R', 'mAP@.5', 'mAP@.5:.95'), ultralytics'
DetectionValidator.get_desc ("%22s" + "%11s" * 6) % ("Class", "Images", "Instances",
"Box(P", "R", "mAP50", "mAP50-95)"), its SegmentationValidator the same plus "Mask(P", "R",
"mAP50", "mAP50-95)". Each test is on verbatim lines and has a near miss.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _vals(run, name: str) -> list[float]:
    return [float(v) for v in run.get(name).values]


def _misread(run) -> int:
    return next(i.lines_not_understood or 0 for i in run.inputs if i.series is not None)


_BAR = "\u2588" * 10
# tests/real/no_learning_dinov3_yolov12_custom_det_map50_zero_cls_loss_17p9_flat_3ep
# (ultralytics YOLOv12 console, verbatim, first two epochs)
_ULTRA = (
    "Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"
    f"       1/50      3.59G      3.074      17.88      2.114         18        640: 100%|{_BAR}"
    "| 69/69 [00:19<00:00,  3.47it/s]\n"
    "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): "
    f"100%|{_BAR}| 15/15 [00:02<00:00,  6.00it/s]\n"
    "                   all         58        136          0          0          0          0\n"
    "\n"
    "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"
    f"       2/50      3.13G      2.411      17.94      1.653          5        640: 100%|{_BAR}"
    "| 69/69 [00:19<00:00,  3.61it/s]\n"
    "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): "
    f"100%|{_BAR}| 15/15 [00:02<00:00,  5.98it/s]\n"
    "                   all         58        136          0          0          0          0\n"
)
# tests/real/healthy_yolov5_sparse_transfer_learn_error_epochs_154_156_map50_0p92 (YOLOv5)
_V5 = (
    "     Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
    "   154/239     15.7G    0.0236   0.04801 0.0004782       365       640: 100% 42/42 "
    "[01:09<00:00,  1.65s/it]\n"
    "               Class     Images     Labels          P          R     mAP@.5 mAP@.5:.95: "
    "100% 2/2 [00:02<00:00,  1.37s/it]\n"
    "                 all        254       1962      0.877       0.92      0.921      0.469\n"
    "\n"
    "     Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
    "   155/239     15.7G   0.02342    0.0487 0.0004548       422       640: 100% 42/42 "
    "[01:11<00:00,  1.71s/it]\n"
    "               Class     Images     Labels          P          R     mAP@.5 mAP@.5:.95: "
    "100% 2/2 [00:02<00:00,  1.36s/it]\n"
    "                 all        254       1962      0.876      0.908      0.918      0.457\n"
)
# an ultralytics YOLOv8-seg training console in a public repository (verbatim, two epochs)
_SEG = (
    "      Epoch    GPU_mem   box_loss   seg_loss   cls_loss   dfl_loss  Instances       Size\n"
    f"       1/20      10.2G     0.7562      1.111      1.379      1.216         15        640: "
    f"100%|{_BAR}| 1608/1608 [07:54<00:00,  3.39it/s]\n"
    "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95)"
    f"     Mask(P          R      mAP50  mAP50-95): 100%|{_BAR}| 34/34 [00:07<00:00,  4.54it/s]\n"
    "                   all        535        601      0.531      0.781      0.658      0.525"
    "      0.532      0.781      0.663      0.539\n"
    "\n"
    "      Epoch    GPU_mem   box_loss   seg_loss   cls_loss   dfl_loss  Instances       Size\n"
    f"       2/20      10.2G     0.6427     0.9611      1.115      1.122         14        640: "
    f"100%|{_BAR}| 1608/1608 [07:47<00:00,  3.44it/s]\n"
    "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95)"
    f"     Mask(P          R      mAP50  mAP50-95): 100%|{_BAR}| 34/34 [00:07<00:00,  4.54it/s]\n"
    "                   all        535        601      0.612      0.702      0.701      0.555"
    "      0.598      0.711      0.699      0.561\n"
)


def test_ultralytics_val_header_is_understood(tmp_path: Path) -> None:
    # before: each "Class Images Instances Box(P ..." line counted as not understood
    run = one_log(tmp_path, _ULTRA)
    assert _misread(run) == 0
    assert _vals(run, "eval_map50_95") == [0.0, 0.0]
    assert _vals(run, "cls_loss") == [17.88, 17.94]


def test_yolov5_val_header_is_understood(tmp_path: Path) -> None:
    run = one_log(tmp_path, _V5)
    assert _misread(run) == 0
    assert _vals(run, "eval_map50") == [0.921, 0.918]


def test_segmentation_row_reads_box_and_mask_groups(tmp_path: Path) -> None:
    # before: the ten-column all row matched no layout, no eval metric was read
    run = one_log(tmp_path, _SEG)
    assert _misread(run) == 0
    assert _vals(run, "eval_map50_95") == [0.525, 0.555]
    assert _vals(run, "eval_mask_map50_95") == [0.539, 0.561]
    assert [float(s) for s in run.get("eval_mask_map50").steps] == [1.0, 2.0]


def test_near_miss_ten_values_under_a_box_only_header(tmp_path: Path) -> None:
    # an "all" row of ten values under a header that names one group: no series is made up
    body = _SEG.replace("     Mask(P          R      mAP50  mAP50-95)", "")
    run = one_log(tmp_path, body)
    assert "eval_mask_map50" not in run.series
    assert "eval_map50_95" not in run.series


def test_near_miss_a_sentence_about_classes_is_no_header(tmp_path: Path) -> None:
    body = _V5 + "Class Images Labels P R mAP@.5 look wrong to me, mAP is 0.2 lower than before\n"
    run = one_log(tmp_path, body)
    assert _misread(run) == 1
