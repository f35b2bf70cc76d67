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


# pycocotools' COCOeval.summarize() block, as torchvision's detection reference prints it
# after an epoch: PyTorch's "TorchVision Object Detection Finetuning Tutorial" output, in
# a public translation of the tutorial (verbatim, its indentation kept)
_AP = "     Average Precision  (AP) @[ IoU={} | area={} | maxDets=100 ] = {}\n"
_AR = "     Average Recall     (AR) @[ IoU=0.50:0.95 | area={} | maxDets={} ] = {}\n"


def _block(kind: str, ap: list[str], ar: list[str]) -> str:
    ious = ["0.50:0.95", "0.50     ", "0.75     "] + ["0.50:0.95"] * 3
    areas = ["   all"] * 3 + [" small", "medium", " large"]
    ar_at = [("   all", "  1"), ("   all", " 10"), ("   all", "100")]
    ar_at += [(" small", "100"), ("medium", "100"), (" large", "100")]
    return (
        f"    IoU metric: {kind}\n"
        + "".join(_AP.format(i, a, v) for i, a, v in zip(ious, areas, ap, strict=True))
        + "".join(_AR.format(a, d, v) for (a, d), v in zip(ar_at, ar, strict=True))
    )


_TV = (
    "    Epoch: [0]  [50/60]  eta: 0:00:03  lr: 0.004323  loss: 0.3237 (0.6703)  "
    "loss_classifier: 0.0474 (0.1731)  loss_box_reg: 0.1109 (0.1561)  loss_mask: 0.1658 "
    "(0.3201)  loss_objectness: 0.0015 (0.0093)  loss_rpn_box_reg: 0.0093 (0.0116)  time: "
    "0.3379  data: 0.0043  max mem: 5081\n"
    "    Epoch: [0]  [59/60]  eta: 0:00:00  lr: 0.005000  loss: 0.2540 (0.6082)  "
    "loss_classifier: 0.0309 (0.1526)  loss_box_reg: 0.0463 (0.1405)  loss_mask: 0.1568 "
    "(0.2945)  loss_objectness: 0.0012 (0.0083)  loss_rpn_box_reg: 0.0093 (0.0123)  time: "
    "0.3489  data: 0.0042  max mem: 5081\n"
    "    Epoch: [0] Total time: 0:00:21 (0.3570 s / it)\n"
    "    Accumulating evaluation results...\n"
    "    DONE (t=0.01s).\n"
    + _block(
        "bbox",
        ["0.606", "0.984", "0.780", "0.313", "0.582", "0.612"],
        ["0.270", "0.672", "0.672", "0.650", "0.755", "0.664"],
    )
    + _block(
        "segm",
        ["0.704", "0.979", "0.871", "0.325", "0.488", "0.727"],
        ["0.316", "0.748", "0.749", "0.650", "0.673", "0.758"],
    )
)


def test_coco_summary_is_the_eval_of_the_epoch_before_it(tmp_path: Path) -> None:
    # before: 24 lines naming a metric not understood, no eval metric read
    run = one_log(tmp_path, _TV)
    assert _misread(run) == 0
    assert _vals(run, "eval_map50_95") == [0.606]
    assert _vals(run, "eval_map50") == [0.984]
    assert _vals(run, "eval_mask_map50_95") == [0.704]
    assert run.get("eval_map50_95").steps[0] == run.get("loss").steps[-1]


def test_coco_summary_skips_empty_areas(tmp_path: Path) -> None:
    # -1.000 marks an area with no objects (DETR on a small set): no value, and the all-area
    # AP is still read
    body = _TV.replace(
        "area=   all | maxDets=100 ] = 0.606", "area=   all | maxDets=100 ] = -1.000"
    )
    run = one_log(tmp_path, body)
    assert "eval_map50_95" not in run.series
    assert _vals(run, "eval_map50") == [0.984]


