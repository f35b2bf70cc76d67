"""Three step-numbering gaps of pasted logs: CPM-2's train lines, numbered by their own
"global iteration I/ T" beside the epoch (not by the eval lines' "iteration N" around
them); Keras' LearningRateScheduler line, the LR of the epoch it opens, leaving the
epoch series alone; and d3rlpy's end-of-epoch bar between two printed-step records, at
its own epoch's end (not the step before).
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

# source: https://github.com/TsinghuaAI/CPM-2-Finetune/issues/11 (the reporter's log,
# as stored in tests/real/no_learning_cpm2_finetune_c3_lm_loss_pinned_ln2_eval_acc_at_
# chance_issue), its first 8 lines, verbatim
CPM2 = (
    "epoch   3/ 10 | global iteration     1360/    3402 | learning rate 3e-06 | lm"
    " loss 0.699219 | loss scale 1024.0 |\n"
    "epoch   4/ 10 | global iteration     1370/    3402 | learning rate 3e-06 | lm"
    " loss 0.697672 | loss scale 1024.0 |\n"
    "epoch   4/ 10 | global iteration     1380/    3402 | learning rate 3e-06 | lm"
    " loss 0.698514 | loss scale 1024.0 |\n"
    "epoch   4/ 10 | global iteration     1390/    3402 | learning rate 3e-06 | lm"
    " loss 0.698999 | loss scale 1024.0 |\n"
    "epoch   4/ 10 | global iteration     1400/    3402 | learning rate 3e-06 | lm"
    " loss 0.701253 | loss scale 1024.0 |\n"
    "iteration 1400 |  eval_loss: 0.7021288914339883 | eval acc(mrr):"
    " 0.24293154761904762\n"
    "epoch   4/ 10 | global iteration     1410/    3402 | learning rate 3e-06 | lm"
    " loss 0.702823 | loss scale 1024.0 |\n"
    "epoch   4/ 10 | global iteration     1420/    3402 | learning rate 3e-06 | lm"
    " loss 1.08578 | loss scale 1024.0 |\n"
)

# source: https://github.com/pierluigiferrari/ssd_keras/issues/344 (the reporter's log, as
# stored in tests/real/healthy_ssd_keras_expected_speed_question_epochs_1_5_loss_3p88_to_
# 3p84_val_3p23_best), its first 13 lines, verbatim
SSD = (
    "1000/1000 [==============================] - 1843s 2s/step - loss: 3.8849 -"
    " val_loss: 3.2442\n"
    "\n"
    "Epoch 00001: val_loss improved from 5.00000 to 3.24423, saving model to"
    " h5/trained/ssd300_pascal_07+12_epoch-01_loss-3.8844_val_loss-3.2442.h5\n"
    "Epoch 2/120\n"
    "\n"
    "Epoch 00002: LearningRateScheduler setting learning rate to 0.001.\n"
    "1000/1000 [==============================] - 1898s 2s/step - loss: 3.8920 -"
    " val_loss: 3.2299\n"
    "\n"
    "Epoch 00002: val_loss improved from 3.24423 to 3.22992, saving model to"
    " h5/trained/ssd300_pascal_07+12_epoch-02_loss-3.8929_val_loss-3.2299.h5\n"
    "Epoch 3/120\n"
    "\n"
    "Epoch 00003: LearningRateScheduler setting learning rate to 0.001.\n"
    "1000/1000 [==============================] - 1893s 2s/step - loss: 3.8767 -"
    " val_loss: 3.2799\n"
)

# source: https://github.com/takuseno/d3rlpy/issues/363 (comment by wenxuhaskell,
# 2024-01-03, as stored in tests/real/divergence_d3rlpy_cql_critic_loss_28k_to_222k_alpha_
# 4576_to_40971_epochs5_6_issue363), its 4 log lines, verbatim (the last cut as stored)
D3 = (
    "2024-01-03 08:15.28 [info     ] CQL_20240103081154: epoch=5 step=5000"
    " distributed=DistributedWorkerInfo(rank=0, backend='nccl', world_size=1)"
    " epoch=5 metrics={'time_sample_batch': 0.011790130138397217,"
    " 'time_algorithm_update': 0.028200243949890135, 'critic_loss':"
    " 28059.851187988283, 'conservative_loss': 28058.72673388672, 'alpha':"
    " 4575.802740356446, 'actor_loss': 15.330485224723816, 'temp': 0.67492482483387,"
    " 'temp_loss': 0.723234123468399, 'time_step': 0.04007934713363647,"
    " 'environment': -264.5921235686523} step=5000\n"
    "2024-01-03 08:15.28 [info     ] Model parameters are saved to"
    " d3rlpy_logs/CQL_20240103081154/model_5000.d3"
    " distributed=DistributedWorkerInfo(rank=0, backend='nccl', world_size=1)\n"
    "Epoch 6/10: 100%|?| 1000/1000 [00:41<00:00, 24.02it/s, critic_loss=2.2e+5,"
    " conservative_loss=2.2e+5, a\n"
    "2024-01-03 08:16.11 [info     ] CQL_20240103081154: epoch=6 step=6000"
    " distributed=DistributedWorkerInfo(rank=0, backend='nccl', world_size=1)"
    " epoch=6 metrics={'time_sample_batch': 0.011838379859924317,"
    " 'time_algorithm_update': 0.029622458934783935, 'critic_loss':"
    " 221924.761796875, 'conservative_loss': 221922.75696484375, 'alpha':"
    " 40970.942463867184, 'actor_loss': 17.77835116481781, 'temp':"
    " 0.6240606836676598, 'temp_loss': 0.5938283017277718, 'time_step':"
    " 0.041547907114028934, 'environment': -334.650864965825} step=60\n"
)


def test_cpm2_train_lines_take_their_own_global_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, CPM2)
    assert run.get("loss").steps.tolist() == [1360, 1370, 1380, 1390, 1400, 1410, 1420]
    assert values(run, "loss")[-1] == 1.08578  # the spike at 1420, not at 1402
    assert run.get("eval_loss").steps.tolist() == [1400]
    assert values(run, "epoch") == [3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]


def test_a_bare_counter_beside_the_epoch_stays_a_weak_guess(tmp_path: Path) -> None:
    # near miss: the same counter with no step's name (a bar's count) yields to the step
    # the eval line prints; only a counter named as a step is one
    body = CPM2.replace("global iteration", "batch")
    run = one_log(tmp_path, body)
    assert run.get("loss").steps.tolist() != [1360, 1370, 1380, 1390, 1400, 1410, 1420]


def test_keras_lr_scheduler_line_is_its_epochs_lr(tmp_path: Path) -> None:
    run = one_log(tmp_path, SSD)
    assert values(run, "lr") == [0.001, 0.001]
    assert run.get("lr").steps.tolist() == [2000, 3000]  # epochs 2 and 3, at their bars
    # the epoch series is the bars' own: epoch 1 is kept, no epoch moves
    assert run.get("epoch").steps.tolist() == [1000, 2000, 3000]
    assert values(run, "epoch") == [1.0, 2.0, 3.0]
    assert values(run, "loss") == [3.8849, 3.892, 3.8767]


def test_the_lr_scheduler_words_inside_a_sentence_are_no_record(tmp_path: Path) -> None:
    body = SSD.replace(
        "Epoch 00002: LearningRateScheduler setting learning rate to 0.001.\n",
        "I think the LearningRateScheduler setting learning rate to 0.001 is too high\n",
    )
    run = one_log(tmp_path, body)
    assert run.get("lr").steps.tolist() == [3000]  # epoch 3's line alone


def test_d3rlpy_epoch_bar_between_printed_steps_sits_at_its_epochs_end(tmp_path: Path) -> None:
    run = one_log(tmp_path, D3)
    assert run.get("epoch").steps.tolist() == [5000, 6000]
    assert values(run, "epoch") == [5.0, 6.0]  # epoch 5's point keeps its epoch
    assert values(run, "critic_loss")[0] == 28059.851187988283
    assert run.get("throughput").steps.tolist() == [6000]  # the bar's 24.02it/s


def test_a_bar_whose_count_lands_outside_the_printed_steps_is_not_placed(tmp_path: Path) -> None:
    # near miss: a bar of 500 batches puts epoch 6's end at 3,000, outside 5,000-6,000:
    # another scale, so it takes the step before as it did, never a step of its own
    run = one_log(tmp_path, D3.replace("| 1000/1000 [", "| 500/500 ["))
    assert run.get("throughput").steps.tolist() == [5000]
    assert run.get("critic_loss").steps.tolist() == [5000, 6000]
