"""Steps of pasted logs (readers19): a counter that never moves beside an advancing
epoch, and a line with no step of its own that lands on a step another line wrote.

Each fix is built on real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import one_log


def _points(run, name: str) -> list[tuple[int, float]]:
    s = run.get(name)
    return [(int(a), float(b)) for a, b in zip(s.steps, s.values, strict=True)]


# -- 1. "Epoch 1, Iter 0" once an epoch: the counter places nothing --------------------

# https://github.com/v1xerunt/COMPOSE/issues/1 (the reporter's bad input data)
_COMPOSE = (
    "ehr = np.array(train_ehr_dataset)[batch_id]\n"
    "Epoch 0, Iter 0: Loss:1.0637 S-loss:0.9642\n"
    "Epoch 1, Iter 0: Loss:nan S-loss:nan\n"
    "Epoch 2, Iter 0: Loss:nan S-loss:nan\n"
    "Epoch 3, Iter 0: Loss:nan S-loss:nan\n"
)


def test_constant_counter_beside_the_epoch_numbers_by_epoch(tmp_path: Path) -> None:
    run = one_log(tmp_path, _COMPOSE)
    got = _points(run, "loss")
    # one point per epoch, the first still finite: not all four on step 0 (the last kept)
    assert [s for s, _ in got] == [0, 1, 2, 3]
    assert got[0][1] == 1.0637 and all(math.isnan(v) for _, v in got[1:])


def test_counter_that_moves_within_an_epoch_is_still_the_batch(tmp_path: Path) -> None:
    # near miss: two records in one epoch with the same counter are not one per epoch
    body = (
        "Epoch 0, Iter 0: Loss:1.0637 S-loss:0.9642\n"
        "Epoch 0, Iter 0: Loss:1.0500 S-loss:0.9600\n"
        "Epoch 1, Iter 0: Loss:0.9000 S-loss:0.8000\n"
    )
    run = one_log(tmp_path, body)
    assert len(run.get("loss")) < 3  # not spread over epochs: the counter rules there


# -- 2. a line with no step of its own on a step another line already wrote -------------

# https://github.com/facebookresearch/fairseq/issues/506 (maintainer's log; the stored
# excerpt cuts epoch 016's line before its num_updates, so it sits at epoch 015's step)
_FAIRSEQ = (
    "| epoch 014 | loss 4.010 | nll_loss 2.341 | ppl 5.07 | wps 1.23297e+06 | ups 3.0 | "
    "wpb 417527 | bsz 14131 | num_updates 5133 | lr 0.000882763 | gnorm 0.574 | clip 100% | "
    "oom 0 | loss_scale 8.000 | wall 2072\n"
    "| epoch 014 | valid on 'valid' subset | valid_loss 3.94049 | valid_nll_loss 2.16237 | "
    "valid_ppl 4.48\n"
    "| epoch 015 | loss 3.974 | nll_loss 2.303 | ppl 4.93 | wps 1.20442e+06 | ups 2.9 | "
    "wpb 417527 | bsz 14131 | num_updates 5500 | lr 0.000852803 | gnorm 0.559 | clip 100% | "
    "oom 0 | loss_scale 8.000 | wall 2222\n"
    "| epoch 015 | valid on 'valid' subset | valid_loss 3.90732 | valid_nll_loss 2.1337 | "
    "valid_ppl 4.39\n"
    "| WARNING: overflow detected, setting loss scale to: 8.0\n"
    "| epoch 016 | loss 3.944 | nll_loss 2.270 |\n"
)

# https://github.com/jaehyunnn/ViTPose_pytorch/issues/9: the epoch's summary line after
# its bar line, every epoch
_VITPOSE = (
    "🏋️> Epoch [000/210] | Loss 0.0029 | LR 0.00000000 | Step: 100%|██████████| "
    "1827/1827 [03:38<00:00,  8.38it/s]\n"
    "2023-04-24 21:32:07,523 - utils - INFO - [Summary-train] Epoch [000/210] | "
    "Average Loss (train) 0.0047 --- 218.09494 sec. elapsed\n"
    "2023-04-24 21:32:40,968 - utils - INFO - [Summary-valid] Epoch [000/210] | "
    "Average Loss (valid) 0.0032 --- 32.84739 sec. elapsed\n"
    "🏋️> Epoch [001/210] | Loss 0.0037 | LR 0.00000000 | Step: 100%|██████████| "
    "1827/1827 [03:08<00:00,  9.69it/s]\n"
    "2023-04-24 21:35:49,590 - utils - INFO - [Summary-train] Epoch [001/210] | "
    "Average Loss (train) 0.0034 --- 188.62070 sec. elapsed\n"
)


def test_lent_step_keeps_the_value_of_the_line_that_printed_it(tmp_path: Path) -> None:
    run = one_log(tmp_path, _FAIRSEQ)
    assert _points(run, "loss") == [(5133, 4.01), (5500, 3.974)]  # not epoch 016's 3.944


def test_epoch_summary_paired_with_every_bar_line_stays_the_epochs_value(
    tmp_path: Path,
) -> None:
    # near miss: one bar line per epoch, each with its summary: one scale all along, and
    # the summary (the epoch's average) stays the later write (test_log_blocks.py too)
    run = one_log(tmp_path, _VITPOSE)
    assert [v for _, v in _points(run, "loss")] == [0.0047, 0.0034]
    assert [v for _, v in _points(run, "eval_loss")] == [0.0032]


# https://github.com/pytorch/ignite/issues/201 (maintainer's mnist.py --lr=100000): the
# "Training Results" line sits at iteration 930's step; a NaN it reports is kept
_IGNITE = (
    "Epoch[1] Iteration[920/938] Loss: nan\n"
    "Epoch[1] Iteration[930/938] Loss: nan\n"
    "Training Results - Epoch: 1  Avg accuracy: 0.10 Avg loss: nan\n"
    "Validation Results - Epoch: 1  Avg accuracy: 0.10 Avg loss: nan\n"
    "Epoch[2] Iteration[10/938] Loss: nan\n"
    "Epoch[2] Iteration[20/938] Loss: nan\n"
)

# https://github.com/NVIDIA-NeMo/Speech/issues/272 (NeMo v0 QuartzNet, AMP O1): the NaN warning after step 2300's
# loss line has no step of its own; it is news, not a second measurement of step 2300
_NEMO = (
    "2020-01-20 10:59:22,426 - INFO - Step: 2300\n"
    "2020-01-20 10:59:22,431 - INFO - Loss: 110.98063659667969\n"
    "2020-01-20 10:59:22,431 - INFO - training_batch_WER:  100.00%\n"
    "2020-01-20 10:59:22,431 - INFO - Step time: 0.5927708148956299 seconds\n"
    "2020-01-20 11:00:16,715 - WARNING - WARNING: Loss is NaN or inf tensor(nan, "
    "device=‘cuda:0’, grad_fn=<MeanBackward0>)\n"
)


def test_a_nan_on_a_lent_step_is_kept(tmp_path: Path) -> None:
    run = one_log(tmp_path, _IGNITE)
    assert all(math.isnan(v) for _, v in _points(run, "loss"))
    run = one_log(tmp_path, _NEMO, name="nemo.log")
    assert math.isnan(_points(run, "loss")[-1][1])


# -- 3. RETURNN's "cost:<layer>" / "error:<layer>" keys ---------------------------------

# https://github.com/rwth-i6/returnn-experiments/issues/34 (LibriSpeech attention setup)
_RETURNN = (
    "pretrain epoch 8, step 634, cost:ctc nan, cost:output/output_prob nan, error:ctc "
    "0.9799331023823471, error:decision 0.0, error:output/output_prob 0.9799331023823471, "
    "loss nan, max_size:classes 57, max_size:data 1595, mem_usage:GPU:0 3.8GB, num_seqs 12, "
    "3.044 sec/step, elapsed 0:30:28, exp. remaining 0:19:15, complete 61.27%\n"
    "pretrain epoch 8, step 635, cost:ctc nan, cost:output/output_prob nan, error:ctc "
    "0.9800000237300992, error:decision 0.0, error:output/output_prob 0.9800000237300992, "
    "loss nan, max_size:classes 52, max_size:data 1636, mem_usage:GPU:0 3.8GB, num_seqs 12, "
    "3.082 sec/step, elapsed 0:30:31, exp. remaining 0:19:12, complete 61.39%\n"
)


def test_returnn_measure_prefix_names_the_cost_and_the_error(tmp_path: Path) -> None:
    from traindoc.model.signals import kind

    run = one_log(tmp_path, _RETURNN)
    assert [s for s, _ in _points(run, "loss")] == [634, 635]
    assert kind("cost:ctc") == "component_loss" and "cost:ctc" in run.series
    assert kind("error:ctc") == "task" and _points(run, "error:ctc")[0][1] > 0.97
    assert "ctc_2" not in run.series  # the error is not a second "ctc"


def test_a_word_glued_before_a_step_key_is_not_a_measure(tmp_path: Path) -> None:
    # near miss: a logger's "INFO:root:" before "epoch[1]" (the first line is
    # WillBrennan/SemanticSegmentation#28's, an ignite loop; the others the same line at
    # later iterations): "root" measures nothing, the epoch stays the epoch
    body = (
        "INFO:root:epoch[1] - iteration[500/685] loss: 0.145\n"
        "INFO:root:epoch[1] - iteration[600/685] loss: 0.140\n"
        "INFO:root:epoch[2] - iteration[100/685] loss: 0.131\n"
    )
    run = one_log(tmp_path, body)
    assert [v for _, v in _points(run, "loss")] == [0.145, 0.140, 0.131]
    assert [s for s, _ in _points(run, "loss")][-1] > 685


# -- 4. detectron2's FloatingPointError names the iteration its loss_dict is of ----------

# https://github.com/facebookresearch/detectron2/issues/425 (Fast R-CNN, COCO, 8 x P40)
_D2_FPE = (
    "FloatingPointError: Loss became infinite or NaN at iteration=27!\n"
    "loss_dict = {'loss_cls': tensor(nan, device='cuda:1', grad_fn=<NllLossBackward>), "
    "'loss_box_reg': tensor(0.2576, device='cuda:1', grad_fn=<DivBackward0>)}\n"
    "\n"
    "## How To Reproduce the Issue\n"
    "\n"
    "python tools/train_net.py  --num-gpus 8 --config-file "
    "configs/COCO-Detection/fast_rcnn_R_50_FPN_1x.yaml\n"
)


def test_fpe_message_places_the_nan_and_the_loss_dict_at_its_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, _D2_FPE)
    loss = _points(run, "loss")
    assert [s for s, _ in loss] == [27] and math.isnan(loss[0][1])
    assert _points(run, "loss_box_reg") == [(27, 0.2576)]
    assert math.isnan(_points(run, "loss_cls")[0][1])


def test_fpe_after_metric_lines_keeps_their_steps(tmp_path: Path) -> None:
    # near miss: metric lines before the message (their "iter: 399" lines, issue #214)
    # number the steps; the loss_dict line takes the step of the line before, as before
    body = (
        "[11/01 20:14:15 d2.utils.events]: eta: 5:41:49  iter: 379  total_loss: 1.707  "
        "loss_cls: 1.184  loss_box_reg: 0.475  time: 0.2293  data_time: 0.0033  "
        "lr: 0.003796  max_mem: 3782M\n"
        "[11/01 20:14:19 d2.utils.events]: eta: 5:42:23  iter: 399  total_loss: 1.679  "
        "loss_cls: 1.186  loss_box_reg: 0.478  time: 0.2296  data_time: 0.0033  "
        "lr: 0.003996  max_mem: 3782M\n"
    ) + _D2_FPE.replace("iteration=27", "iteration=413")
    run = one_log(tmp_path, body)
    assert [s for s, _ in _points(run, "loss_box_reg")][:2] == [379, 399]
    assert math.isnan(_points(run, "loss")[-1][1])
