"""Evaluations that real logs print in layouts the key/value reading half read: the DETR
family's log.txt (a COCOeval.stats list, `train_lr`, DeiT/MAE's `test_acc1`), GluonCV's
multi-line validation block. The real excerpts are under assets/trainers/, each with its
source in a `.source.txt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.measure.metrics import task_metrics
from traindoc.readers import load_run

ASSETS = Path(__file__).parent / "assets" / "trainers"


# -- the DETR family's log.txt -------------------------------------------------------------
def test_detr_coco_eval_list_is_read_as_the_coco_headline_aps() -> None:
    run = load_run(ASSETS / "conditional_detr_log.txt")
    assert values(run, "eval_map50_95") == [0.042869931005912035, 0.08922257465630128]
    assert values(run, "eval_map50") == [0.11491612925568999, 0.20641880935592002]
    assert values(run, "eval_map75") == [0.02407171399840201, 0.06366821706964673]
    assert run.get("eval_map50_95").steps.tolist() == [0, 1]  # the epoch of the record
    assert run.get("test_coco_eval_bbox") is None
    assert values(run, "lr") == pytest.approx([9.999999999999121e-05] * 2)  # train_lr
    assert run.get("train_lr") is None
    assert values(run, "loss")[0] == pytest.approx(18.223146938848735)
    assert "eval_map50_95" in [s.name for s, _ in task_metrics(run)]


def test_a_coco_eval_list_on_a_line_among_prose_keeps_its_first_number_the_map(
    tmp_path: Path,
) -> None:
    line = (ASSETS / "conditional_detr_log.txt").read_text().splitlines()[0]
    run = one_log(tmp_path, "Epoch: [0] Total time: 0:10:01 (1.0051 s / it)\n" + line + "\n")
    assert values(run, "eval_map50_95") == pytest.approx([0.042869931005912035])
    assert run.get("test_coco_eval_bbox") is None


def test_near_miss_a_list_under_another_key_is_not_a_coco_summary(tmp_path: Path) -> None:
    body = "".join(
        f'{{"epoch": {e}, "train_loss": {2.0 - e / 10}, "test_per_class_acc": [0.5, 0.6]}}\n'
        for e in range(3)
    )
    p = tmp_path / "log.txt"
    p.write_text(body)
    run = load_run(p)
    assert not [k for k in run.series if "map" in k]


def test_deit_mae_test_acc1_is_a_task_metric_and_train_lr_the_lr() -> None:
    run = load_run(ASSETS / "mae_finetune_log.txt")
    assert values(run, "lr") == pytest.approx(
        [0.0001580246913580247, 0.0005580246913580248, 0.0009580246913580249]
    )
    found = {s.name: higher for s, higher in task_metrics(run)}
    assert found == {"test_acc1": True, "test_acc5": True}


# -- GluonCV's validation block ------------------------------------------------------------
def test_gluoncv_validation_block_reads_its_map_as_an_eval_at_the_epochs_end() -> None:
    run = load_run(ASSETS / "gluoncv_ssd512_voc.log")
    ev = run.get("eval_map")
    assert ev.values.tolist() == pytest.approx([0.174313, 0.287843])
    # at the last batch line of each epoch (batches 99..499 of epoch 0, then 99 per
    # line on from there), not at an epoch number read as a step
    loss_steps = run.get("loss").steps.tolist()
    assert ev.steps.tolist() == [loss_steps[4], loss_steps[9]]
    # the per-class APs are left out: "train=0.080891" is the VOC class, not a split
    assert not {"train", "aeroplane", "eval_train", "eval_aeroplane"} & set(run.series)
    assert run.get("train_acc") is None


def test_gluoncv_block_with_a_logger_prefix_and_no_metric_row(tmp_path: Path) -> None:
    body = (
        "INFO:root:[Epoch 0][Batch 99], Speed: 71.5 samples/sec, CrossEntropy=7.86, SmoothL1=2.93\n"
        "INFO:root:[Epoch 0] Validation: \n"
        "aeroplane=0.141907\n"
        "train=0.080891\n"
        "INFO:root:[Epoch 1][Batch 99], Speed: 73.5 samples/sec, CrossEntropy=4.41, SmoothL1=1.94\n"
        "INFO:root:[Epoch 1] Validation: \n"
        "aeroplane=0.239268\n"
        "mAP=0.287843\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_map") == [0.287843]  # the block without one adds nothing
    assert not {"train", "aeroplane"} & set(run.series)


# -- insightface's verification test -------------------------------------------------------
# deepinsight/insightface issue 751 (the tests/real case
# no_learning_insightface_mobilenetv3_arcface_lossvalue_42_flat_acc_0_verification_0p50_at_8000)
_INSIGHTFACE_751 = """\
INFO:root:Epoch[0] Batch [7940-7960]	Speed: 1411.33 samples/sec	acc=0.000000	lossvalue=42.031139
INFO:root:Epoch[0] Batch [7960-7980]	Speed: 1382.00 samples/sec	acc=0.000000	lossvalue=42.025514
lr-batch-epoch: 0.01 7999 0
testing verification..
(12000, 512)
infer time 4.986866
[agedb_30][8000]XNorm: 1.027080
[agedb_30][8000]Accuracy-Flip: 0.50067+-0.00186
testing verification..
(12000, 512)
infer time 4.825368
[calfw][8000]XNorm: 1.632914
[calfw][8000]Accuracy-Flip: 0.50217+-0.00454
"""


def test_insightface_verification_accuracy_is_an_eval_per_target_set(tmp_path: Path) -> None:
    run = one_log(tmp_path, _INSIGHTFACE_751)
    assert values(run, "eval_agedb_30_acc") == [0.50067]
    assert values(run, "eval_calfw_acc") == [0.50217]
    # after the last train line, the "lr-batch-epoch: 0.01 7999 0" record (its batch 7999);
    # the train lines keep their own batch counter as step
    assert run.get("eval_calfw_acc").steps.tolist() == [7999]
    assert values(run, "lr") == [0.01]
    assert run.get("lossvalue").steps.tolist() == [7960, 7980]
    # the set's name is no metric whose value is the batch, the norm is not kept
    assert not {"agedb_30", "calfw", "accuracy-flip", "xnorm"} & set(run.series)
    found = {s.name: higher for s, higher in task_metrics(run)}
    assert found == {"eval_agedb_30_acc": True, "eval_calfw_acc": True}


def test_insightface_verification_variants(tmp_path: Path) -> None:
    # qidiso/mobilefacenet-V2 issue 7 (grep -n output: a line number before each line),
    # insightface issue 1908 (verification.py alone: no batch), and the running best
    body = (
        "22412:[lfw][372000]Accuracy-Flip: 0.99217+-0.00435\n"
        "22417:[cfp_fp][372000]Accuracy-Flip: 0.87400+-0.01833\n"
        "[8000]Accuracy-Highest: 0.96133\n"
        "[lfw][8000]Accuracy-Highest: 0.99583\n"
        "[lfw]XNorm: 22.132480\n"
        "[lfw]Accuracy: 0.00000+-0.00000\n"
        "[lfw]Accuracy-Flip: 0.99767+-0.00281\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_lfw_acc") == [0.99217, 0.99767]
    assert values(run, "eval_cfp_fp_acc") == [0.874]
    assert values(run, "eval_lfw_acc_noflip") == [0.0]
    assert not [k for k in run.series if "highest" in k or "xnorm" in k]


# -- GluonCV / AutoGluon's classification epoch lines --------------------------------------
# jianzhnie/AutoTimm README_zh.md (commit 0a60f32d1e3a8c0bec3a0f228415f37f7c34753f), the
# training output it shows
_AUTOTIMM = """\
Start training from [Epoch 0]
[Epoch 0] training: accuracy=0.306944
[Epoch 0] speed: 91 samples/sec     time cost: 7.728239
[Epoch 0] validation: top1=0.425000 top5=1.000000
[Epoch 0] Current best top-1: 0.425000 vs previous -inf, saved to /var/lib/jenkins/workspace/workspace/autotimm-tutorial-image-classification-v3/docs/_build/eval/tutorials/image_prediction/c730a589/.trial_0/best_checkpoint.pkl
[Epoch 1] training: accuracy=0.523611
[Epoch 1] speed: 95 samples/sec     time cost: 7.392515
[Epoch 1] validation: top1=0.750000 top5=1.000000
[Epoch 1] Current best top-1: 0.750000 vs previous 0.425000, saved to /var/lib/jenkins/workspace/workspace/autotimm-tutorial-image-classification-v3/docs/_build/eval/tutorials/image_prediction/c730a589/.trial_0/best_checkpoint.pkl
Applying the state from the best checkpoint...
"""


def test_gluoncv_validation_top1_and_the_best_so_far_notice(tmp_path: Path) -> None:
    run = one_log(tmp_path, _AUTOTIMM)
    assert values(run, "eval_top1") == [0.425, 0.75]
    assert values(run, "eval_top5") == [1.0, 1.0]
    assert values(run, "accuracy") == [0.306944, 0.523611]
    # the best-so-far notice repeats the validation: no series of its own (its "previous
    # -inf" was read as a metric at -inf)
    assert not [k for k in run.series if "best" in k or "previous" in k]


# -- Tesseract lstmtraining's mean rms -----------------------------------------------------
# tesseract-ocr/tesstrain issue 51 (the tests/real case
# no_learning_tesseract_lstmtraining_scratch_char_train_101pct_eval_wer_100_issue51)
_TESS_51 = """\
Warning: LSTMTrainer deserialized an LSTMRecognizer!
At iteration 5734/6200/6200, Mean rms=2.735%, delta=2.655%, char train=101.05%, word train=84.4%, skip ratio=0%,  New worst char error = 101.05At iteration 1553, stage 0, Eval Char error rate=267.30769, Word error rate=100 wrote checkpoint.

