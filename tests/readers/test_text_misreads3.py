"""Text-reader misreads found on real cases (tests/real), third batch: a Keras model card's
optimizer dict (a setting, not a one-point LR run), ESPnet2's `optim0_lr0` (the LR of
optimizer 0, param group 0) and its "Nepoch results:" summary line (not a window record).
Each with a case the reader must read, one it must not, and a near miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log as _one
from tests.readers.helpers import read_log
from traindoc.readers.logs.profiles import keras_optimizer

# -- 1. a Keras model card's optimizer dict is the run's settings ---------------------------
_TABLE = (
    "### Training results\n\n"
    "| Train Loss | Validation Loss | Epoch |\n"
    "|:----------:|:---------------:|:-----:|\n"
    + "".join(
        f"| {3.5 - e / 2:.4f}     | {2.4 + e / 3:.4f}          | {e}     |\n" for e in range(4)
    )
)


def _card(optimizer: str) -> str:
    return (
        "It achieves the following results on the evaluation set:\n"
        "- Train Loss: 2.0000\n- Validation Loss: 3.4000\n- Epoch: 3\n\n"
        "The following hyperparameters were used during training:\n"
        f"- optimizer: {optimizer}\n- training_precision: float32\n\n" + _TABLE
    )


def test_keras_optimizer_dict_is_config_and_the_card_one_run(tmp_path: Path) -> None:
    opt = (
        "{'name': 'AdamWeightDecay', 'learning_rate': 0.001, 'decay': 0.0, 'beta_1': 0.9, "
        "'beta_2': 0.999, 'epsilon': 1e-07, 'amsgrad': False, 'weight_decay_rate': 0.01}"
    )
    run = _one(tmp_path, _card(opt), "README.md")
    assert "lr" not in run.series
    assert run.get("loss").steps.tolist() == [0, 1, 2, 3]
    assert run.get("eval_loss").values[0] == pytest.approx(2.4)
    assert run.fact("learning_rate") == pytest.approx(0.001)
    assert run.fact("optim") == "AdamWeightDecay"
    assert run.fact("weight_decay") == pytest.approx(0.01)


def test_keras_schedule_and_loss_scale_wrapper_give_the_initial_lr() -> None:
    raw = (
        b"{'inner_optimizer': {'class_name': 'AdamWeightDecay', 'config': {'name': "
        b"'AdamWeightDecay', 'learning_rate': {'class_name': 'PolynomialDecay', 'config': "
        b"{'initial_learning_rate': 5.6e-05, 'decay_steps': 6000, 'name': None}}, "
        b"'weight_decay_rate': 0.01}}, 'dynamic': True, 'initial_scale': 32768.0}"
    )
    got = dict(keras_optimizer(raw))
    assert got == {"optimizer": "AdamWeightDecay", "learning_rate": 5.6e-05, "weight_decay": 0.01}


def test_hf_card_optimizer_in_words_is_its_name_only(tmp_path: Path) -> None:
    # HF Trainer's card names the optimizer in words, with no dict: its name is the optim
    # fact (betas and epsilon are not read), and the card is still one run
    run = _one(tmp_path, _card("Adam with betas=(0.9,0.999) and epsilon=1e-08"), "README.md")
    assert "lr" not in run.series
    assert run.get("loss").steps.tolist() == [0, 1, 2, 3]
    assert run.fact("optim") == "adam"
    assert run.fact("learning_rate") is None


def test_an_optimizer_dict_that_is_not_a_literal_gives_no_name() -> None:
    assert keras_optimizer(b"{'name': <Adam object at 0x7f>, 'learning_rate': 0.1}") == []


def test_a_logged_dict_with_a_learning_rate_is_still_a_record(tmp_path: Path) -> None:
    # must not: HF's logged dicts carry the LR too; only the optimizer's own dict is config
    body = "".join(
        f"{{'loss': {2.0 - k / 10}, 'learning_rate': {1e-4 * (k + 1)}, 'epoch': {k / 4}}}\n"
        for k in range(4)
    )
    run = _one(tmp_path, body)
    assert len(run.get("lr")) == 4
    assert run.fact("optim") is None


# -- 2. ESPnet2's optim0_lr0 is the LR --------------------------------------------------------
def _window(ep: int, a: int, b: int, loss: float, lr: str, gn: float = 50.0) -> str:
    return (
        f"(trainer:737) INFO: {ep}epoch:train:{a}-{b}batch: iter_time=1.5e-04, "
        f"forward_time=0.142, loss={loss}, backward_time=0.253, grad_norm={gn}, "
        f"clip=100.000, optim_step_time=0.046, {lr}, train_time=0.503\n"
    )


def test_espnet_optim0_lr0_is_the_lr(tmp_path: Path) -> None:
    body = "".join(
        _window(1, k * 1000 + 1, (k + 1) * 1000, 250.0 - 50 * k, f"optim0_lr0={1.3e-4 * (k + 1)}")
        for k in range(3)
    )
    run = _one(tmp_path, body)
    assert run.get("lr").values.tolist() == pytest.approx([1.3e-4, 2.6e-4, 3.9e-4])
    assert "optim0_lr0" not in run.series


def test_espnet_other_param_groups_are_not_the_lr(tmp_path: Path) -> None:
    # near miss: group 1 of optimizer 0, and optimizer 1 (a GAN's discriminator), keep
    # their own names; group 0 alone is the LR
    body = "".join(
        _window(1, k + 1, k + 1, 9.0 - k, f"optim0_lr1={1e-3 * (k + 1)}, optim1_lr0=2e-4")
        for k in range(3)
    )
    run = _one(tmp_path, body)
    assert "lr" not in run.series
    assert len(run.get("optim0_lr1")) == 3
    assert len(run.get("optim1_lr0")) == 3


# -- 3. ESPnet2's epoch summary is not a window record ----------------------------------------
_SUMMARY = (
    "(trainer:343) INFO: 1epoch results: [train] iter_time=2.794e-04, forward_time=0.142, "
    "loss=141.051, backward_time=0.253, grad_norm=46.485, clip=100.000, "
    "optim_step_time=0.046, optim0_lr0=4.0e-04, train_time=0.503"
)
_WINDOWS = "".join(
    _window(1, k * 1000 + 1, (k + 1) * 1000, 250.0 - 80 * k, f"optim0_lr0={1e-4 * (k + 1)}")
    for k in range(3)
)


def test_espnet_epoch_summary_is_not_a_window_point(tmp_path: Path) -> None:
    # the stored #5633 paste: the summary is cut before its [valid] part
    run = _one(tmp_path, _WINDOWS + _SUMMARY + "\n")
    assert run.get("loss").values.tolist() == [250.0, 170.0, 90.0]
    assert len(run.get("grad_norm")) == 3
    assert "eval_loss" not in run.series
    assert run.inputs[0].lines_not_understood == 0


def test_espnet_epoch_summary_valid_part_is_the_eval(tmp_path: Path) -> None:
    # a whole summary line: its [valid] section is the epoch's validation, read as an
    # eval record; its [train] means and [att_plot] timings are not
    full = (
        _SUMMARY + ", time=16 minutes and 42.3 seconds, total_count=3000, [valid] "
        "loss_att=70.2, acc=0.65, loss=73.2, time=1 minute and 2.1 seconds, "
        "total_count=300, [att_plot] time=10.2 seconds, total_count=0\n"
    )
    run = _one(tmp_path, _WINDOWS + full + _window(2, 1, 1000, 60.0, "optim0_lr0=5e-4"))
    assert run.get("loss").values.tolist() == [250.0, 170.0, 90.0, 60.0]
    assert run.get("eval_loss").values.tolist() == [73.2]
    assert run.get("eval_acc").values.tolist() == [0.65]
    assert len(run.get("grad_norm")) == 4
    assert run.get("eval_loss").steps[0] == run.get("loss").steps[2]  # at the epoch's end


def test_a_results_line_of_another_trainer_is_unchanged(tmp_path: Path) -> None:
    # near miss: "results:" without ESPnet's "Nepoch results: [train]" is read as before
    body = "".join(
        f"epoch {e} results: loss={3.0 - e / 2}, acc={0.5 + e / 10}\n" for e in (1, 2, 3)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.5, 2.0, 1.5]


def test_a_value_named_before_at_step_is_that_metric(tmp_path: Path) -> None:
    # TensorFlow tutorials print "Average loss at step 2000 : 4.37" (word2vec) and
    # "Loss at step 100 : nan": the words before `at step` name the value
    body = "Starting Training\n" + "".join(
        f"Average loss at step {s} : {v}\n" for s, v in ((2000, 4.37), (4000, 3.9), (6000, 3.71))
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [2000, 4000, 6000]
    assert run.get("loss").values.tolist() == [4.37, 3.9, 3.71]
    nan = _one(tmp_path, "".join(f"loss at iteration {i}: nan\n" for i in (10, 20, 30)))
    assert len(nan.get("loss")) == 3


def test_a_message_at_a_step_is_not_a_metric(tmp_path: Path) -> None:
    # near miss: "Saved checkpoint at step 500: 3" names no metric, and a bare
    # "at step N: v" has no name to give the value
    body = "".join(
        f"step {s} loss: {v}\nSaved checkpoint at step {s}: 1\n"
        for s, v in ((1, 2.0), (2, 1.8), (3, 1.7))
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.0, 1.8, 1.7]
    assert not any("checkpoint" in name for name in run.series)


def test_a_launch_command_with_single_dash_flags_is_the_runs_config(tmp_path: Path) -> None:
    # OpenNMT-py / Lua Torch scripts take `-optim adam -learning_rate 1.0`: on a launch
    # command they are settings (the optimizer decides what LR is too high), not a record
    body = (
        "+ python train.py -data d -gpuid 0 -brnn -layers 2 -batch_size 80 -epochs 20 "
        "-optim adam -dropout 0.2 -learning_rate 1.0\n"
        + "".join(
            f"Epoch  1,  {s}/21692; acc:   0.4; ppl: {p}; 22 s elapsed\n"
            for s, p in ((50, 90.0), (100, 80.0), (150, 70.0))
        )
    )
    run = _one(tmp_path, body)
    assert run.fact("optim") == "adam" and run.fact("learning_rate") == 1.0
    assert run.fact("per_device_batch") == 80
    assert "layers" not in run.series and "gpuid" not in run.series


def test_single_dash_words_outside_a_launch_command_are_not_flags(tmp_path: Path) -> None:
    # near miss: "-optim adam" in prose (no `python x.py`) stays prose
    body = "I tried -optim adam as well\n" + "".join(
        f"step {s} loss: {v}\n" for s, v in ((1, 2.0), (2, 1.8), (3, 1.7))
    )
    assert _one(tmp_path, body).fact("optim") is None


def test_a_perplexity_only_log_has_its_loss_as_ln_ppl(tmp_path: Path) -> None:
    # OpenNMT prints `ppl:` and no loss; the loss is its log (and the task a token CE)
    from traindoc.readers.derived import finalize

    body = "".join(
        f"Epoch  1,  {s}/21692; acc:  30.1; ppl: {p}; 22 s elapsed\n"
        for s, p in ((50, 148.41), (100, 54.6), (150, 20.09))
    )
    run = finalize(_one(tmp_path, body))
    assert [round(v, 2) for v in run.get("loss").values] == [5.0, 4.0, 3.0]
    assert run.get("loss").source.startswith("derived: ln(ppl)")
    assert run.fact("task") == "lm"
    # near miss: a log that prints its loss keeps it (the perplexity is not used)
    both = "".join(
        f"step {s} loss: {v} ppl: {p}\n"
        for s, v, p in ((1, 2.5, 12.2), (2, 2.0, 7.4), (3, 1.9, 6.7))
    )
    kept = finalize(_one(tmp_path, both))
    assert kept.get("loss").values.tolist() == [2.5, 2.0, 1.9]


_KERAS_BARS = "".join(
    f"12299/12300 [============================>.] - ETA: 0s - loss: {tr}\n"
    f"12300/12300 [==============================] - 2773s 225ms/step - loss: {tr} - val_loss: {va}\n"
    for tr, va in ((1.6080, 1.5564), (1.5307, 1.5285), (1.4806, 1.5510), (1.4509, 1.5861))
)


def test_keras_bars_without_epoch_lines_that_restart_after_finishing_are_epochs(
    tmp_path: Path,
) -> None:
    # Keras's bar counts samples within an epoch; with no "Epoch 3/10" lines, a
    # counter that starts over right after a finished bar is the next epoch of the
    # same run (the yolov2 paste was read as 3 runs)
    run = _one(tmp_path, _KERAS_BARS)
    assert run.get("eval_loss").values.tolist() == [1.5564, 1.5285, 1.551, 1.5861]
    assert run.get("eval_loss").steps.tolist() == [12300, 24600, 36900, 49200]


def test_a_counter_that_starts_over_before_finishing_is_still_a_new_run(tmp_path: Path) -> None:
    # near miss: a restart that cuts the bar short (no finished line before it)
    body = "".join(f"{k}/100 [====>....] - ETA: 9s - loss: {3 - k / 100}\n" for k in (10, 20, 30))
    assert len(read_log(tmp_path, body + body)) == 2


def test_hf_dicts_above_one_bar_keep_their_own_steps_by_epoch(tmp_path: Path) -> None:
    # two dicts, then one tqdm bar at 16/376: the bar numbers the last; the first sits
    # at its share of the epoch (0.02 / 0.04 of 16), not on top of it
    body = (
        "{'loss': 1.7328, 'grad_norm': 1.96e-05, 'learning_rate': 9.9e-06, 'epoch': 0.02}\n"
        "{'loss': 0.0, 'grad_norm': 3.9e-06, 'learning_rate': 9.7e-06, 'epoch': 0.04}\n"
        "  4%|####9          | 16/376 [17:36<6:36:00, 66.00s/it]\n"
    )
    loss = _one(tmp_path, body).get("loss")
    assert loss.steps.tolist() == [8, 16] and loss.values.tolist() == [1.7328, 0.0]


def test_dicts_above_a_bar_without_an_epoch_still_share_its_step(tmp_path: Path) -> None:
    # near miss: no epoch to place the first by, so nothing is invented
    body = (
        "{'loss': 1.7328, 'learning_rate': 9.9e-06}\n"
        "{'loss': 1.5, 'learning_rate': 9.7e-06}\n"
        "  4%|####9          | 16/376 [17:36<6:36:00, 66.00s/it]\n"
    )
    assert len(_one(tmp_path, body).get("loss")) == 1


def test_a_dict_no_bar_follows_takes_the_bar_drawn_before_it(tmp_path: Path) -> None:
    # HF draws the bar to step 70 and then prints step 70's dict; the paste ends there.
    # The dict before the first numbered one sits one logging interval back (50)
    bars = "".join(
        f"  1%|          | {n}/4967 [11:52<14:16:32, 10.47s/it]\n" for n in range(60, 71)
    )
    body = (
        "{'loss': 14.6804, 'grad_norm': 86.9, 'learning_rate': 3.3e-06, 'epoch': 0.01}\n"
        "{'loss': 14.3597, 'grad_norm': 90.6, 'learning_rate': 4.0e-06, 'epoch': 0.01}\n"
        + bars
        + "{'loss': 8195.7664, 'grad_norm': nan, 'learning_rate': 4.7e-06, 'epoch': 0.01}\n"
    )
    loss = _one(tmp_path, body).get("loss")
    assert loss.steps.tolist() == [50, 60, 70]
    assert loss.values.tolist() == [14.6804, 14.3597, 8195.7664]


def test_a_bar_before_the_first_dict_numbers_nothing(tmp_path: Path) -> None:
    # near miss: a 0% bar drawn before any step is not the first dict's step
    body = (
        "  0%|          | 0/4967 [00:00<?, ?it/s]\n"
        "{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.0}\n"
        "{'loss': 2.0, 'learning_rate': 1e-05, 'epoch': 0.0}\n"
    )
    assert 0 not in _one(tmp_path, body).get("loss").steps.tolist()
