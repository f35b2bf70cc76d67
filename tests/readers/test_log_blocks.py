"""Multi-line log shapes from real third-party logs: a line that gives the context
(an eval block's title, an epoch header) for the metric lines under it."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import read_log as _read


def test_tf_estimator_eval_block_is_an_eval_record(tmp_path: Path) -> None:
    # google-research/bert run_classifier: the Estimator's eval results, one per line
    body = (
        "INFO:tensorflow:***** Eval results *****\n"
        "INFO:tensorflow:  eval_accuracy = 0.64309764\n"
        "INFO:tensorflow:  eval_loss = 1.2086438\n"
        "INFO:tensorflow:  global_step = 83\n"
        "INFO:tensorflow:  loss = 1.1816607\n"
        "\n"
        "Do you shuffle your data?\n"
    )
    (run,) = _read(tmp_path, body)
    assert "loss" not in run.series  # the block's `loss` is the eval loss, not a train point
    ev = run.series["eval_loss"]
    assert ev.steps.tolist() == [83] and ev.values.tolist() == [1.2086438]  # eval_loss wins
    assert run.series["eval_accuracy"].values.tolist() == [0.64309764]


def test_eval_block_without_prefix_or_step_sits_at_the_train_step(tmp_path: Path) -> None:
    # HF Trainer's log_metrics after a run, and the bare `***** Eval results *****` form
    body = "".join(f"step {s} | loss {3 - s / 100:.2f}\n" for s in (10, 20, 30))
    body += (
        "***** eval metrics *****\n"
        "  epoch                   =        3.0\n"
        "  eval_loss               =     0.4134\n"
        "  eval_runtime            = 0:00:01.23\n"
        "  eval_samples_per_second =    331.707\n"
        "***** Eval results *****\n"
        "  loss = 0.39\n"
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [10, 20, 30]
    ev = run.series["eval_loss"]
    assert ev.steps.tolist() == [30] and ev.values.tolist()[-1] == 0.39


def test_running_evaluation_title_is_not_a_metrics_block(tmp_path: Path) -> None:
    body = (
        "step 10 | loss 2.5\n"
        "***** Running Evaluation *****\n"
        "  Num examples = 408\n"
        "  Batch size = 8\n"
        "step 20 | loss 2.4\n"
    )
    (run,) = _read(tmp_path, body)
    assert set(run.series) == {"loss"}


def test_keras_paste_starting_mid_epoch_is_one_run(tmp_path: Path) -> None:
    # keras mnist_cnn: the paste starts in epoch 1, whose "Epoch 1/12" line is not in it
    body = (
        "59648/60000 [============================>.] - ETA: 0s - loss: 0.3436 - acc: 0.8969\n"
        "60000/60000 [==============================] - 9s - loss: 0.3423 - acc: 0.8972"
        " - val_loss: 0.0793 - val_acc: 0.9767\n"
        "Epoch 2/12\n"
        "  128/60000 [..............................] - ETA: 9s - loss: 0.0927 - acc: 0.9766\n"
        "  640/60000 [..............................] - ETA: 7s - loss: 0.1146 - acc: 0.9672\n"
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [59648, 60000, 60128, 60640]
    assert run.series["eval_loss"].steps.tolist() == [60000]


def test_keras_finished_bars_without_epoch_lines_are_one_epoch_each(tmp_path: Path) -> None:
    # visual-qa issue 24: Keras 1 prints each epoch's last bar only, with no "Epoch 2/4"
    # line, and its sample counter overshoots the total by the last batch's remainder
    body = "For the first 4 epochs its like :\n" + "".join(
        f"215424/215375 [==============================] - {t}s - train loss: {v}     \n"
        for t, v in ((418, 3.7656), (432, 3.7264), (439, 3.7595), (442, 3.7989))
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [1, 2, 3, 4]
    assert run.series["loss"].values.tolist() == [3.7656, 3.7264, 3.7595, 3.7989]
    assert run.inputs[0].steps_from.startswith("the epoch: one finished progress bar")
    # the same counter on every line, short of its total: still one line per epoch
    same = "".join(f"9000/9595 [=====>...] - 1s - loss: {v}\n" for v in (0.6, 0.5, 0.4))
    (run,) = _read(tmp_path, same)
    assert run.series["loss"].steps.tolist() == [1, 2, 3]


def test_keras_bars_that_climb_keep_their_counter_as_the_step(tmp_path: Path) -> None:
    # near miss: bars still running (and one finished) within one epoch count batches
    body = "".join(
        f"{n}/600 [=====>...] - ETA: 1s - loss: {v}\n"
        for n, v in ((200, 0.9), (400, 0.8), (600, 0.7))
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [200, 400, 600]


def test_a_markdown_table_laid_out_by_step_is_read_column_by_column(tmp_path: Path) -> None:
    # aprender PR 2258: steps across, metrics down; "…" and "epoch avg" columns are no step;
    # the second table (rank -> LR) is not laid out by step and gives no curve
    body = (
        "Measured live on an **RTX 4090** — 1.5B QLoRA, lr 2e-4 / rank 256 / seq 2048 on `x`:\n"
        "\n"
        "| step | 10 | 20 | 30 | … | 160 | epoch avg |\n"
        "|---|---|---|---|---|---|---|\n"
        "| loss | 4.31 | **1.44** | 7.08 | … | 13.83 | **11.18** |\n"
        "| grad norm | 1.2 | 0.9 | 5.5 | … | 40.1 | 9.0 |\n"
        "\n"
        "It starts learning then blows up.\n"
        "\n"
        "| rank | ≤32 | 64 | 128 |\n"
        "|---|---|---|---|\n"
        "| lr | 2e-4 | 1e-4 | 5e-5 |\n"
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [10, 20, 30, 160]
    assert run.series["loss"].values.tolist() == [4.31, 1.44, 7.08, 13.83]
    assert run.series["grad_norm"].values.tolist() == [1.2, 0.9, 5.5, 40.1]
    assert set(run.series) == {"loss", "grad_norm"}  # no rtx, seq or lr from the prose
    epochs = "| Epoch | 1 | 2 | 3 |\n|---|---|---|---|\n| val_loss | 0.9 | 0.8 | 0.85 |\n"
    (run,) = _read(tmp_path, epochs)
    assert run.series["eval_loss"].steps.tolist() == [1, 2, 3]
    ckpts = "| checkpoint | ckpt-500 | ckpt-1,000 |\n| loss | 2.1 | 1.9 |\n"
    (run,) = _read(tmp_path, ckpts)
    assert run.series["loss"].steps.tolist() == [500, 1000]


def test_a_word_before_a_number_is_a_key_on_a_log_line_but_not_in_a_sentence(
    tmp_path: Path,
) -> None:
    sentence = "We ran it on an RTX 4090 with seq 2048 and the loss 2.5 at the end\n"
    (run,) = _read(tmp_path, "step 1 loss 3.0\n" + sentence)
    assert "rtx" not in run.series and "seq" not in run.series
    # near miss: the same words on a log line (no sentence around them) are its keys
    (run,) = _read(tmp_path, "step 1 seq 2048 loss 3.0\nstep 2 seq 2048 loss 2.9\n")
    assert run.series["seq"].values.tolist() == [2048, 2048]


def test_tqdm_percent_is_not_the_step_and_epoch_summaries_sit_at_the_epoch_end(
    tmp_path: Path,
) -> None:
    # ViTPose_pytorch: a tqdm bar per epoch, then the epoch's train and valid summaries
    bar = "🏋️> Epoch [{e:03d}/210] | Loss 0.00{l} | LR 0.00000000 | Step: 100%|██████████| "
    bar += "1827/1827 [03:38<00:00,  8.38it/s]\n"
    summary = (
        "2023-04-24 21:32:07,523 - utils - INFO - [Summary-{split}] Epoch [{e:03d}/210] | "
        "Average Loss ({split}) {v} --- 218.09494 sec. elapsed\n"
    )
    body = ""
    for e in (0, 1):
        body += bar.format(e=e, l=29 + e)
        body += summary.format(split="train", e=e, v=0.0047 - e / 1000)
        body += summary.format(split="valid", e=e, v=0.0032)
    (run,) = _read(tmp_path, body)
    assert run.series["lr"].steps.tolist() == [1827, 3654]
    assert run.series["eval_loss"].steps.tolist() == [1827, 3654]
    assert run.series["eval_loss"].values.tolist() == [0.0032, 0.0032]
    assert run.series["loss"].values.tolist() == [0.0047, 0.0037]  # the epoch's average


def test_eval_under_a_stale_epoch_heading_stays_in_the_run(tmp_path: Path) -> None:
    # ISChenawei/DMNIL train_log.txt: "Loaded checkpoint from epoch 19" is printed once,
    # and the evals after epochs 20-23 took epoch 19 as their step (another scale than
    # epoch x 400 + batch): the file was cut into five runs
    line = (
        "Epoch: [{e}][{b}/400]\tTime 5.585 (5.827)\tData 0.000 (0.275)\t"
        "Loss {l:.3f} (1.807)\tLoss dro 0.216 (0.235)\t\n"
    )
    recall = "Recall@1: {r} - Recall@5: 96.9330 - Recall@10: 97.8920 - AP: 91.6576\n"
    body = "Loaded checkpoint from epoch 19\n"
    for e, r in ((20, 90.0753), (21, 90.1043)):
        body += line.format(e=e, b=390, l=1.49) + line.format(e=e, b=400, l=1.765)
        body += "Compute Scores:\n" + recall.format(r=r)
    (run,) = _read(tmp_path, body)
    assert run.series["recall@1"].steps.tolist() == [8000, 8400]
    # near miss: an epoch ahead of the batches is another run's line in a paste
    body = line.format(e=4, b=400, l=15.42) + "Epoch 19\n2s - loss: 0.0416 - acc: 0.9861\n"
    first, second = _read(tmp_path, body)
    assert first.series["loss"].values.tolist() == [15.42]
    assert second.series["loss"].values.tolist() == [0.0416]


_FAIRSEQ = (
    "{d} 11:38:13 | INFO | train | epoch {e:03d} | loss {l} | nll_loss 8.89 | ppl 474.37 | "
    "wps 31194.9 | ups 0.07 | wpb 430468 | bsz 14485.4 | num_updates {u} | lr 0.00017375 | "
    "gnorm 55.005 | loss_scale 0 | train_wall 4512 | wall 9786\n"
)


def test_two_dated_fragments_days_apart_across_a_gap_are_two_runs(tmp_path: Path) -> None:
    # fairseq#1895: the failing run, then the rerun two days later, quoted in one thread
    body = _FAIRSEQ.format(d="2020-03-23", e=2, l=9.803, u=695)
    body += _FAIRSEQ.format(d="2020-03-23", e=3, l=9.44, u=700)
    body += "[... excerpt gap ...]\n"
    body += _FAIRSEQ.format(d="2020-03-25", e=8, l=4.313, u=2910)
    body += _FAIRSEQ.format(d="2020-03-25", e=9, l=4.226, u=3009)
    a, b = _read(tmp_path, body)
    assert a.series["loss"].steps.tolist() == [695, 700]
    assert b.series["loss"].steps.tolist() == [2910, 3009]


def test_a_gap_within_one_day_is_one_run(tmp_path: Path) -> None:
    body = _FAIRSEQ.format(d="2020-03-23", e=2, l=9.803, u=695)
    body += "[... excerpt gap ...]\n"
    body += _FAIRSEQ.format(d="2020-03-23", e=8, l=4.313, u=2910)
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [695, 2910]


def test_epoch_heading_numbers_the_metric_lines_under_it(tmp_path: Path) -> None:
    # LadderNet: "Epoch N: " then one metric per line (note the inconsistent colon)
    body = "".join(
        f"Epoch {e}: \nTrain loss {tl}\nValid loss: {vl}\n\n"
        for e, tl, vl in ((0, "0.347656", "5.1115"), (1, "0.219913", "3.2819"))
    )
    body += "Epoch 2: \nTrain loss 1629511453423918336.000000\nValid loss: 18624358.1250\n"
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [0, 1, 2]
    assert run.series["loss"].values[-1] > 1e18
    assert run.series["eval_loss"].values.tolist() == [5.1115, 3.2819, 18624358.125]


def test_an_epochs_setting_is_not_a_heading(tmp_path: Path) -> None:
    body = "epochs: 400\nlr: 0.0002\nstep 10 | loss 2.5\nstep 20 | loss 2.4\n"
    (run,) = _read(tmp_path, body)
    assert "lr" not in run.series  # a setting, not an LR point at step 400
    assert run.series["loss"].steps.tolist() == [10, 20]


def test_yolov3_table_total_is_the_loss(tmp_path: Path) -> None:
    # ultralytics/yolov3#1231: the total pasted in Markdown bold, gpu_mem with its unit
    body = (
        "Epoch   gpu_mem      GIoU       obj       cls     total   targets  img_size\n"
        "   134/199        9G     0.651     0.187    0.0233     **0.861**        12       640\n"
        ".........................\n"
        "Epoch   gpu_mem      GIoU       obj       cls     total   targets  img_size\n"
        "135/199     8.99G      1.11      0.35     0.127      **1.59**        13       640\n"
    )
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [134, 135]
    assert run.series["loss"].values.tolist() == [0.861, 1.59]
    assert run.series["giou_loss"].values.tolist() == [0.651, 1.11]
    assert run.series["gpu_mem"].values.tolist() == [9.0, 8.99]


def test_a_launch_command_joined_over_lines_is_config_not_a_record(tmp_path: Path) -> None:
    # google-research/bert README: the command, then the eval block it printed
    body = (
        "python run_pretraining.py \\\n"
        "  --do_eval=True \\\n"
        "  --train_batch_size=32 \\\n"
        "  --num_train_steps=20 \\\n"
        "  --learning_rate=2e-5\n"
        "\n"
        "***** Eval results *****\n"
        "  global_step = 20\n"
        "  loss = 0.0979674\n"
        "  masked_lm_accuracy = 0.985479\n"
    )
    (run,) = _read(tmp_path, body)
    assert "lr" not in run.series and "train_batch_size" not in run.series
    assert run.series["eval_loss"].steps.tolist() == [20]
    assert run.facts["learning_rate"].value == 2e-5


def test_a_split_metric_alone_on_its_line_is_an_eval_point(tmp_path: Path) -> None:
    # mikekestemont/DeepScript#3: a loop of Keras fit(epochs=1) calls, each followed by
    # the script's own "  curr val acc: ..." line
    bar = (
        "360/360 [==============================] - 11s 31ms/step - loss: {l} - accuracy: 0.5167\n"
    )
    body = ""
    for loss, acc in ((1.1237, 0.5714285714285714), (1.0820, 0.35714285714285715)):
        body += "Epoch 1/1\n" + bar.format(l=loss) + f"  curr val acc: {acc}\n"
    (run,) = _read(tmp_path, body)
    assert run.series["val_acc"].values.tolist() == [0.5714285714285714, 0.35714285714285715]
    assert run.series["val_acc"].steps.tolist() == run.series["loss"].steps.tolist()
    # near miss: the best so far is no eval point of its own
    (run,) = _read(tmp_path, body.replace("curr val acc", "best val acc"))
    assert not any("val" in name for name in run.series)


def test_an_in_epoch_counter_with_its_epoch_total_is_not_a_run_counter(tmp_path: Path) -> None:
    # Leiyi-HU/mona#11 (mmdet 2.x): a paste of epoch 1, a gap, then epoch 3; the counter
    # climbs across the gap, but 7,100 of a 12,414 total in epoch 1 cannot be a counter
    # over a run of 3+ epochs (each at most 12,414 / 3): it starts over at each epoch
    line = (
        "2025-04-25 23:19:42,933 - mmdet - INFO - Epoch [{e}][{i}/12414]\tlr: 1.000e-04, "
        "eta: 4:00:43, time: 0.321, data_time: 0.003, memory: 5920, loss: {l}\n"
    )
    body = "".join(line.format(e=1, i=i, l=1.83) for i in (7100, 7150, 7200))
    body += "[... excerpt gap ...]\n"
    body += "".join(line.format(e=3, i=i, l=1.82) for i in (10800, 10850, 10900))
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [7100, 7150, 7200, 35628, 35678, 35728]
    # near miss: kohya's bar counts the run's optimizer steps (41/3280 over 30 epochs)
    bar = "epoch {e}/30\nsteps:   1%|          | {i}/3280 [00:10<13:20, avr_loss={l}]\n"
    body = bar.format(e=1, i=40, l=0.12) + bar.format(e=1, i=80, l=0.11)
    body += bar.format(e=2, i=120, l=0.10) + bar.format(e=2, i=160, l=0.10)
    (run,) = _read(tmp_path, body)
    assert run.series["loss"].steps.tolist() == [40, 80, 120, 160]


def test_a_gap_marker_between_records_is_a_cut_of_the_paste(tmp_path: Path) -> None:
    line = "2025-04-25 {t} - mmdet - INFO - Epoch [1][{i}/12414]\tlr: 1.000e-04, loss: 1.8\n"
    body = line.format(t="23:19:42,933", i=7100) + line.format(t="23:19:58,937", i=7150)
    body += "[... excerpt gap ...]\n"
    body += line.format(t="02:06:00,311", i=10800) + line.format(t="02:06:17,623", i=10850)
    (run,) = _read(tmp_path, body)
    assert run.fact("paste_cuts") == (7150,)
    # near miss: the same lines with no marker between them are one stretch
    (run,) = _read(tmp_path, body.replace("[... excerpt gap ...]\n", ""))
    assert run.fact("paste_cuts") is None