At iteration 5834/6300/6300, Mean rms=2.726%, delta=2.623%, char train=100.6%, word train=84.3%, skip ratio=0%,  wrote checkpoint.
"""


def test_tesseract_mean_rms_is_the_loss_at_the_training_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TESS_51)
    assert values(run, "loss") == [2.735, 2.726]
    assert run.get("loss").steps.tolist() == [6200, 6300]
    assert values(run, "train_cer") == [101.05, 100.6]
    assert run.get("delta") is None


def test_tesseract_5_lowercase_mean_rms(tmp_path: Path) -> None:
    body = (
        "At iteration 100/100/100, mean rms=4.512%, delta=19.934%, BCER train=98.123%, "
        "BWER train=100.000%, skip ratio=0.000%, New best BCER = 98.123 wrote checkpoint.\n"
        "At iteration 200/200/200, mean rms=3.100%, delta=12.000%, BCER train=91.500%, "
        "BWER train=100.000%, skip ratio=0.000%, New best BCER = 91.500 wrote checkpoint.\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [4.512, 3.1]


# -- NCRF++: the dev and the test evaluation of one epoch ----------------------------------
# jiesutd/NCRFpp issue 153 (the tests/real case
# no_learning_ncrfpp_conll2003_dev_f1_0p0003_epochs_2_3_issue153), its first lines
_NCRF_153 = """\
     Instance: 8000; Time: 21.08s; loss: 59527.4275; acc: 87524.0/114649.0=0.7634
     Instance: 12000; Time: 20.77s; loss: 69982.1991; acc: 130951.0/173361.0=0.7554
     Instance: 14041; Time: 10.91s; loss: 29146.8357; acc: 153873.0/203621.0=0.7557
