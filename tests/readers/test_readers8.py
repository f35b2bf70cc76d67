"""Reader fixes found on real cases (issue 12, readers8): a TensorBoard loss logged at two
granularities, mainrun's JSON events, spaCy training tables, MXNet's epoch lines, fp16
loss-scale messages, and Keras 1's epoch line after early stopping.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, read_log
from traindoc.model.signals import is_eval, kind
from traindoc.pipeline import load_all
from traindoc.readers import jsonl
from traindoc.readers import tensorboard as tb
from traindoc.readers._tbevents import encode_scalar, encode_version
from traindoc.readers._tfrecord import frame

REAL = Path(__file__).resolve().parents[1] / "real"
T0 = 1.7e9

# -- 1. a TensorBoard loss per iteration and per epoch: the finer one is the loss ----------


def _events(tmp_path: Path, points: dict[str, list[tuple[int, float]]]) -> Path:
    events = [encode_version(T0)]
    for tag, pts in points.items():
        events += [encode_scalar(tag, v, s, T0 + s) for s, v in pts]
    f = tmp_path / "events.out.tfevents.1.host"
    f.write_bytes(b"".join(frame(e) for e in events))
    return f


def test_lbsgd_iteration_loss_is_the_loss_and_lr_is_read() -> None:
    case = (
        REAL / "healthy_lbsgd_resnet18_cifar100_b1024_step_decay_x10_at_150_225_acc_74p4_tfevents"
    )
    run = tb.read(case / "s3" / "s3_b1024")
    loss = run.get("loss")
    assert len(loss) == 14700 and loss.source.endswith("Train/Loss per Iteration")
    assert round(float(loss.values[0]), 4) == 4.7391  # the iteration value, not a sum
    assert len(run.get("train/average loss per epoch")) == 300
    lr = run.get("lr")
    assert len(lr) == 300 and round(float(lr.values[-1]), 6) == 0.004
    # the epoch tags sit on the iteration axis: each at the last iteration before it
    assert lr.steps[:2].tolist() == [49, 98] and lr.steps[-1] == 14700
    assert run.get("test/accuracy").steps[:2].tolist() == [49, 98]


def test_per_epoch_loss_alone_is_the_loss_and_real_parts_still_sum(tmp_path: Path) -> None:
    epoch = _events(tmp_path, {"Train/Average Loss per Epoch": [(1, 2.0), (2, 1.5)]})
    run = tb.read(epoch)
    assert run.get("loss").values.tolist() == [2.0, 1.5]
    assert run.get("loss").steps.tolist() == [1, 2]  # no iteration axis to move to
    parts = tmp_path / "parts"
    parts.mkdir()
    pts = {
        "train/box_loss": [(1, 1.0), (2, 0.5)],
        "train/cls_loss": [(1, 2.0), (2, 1.0)],
        "Train/Time per Iteration": [(1, 0.3), (2, 0.3)],
    }
    run = tb.read(_events(parts, pts))
    assert "loss" not in run.series  # tensorboard keeps the parts; derived.py sums them
    assert "train/time per iteration" in run.series


# -- 2. mainrun's event-tagged JSON lines: validation_step is eval, config is facts --------

_MAINRUN = REAL / "healthy_mainrun_muon_hybrid_lr0p01_best_of_optimizer_sweep_val_1p277"


def test_mainrun_validation_steps_are_eval_and_config_is_facts() -> None:
    run = jsonl.read(_MAINRUN / "mainrun.log")
    assert len(run.get("loss")) == 1883
    ev = run.get("eval_loss")
    assert len(ev) == 23 and ev.steps[:2].tolist() == [1, 89]
    assert round(float(ev.values[0]), 4) == 2.1175
    assert "lr" not in run.series and "epoch" not in run.series  # config / info events
    assert run.fact("learning_rate") == 0.01
    assert "hyperparameters_configured" in run.facts["learning_rate"].source


def test_mainrun_folder_reads_without_failing_and_loss_log_reads_its_splits() -> None:
    (run,) = load_all(_MAINRUN, checkpoints=False)
    assert len(run.get("loss")) == 1883 and len(run.get("eval_loss")) == 23
    run = jsonl.read(_MAINRUN / "loss.log")
    assert len(run.get("loss")) == 23 and len(run.get("eval_loss")) == 23
    assert round(float(run.get("eval_loss").values[0]), 4) == 2.1174


def test_event_names_that_are_not_eval_or_config_stay_records(tmp_path: Path) -> None:
    body = (
        '{"event": "training_step", "step": 1, "loss": 3.0, "lr": 0.1}\n'
        '{"event": "train_validation_metrics", "step": 2, "loss": 2.5, "lr": 0.1}\n'
    )
    (tmp_path / "metrics.log").write_text(body)
    run = jsonl.read(tmp_path / "metrics.log")
    assert run.get("loss").values.tolist() == [3.0, 2.5] and "eval_loss" not in run.series
    assert len(run.get("lr")) == 2
    # split keys are losses only in a file named for its loss
    (tmp_path / "scores.jsonl").write_text('{"step": 1, "train": 0.5, "val": 0.4}\n')
    run = jsonl.read(tmp_path / "scores.jsonl")
    assert "loss" not in run.series and "train" in run.series


# -- 3. spaCy training tables: component losses sum to the loss, scores are eval ---------


def test_spacy3_table_losses_and_scores() -> None:
    case = REAL / "no_learning_spacy3_trf_ner_score_0p00_every_eval_loss_trans_179_to_124605"
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    assert run.get("loss").steps.tolist() == [0, 200, 400]  # the cut-short 4th row: none
    assert run.get("loss").values.tolist() == [453.51, 141926.54, 44716.09]
    assert run.get("ner_loss").values.tolist() == [273.93, 17320.93, 15215.25]
    assert kind("eval_ents_f1") == "task" and is_eval("eval_ents_f1")
    assert run.get("eval_ents_f1").values.tolist() == [0.0, 0.0, 0.0]
    assert run.get("epoch").values.tolist() == [0.0, 2.0, 4.0]


def test_spacy2_table_is_read_per_iteration() -> None:
    case = REAL / "no_learning_spacy2_cli_ner_loss_always_0p000_itn0_ner_f_10p3"
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    assert run.get("loss").values.tolist() == [0.0]
    assert "sum of dep_loss + ner_loss" in run.get("loss").source
    assert run.get("eval_ner_f1").values.tolist() == [10.256]
    assert run.get("eval_ner_recall").values.tolist() == [40.0]


def test_tables_that_are_not_spacys_keep_their_names(tmp_path: Path) -> None:
    # an "E  #" table without loss columns is not spaCy's; a single-space header is still
    # segmented by its rows, a spaced one is not re-cut for a short row
    run = one_log(tmp_path, "E  #  acc\n1  10  0.5\n2  20  0.6\n")
    assert "e" in run.series and "eval_acc" not in run.series
    body = "step  train loss  val loss\n1  2.0  2.1\n2  1.5  1.9\n3  1.2\n"
    run = one_log(tmp_path, body)
    assert sorted(run.series) == ["eval_loss", "loss"]
    assert run.get("loss").values.tolist() == [2.0, 1.5]
    run = one_log(tmp_path, "Step Training Loss\n1 2.0\n2 1.5\n")
    assert run.get("loss").values.tolist() == [2.0, 1.5]


# -- 4. MXNet: a batch counter that starts over each epoch, and Train-/Validation- names --

_MX = "INFO:root:Epoch[{e}] Batch [{b}]  Speed: 5000.00 samples/sec     Train-accuracy={a}\n"


def test_mxnet_epochs_are_one_run() -> None:
    case = REAL / "no_learning_mxnet_mnist_mlp_gpu_train_acc_0p1_chance_7_epochs_cpu_0p9"
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    acc = run.get("train_accuracy")
    assert len(acc) == 19 and acc.steps[:2].tolist() == [100, 200]
    assert acc.steps[-1] == 6 * 900 + 900  # epoch x the largest batch printed + batch
    val = run.get("validation_accuracy")
    assert is_eval("validation_accuracy") and kind("validation_accuracy") == "task"
    assert val.steps.tolist() == [5400, 6300]  # after its epoch's last batch line
    assert val.values.tolist() == [0.098029, 0.098029]


def test_batch_counters_that_do_not_start_over_at_each_epoch_stay(tmp_path: Path) -> None:
    one_epoch = "".join(_MX.format(e=1, b=b, a=0.1) for b in range(1, 6))
    run = one_log(tmp_path, one_epoch)
    assert run.get("train_accuracy").steps.tolist() == [1, 2, 3, 4, 5]
    # the counter goes back inside an epoch: a restart, not epoch x batches
    body = "".join(_MX.format(e=0, b=b, a=0.1) for b in (100, 200, 300, 400))
    body += "".join(_MX.format(e=0, b=b, a=0.2) for b in (100, 200, 300, 400))
    assert len(read_log(tmp_path, body)) == 2


# -- 5. apex / fairseq loss-scale messages: fp16-overflow events and a loss_scale series --


def test_apex_overflow_lines_alone_give_the_scale_by_their_order() -> None:
    case = REAL / "fp16_instability_apex_amp_loss_scale_halved_to_1e-316_every_step_overflows"
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    assert len(run.events) == 29 and {e.kind for e in run.events} == {"fp16-overflow"}
    scale = run.get("loss_scale")
    assert scale.steps.tolist() == list(range(1, 30))
    assert scale.values[0] == 8.165126103939127e-202 and scale.values[-1] == 8.289046e-317
    assert run.fact("precision") == "fp16" and run.fact("steps_ordinal") is True


def test_fairseq_overflow_warnings_extend_the_logged_scale() -> None:
    case = (
        REAL
        / "fp16_instability_fairseq_scaling_nmt_loss_scale_0p5_to_min_crash_valid_8p30_vs_best_4p46"
    )
    (run,) = load_all(case / "log_excerpt.txt", checkpoints=False)
    over = [e for e in run.events if e.kind == "fp16-overflow"]
    assert len(over) == 12  # the issue title quoting the message is not one
    assert [e.value for e in over[:2]] == [0.25, 0.125]
    scale = run.get("loss_scale")
    assert scale.steps.tolist() == [10198, 10199]
    assert scale.values.tolist() == [0.5, 0.0001220703125]
    assert run.fact("precision") == "fp16"


def test_overflow_lines_before_the_last_logged_scale_leave_it(tmp_path: Path) -> None:
    body = (
        "| epoch 001 | loss 6.3 | num_updates 100 | loss_scale 128.0\n"
        "| WARNING: overflow detected, setting loss scale to: 64.0\n"
        "| epoch 002 | loss 6.1 | num_updates 200 | loss_scale 64.0\n"
        'it fails after "overflow detected, setting loss scale to: 0.5"\n'
    )
    run = one_log(tmp_path, body)
    assert run.get("loss_scale").values.tolist() == [128.0, 64.0]
    assert len(run.events) == 1 and run.events[0].value == 64.0


# -- 6. Keras 1: the epoch line after "Epoch 000NN: early stopping" is the next epoch's ---


def test_keras1_epoch_after_early_stopping_is_kept() -> None:
    case = REAL / (
        "healthy_keras1_kanji_cnn_adam_lr_div10_after_earlystop_val_acc_0p975_then_retrain"
        "_from_scratch_log"
    )
    runs = load_all(case / "model_training_log.txt", checkpoints=False)
    first = runs[0].get("loss")
    assert len(first) == 19 and first.steps[-2:].tolist() == [18, 19]
    assert first.values[-2:].tolist() == [0.4897, 0.4847]
    assert len(runs[1].get("eval_loss")) == 14


def test_an_unpadded_epoch_heading_still_numbers_its_line(tmp_path: Path) -> None:
    body = "Epoch 1/3\n10s - loss: 0.9\nEpoch 2/3\n10s - loss: 0.7\nEpoch 3/3\n10s - loss: 0.5\n"
    run = one_log(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3]
    # an "Epoch 2:" heading without the five-digit padding is still a heading
    body = "Epoch 1: \n10s - loss: 0.9\nEpoch 2: \n10s - loss: 0.7\n"
    assert one_log(tmp_path, body).get("loss").steps.tolist() == [1, 2]