# tests/real/healthy_mmdet2_mask_rcnn_balloon_100ep_bbox_map_0p006_to_0p775_log_and_json
# (mmdetection 2.x, verbatim): its CocoMetric logs the same numbers on the val line after
# the block, numbered there
_MMDET = (
    "2023-02-08 11:23:14,825 - mmdet - INFO - Evaluating bbox...\n"
    "2023-02-08 11:23:15,005 - mmdet - INFO - \n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.006\n"
    " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=1000 ] = 0.014\n"
    " Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=1000 ] = 0.004\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=1000 ] = 0.061\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=1000 ] = 0.008\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=1000 ] = 0.005\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.248\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=300 ] = 0.248\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=1000 ] = 0.248\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=1000 ] = 0.300\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=1000 ] = 0.267\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=1000 ] = 0.239\n"
    "\n"
    "2023-02-08 11:23:15,430 - mmdet - INFO - Now best checkpoint is saved as "
    "best_bbox_mAP_epoch_1.pth.\n"
    "2023-02-08 11:23:15,432 - mmdet - INFO - Best bbox_mAP is 0.0057 at 1 epoch.\n"
    "2023-02-08 11:23:15,432 - mmdet - INFO - Exp name: "
    "mask_rcnn_r50_caffe_fpn_mstrain-poly_1x_balloon.py\n"
    "2023-02-08 11:23:15,432 - mmdet - INFO - Epoch(val) [1][13]\tbbox_mAP: 0.0057, "
    "bbox_mAP_50: 0.0139, bbox_mAP_75: 0.0041, bbox_mAP_s: 0.0606, bbox_mAP_m: 0.0080, "
    "bbox_mAP_l: 0.0054, bbox_mAP_copypaste: 0.0057 0.0139 0.0041 0.0606 0.0080 0.0054\n"
)


def test_near_miss_mmdetection_block_is_read_once_from_its_val_line(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MMDET)
    assert _misread(run) == 0
    assert "eval_map50_95" not in run.series
    assert _vals(run, "eval_bbox_map") == [0.0057]


# tests/real/healthy_mmpretrain1_resnet_fruit_10ep_top1_76p6_to_92 (mmengine, verbatim)
_MMENGINE = (
    "2023/06/07 02:02:52 - mmengine - INFO - Epoch(val) [1][137/137]    accuracy/top1: 76.6400  "
    "data_time: 0.0663  time: 0.1510\n"
    "2023/06/07 02:02:53 - mmengine - INFO - The best checkpoint with 76.6400 accuracy/top1 at "
    "1 epoch is saved to best_accuracy_top1_epoch_1.pth.\n"
    "2023/06/07 02:03:12 - mmengine - INFO - Epoch(train)  [2][100/137]  lr: 1.0000e-02  eta: "
    "0:03:25  time: 0.1362  data_time: 0.0134  memory: 1637  loss: 1.1952\n"
    "2023/06/07 02:03:42 - mmengine - INFO - The previous best checkpoint "
    "/content/mmpretrain/outputs/best_accuracy_top1_epoch_1.pth is removed\n"
    "2023/06/07 02:03:43 - mmengine - INFO - The best checkpoint with 80.0457 accuracy/top1 at "
    "2 epoch is saved to best_accuracy_top1_epoch_2.pth.\n"
)


def test_best_checkpoint_notices_are_understood(tmp_path: Path) -> None:
    # before: each notice counted as a line naming a metric not understood; its score is
    # the val line's, read there
    run = one_log(tmp_path, _MMENGINE)
    assert _misread(run) == 0
    assert _vals(run, "eval_accuracy/top1") == [76.64]


def test_near_miss_a_notice_cut_short_still_counts(tmp_path: Path) -> None:
    # the notice cut short by a paste, before it says what was saved: no hook's message
    # the reader can vouch for, so it still counts
    body = _MMENGINE.replace(" is saved to best_accuracy_top1_epoch_2.pth.", "")
    run = one_log(tmp_path, body)
    assert _misread(run) == 1