Epoch: 2 training finished. Time: 74.41s, speed: 188.71st/s,  total loss: 214107.8642578125
totalloss: 214107.8642578125
Right token =  42757  All token =  51362  acc =  0.8324636891086795
Dev: time: 4.53s, speed: 724.57st/s; acc: 0.8325, p: 0.1667, r: 0.0002, f: 0.0003
Right token =  38323  All token =  46435  acc =  0.8253041886508022
Test: time: 4.51s, speed: 775.19st/s; acc: 0.8253, p: 0.0000, r: 0.0000, f: -1.0000
"""


def test_ncrfpp_test_line_is_test_not_the_dev_eval(tmp_path: Path) -> None:
    run = one_log(tmp_path, _NCRF_153)
    assert values(run, "eval_acc") == [0.8325]
    assert values(run, "eval_precision") == [0.1667]
    assert values(run, "eval_f1") == [0.0003]  # not the test line's -1 written over it
    assert values(run, "test_acc") == [0.8253]
    assert values(run, "test_precision") == [0.0]
    assert run.get("test_f1") is None  # -1: NCRF++'s mark for an undefined F
    # the token-accuracy line before each is the same accuracy: not a train "acc"
    assert run.get("acc") is None and run.get("token") is None
    assert run.get("eval_acc").steps.tolist() == run.get("test_acc").steps.tolist()


# -- timm's output dir ---------------------------------------------------------------------
# timm's train.py writes summary.csv with timm.utils.update_summary: one row per epoch, the
# epoch, the train_* and eval_* metrics, then lr (header and rows as it writes them)
_TIMM_SUMMARY = """\
epoch,train_loss,eval_loss,eval_top1,eval_top5,lr
0,1.5266704335171952,0.633612437915802,78.36,99.28,0.05
1,1.2209299079373352,0.5740737833976746,81.39,99.24,0.04522542485937369
2,1.1507881676029956,0.5225296738147736,82.71,99.42,0.032725424859373686
"""


def test_timm_output_dir_is_read_from_its_summary_csv(tmp_path: Path) -> None:
    run_dir = tmp_path / "20240101-000000-resnet18-224"
    run_dir.mkdir()
    (run_dir / "summary.csv").write_text(_TIMM_SUMMARY)
    (run_dir / "args.yaml").write_text("model: resnet18\nepochs: 3\nlr: 0.05\n")
    run = load_run(run_dir)
    assert values(run, "loss") == pytest.approx(
        [1.5266704335171952, 1.2209299079373352, 1.1507881676029956]
    )
    assert values(run, "eval_top1") == [78.36, 81.39, 82.71]
    assert len(run.get("lr")) == 3


def test_near_miss_a_summary_csv_that_is_no_training_record(tmp_path: Path) -> None:
    (tmp_path / "summary.csv").write_text("split,images,classes\ntrain,5000,10\nval,1000,10\n")
    with pytest.raises(Exception, match="no training log recognised"):
        load_run(tmp_path)


# -- segmentation's pixel accuracy ---------------------------------------------------------
# https://github.com/dmlc/web-data/blob/0818ee5787b3824f1bca2f4bd98ef6abe689f7db/gluoncv/logs/segmentation/icnet_resnet50_mhpv1.log
# (lines 307-311; the tests/real case
# healthy_gluoncv_icnet_resnet50_mhpv1_120ep_train_loss_flat_0p47_miou_0p165_to_0p43_released_log)
_ICNET = """\
Epoch 0 iteration 0160/0188: training loss 4.706
Epoch 0 iteration 0180/0188: training loss 4.520
Epoch 0 validation pixAcc: 0.776, mIoU: 0.165
Epoch 1 iteration 0020/0187: training loss 2.912
Epoch 1 iteration 0040/0187: training loss 2.821
"""


def test_pixacc_on_a_validation_line_is_an_eval_accuracy(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ICNET)
    assert values(run, "eval_pixacc") == [0.776]
    assert values(run, "eval_miou") == [0.165]
    assert run.get("pixacc") is None


def test_mmseg_aacc_and_macc_are_accuracies() -> None:
    from traindoc.measure.metrics import direction

    assert direction("aAcc") is True and direction("mAcc") is True
    assert direction("eval_pixacc") is True


# -- torchvision's MetricLogger (DETR, DeiT, MAE, DINO, ConvNeXt) --------------------------
# DINO's eval_linear.py output, ViT-S/8, in a public repository's eval notes (the search
# index's code corpus, which names no repository for it): the last batches of the eval
_DINO_EVAL = """\
Test:  [380/391]  eta: 0:00:00  loss: 0.814474 (0.913746)  acc1: 76.562500 (76.851624)  acc5: 93.750000 (92.950295)  time: 0.083795  data: 0.000182  max mem: 993
Test:  [390/391]  eta: 0:00:00  loss: 0.723986 (0.911126)  acc1: 76.562500 (76.908000)  acc5: 93.750000 (92.980000)  time: 0.082328  data: 0.000111  max mem: 993
Test: Total time: 0:00:35 (0.090729 s / it)
* Acc@1 76.908 Acc@5 92.980 loss 0.911
Accuracy of the network on the 50000 test images: 76.9%
"""


def test_metric_logger_eval_is_its_last_batch_means(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DINO_EVAL)
    # the running means, the last batch's last; the "* Acc@1" line repeats them, rounded
    # (with no train line before them, each batch is a point of its own)
    assert values(run, "eval_acc1") == [76.851624, 76.908]
    assert values(run, "eval_acc5") == [92.950295, 92.98]
    assert values(run, "eval_loss") == [0.913746, 0.911126]
    # the batch counter, the batch's own values and the timings are no metrics
    assert not {"test", "acc1", "acc5", "acc@1", "loss", "max_mem"} & set(run.series)


def test_metric_logger_acc_line_alone(tmp_path: Path) -> None:
    # https://github.com/whai362/PVT (README.md, "This should give")
    run = one_log(tmp_path, "* Acc@1 79.764 Acc@5 94.950 loss 0.885\n")
    assert values(run, "eval_acc1") == [79.764]
    assert values(run, "eval_loss") == [0.885]


# Swin Transformer's main.py (microsoft/Swin-Transformer, validate() and train_one_epoch()
# logger.info formats, tab-separated, behind its logger's "[time name](file line): INFO "
# prefix); the test line's example as a SwinV2 iNat21 log printed it
_SWIN = (
    "[2022-06-08 07:30:10 swinv2_large_patch4_window7_224_inat21](main.py 230): INFO Train: "
    "[3/90][1200/1251]\teta 0:00:30 lr 0.000100\ttime 0.5012 (0.5100)\tloss 2.1000 (2.2000)"
    "\tgrad_norm 3.1000 (3.0000)\tmem 36916MB\n"
    "[2022-06-08 07:34:50 swinv2_large_patch4_window7_224_inat21](main.py 258): INFO Test: "
    "[0/196]\tTime 1.895 (1.895)\tLoss 0.8066 (0.8066)\tAcc@1 84.766 (84.766)\tAcc@5 95.312 "
    "(95.312)\tMem 36916MB\n"
    "[2022-06-08 07:35:50 swinv2_large_patch4_window7_224_inat21](main.py 258): INFO Test: "
    "[195/196]\tTime 1.895 (1.895)\tLoss 0.9066 (0.8566)\tAcc@1 80.766 (82.766)\tAcc@5 95.312 "
    "(95.312)\tMem 36916MB\n"
    "[2022-06-08 07:35:51 swinv2_large_patch4_window7_224_inat21](main.py 265): INFO  * Acc@1 "
    "82.766 Acc@5 95.312\n"
)


def test_swin_validation_is_an_eval_not_the_train_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _SWIN)
    assert values(run, "loss") == [2.1]  # the test batches' Loss is not a train loss
    assert values(run, "eval_loss") == [0.8566]
    assert values(run, "eval_acc@1") == [82.766]
    assert run.get("eval_loss").steps.tolist() == run.get("loss").steps.tolist()
    assert run.get("test") is None and run.get("acc@1") is None


# DETR's engine.py through its util/misc.py MetricLogger: the train epoch's last batch, its
# "Averaged stats", then the eval's batches and its own "Averaged stats" (the format as
# the program prints it; class_error has a window of one, so no mean in brackets)
_DETR_CONSOLE = """\
Epoch: [0]  [7390/7393]  eta: 0:00:01  lr: 0.000100  class_error: 66.67  loss: 16.2713 (19.7734)  loss_ce: 1.1012 (1.3262)  time: 0.4391  data: 0.0088  max mem: 7563
Epoch: [0] Total time: 1:02:47 (0.5097 s / it)
Averaged stats: lr: 0.000100  class_error: 66.67  loss: 16.2713 (19.7734)  loss_ce: 1.1012 (1.3262)
Test:  [  0/625]  eta: 0:21:24  class_error: 50.00  loss: 15.2813 (15.2813)  loss_ce: 0.9012 (0.9012)  time: 2.0547  data: 1.7127  max mem: 7563
Test:  [624/625]  eta: 0:00:00  class_error: 25.00  loss: 14.1813 (14.5813)  loss_ce: 0.8012 (0.8512)  time: 0.1547  data: 0.0027  max mem: 7563
Test: Total time: 0:01:44 (0.1670 s / it)
Averaged stats: class_error: 25.00  loss: 14.1813 (14.5813)  loss_ce: 0.8012 (0.8512)
"""


def test_detr_console_eval_means_and_its_averaged_stats(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DETR_CONSOLE)
    assert values(run, "loss") == [16.2713]  # neither test line nor test average
    assert values(run, "eval_loss") == [14.5813]
    assert values(run, "eval_loss_ce") == [0.8512]


def test_near_miss_a_bracketed_accuracy_without_the_folds_spread(tmp_path: Path) -> None:
    run = one_log(tmp_path, "step 10 loss 0.5\n[val]Accuracy: 0.93\nstep 20 loss 0.4\n")
    assert not [k for k in run.series if "noflip" in k or k.endswith("_acc")]


# -- detectron2's COCOEvaluator record in metrics.json -------------------------------------
def test_detectron2_bbox_ap_is_the_coco_map_eval() -> None:
    run = load_run(ASSETS / "detectron2_water_meters")
    assert values(run, "eval_map50_95") == [40.39074987926535]
    assert values(run, "eval_map50") == pytest.approx([67.65304286398926])
    assert values(run, "eval_map75") == pytest.approx([42.257401869933936])
    assert run.get("eval_map50_95").steps.tolist() == [499]
    assert "eval_map50_95" in {s.name for s, _ in task_metrics(run)}
    assert run.get("bbox/ap") is None
    assert len(run.get("loss")) == 4
