"""Console lines that were read as the wrong thing: a cyclic trainer's "Cycle 3/40"
heading and its "Train/Val X: a/b" pairs (lwnet), a retyped Kaldi score line, insightface's
"lr-batch-epoch:" line, fastai's fit table (its spaced v1 header, "#na#" cells, the
fastprogress bar under it, the metrics after valid_loss). Lines as the programs print
them; the sources are named beside each."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.readers.helpers import load_log, one_log, read_log, values
from traindoc.measure.metrics import task_metrics

# -- lwnet (agaldran/lwnet train_cyclical.py): a bar per cycle, then the cycle's eval --------
# agaldran/lwnet issue 5 (the tests/real case nan_inf_lwnet_retina_vessel_...)
_LWNET = """\
Cycle 1/40
100%|████████████████████████████| 50/50 [13:46<00:00, 16.52s/it, tr_loss_lr=0.4512/0.000002]
-------------------------  End of cycle, evaluating -------------------------
Train/Val Loss: 0.4123/0.4388  -- Train/Val AUC: 0.8871/0.8719  -- Train/Val DICE: 0.6000/0.5800 -- LR=0.01
Cycle 2/40
100%|████████████████████████████| 50/50 [00:30<00:00,  1.62it/s, tr_loss_lr=0.3012/0.000002]
-------------------------  End of cycle, evaluating -------------------------
Train/Val Loss: 0.3011/0.3388  -- Train/Val AUC: 0.9153/0.9019  -- Train/Val DICE: 0.7000/0.6800 -- LR=0.01
Cycle 3/40
100%|████████████████████████████| 50/50 [00:30<00:00,  1.62it/s, tr_loss_lr=0.2512/0.000002]
-------------------------  End of cycle, evaluating -------------------------
Train/Val Loss: 0.2511/0.2888  -- Train/Val AUC: 0.9267/0.9119  -- Train/Val DICE: 0.7400/0.7100 -- LR=0.01
"""


def test_lwnet_cycles_are_one_run_counted_by_the_cycle(tmp_path: Path) -> None:
    # each cycle's bar ends at 50/50: read without the cycle, every cycle restarted the run
    run = one_log(tmp_path, _LWNET)
    assert values(run, "epoch") == [1.0, 2.0, 3.0]
    steps = run.get("eval_loss").steps.tolist()
    assert steps == sorted(steps) and len(set(steps)) == 3


def test_lwnet_train_val_pairs_are_a_train_and_an_eval_value(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LWNET)
    assert values(run, "loss") == [0.4123, 0.3011, 0.2511]
    assert values(run, "eval_loss") == [0.4388, 0.3388, 0.2888]
    assert values(run, "train_auc") == [0.8871, 0.9153, 0.9267]
    assert values(run, "val_auc") == [0.8719, 0.9019, 0.9119]
    assert values(run, "val_dice") == [0.58, 0.68, 0.71]
    assert not [k for k in run.series if k.startswith("train/val")]


def test_near_miss_a_pair_without_two_names_keeps_its_first_number(tmp_path: Path) -> None:
    # no "a/b" before the name: the second number is no eval value
    run = one_log(tmp_path, "step 10 Loss: 2.1/2.5\nstep 20 Loss: 2.0/2.4\n")
    assert values(run, "loss") == [2.1, 2.0]
    assert run.get("eval_loss") is None


# -- Kaldi's compute-wer line, retyped with a "$" ----------------------------------------------
# YiwenShaoStephen/pychain_example issue 2 (the tests/real case no_learning_pychain_tdnn_...)
def test_a_retyped_wer_line_is_the_eval_wer_not_a_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, "$WER 100.00%[20138/20138,0 ins, 20138 del, 0sub]\n")
    assert values(run, "eval_wer") == [100.0]
    assert run.get("wer") is None
    assert run.get("eval_wer").steps.tolist() != [20138]


# -- insightface (recognition/train.py, MXNet): print('lr-batch-epoch:', opt.lr, nbatch, epoch)
# deepinsight/insightface issue 751's log, as the program prints it
_INSIGHTFACE = """\
INFO:root:Epoch[0] Batch [20]	Speed: 1371.85 samples/sec	acc=0.000000	lossvalue=44.213371
INFO:root:Epoch[0] Batch [40]	Speed: 1380.06 samples/sec	acc=0.000000	lossvalue=43.925148
lr-batch-epoch: 0.1 59 0
INFO:root:Epoch[0] Batch [60]	Speed: 1379.31 samples/sec	acc=0.000000	lossvalue=43.717346
INFO:root:Epoch[0] Batch [80]	Speed: 1381.87 samples/sec	acc=0.000000	lossvalue=43.511356
lr-batch-epoch: 0.01 99 0
"""


def test_insightface_lr_batch_epoch_is_the_lr_at_that_batch(tmp_path: Path) -> None:
    run = one_log(tmp_path, _INSIGHTFACE)
    assert values(run, "lr") == [0.1, 0.01]
    assert run.get("lr").steps.tolist() == [59, 99]
    assert run.get("lossvalue").steps.tolist() == [20, 40, 60, 80]
    assert not [k for k in run.series if "-" in k]


def test_insightface_logging_variant(tmp_path: Path) -> None:
    # logging.info('lr-batch-epoch: %f %d %d', opt.lr, param.nbatch, param.epoch)
    body = _INSIGHTFACE.replace(
        "lr-batch-epoch: 0.1 59 0", "INFO:root:lr-batch-epoch: 0.100000 59 0"
    )
    run = one_log(tmp_path, body)
    assert values(run, "lr") == [0.1, 0.01]


def test_near_miss_a_hyphenated_metric_is_not_split_into_names(tmp_path: Path) -> None:
    # no counter among its names: "cross-entropy" is one metric, its numbers left as read
    body = "epoch 1 cross-entropy: 0.51 0.49\nepoch 2 cross-entropy: 0.41 0.40\n"
    run = one_log(tmp_path, body)
    assert run.get("cross") is None and run.get("entropy") is None


# -- fastai's fit table (fastprogress in a console) --------------------------------------------
# fastprogress pads every cell to its width, the last one too (trailing spaces kept)
_FASTAI = (
    "epoch     train_loss  valid_loss  error_rate  time    \n"
    "0         1.432143    0.634512    0.201354    00:21     \n"
    "1         0.812345    0.445678    0.143456    00:20     \n"
    "2         0.512345    0.405678    0.123456    00:20     \n"
)


def test_fastai_error_rate_is_an_eval_metric_lower_better(tmp_path: Path) -> None:
    run = one_log(tmp_path, _FASTAI)
    assert values(run, "loss") == [1.432143, 0.812345, 0.512345]
    assert values(run, "eval_loss") == [0.634512, 0.445678, 0.405678]
    assert values(run, "eval_error_rate") == [0.201354, 0.143456, 0.123456]
    assert {s.name: higher for s, higher in task_metrics(run)} == {"eval_error_rate": False}


def test_fastai_accuracy_and_f1_are_eval_metrics(tmp_path: Path) -> None:
    body = (
        "epoch\ttrain_loss\tvalid_loss\taccuracy\tf1_score\ttime\n"
        "0\t0.693147\t0.690012\t0.512000\t0.401000\t00:10\n"
        "1\t0.693100\t0.691234\t0.508000\t0.399000\t00:10\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_accuracy") == [0.512, 0.508]
    assert values(run, "eval_f1_score") == [0.401, 0.399]
    assert run.get("accuracy") is None


def test_fastai_na_cells_are_no_values(tmp_path: Path) -> None:
    # learn.fit without a validation set: "#na#" where valid_loss and the metrics would be
    body = (
        "epoch     train_loss  valid_loss  accuracy  time    \n"
        "0         5.123456    #na#        #na#      00:30     \n"
        "1         4.623456    #na#        #na#      00:30     \n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [5.123456, 4.623456]
    assert run.get("eval_loss") is None and run.get("eval_accuracy") is None


def test_fastai_v1_spaced_header_and_the_progress_bar_under_it(tmp_path: Path) -> None:
    # fastai issue (v1, fp16 densenet161 multi-label): the header's names spaced, then the
    # fastprogress bar of the next epoch, its running loss last
    body = (
        "epoch train loss valid loss accuracy_thresh f2_opt\n"
        "0 nan nan 0.997788 0.000000\n"
        "\n"
        "71.39% [6930/9707 3:56:27<1:34:45 nan]\n"
    )
    (run,) = read_log(tmp_path, body)
    assert [math.isnan(v) for v in values(run, "loss")] == [True]
    assert [math.isnan(v) for v in values(run, "eval_loss")] == [True]
    assert values(run, "eval_accuracy_thresh") == [pytest.approx(0.997788)]
    assert values(run, "eval_f2_opt") == [0.0]
    assert not [k for k in run.series if " " in k or "valid_loss" in k]


# -- MXNet's Module.fit (Speedometer batch lines, then the epoch's Train-/Validation- lines) --
_MXNET = """\
INFO:root:Epoch[0] Batch [100]	Speed: 1234.56 samples/sec	accuracy=0.101234	cross-entropy=2.301234
INFO:root:Epoch[0] Batch [200]	Speed: 1234.56 samples/sec	accuracy=0.151234	cross-entropy=2.201234
INFO:root:Epoch[0] Train-accuracy=0.171234
INFO:root:Epoch[0] Train-cross-entropy=2.151234
INFO:root:Epoch[0] Time cost=30.123
INFO:root:Epoch[0] Validation-accuracy=0.201234
INFO:root:Epoch[0] Validation-cross-entropy=2.101234
"""


def test_mxnet_cross_entropy_is_the_loss_and_its_validation_twin_the_eval_loss(
    tmp_path: Path,
) -> None:
    run = load_log(tmp_path, _MXNET)
    # the epoch's Train-cross-entropy is the batch lines' loss averaged, no second term
    assert values(run, "loss") == [2.301234, 2.201234]
    assert values(run, "eval_loss") == [2.101234]
    assert run.get("eval_loss").steps.tolist() == [200]


# -- TF Estimator: train_and_evaluate's train lines and its evaluation's results -------------
# tensorflow_estimator estimator.py: logging.info('Saving dict for global step %d: %s', ...)
_ESTIMATOR = """\
INFO:tensorflow:loss = 2.3012, step = 0
INFO:tensorflow:global_step/sec: 10.5
INFO:tensorflow:loss = 2.1012, step = 100 (9.524 sec)
INFO:tensorflow:global_step/sec: 10.6
INFO:tensorflow:loss = 1.9012, step = 200 (9.434 sec)
INFO:tensorflow:Saving dict for global step 200: accuracy = 0.6012, global_step = 200, loss = 1.8512
"""


def test_estimator_saving_dict_is_the_eval_at_its_global_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ESTIMATOR)
    assert values(run, "loss") == [2.3012, 2.1012, 1.9012]  # not the eval's 1.8512 over the last
    assert values(run, "eval_loss") == [1.8512]
    assert run.get("eval_loss").steps.tolist() == [200]
    assert values(run, "eval_accuracy") == [0.6012]


def test_near_miss_a_train_line_with_the_same_keys_stays_a_train_record(tmp_path: Path) -> None:
    body = "global step 100: accuracy = 0.50, loss = 2.10\nglobal step 200: accuracy = 0.60, loss = 1.90\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.1, 1.9]
    assert run.get("eval_loss") is None


# -- the PyTorch quickstart tutorial (tutorials/beginner_source/basics/quickstart_tutorial.py)
# print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]"), then the test loop's
# print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
# (the f-strings leave a space before each newline)
_QUICKSTART = (
    "Epoch 1\n"
    "-------------------------------\n"
    "loss: 2.302585  [   64/60000]\n"
    "loss: 2.291234  [ 6464/60000]\n"
    "Test Error: \n"
    " Accuracy: 11.3%, Avg loss: 2.301234 \n"
    "\n"
    "Epoch 2\n"
    "-------------------------------\n"
    "loss: 2.282585  [   64/60000]\n"
    "loss: 2.271234  [ 6464/60000]\n"
    "Test Error: \n"
    " Accuracy: 21.3%, Avg loss: 2.261234 \n"
    "\n"
)


def test_quickstart_test_line_is_the_eval_loss_and_accuracy(tmp_path: Path) -> None:
    run = one_log(tmp_path, _QUICKSTART)
    assert values(run, "loss") == [2.302585, 2.291234, 2.282585, 2.271234]
    assert values(run, "eval_loss") == [2.301234, 2.261234]
    assert values(run, "eval_accuracy") == [11.3, 21.3]


def test_a_value_after_its_epoch_is_read_at_that_epoch(tmp_path: Path) -> None:
    # print(f"Loss after epoch {epoch}: {loss}"), as "Average loss at step 2000: 4.37" is
    body = "Loss after epoch 1: 0.6931\nLoss after epoch 2: 0.6925\nLoss after epoch 3: 0.6929\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.6931, 0.6925, 0.6929]
    assert values(run, "epoch") == [1.0, 2.0, 3.0]
