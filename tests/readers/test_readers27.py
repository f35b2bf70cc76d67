"""Reader gaps seen on readers27's cases (Caffe, PaddleClas, Megatron, MSVC-built tools).

Each fix reads a format as the framework prints it, on verbatim lines where a thread
holds them (sources quoted), with a near miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.readers.helpers import load_log, values
from traindoc.model.signals import kind


def _steps(run, name: str) -> list[int]:
    return [int(s) for s in run.get(name).steps]


# -- 1. the MSVC runtime's NaN and infinity: "1.#QNAN0", "-1.#IND00", "1.#INF00" --------
# printf("%f") of a NaN / an infinity on Windows before VS 2015 (CNTK, Caffe and darknet
# Windows builds); lines in CNTK's "Finished Epoch" layout.
_CNTK_MSVC = (
    "Finished Epoch[ 1 of 3]: [Training] loss = 2.301 * 50000, metric = 88.5% * 50000 3.2s\n"
    "Finished Epoch[ 2 of 3]: [Training] loss = 1.#QNAN0 * 50000, metric = 90.0% * 50000 3.2s\n"
    "Finished Epoch[ 3 of 3]: [Training] loss = -1.#IND00 * 50000, metric = 90.0% * 50000 3.1s\n"
)


def test_msvc_nan_spellings_are_nan(tmp_path: Path) -> None:
    run = load_log(tmp_path, _CNTK_MSVC)
    got = values(run, "loss")
    assert got[0] == pytest.approx(2.301)
    assert math.isnan(got[1]) and math.isnan(got[2])  # not 1.0 and -1.0


def test_msvc_infinity_keeps_its_sign(tmp_path: Path) -> None:
    body = "Iteration 100, loss = 2.31\nIteration 200, loss = 1.#INF00\nIteration 300, loss = -1.#INF\n"
    run = load_log(tmp_path, body)
    assert values(run, "loss")[1:] == [math.inf, -math.inf]


def test_a_hash_numbered_output_is_no_msvc_value(tmp_path: Path) -> None:
    # near miss: Caffe's "Train net output #1:" numbers an output, and 1.0 stays 1.0
    body = (
        "I0306 19:07:02.010265 38597 solver.cpp:196] Iteration 3860, loss = 1.0\n"
        "I0306 19:07:02.010562 38597 solver.cpp:211]     Train net output #1: loss = 1.0 "
        "(* 1 = 1.0 loss)\n"
        "I0306 19:08:09.907526 38597 solver.cpp:196] Iteration 3880, loss = 0.9\n"
    )
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [1.0, 0.9]


# -- 2. Megatron's "number of nan iterations" -------------------------------------------
# NVIDIA/Megatron-LM#673 (verbatim): "nan" in the name is no value
_MEGATRON = (
    " [2025-02-20 11:18:36] iteration        1/250000000 | consumed samples:            4 | "
    "elapsed time per iteration (ms): 10585.1 | throughput per GPU (TFLOP/s/GPU): 0.0 | "
    "learning rate: 1.000000E-05 | global batch size:     4 | lm loss: 6.612992E+00 | "
    "dummy loss: 6.612992E+00 | loss scale: 1.0 | grad norm: 111.173 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    " [2025-02-20 11:18:37] iteration        2/250000000 | consumed samples:            8 | "
    "elapsed time per iteration (ms): 370.3 | throughput per GPU (TFLOP/s/GPU): 0.6 | "
    "learning rate: 1.000000E-05 | global batch size:     4 | lm loss: 6.158036E+00 | "
    "dummy loss: 6.158036E+00 | loss scale: 1.0 | grad norm: 110.614 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
)
# the same layout at an iteration whose loss was NaN: Megatron leaves the loss out of the
# average it prints (no "lm loss" field when every iteration of the interval was bad) and
# counts it in "number of nan iterations" (epfLLM/Megatron-LLM#33's lines, the count set)
_MEGATRON_NAN = (
    " iteration     3384/    8000 | consumed samples:       216576 | elapsed time per "
    "iteration (ms): 7845.5 | learning rate: 6.678E-06 | global batch size:    64 | lm loss: "
    "7.072597E-01 | loss scale: 1.0 | grad norm: 0.741 | number of skipped iterations:   0 | "
    "number of nan iterations:   0 |\n"
    " iteration     3385/    8000 | consumed samples:       216640 | elapsed time per "
    "iteration (ms): 7624.3 | learning rate: 6.676E-06 | global batch size:    64 | loss "
    "scale: 1.0 | grad norm: nan | number of skipped iterations:   1 | number of nan "
    "iterations:   1 |\n"
)


def test_megatron_nan_iterations_is_a_column(tmp_path: Path) -> None:
    run = load_log(tmp_path, _MEGATRON)
    assert values(run, "nan_iterations") == [0.0, 0.0]
    assert values(run, "skipped_iterations") == [0.0, 0.0]
    assert values(run, "loss") == pytest.approx([6.612992, 6.158036])


def test_megatron_counted_nan_iteration_without_a_loss_is_a_nan_loss(tmp_path: Path) -> None:
    run = load_log(tmp_path, _MEGATRON_NAN)
    loss = run.get("loss")
    # the counted NaN iteration is a NaN loss in the interval that line closes (events.py)
    assert loss.values[0] == pytest.approx(0.7072597) and int(loss.steps[0]) == 3384
    assert len(loss) == 2 and 3384 < loss.steps[1] <= 3386 and math.isnan(loss.values[1])


def test_megatron_line_without_loss_and_no_nan_count_adds_nothing(tmp_path: Path) -> None:
    # near miss (deepspeedai/Megatron-DeepSpeed#434, verbatim): no lm loss printed but
    # "number of nan iterations: 0": no NaN is made up
    line = (
        " iteration        9/      10 | consumed samples:          108 | consumed tokens:       "
        "442368 | elapsed time per iteration (ms): 1979.2 | learning rate: 4.219E-07 | global "
        "batch size:    12 | loss scale: 1.0 | actual seqlen:  4096 | number of skipped "
        "iterations:   0 | number of nan iterations:   0 | samples per second: 6.063 | tokens "
        "per gpu per second (tgs): 2069.506 | TFLOPs: 127.00 |\n"
    )
    run = load_log(tmp_path, line)
    assert run.get("loss") is None


# -- 3. old Caffe's unnamed "Test score #N" ---------------------------------------------
# BVLC/caffe#1102 (verbatim): the scores before the iteration lines
_CAFFE_SCORES = (
    "I0917 15:36:23.184696  2254 solver.cpp:270] Test score #0: 0.00699999\n"
    "I0917 15:36:23.184826  2254 solver.cpp:270] Test score #1: 15.3443\n"
    "I0917 15:36:24.644654  2254 solver.cpp:195] Iteration 30000, loss = 0.00245684\n"
    "I0917 15:36:24.644719  2254 solver.cpp:365] Iteration 30000, lr = 0.01\n"
    "I0917 15:36:59.604066  2254 solver.cpp:195] Iteration 30020, loss = 0.00182616\n"
    "I0917 15:36:59.604195  2254 solver.cpp:365] Iteration 30020, lr = 0.01\n"
)
# an older solver (tests/real/no_learning_caffe_imagenet_iter_78000...): "Testing net" after
# the iteration, and "# 0" with a space
_CAFFE_SCORES_AFTER = (
    "I0127 08:53:57.624028 37204 solver.cpp:210] Iteration 78000, lr = 0.01\n"
    "I0127 08:53:57.633610 37204 solver.cpp:68] Iteration 78000, loss = 6.9063\n"
    "I0127 08:53:57.633633 37204 solver.cpp:90] Testing net\n"
    "I0127 08:56:01.357560 37204 solver.cpp:117] Test score # 0: 0.001\n"
    "I0127 08:56:01.357609 37204 solver.cpp:117] Test score # 1: 6.90977\n"
    "I0127 08:56:33.533275 37204 solver.cpp:210] Iteration 78020, lr = 0.01\n"
    "I0127 08:56:33.542655 37204 solver.cpp:68] Iteration 78020, loss = 6.90727\n"
)


def test_caffe_test_scores_are_the_accuracy_and_the_loss(tmp_path: Path) -> None:
    run = load_log(tmp_path, _CAFFE_SCORES)
    assert values(run, "eval_accuracy") == pytest.approx([0.007], abs=1e-4)
    assert values(run, "eval_loss") == pytest.approx([15.3443])
    assert _steps(run, "eval_loss") == [30000]  # the test before the first iteration line
    assert len(run.get("loss")) == 2


def test_caffe_test_scores_after_the_iteration_take_its_step(tmp_path: Path) -> None:
    run = load_log(tmp_path, _CAFFE_SCORES_AFTER)
    assert _steps(run, "eval_loss") == [78000]
    assert values(run, "eval_loss") == pytest.approx([6.90977])


def test_caffe_three_test_scores_keep_their_numbers(tmp_path: Path) -> None:
    # near miss: three outputs do not fit the accuracy-then-loss convention
    body = _CAFFE_SCORES.replace(
        "Test score #1: 15.3443\n",
        "Test score #1: 15.3443\nI0917 15:36:23.184900  2254 solver.cpp:270] Test score #2: 0.5\n",
    )
    run = load_log(tmp_path, body)
    assert run.get("eval_loss") is None and run.get("eval_accuracy") is None
    assert values(run, "eval_output_1") == pytest.approx([15.3443])


# -- 4. GoogLeNet's head metrics stay apart, and are accuracies -------------------------
# BVLC/caffe#6373 (verbatim, trailing padding kept)
_GOOGLENET = (
    "I0427 16:14:58.721990  4532 solver.cpp:330] Iteration 3000, Testing net (#0)     \n"
    "I0427 16:16:13.445799  4532 solver.cpp:397]     Test net output #0: loss1/loss1 = "
    "0.286547 (* 0.3 = 0.0859641 loss)     \n"
    "I0427 16:16:13.445799  4532 solver.cpp:397]     Test net output #1: loss1/top-1 = 0.8822 \n"
    "I0427 16:16:13.445799  4532 solver.cpp:397]     Test net output #2: loss1/top-5 = 1    \n"
    "I0427 16:16:13.446790  4532 solver.cpp:397]     Test net output #4: loss2/top-1 = 0.9106 \n"
    "I0427 16:16:13.448792  4532 solver.cpp:397]     Test net output #7: loss3/top-1 = 0.9138 \n"
)


def test_googlenet_head_metrics_are_separate_task_metrics(tmp_path: Path) -> None:
    run = load_log(tmp_path, _GOOGLENET)
    tops = sorted(n for n in run.series if "top-" in n)
    assert tops == ["eval_loss1/top-1", "eval_loss1/top-5", "eval_loss2/top-1", "eval_loss3/top-1"]
    assert all(kind(n) == "task" for n in tops)  # an accuracy, not a loss component
    assert kind("eval_loss1/loss1") == "eval_component_loss"  # near miss: the head's loss


# -- 5. PaddleClas: eval counters, END summaries, an eval word leading the line ---------
# PaddlePaddle/PaddleClas PR #525 (the four line kinds verbatim, two epochs of them)
_PADDLECLAS = (
    "2020-12-30 06:13:33 INFO: epoch:0   train step:10   top1: 0.0000 top5: 0.0312 loss: "
    "11.5920 lr: 0.100000, batch_cost: 0.08779 s, reader_cost: 0.00010 s, ips: 121.41242 images/sec.\n"
    "2020-12-30 06:13:35 INFO: epoch:0   train step:20   top1: 0.0000 top5: 0.0312 loss: "
    "10.5920 lr: 0.100000, batch_cost: 0.08779 s, reader_cost: 0.00010 s, ips: 121.41242 images/sec.\n"
    "2020-12-30 06:13:38 INFO: END epoch:0   train top1: 0.0071 top5: 0.0373 loss:  9.4002  "
    "batch_cost: 0.26346 s, reader_cost: 0.00012 s, batch_cost_sum: 6.84987 s, ips: 121.46222 images/sec.\n"
    "2020-12-30 06:13:39 INFO: valid step:10   top1: 0.0625 top5: 0.0625 loss: 5481.1924 lr: "
    "0.000000, batch_cost: 0.07791 s, reader_cost: 0.00010 s, ips: 409.91649 images/sec.\n"
    "2020-12-30 06:13:41 INFO: END valid top1: 0.0127 top5: 0.0569 loss: 8773.9191  batch_cost: "
    "0.09155 s, reader_cost: 0.00009 s, batch_cost_sum: 2.47194 s, ips: 305.83228 images/sec.\n"
    "2020-12-30 06:13:43 INFO: epoch:1   train step:10   top1: 0.0000 top5: 0.0312 loss: "
    "8.5920 lr: 0.100000, batch_cost: 0.08779 s, reader_cost: 0.00010 s, ips: 121.41242 images/sec.\n"
    "2020-12-30 06:13:45 INFO: epoch:1   train step:20   top1: 0.0000 top5: 0.0312 loss: "
    "7.5920 lr: 0.100000, batch_cost: 0.08779 s, reader_cost: 0.00010 s, ips: 121.41242 images/sec.\n"
)


def test_paddleclas_valid_counter_is_not_the_run_step(tmp_path: Path) -> None:
    run = load_log(tmp_path, _PADDLECLAS)
    assert len(run.get("loss")) >= 4  # every train line kept: no new run at the valid lines
    steps = _steps(run, "loss")
    assert steps == sorted(steps)
    # the END valid line reports the evaluation: its loss is the eval's, never a train point
    assert 8773.9191 in values(run, "eval_loss")
    assert 8773.9191 not in values(run, "loss")


# PaddlePaddle/PaddleClas#2731 (verbatim; tests/real/lr_too_high_paddleclas_googlenet_...)
_PADDLECLAS_STATIC = (
    "[2023/03/10 15:22:29] ppcls INFO: END epoch:4   train  loss: 10.5109 top1:  0.0075 top5:  "
    "0.0311 batch_cost: 1.72545 s, reader_cost: 0.73170 s, batch_cost_sum: 531.43794 s,\n"
    "[2023/03/10 15:23:08] ppcls INFO: eval step:10/12   lr: 0.000000, loss: 10.2267 top1:  "
    "0.0256 top5:  0.0427 batch_cost: 3.93402 s, reader_cost: 3.55247 s, ips: 130.14687 samples/sec.\n"
    "[2023/03/10 15:23:08] ppcls INFO: END eval  loss: 10.1443 top1:  0.0218 top5:  0.0397 "
    "batch_cost: 2.99022 s, reader_cost: 2.66437 s, batch_cost_sum: 23.92174 s, ips: 171.22504 samples/sec.\n"
    "[2023/03/10 15:23:33] ppcls INFO: epoch:5   train step:10/312  lr: 0.160000, loss: 10.1033 "
    "top1:  0.0137 top5:  0.0527 batch_cost: 2.12634 s, reader_cost: 1.18384 s, ips: 240.78891 samples/sec.\n"
    "[2023/03/10 15:23:48] ppcls INFO: epoch:5   train step:20/312  lr: 0.160000, loss: 10.0797 "
    "top1:  0.0137 top5:  0.0605 batch_cost: 1.71752 s, reader_cost: 0.93166 s, ips: 298.10482 samples/sec.\n"
)


def test_paddleclas_end_epoch_summary_before_the_next_epoch_is_read(tmp_path: Path) -> None:
    run = load_log(tmp_path, _PADDLECLAS_STATIC)
    assert values(run, "loss") == pytest.approx([10.5109, 10.1033, 10.0797])
    assert _steps(run, "loss")[0] < _steps(run, "loss")[1]  # epoch 4's end, before epoch 5


@pytest.mark.parametrize(
    ("line", "evals", "trains"),
    [
        ("Validation loss: 0.52, accuracy: 0.81", {"eval_loss", "eval_accuracy"}, set()),
        ("Epoch 3 Eval loss: 2.3 acc: 0.5", {"eval_loss", "eval_acc"}, set()),
        # near misses: a line of both splits, and one-token names carrying their own prefix
        ("Epoch 3 Test acc: 0.8 Train acc: 0.9", set(), {"train_acc"}),
        ("Epoch 3 val_loss: 0.3 loss: 0.2", {"eval_loss"}, {"loss"}),
    ],
)
def test_an_eval_word_leading_the_line_marks_its_values(
    tmp_path: Path, line: str, evals: set[str], trains: set[str]
) -> None:
    body = "\n".join(line.replace("3", str(e)) for e in (1, 2, 3)) + "\n"
    run = load_log(tmp_path, body)
    assert evals <= set(run.series)
    assert trains <= set(run.series)


# -- 6. a cutoff printed as a word of its own: "Recall 1: 0.40", "Top 5: 0.5" ----------
def test_spaced_cutoffs_join_the_metric_name(tmp_path: Path) -> None:
    body = (
        "Epoch 1 | loss: 2.50 | Recall 1: 0.40 | Recall 5: 0.60 | Top 1: 0.3 | Top 5: 0.5\n"
        "Epoch 2 | loss: 2.30 | Recall 1: 0.42 | Recall 5: 0.62 | Top 1: 0.32 | Top 5: 0.52\n"
    )
    run = load_log(tmp_path, body)
    assert values(run, "recall@1") == [0.40, 0.42]
    assert values(run, "recall@5") == [0.60, 0.62]
    assert values(run, "top1") == [0.3, 0.32] and values(run, "top5") == [0.5, 0.52]
    assert run.get("recall") is None  # the cutoffs 1 and 5 are no values


def test_a_counter_before_a_colon_stays_a_counter(tmp_path: Path) -> None:
    # near miss: "Epoch 3, Step 20: loss 0.69": no measure takes a cutoff there
    body = "".join(f"Epoch 3, Step {s}: loss {v}\n" for s, v in ((20, 0.69), (40, 0.65), (60, 0.6)))
    run = load_log(tmp_path, body)
    assert _steps(run, "loss") == [20, 40, 60]
