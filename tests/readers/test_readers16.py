"""Reader fixes found on a fresh sample of pasted logs (readers16): BigDL's `Loss is X.`
clauses, values set in Markdown bold inside a line, DINOv2's `Training  [40/5000000]`
counter, loguru's `module:function:line`, a step total that belongs to another counter,
and diffusion-pipe's `steps: N loss: X` lines.

Each fix is built on the real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. "Name is value." clauses of a log line (BigDL's DistriOptimizer) ------------------

# https://github.com/intel/ipex-llm/issues/1486
_BIGDL = "".join(
    f"2017-08-20 16:11:{s} INFO  DistriOptimizer$:295 - [Epoch 64 {n}/1281167][Iteration {i}]"
    f"[Wall Clock {c}s] Train 1792 in 4.387814632seconds. Throughput is {tp} records/second. "
    f"Loss is {loss}. Current learning rate is {lr}. Current weight decay is 1.0E-4. "
    "Current momentum is 0.9.\n"
    for s, n, i, c, tp, loss, lr in [
        ("38", 736512, 45457, "197331.83477254", "408.40378", "1.2645824", "0.04628416419774555"),
        ("42", 738304, 45458, "197336.222587172", "398.6954", "1.308916", "0.046282765356364115"),
        ("46", 740096, 45459, "197340.717246379", "447.22968", "Infinity", "0.046281366472703075"),
    ]
)


def test_is_clauses_of_a_log_line_are_read(tmp_path: Path) -> None:
    run = one_log(tmp_path, _BIGDL)
    assert _steps(run, "loss") == [45457.0, 45458.0, 45459.0]
    loss = values(run, "loss")
    assert loss[:2] == [1.2645824, 1.308916] and loss[2] == float("inf")
    assert values(run, "lr")[0] == 0.04628416419774555
    assert values(run, "throughput") == [408.40378, 398.6954, 447.22968]
    # the seconds since the run began, and the settings' clauses, are no metrics
    assert not {"wall_clock", "current_momentum", "current_weight_decay"} & set(run.series)


def test_an_is_in_a_sentence_is_no_key(tmp_path: Path) -> None:
    # https://github.com/...: a reporter's sentence before the log (near miss): prose
    body = (
        "my training datasets contains 12300*8 data ,and my calsss is 3, my learning rate "
        "is 0.0001. \nstep 1 | loss 2.0\nthe loss is 1.5 here\nstep 2 | loss 1.9\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.9]
    assert run.get("lr") is None


# -- 2. a value set in bold inside a pasted line -----------------------------------------

# https://github.com/intel/ipex-llm/issues/1185
_BOLD = (
    "2017-06-30 14:59:17 INFO  DistriOptimizer$:283 - [Epoch 1 0/1281167][Iteration 1][Wall "
    "Clock 0.0s] Train 704 in 182.19868339seconds. Throughput is 3.8639138 records/second. "
    "Loss is **6.907648**. Current learning rate is 0.0896. Current weight decay is 1.0E-4. "
    "Current momentum is 0.9.\n"
    "…\n"
    "2017-07-02 23:55:34 INFO  DistriOptimizer$:283 - [Epoch 35 81664/1281167][Iteration "
    "**61997**][Wall Clock 205155.258403651s] Train 704 in 3.317392829seconds. Throughput is "
    "212.21484 records/second. Loss is **6.9102383**. Current learning rate\n"
)


def test_bold_values_inside_a_line_are_the_values(tmp_path: Path) -> None:
    run = one_log(tmp_path, _BOLD)
    assert values(run, "loss") == [6.907648, 6.9102383]
    assert _steps(run, "loss") == [1.0, 61997.0]


def test_bold_words_and_powers_stay_as_printed(tmp_path: Path) -> None:
    run = one_log(tmp_path, "**Note** step 1 loss: 2.5\nstep 2 loss: 2**3\nstep 3 loss: 2.25\n")
    assert values(run, "loss")[0] == 2.5 and 8.0 not in values(run, "loss")


# -- 3. a logger's word before a bracketed counter ---------------------------------------

# https://github.com/facebookresearch/dinov2/issues/143
_DINO = "".join(
    f"I20250119 10:05:{s} 90 dinov2 helpers.py:102] Training  [     {i}/5000000]  eta: "
    f"{eta}  lr: 0.0000 (0.0000)  wd: 0.0400 (0.0400)  mom: 0.9960 (0.9960)  last_layer_lr: "
    "0.0000 (0.0000)  current_batch_size: 40.0000 (40.0000)  total_loss: inf (inf)  "
    f"dino_local_crops_loss: {d} (10.5017)  dino_global_crops_loss: 1.3123 (1.3125)  "
    "koleo_loss: inf (inf)  ibot_loss: 2.9919 (2.9921)  time: 1.576891  data: 0.000217  "
    "max mem: 67339\n"
    for s, i, eta, d in [
        ("11", 40, "221 days, 20:36:05", "10.5020"),
        ("26", 50, "195 days, 10:45:44", "10.5010"),
        ("40", 60, "177 days, 13:19:18", "10.5010"),
    ]
)


def test_a_metric_loggers_bracketed_counter_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DINO)
    assert _steps(run, "loss") == [40.0, 50.0, 60.0]
    assert values(run, "dino_local_crops_loss") == [10.502, 10.501, 10.501]


def test_swins_epoch_and_batch_brackets_still_read(tmp_path: Path) -> None:
    # Swin / DeiT (near miss): "Train: [0/300][4050/5004]" is epoch 0, batch 4050
    body = "".join(
        f"[2021-05-02 10:00:0{k}] (main.py 227): INFO Train: [{e}/300][{b}/5004]\teta 0:21:48 "
        f"lr 0.000100\ttime 0.2612 (0.2604)\tloss {loss} ({loss})\tgrad_norm 0.4 (0.5)\n"
        for k, (e, b, loss) in enumerate([(1, 100, "6.9"), (2, 100, "6.8")])
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [100.0, 5104.0]


# -- 4. loguru's "module:function:line", and a step total that is another counter's ------

# https://github.com/nv-tlabs/LION/issues/9
_LION = "".join(
    f"2023-01-25 01:0{m}.{ms} | INFO     | trainers.base_trainer:train_epochs:256 - [R0] | "
    f"E{e} iter[ 14/ 15] | [Loss] nan | [exp] ./exp/0125/car/3dbf3ah_hvae_lion_B40 | [step]  "
    f"{step} | [url] none | [time] 0.4m (~4h) |[best] 0 -100.000x1e-2 \n"
    for m, ms, e, step in [("3:05", "674", 104, 1574), ("3:31", "050", 105, 1589)]
)


def test_loguru_source_location_is_no_metric(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LION)
    assert _steps(run, "loss") == [1574.0, 1589.0]
    assert "train_epochs" not in run.series


def test_a_step_total_is_the_steps_own_counters(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LION)
    assert run.fact("max_steps") is None  # 15 batches an epoch, no run length
    # near miss: the step's own total is still the run's length
    body = "iter 10/500 | loss 2.5\niter 20/500 | loss 2.4\niter 30/500 | loss 2.3\n"
    assert one_log(tmp_path, body).fact("max_steps") == 500


# -- 5. diffusion-pipe's "steps: N" ------------------------------------------------------

# https://github.com/tdrussell/diffusion-pipe/issues/531
_DPIPE = (
    "steps: 16 loss: 0.7332 iter time (s): 3.181 samples/sec: 0.314\n"
    "[2026-07-30 09:16:29,681] [INFO] [logging.py:123:log_dist] [Rank 0] step=17, skipped=0, "
    "lr=[1e-06], mom=[0.0]\n"
    "steps: 17 loss: 0.5994 iter time (s): 3.162 samples/sec: 0.316\n"
    "[2026-07-30 09:16:32,952] [INFO] [logging.py:123:log_dist] [Rank 0] step=18, skipped=0, "
    "lr=[1e-06], mom=[0.0]\n"
    "steps: 18 loss: nan iter time (s): 3.235 samples/sec: 0.309\n"
)


def test_steps_key_alone_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DPIPE)
    assert _steps(run, "loss") == [16.0, 17.0, 18.0]
    assert values(run, "loss")[:2] == [0.7332, 0.5994]


def test_a_steps_bar_or_a_total_steps_setting_is_no_step_key(tmp_path: Path) -> None:
    # kohya's bar (near miss): its "steps:  13%" is the share done, the count after it the step
    body = "".join(
        f"steps:  {p}%|##   | {n}/3300 [21:33<2:20:06,  2.94s/it, avr_loss={loss}]\n"
        for p, n, loss in [(13, 440, "0.12"), (20, 660, "0.11")]
    )
    run = one_log(tmp_path, "Total steps: 480\n" + body)
    assert _steps(run, "loss") == [440.0, 660.0]


# -- 6. OpenPCDet's "Acc_iter N" is its global iteration, not an accuracy ----------------

# https://github.com/open-mmlab/OpenPCDet/pull/1229
_PCDET = (
    "2023-01-05 16:34:37,748   INFO  Train:    1/3 ( 33%) [   0/323 (  0%)]  Loss: 516.7 (517.)"
    "  LR: 1.000e-04  Time cost: 00:04/21:46 [00:04/1:05:18]  Acc_iter 1           Data time: "
    "0.87(0.87)  Forward time: 3.18(3.18)  Batch time: 4.04(4.04)\n"
    "2023-01-05 16:34:49,377   INFO  Train:    1/3 ( 33%) [  49/323 ( 15%)]  Loss: 36.77 (81.7)"
    "  LR: 1.351e-04  Time cost: 00:15/01:25 [00:15/04:48]  Acc_iter 50          Data time: "
    "0.00(0.02)  Forward time: 0.31(0.29)  Batch time: 0.31(0.31)\n"
)


def test_accumulated_iteration_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PCDET)
    assert _steps(run, "loss") == [1.0, 50.0]
    assert values(run, "loss") == [516.7, 36.77]
    assert "acc_iter" not in run.series


# -- 7. DeepSpeed-Chat's reward on the line after each step's losses ---------------------

# https://github.com/deepspeedai/DeepSpeedExamples/issues/444
_DSCHAT = (
    "|E2E latency=2.12s |Gather latency=0.00s (0.00%) |Generate time=1.59s (75.13%) |Training "
    "time=0.42s (19.78%) |Others=0.11 (5.09%)|CurSamplesPerSec=1.89 |AvgSamplesPerSec=1.95\n"
    "epoch: 0|step: 3183|ppo_ep: 1|act_loss: 30.921875|cri_loss: 30.515625|unsuper_loss: 0.0\n"
    "average reward score: -7.80859375\n"
    "-------------------------------------------------------------------------------------\n"
    "|E2E latency=2.14s |Gather latency=0.00s (0.00%) |Generate time=1.62s (75.39%) |Training "
    "time=0.42s (19.74%) |Others=0.10 (4.87%)|CurSamplesPerSec=1.87 |AvgSamplesPerSec=1.95\n"
    "epoch: 0|step: 3184|ppo_ep: 1|act_loss: inf|cri_loss: inf|unsuper_loss: 0.0\n"
    "average reward score: -6.359375\n"
)


def test_a_reward_alone_on_its_line_takes_the_step_before(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DSCHAT)
    assert _steps(run, "reward") == [3183.0, 3184.0]
    assert values(run, "reward") == [-7.80859375, -6.359375]


def test_a_reward_setting_with_words_is_no_record(tmp_path: Path) -> None:
    # near miss: a sentence naming a reward stays prose, no reward series
    body = "step 1 | loss 2.0\nthe reward we use is 1.0 for a correct answer\nstep 2 | loss 1.9\n"
    assert one_log(tmp_path, body).get("reward") is None


# -- 8. timm's train line with its loss right-aligned after "Loss:" ----------------------

# https://github.com/huggingface/pytorch-image-models/issues/814
_TIMM = (
    "Train: 1 [4900/5004 ( 98%)]  Loss:  5.256130 (5.9318)  Time: 0.378s,  677.72/s  "
    "(0.594s,  430.64/s)  LR: 2.133e-02  Data: 0.177 (0.388)\n"
    "Train: 1 [4950/5004 ( 99%)]  Loss:  5.240257 (5.9251)  Time: 0.252s, 1015.06/s  "
    "(0.594s,  430.75/s)  LR: 2.133e-02  Data: 0.013 (0.388)\n"
    "Train: 2 [3150/5004 ( 63%)]  Loss:  5.354290 (5.3299)  Time: 2.027s,  126.31/s  "
    "(0.598s,  427.82/s)  LR: 4.267e-02  Data: 1.821 (0.392)\n"
)


def test_timm_loss_padded_after_its_key_is_read(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TIMM)
    assert values(run, "loss") == [5.25613, 5.240257, 5.35429]  # the value, not the mean
    assert _steps(run, "loss") == [1 * 5004 + 4900.0, 1 * 5004 + 4950.0, 2 * 5004 + 3150.0]
    assert values(run, "lr") == [0.02133, 0.02133, 0.04267]


# -- 9. clu's LoggingWriter (the Flax examples): "[step] key=value, ..." -----------------

# https://github.com/google/flax/issues/3364 (two hosts print every line)
_CLU = (
    "I1002 21:43:14.805023 139917864867392 logging_writer.py:35] [936] "
    "eval_accuracy=0.005859375, eval_loss=6.6112446784973145\n"
    "I1002 21:43:14.805183 140396270327360 logging_writer.py:35] [936] "
    "eval_accuracy=0.005859375, eval_loss=6.6112446784973145\n"
    "I1002 21:43:51.424899 140400640460352 logging_writer.py:35] [1000] "
    "steps_per_second=1.760847, train_accuracy=0.006696777418255806, "
    "train_learning_rate=0.9738461971282959, train_loss=6.525280952453613\n"
    "I1002 21:43:51.426173 139917864867392 logging_writer.py:35] [1000] "
    "steps_per_second=1.760837, train_accuracy=0.006696777418255806, "
    "train_learning_rate=0.9738461971282959, train_loss=6.525280952453613\n"
)


def test_a_bracketed_step_before_key_value_pairs_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _CLU)
    assert _steps(run, "loss") == [1000.0] and values(run, "loss") == [6.525280952453613]
    assert _steps(run, "eval_loss") == [936.0]
    assert values(run, "lr") == [0.9738461971282959]


def test_a_bracketed_number_before_words_is_no_step(tmp_path: Path) -> None:
    # near miss: "[3] loss: ..." keeps its own step key's count
    body = "step 10 [3] loss: 2.5\nstep 20 [3] loss: 2.4\n"
    assert _steps(one_log(tmp_path, body), "loss") == [10.0, 20.0]


# -- 10. the train metrics, an eval word, then the same keys for the eval ----------------

# https://github.com/mravanelli/pytorch-kaldi/issues/66 (res.res)
_KALDI = (
    "ep=00 tr=['pretrain_train'] loss=2.532 err=0.573 valid=dev loss=1.701 err=0.432 "
    "lr_architecture1=0.0002 lr_architecture2=0.0002 time(s)=27674\n"
    "ep=01 tr=['pretrain_train'] loss=1.980 err=0.476 valid=dev loss=1.467 err=0.381 "
    "lr_architecture1=0.0002 lr_architecture2=0.0002 time(s)=27512\n"
    "ep=02 tr=['pretrain_train'] loss=1.779 err=0.437 valid=dev loss=1.372 err=0.360 "
    "lr_architecture1=0.0002 lr_architecture2=0.0002 time(s)=36300\n"
)


def test_repeated_keys_after_an_eval_word_are_the_evals(tmp_path: Path) -> None:
    run = one_log(tmp_path, _KALDI)
    assert values(run, "loss") == [2.532, 1.98, 1.779]
    assert values(run, "eval_loss") == [1.701, 1.467, 1.372]
    assert _steps(run, "eval_loss") == [0.0, 1.0, 2.0]


def test_an_eval_line_without_repeated_keys_stays_an_eval(tmp_path: Path) -> None:
    # near miss: a validation line of its own keeps its eval context
    body = (
        "epoch 1 train loss 2.5 acc 0.4\nepoch 1 valid loss 2.6 acc 0.3\n"
        "epoch 2 train loss 2.3 acc 0.5\nepoch 2 valid loss 2.4 acc 0.4\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [2.6, 2.4]
    assert values(run, "loss") == [2.5, 2.3]


# -- 11. MXNet's Speedometer batch range, a CJK key that counts the steps -----------------

# https://github.com/deepinsight/insightface/issues/747 (the range lines around its one line)
_MXNET_RANGE = (
    "INFO:root:Epoch[0] Batch [20-40]\tSpeed: 610.04 samples/sec\tacc=0.000000 lossvalue=45.2\n"
    "INFO:root:Epoch[0] Batch [40-60]\tSpeed: 608.04 samples/sec\tacc=0.000000 lossvalue=44.9\n"
    "INFO:root:Epoch[0] Batch [60-80]        Speed: 606.04 samples/sec       acc=nan "
    "lossvalue=nan\n"
)


def test_a_speedometer_batch_range_is_its_end(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MXNET_RANGE)
    assert _steps(run, "lossvalue") == [40.0, 60.0, 80.0]  # load_run derives the loss from it
    loss = values(run, "lossvalue")
    assert loss[:2] == [45.2, 44.9] and loss[2] != loss[2]


# https://github.com/xiaotudui/pytorch-tutorial/issues/1
_TUDUI_STEPS = (
    "-------第 1 轮训练开始------\n"
    "训练次数：100, Loss：1.9817659854888916\n"
    "训练次数：200, Loss：1.9057204723358154\n"
    "整体测试集上的Loss: 262.62046909332275\n"
    "-------第 2 轮训练开始------\n"
    "训练次数：800, Loss：1.2562278509140015\n"
)


def test_a_cjk_training_count_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TUDUI_STEPS)
    assert _steps(run, "loss") == [100.0, 200.0, 800.0]
    assert "训练次数" not in run.series


# https://github.com/espnet/espnet/issues/3370
_ESPNET_LIB = (
    "iterations:1, train acc:0.000, train loss:527.770, train loss ctc:953.312, train loss "
    "att:102.229,\n"
    "iterations:2, train acc:0.198, train loss:468.989, train loss ctc:801.157, train loss "
    "att:136.820,\n"
    "iterations:3, train acc:0.391, train loss:109.953, train loss ctc:74.307, train loss "
    "att:145.600,\n"
)


def test_an_iterations_key_alone_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ESPNET_LIB)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0]
    assert run.fact("steps_ordinal") is None and "iterations" not in run.series
    # near miss: a setting's "Total iterations: 5000" keeps its words, no step
    run = one_log(tmp_path, "Total iterations: 5000\nstep 1 loss: 2.0\nstep 2 loss: 1.9\n")
    assert _steps(run, "loss") == [1.0, 2.0]
