"""Reader fixes found on logs of trainers the corpus had few of (readers17): the
"(rank/world)" tag of icefall / lhotse loggers, Open MPI's `--tag-output` prefixes,
icefall's epoch-only validation line inside an epoch's batch lines, and nnU-Net's
timestamped "Epoch N" heading over its block of metric lines.

Each fix is built on the real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, read_log, values
from traindoc.readers.derived import finalize


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. icefall's "(rank/world)" tag after the logger's source tag -----------------------

# https://github.com/k2-fsa/icefall/issues/569 (4 GPUs: each batch printed by every rank)
_ICEFALL_RANKS = (
    "2022-10-03 21:05:24,891 INFO [train.py:908] (1/4) Epoch 1, batch 5950, loss[loss=0.4641, "
    "simple_loss=0.7553, pruned_loss=0.8645, over 2402.00 frames. utt_duration=1069 frames, "
    "utt_pad_proportion=0.04948, over 9.00 utterances.], tot_loss[loss=0.4736, "
    "simple_loss=0.7719, pruned_loss=0.8763, over 468996.04 frames. utt_duration=1044 frames, "
    "utt_pad_proportion=0.05271, over 1800.00 utterances.], batch size: 9, lr: 2.41e-03\n"
    "2022-10-03 21:05:24,896 INFO [train.py:908] (0/4) Epoch 1, batch 5950, loss[loss=0.4962, "
    "simple_loss=0.8107, pruned_loss=0.909, over 2408.00 frames. utt_duration=1071 frames, "
    "utt_pad_proportion=0.04855, over 9.00 utterances.], tot_loss[loss=0.4729, "
    "simple_loss=0.7707, pruned_loss=0.8749, over 469162.56 frames. utt_duration=1044 frames, "
    "utt_pad_proportion=0.05162, over 1800.00 utterances.], batch size: 9, lr: 2.41e-03\n"
)


def test_icefall_rank_tag_is_a_rank_not_the_step(tmp_path: Path) -> None:
    # before: "1/4" was read as a batch counter, and the ranks' lines of one batch became
    # separate runs; now rank 0's line is the batch's record, at batch 5950
    run = one_log(tmp_path, _ICEFALL_RANKS)
    assert _steps(run, "loss") == [5950.0]
    assert values(run, "loss") == [0.4962]
    assert values(run, "lr") == [2.41e-03]


# https://github.com/k2-fsa/icefall/pull/399 (one GPU: no tag) -- near miss
_ICEFALL_ONE = (
    "2022-06-08 08:01:22,072 INFO [train.py:815] Epoch 1, batch 5, loss[loss=0.6028, "
    "simple_loss=1.206, pruned_loss=9.481, over 5392.00 frames.], tot_loss[loss=0.7444, "
    "simple_loss=1.489, pruned_loss=9.21, over 31213.18 frames.], batch size: 18, lr: 3.00e-03\n"
    "2022-06-08 08:01:27,888 INFO [train.py:815] Epoch 1, batch 6, loss[loss=0.5526, "
    "simple_loss=1.105, pruned_loss=9.342, over 5306.00 frames.], tot_loss[loss=0.7163, "
    "simple_loss=1.433, pruned_loss=9.23, over 36207.05 frames.], batch size: 22, lr: 3.00e-03\n"
    "2022-06-08 08:01:28,707 INFO [train.py:815] Epoch 1, batch 7, loss[loss=0.5148, "
    "simple_loss=1.03, pruned_loss=9.262, over 5371.00 frames.], tot_loss[loss=0.69, "
    "simple_loss=1.38, pruned_loss=9.234, over 41215.97 frames.], batch size: 29, lr: 3.00e-03\n"
)


def test_icefall_lines_without_a_tag_read_as_before(tmp_path: Path) -> None:
    run = one_log(tmp_path, _ICEFALL_ONE)
    assert _steps(run, "loss") == [5.0, 6.0, 7.0]
    assert values(run, "loss") == [0.6028, 0.5526, 0.5148]


def test_a_fraction_in_parentheses_elsewhere_is_no_rank(tmp_path: Path) -> None:
    # near miss: a "(1/3)" not right after a "[file:line]" source tag is a counter
    body = "".join(f"[train] ({i}/3) loss {v}\n" for i, v in [(1, 2.0), (2, 1.5), (3, 1.2)])
    body += "".join(f"[x] ({i}/2) y\n" for i in (5,))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.5, 1.2]


# -- 2. Open MPI --tag-output prefixes ---------------------------------------------------

# a SageMaker (smdistributed / mpirun) training job's CloudWatch log, as committed in a
# public repo's notebook output
_MPI = (
    "[1,mpirank:5,algo-1]<stderr>:INFO:root:Reducer buckets have been rebuilt in this iteration.\n"
    "[1,mpirank:7,algo-1]<stderr>:INFO:root:Reducer buckets have been rebuilt in this iteration.\n"
    "[1,mpirank:4,algo-1]<stderr>:INFO:root:Reducer buckets have been rebuilt in this iteration.\n"
    "[1,mpirank:0,algo-1]<stdout>:epoch 0: {'accuracy': 0.6838235294117647, 'f1': 0.8122270742358079}\n"
    "[1,mpirank:0,algo-1]<stdout>:epoch 1: {'accuracy': 0.7205882352941176, 'f1': 0.8256880733944955}\n"
    "[1,mpirank:0,algo-1]<stdout>:epoch 2: {'accuracy': 0.75, 'f1': 0.838095238095238}\n"
)


def test_mpi_tag_output_prefix_is_a_rank(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MPI)
    assert values(run, "f1") == [0.8122270742358079, 0.8256880733944955, 0.838095238095238]
    assert "mpirank" not in run.series  # the prefix is no metric


def test_mpi_ranks_printing_one_metric_keep_the_lowest(tmp_path: Path) -> None:
    # the same verbatim line shape from two ranks: rank 0's values are kept
    body = (
        "[1,0]<stdout>:epoch 0: {'accuracy': 0.6838235294117647, 'f1': 0.8122270742358079}\n"
        "[1,1]<stdout>:epoch 0: {'accuracy': 0.7205882352941176, 'f1': 0.8256880733944955}\n"
        "[1,0]<stdout>:epoch 1: {'accuracy': 0.75, 'f1': 0.838095238095238}\n"
        "[1,1]<stdout>:epoch 1: {'accuracy': 0.7205882352941176, 'f1': 0.8256880733944955}\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "accuracy") == [0.6838235294117647, 0.75]


# -- 3. icefall's validation line inside one epoch's batches ------------------------------

# https://github.com/k2-fsa/icefall/issues/320
_ICEFALL_VALID = (
    "2022-04-21 08:29:40,058 INFO [train.py:518] Epoch 0, batch 2900, loss[ctc_loss=1.005, "
    "att_loss=0.8781, loss=0.9034, over 2403 frames.], tot_loss[ctc_loss=1.037, att_loss=0.9067, "
    "loss=0.9327, over 477013.1835074181 frames.], batch size: 11\n"
    "2022-04-21 08:32:02,863 INFO [train.py:518] Epoch 0, batch 2950, loss[ctc_loss=0.83, "
    "att_loss=0.7117, loss=0.7353, over 2322 frames.], tot_loss[ctc_loss=1.035, att_loss=0.9043, "
    "loss=0.9305, over 477016.8214064601 frames.], batch size: 8\n"
    "2022-04-21 08:34:16,314 INFO [train.py:518] Epoch 0, batch 3000, loss[ctc_loss=0.9819, "
    "att_loss=0.8759, loss=0.8971, over 2288 frames.], tot_loss[ctc_loss=1.031, att_loss=0.9002, "
    "loss=0.9263, over 475826.8325706396 frames.], batch size: 7\n"
    "2022-04-21 08:34:16,315 INFO [train.py:535] Computing validation loss\n"
    "2022-04-21 08:48:49,529 INFO [train.py:544] Epoch 0, validation: ctc_loss=1.524, "
    "att_loss=0.946, loss=1.062, over 760000 frames.\n"
    "2022-04-21 08:51:42,209 INFO [train.py:518] Epoch 0, batch 3050, loss[ctc_loss=1.202, "
    "att_loss=1.054, loss=1.084, over 2444 frames.], tot_loss[ctc_loss=1.032, att_loss=0.8992, "
    "loss=0.9258, over 476341.6594394003 frames.], batch size: 24\n"
)


def test_validation_line_of_one_epoch_sits_at_the_batch_before(tmp_path: Path) -> None:
    # before: "Epoch 0, validation" was step 0, the steps went back, two runs
    run = one_log(tmp_path, _ICEFALL_VALID)
    assert _steps(run, "loss") == [2900.0, 2950.0, 3000.0, 3050.0]
    assert _steps(run, "eval_loss") == [3000.0] and values(run, "eval_loss") == [1.062]


def test_epoch_only_lines_alone_still_count_epochs(tmp_path: Path) -> None:
    # near miss: with no batch counter in the file, the epoch is the step
    body = "Epoch 1, validation: loss=1.20\nEpoch 2, validation: loss=1.10\n"
    body += "Epoch 3, validation: loss=1.00\n"
    (run,) = read_log(tmp_path, body)
    assert _steps(run, "eval_loss") == [1.0, 2.0, 3.0]


# -- 4. nnU-Net's timestamped epoch heading -------------------------------------------------

# https://github.com/MIC-DKFZ/nnUNet/issues/2140
_NNUNET = (
    "2024-04-26 10:29:10.939758:\n"
    "2024-04-26 10:29:10.945759: Epoch 22\n"
    "2024-04-26 10:29:10.949758: Current learning rate: 0.0098\n"
    "2024-04-26 10:31:25.412996: train_loss 0.1385\n"
    "2024-04-26 10:31:25.417997: val_loss 0.1193\n"
    "2024-04-26 10:31:25.420996: Pseudo dice [0.2266, 0.0, 0.1527, 0.0, 0.2103, 0.0225, 0.1023, "
    "0.0974, 0.0, 0.0019, 0.0605, 0.0311, 0.1311, 0.0107, 0.0, 0.0, 0.019, 0.3331, 0.2878, 0.0, "
    "0.4102, 0.4325, 0.1293, 0.5487, 0.1568, 0.3017, 0.3265, 0.0002, 0.0995, 0.0, 0.0, 0.0]\n"
    "2024-04-26 10:31:25.424998: Epoch time: 134.47 s\n"
    "2024-04-26 10:31:25.427997: Yayy! New best EMA pseudo Dice: 0.0619\n"
    "2024-04-26 10:31:26.249976:\n"
    "2024-04-26 10:31:26.254924: Epoch 23\n"
    "2024-04-26 10:31:26.257921: Current learning rate: 0.00979\n"
    "2024-04-26 10:33:40.914421: train_loss 0.122\n"
    "2024-04-26 10:33:40.921420: val_loss 0.0924\n"
)


def test_nnunet_epoch_heading_numbers_its_block(tmp_path: Path) -> None:
    # before: no step was printed (the order of the lines), and the learning rate was
    # only a setting; now each "Epoch N" block is epoch N's record
    run = one_log(tmp_path, _NNUNET)
    assert _steps(run, "loss") == [22.0, 23.0] and values(run, "loss") == [0.1385, 0.122]
    assert _steps(run, "eval_loss") == [22.0, 23.0]
    assert values(run, "lr") == [0.0098, 0.00979]


def test_a_timestamped_line_naming_an_epoch_in_a_sentence_is_no_heading(tmp_path: Path) -> None:
    # near miss: a message that mentions an epoch is not a heading
    body = (
        "2024-04-23 15:29:06.880623: Epoch 3 done, saving\n"
        "2024-04-23 15:29:07.000000: step 1 loss 0.9\n"
        "2024-04-23 15:29:08.000000: step 2 loss 0.8\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0, 2.0]


# -- 5. a W&B run dir with no transaction log: files/output.log is the run's console --------

_TRASHNET = (
    Path(__file__).parents[1]
    / "real"
    / "healthy_wandb_keras_densenet121_trashnet_10ep_output_log_val_loss_0p73_to_0p37"
    / "files"
)


def _wandb_dir(tmp_path: Path, log: bytes | None) -> Path:
    run = tmp_path / "run-20241028_143626-cgh31nxi"
    (run / "files").mkdir(parents=True)
    for name in ("wandb-summary.json", "config.yaml"):
        (run / "files" / name).write_bytes((_TRASHNET / name).read_bytes())
    if log is not None:
        (run / "files" / "output.log").write_bytes(log)
    return run


def test_wandb_files_dir_reads_its_output_log(tmp_path: Path) -> None:
    # asyuri26/trash-classification (committed W&B files/ folder of a Keras run): before,
    # only the summary's last values and the config were read, no curve
    from traindoc.readers import load_run

    run = load_run(_wandb_dir(tmp_path, (_TRASHNET / "output.log").read_bytes()))
    assert values(run, "loss")[0] == 1.2105 and len(run.get("loss")) == 10
    assert values(run, "eval_loss")[-1] == 0.3682 and len(run.get("eval_loss")) == 10
    assert run.fact("learning_rate") == 0.001  # the config's settings stay


def test_wandb_files_dir_without_output_log_is_the_summary(tmp_path: Path) -> None:
    # near miss: no console captured: the summary's last values, as before
    from traindoc.readers import load_run

    run = load_run(_wandb_dir(tmp_path, None))
    assert not run.series and run.fact("results") is not None


# -- 6. Keras' model.evaluate() bar after fit -------------------------------------------------


def test_keras_evaluate_bar_after_fit_is_an_eval(tmp_path: Path) -> None:
    # the same output.log: "31/31 [...] - loss: 0.3682 - accuracy: 0.8669" after the last
    # epoch's "126/126 [...] - val_loss: 0.3682" was a train point at step 310 (10 x 31),
    # between epochs 2 and 3; now it is the held-out loss of the last step
    run = one_log(tmp_path, (_TRASHNET / "output.log").read_bytes(), "output.log")
    assert _steps(run, "loss") == [126.0 * k for k in range(1, 11)]
    assert 0.3682 not in values(run, "loss")
    assert _steps(run, "eval_loss")[-1] == 1260.0 and values(run, "eval_loss")[-1] == 0.3682


def test_keras_bars_of_one_length_stay_train(tmp_path: Path) -> None:
    # near miss: a finished bar printed twice under one heading (a refresh kept) has the
    # epoch's own length: train, as before
    body = (
        "Epoch 1/2\n"
        "126/126 [==============================] - 490s 4s/step - loss: 1.2105 - accuracy: 0.5355\n"
        "126/126 [==============================] - 490s 4s/step - loss: 1.2105 - accuracy: 0.5355\n"
        "Epoch 2/2\n"
        "126/126 [==============================] - 464s 4s/step - loss: 0.8189 - accuracy: 0.6884\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [1.2105, 0.8189]
    assert run.get("eval_loss") is None


# -- 7. several "X Loss" phrases on one line: the terms keep their names --------------------

# https://github.com/lufficc/SSD/issues/9
_SSD = (
    "2018-12-17 13:55:53,054 SSD.trainer INFO: Iter: 000010, Lr: 0.00069, Cost: 6.79s, Eta: "
    "11:18:23, Loss: 16.110, Regression Loss 2.962, Classification Loss: 13.149\n"
    "2018-12-17 13:55:59,009 SSD.trainer INFO: Iter: 000020, Lr: 0.00072, Cost: 5.54s, Eta: "
    "10:35:03, Loss: 14.744, Regression Loss 2.703, Classification Loss: 12.041\n"
    "2018-12-17 13:56:05,192 SSD.trainer INFO: Iter: 000030, Lr: 0.00074, Cost: 5.78s, Eta: "
    "10:29:42, Loss: 13.971, Regression Loss 2.775, Classification Loss: 11.196\n"
)


def test_loss_terms_beside_the_loss_keep_their_names(tmp_path: Path) -> None:
    # before: "Regression Loss" and "Classification Loss" were cut to "loss", read as
    # loss_3 / loss_4 copies of the loss
    run = one_log(tmp_path, _SSD)
    assert values(run, "loss") == [16.11, 14.744, 13.971]
    assert values(run, "regression_loss") == [2.962, 2.703, 2.775]
    assert values(run, "classification_loss") == [13.149, 12.041, 11.196]


def test_a_total_loss_before_its_terms_is_the_loss(tmp_path: Path) -> None:
    # the misread the SSD lines hint at, when the total is named "Total Loss" (a custom
    # CTC + error-classifier loop's line shape): the first term, cut to "loss", was read
    # as the run's loss and the total set aside as total_loss
    body = "".join(
        f"Epoch {e} Training: Total Loss: {t}, CTC Loss: {c}, ErrorCls Loss: 0.0993\n"
        for e, t, c in [(1, 2.1424, 2.1414), (2, 1.6144, 1.6128), (3, 1.6738, 1.6714)]
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.1424, 1.6144, 1.6738]
    assert values(run, "ctc_loss") == [2.1414, 1.6128, 1.6714]


# https://github.com/dusty-nv/jetson-inference/issues/1026 (pytorch-ssd's train_ssd.py)
_JETSON = (
    "2021-04-26 13:47:08 - Epoch: 0, Step: 220/1085, Avg Loss: 4.3755, Avg Regression Loss "
    "1.9874, Avg Classification Loss: 2.3881\n"
    "2021-04-26 13:47:13 - Epoch: 0, Step: 230/1085, Avg Loss: 4.3889, Avg Regression Loss "
    "1.8602, Avg Classification Loss: 2.5287\n"
    "2021-04-26 13:47:18 - Epoch: 0, Step: 240/1085, Avg Loss: 4.5225, Avg Regression Loss "
    "1.9723, Avg Classification Loss: 2.5502\n"
)


def test_an_averaged_loss_among_averaged_terms_is_the_loss(tmp_path: Path) -> None:
    # near miss: "Avg Loss" says how the loss was averaged, not which term it is: still the
    # loss, not a term summed with the others
    run = one_log(tmp_path, _JETSON)
    assert values(run, "loss") == [4.3755, 4.3889, 4.5225]
    assert values(run, "avg_regression_loss") == [1.9874, 1.8602, 1.9723]


def test_one_loss_phrase_alone_is_still_the_loss(tmp_path: Path) -> None:
    # near miss: a single "X loss" on a line is the loss, as before ("steps loss")
    run = one_log(tmp_path, "".join(f"step {i} ce loss: {v}\n" for i, v in [(1, 2.0), (2, 1.8)]))
    assert values(run, "loss") == [2.0, 1.8]


# https://github.com/MIC-DKFZ/nnUNet/issues/1084 (nnU-Net v1: print("\nepoch: ", epoch))
_NNUNET_V1 = (
    "2022-06-20 08:07:04.951449: \n"
    "epoch:  18 \n"
    "2022-06-20 08:08:10.357012: train loss : 0.1240 \n"
    "2022-06-20 08:08:14.324866: validation loss: 0.0952 \n"
    "2022-06-20 08:08:14.325696: Average global foreground Dice: [0.8873, 0.0004, 0.0, 0.0, 0.0, "
    "0.0, 0.0, 0.0, 0.0, 0.0002] \n"
    "2022-06-20 08:08:14.325756: (interpret this as an estimate for the Dice of the different "
    "classes. This is not exact.) \n"
    "2022-06-20 08:08:14.771270: lr: 1e-05 \n"
    "2022-06-20 08:08:14.787438: saving checkpoint... \n"
    "2022-06-20 08:08:15.239737: done, saving took 0.47 seconds \n"
    "2022-06-20 08:08:15.240915: This epoch took 70.289254 s\n"
    " \n"
    "2022-06-20 08:08:15.240971: \n"
    "epoch:  19 \n"
    "2022-06-20 08:09:22.742809: train loss : 0.1161 \n"
    "2022-06-20 08:09:27.114141: validation loss: 0.0828 \n"
)


def test_nnunet_v1_epoch_heading_numbers_its_block(tmp_path: Path) -> None:
    # before: the lines were numbered 1, 2 in their order; the heading's epoch is their step
    run = one_log(tmp_path, _NNUNET_V1)
    assert _steps(run, "loss") == [18.0, 19.0] and values(run, "loss") == [0.124, 0.1161]
    assert _steps(run, "eval_loss") == [18.0, 19.0]


def test_a_setting_named_epoch_is_no_heading(tmp_path: Path) -> None:
    # near miss: "epoch: 100" (one space) is a setting printed before the run, not a heading
    body = "epoch: 100\nstep 1 loss 2.0\nstep 2 loss 1.9\n"
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0, 2.0]


# -- 8. Catalyst 19.x/20.x's "_base/lr" ----------------------------------------------------

# https://github.com/catalyst-team/catalyst/issues/290
_CATALYST = (
    "[2019-08-07 23:07:50,833] \n"
    "0/2 * Epoch 0 (train): _base/lr=0.0010 | _base/momentum=0.9000 | _timers/_fps=5694.1712 | "
    "_timers/batch_time=0.0056 | _timers/data_time=0.0052 | _timers/model_time=0.0005 | "
    "accuracy01=11.7188 | accuracy03=42.9688 | accuracy05=64.8438 | loss=2.2828\n"
    "0/2 * Epoch 0 (valid): _base/lr=0.0010 | _base/momentum=0.9000 | _timers/_fps=5766.3016 | "
    "_timers/batch_time=0.0056 | _timers/data_time=0.0051 | _timers/model_time=0.0004 | "
    "accuracy01=33.5938 | accuracy03=55.4688 | accuracy05=74.2188 | loss=2.1173\n"
    "[2019-08-07 23:07:50,937] \n"
    "1/2 * Epoch 1 (train): _base/lr=0.0010 | _base/momentum=0.9000 | _timers/_fps=4760.2633 | "
    "_timers/batch_time=0.0069 | _timers/data_time=0.0063 | _timers/model_time=0.0005 | "
    "accuracy01=39.0625 | accuracy03=71.0938 | accuracy05=84.3750 | loss=1.9457\n"
    "1/2 * Epoch 1 (valid): _base/lr=0.0010 | _base/momentum=0.9000 | _timers/_fps=6014.2628 | "
    "_timers/batch_time=0.0053 | _timers/data_time=0.0049 | _timers/model_time=0.0004 | "
    "accuracy01=60.9375 | accuracy03=75.0000 | accuracy05=78.1250 | loss=1.6803\n"
)


def test_catalyst_base_lr_is_the_lr(tmp_path: Path) -> None:
    # before: "_base/lr" was a series of its own, and the run had no LR
    run = one_log(tmp_path, _CATALYST)
    assert values(run, "lr") == [0.001, 0.001]
    assert values(run, "loss") == [2.2828, 1.9457]
    assert values(run, "eval_loss") == [2.1173, 1.6803]


# -- 9. an auxiliary loss is no term of weight 1 ----------------------------------------------

# a public OpenRLHF train_sft launch script (W&B project shisa-v2.1, Qwen3-30B-A3B MoE,
# `--aux_loss_coef 0.001`) quotes its bar in a comment:
_OPENRLHF_BAR = (
    "14/2826 [17:16<36:13:38, 46.38s/it, gpt_loss=1.06, lr=tensor(5.3821e-07), aux_loss=8.45]\n"
)


def test_moe_aux_loss_is_not_summed_into_the_loss(tmp_path: Path) -> None:
    # before: loss = gpt_loss + aux_loss = 9.51, while the objective is gpt_loss + 0.001 x
    # aux_loss; the LM loss is the one loss logged besides the auxiliary one
    run = finalize(one_log(tmp_path, _OPENRLHF_BAR))
    assert values(run, "loss") == [1.06]
    assert values(run, "aux_loss") == [8.45]


def test_terms_without_an_auxiliary_one_are_still_summed(tmp_path: Path) -> None:
    # near miss: detection terms (no auxiliary loss among them) sum to the loss, as before
    body = "".join(
        f"epoch {e} box_loss: {b} cls_loss: {c}\n" for e, b, c in [(1, 1.5, 2.0), (2, 1.2, 1.5)]
    )
    run = finalize(one_log(tmp_path, body))
    assert values(run, "loss") == [3.5, 2.7]


# -- 10. a second bar of another length under one epoch heading (Swift for TensorFlow) ------

# https://github.com/tensorflow/swift-models/pull/633 (LeNet-MNIST's output: the train bar,
# then the test set's bar, under each "Epoch N/12")
_SWIFT = (
    "    Epoch 1/12\n"
    "    468/468 [==============================] - loss: 0.5188 - accuracy: 0.8371\n"
    "    79/79 [==============================] - loss: 0.2192 - accuracy: 0.9282\n"
    "    Epoch 2/12\n"
    "    468/468 [==============================] - loss: 0.1190 - accuracy: 0.9633\n"
    "    79/79 [==============================] - loss: 0.0755 - accuracy: 0.9752\n"
    "    Epoch 3/12\n"
    "    468/468 [==============================] - loss: 0.0825 - accuracy: 0.9743\n"
    "    79/79 [==============================] - loss: 0.0590 - accuracy: 0.9799\n"
)


def test_the_test_bar_after_each_epochs_bar_is_an_eval(tmp_path: Path) -> None:
    # before: four runs, the 79/79 bars train points at steps 79, 158, 237
    run = one_log(tmp_path, _SWIFT)
    assert _steps(run, "loss") == [468.0, 936.0, 1404.0]
    assert values(run, "loss") == [0.5188, 0.119, 0.0825]
    assert values(run, "eval_loss") == [0.2192, 0.0755, 0.059]


# -- 11. ESPnet2's "1epoch:train:6376-6750batch:" --------------------------------------------

# https://github.com/espnet/espnet/issues/2674
_ESPNET2 = (
    "[PC] 2020-11-11 16:30:04,578 (trainer:486) INFO: 1epoch:train:6376-6750batch: "
    "iter_time=0.001, forward_time=0.005, loss=2.386, backward_time=0.005, "
    "optim_step_time=1.949e-04, lr_0=0.100, train_time=0.013\n"
    "[PC] 2020-11-11 16:30:09,675 (trainer:486) INFO: 1epoch:train:6751-7125batch: "
    "iter_time=0.001, forward_time=0.005, loss=2.367, backward_time=0.005, "
    "optim_step_time=1.953e-04, lr_0=0.100, train_time=0.013\n"
    "[PC] 2020-11-11 16:30:14,840 (trainer:486) INFO: 1epoch:train:7126-7500batch: "
    "iter_time=0.001, forward_time=0.005, loss=2.339, backward_time=0.005, "
    "optim_step_time=1.963e-04, lr_0=0.100, train_time=0.014\n"
    "[PC] 2020-11-11 16:30:18,406 (trainer:243) INFO: 1epoch results: [train] iter_time=0.001, "
    "forward_time=0.005, loss=2.853, backward_time=0.005, optim_step_time=1.974e-04, "
    "lr_0=0.100, train_time=0.013, time=1 minute and 42.6 seconds, total_count=7507, [valid] "
    "loss=2.387, time=3 seconds, total_count=240, [att_plot] time=0.28 seconds, "
    "total_count=0\n"
    "[PC] 2020-11-11 16:30:18,969 (trainer:286) INFO: The best model has been updated: "
    "valid.loss\n"
    "[PC] 2020-11-11 16:30:18,969 (trainer:184) INFO: 2/20epoch started. Estimated time to "
    "finish: 33 minutes and 42.59 seconds\n"
    "[PC] 2020-11-11 16:30:24,312 (trainer:486) INFO: 2epoch:train:1-375batch: "
    "iter_time=0.001, forward_time=0.005, loss=2.313, backward_time=0.005, "
    "optim_step_time=2.000e-04, lr_0=0.100, train_time=0.014\n"
)


def test_espnet2_batch_ranges_number_the_steps(tmp_path: Path) -> None:
    # before: no counter was read (steps 1, 2, 3, 4: the order of the lines) and the LR,
    # printed as lr_0, was a series of its own
    run = one_log(tmp_path, _ESPNET2)
    assert _steps(run, "loss") == [6750.0, 7125.0, 7500.0, 7875.0]
    assert values(run, "lr") == [0.1, 0.1, 0.1, 0.1]
    assert _steps(run, "eval_loss") == [7500.0] and values(run, "eval_loss") == [2.387]
    assert run.fact("trainer") == "espnet"


def test_an_epoch_and_batch_in_words_are_left_alone(tmp_path: Path) -> None:
    # near miss: no "<N>epoch:<split>:<a>-<b>batch:" token: read as before
    body = "epoch: 1, batch: 100, loss: 2.0\nepoch: 1, batch: 200, loss: 1.9\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.9]


# -- 12. a logger's message glued to the number a bar ends in ---------------------------------


def test_logger_prefix_glued_to_a_bar_is_a_line_of_its_own(tmp_path: Path) -> None:
    # the trashnet output.log: "... - loss: 1.2105 - accuracy: 0.5355INFO:tensorflow:Assets
    # written to: ..." (the checkpoint callback's message on the unterminated bar); before,
    # 9 such lines were "not understood"
    raw = (_TRASHNET / "output.log").read_bytes()
    glued = [ln for ln in raw.split(b"\n") if b"0.5355INFO:tensorflow" in ln]
    assert glued  # the verbatim line is there
    run = one_log(tmp_path, raw, "output.log")
    inp = run.inputs[0]
    assert inp.lines_not_understood == 0
    assert values(run, "accuracy")[0] == 0.5355


def test_a_level_word_inside_a_message_is_not_split(tmp_path: Path) -> None:
    # near miss: "INFO:" after a space (a logger's line of its own) is read as before
    body = "INFO:root:step 1 loss 2.0\nINFO:root:step 2 loss 1.9\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.9]


def test_a_second_fit_under_a_new_heading_stays_train(tmp_path: Path) -> None:
    # near miss: fit() called again (fine-tuning) restarts at "Epoch 1/2" with another
    # number of batches: a new heading, so its bar is train, not an eval of the first fit
    body = (
        "Epoch 1/1\n"
        "126/126 [==============================] - 490s 4s/step - loss: 1.2105 - accuracy: 0.5355\n"
        "Epoch 1/2\n"
        "63/63 [==============================] - 464s 4s/step - loss: 0.8189 - accuracy: 0.6884\n"
        "Epoch 2/2\n"
        "63/63 [==============================] - 464s 4s/step - loss: 0.7127 - accuracy: 0.7372\n"
    )
    runs = read_log(tmp_path, body)
    assert all(r.get("eval_loss") is None for r in runs)
    assert sorted(v for r in runs for v in values(r, "loss")) == [0.7127, 0.8189, 1.2105]


# https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/4024 (Megatron-Bridge, a MoE model
# with multi-token prediction heads: "lm loss" beside "mtp_1 loss" and "mtp_2 loss")
_MTP = "".join(
    f"[2026-05-28 22:{t}] iteration       {i}/    6069 | consumed samples:        {c} | "
    f"elapsed time per iteration (ms): {ms} | learning rate: {lr} | global batch size:   512 | "
    f"lm loss: {lm} | seq_load_balancing_loss: {lb} | mtp_1 loss: {m1} | mtp_2 loss: {m2} | "
    f"loss scale: 1.0 | grad norm: {gn} | number of skipped iterations:   0 | number of nan "
    "iterations:   0 |\n"
    for t, i, c, ms, lr, lm, lb, m1, m2, gn in [
        (
            "26:20",
            29,
            14848,
            "26813.0",
            "5.800000E-05",
            "8.716962E-01",
            "1.253194E+00",
            "1.115410E+00",
            "1.180141E+00",
            "0.852",
        ),
        (
            "26:50",
            30,
            15360,
            "29511.9",
            "6.000000E-05",
            "8.535482E-01",
            "1.248744E+00",
            "1.080622E+00",
            "1.143016E+00",
            "1.366",
        ),
        (
            "27:20",
            31,
            15872,
            "29793.2",
            "6.200000E-05",
            "8.641004E-01",
            "1.249063E+00",
            "1.116914E+00",
            "1.180170E+00",
            "1.081",
        ),
    ]
)


def test_megatron_mtp_head_losses_are_not_the_lm_loss(tmp_path: Path) -> None:
    # before: "mtp_1 loss" was cut to "loss" and read as the run's loss (1.115), the LM
    # loss set aside as lm_loss, the second head's as loss_7
    run = one_log(tmp_path, _MTP)
    assert values(run, "loss") == [0.8716962, 0.8535482, 0.8641004]
    assert values(run, "mtp_1_loss") == [1.11541, 1.080622, 1.116914]
    assert "loss_7" not in run.series
