"""The trainers' own diagnoses, read by one table (readers/logs/events.py EVENTS): each
message as the trainer's code prints it becomes one event kind the rules read as evidence
(helper msgs28). Quoted source, a user's prose and a framework's unrelated warning do not.
The texts are those of the printing code (cited in events.py beside each pattern)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import load_log
from traindoc.readers.logs.events import find

# (message as printed, the event kind it is)
_SAID = [
    # a non-finite loss, said by the trainer
    ("Loss is nan, stopping training", "nonfinite-loss"),  # DETR / timm / MAE / DINO
    ("Loss is inf, stopping training {'loss_ce': tensor(inf)}", "nonfinite-loss"),
    ("Batch 6: Invalid loss, terminating training", "nonfinite-loss"),  # Keras TerminateOnNaN
    ("[NeMo W 2021-01-01 nemo_logging:349] WARNING: Loss is NaN", "nonfinite-loss"),
    ("loss become infinite or NaN!", "nonfinite-loss"),  # mmengine CheckInvalidLossHook
    (
        "WARNING: non-finite loss, ending training  tensor([nan, nan, nan, nan], device='cuda:0')",
        "nonfinite-loss",
    ),  # YOLOv3 / v5
    ("ValueError: The loss returned in `training_step` is nan.", "nonfinite-loss"),  # Lightning
    (
        "Monitored metric val_loss = nan is not finite. Previous best value was 0.412. "
        "Signaling Trainer to stop.",
        "nonfinite-loss",
    ),
    ("ValueError: Detected nan and/or inf values in `c_d1.bias`.", "nonfinite-loss"),
    # a non-finite gradient
    (
        "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.",
        "nonfinite-gradients",
    ),
    (
        "Rank 0: found NaN in local grad norm in backward pass before data-parallel "
        "communication collective",
        "nonfinite-gradients",
    ),  # Megatron-LM
    ("FloatingPointError: gradients are Nan/Inf", "nonfinite-gradients"),  # fairseq
    # a loss scaler's skipped step, and ESPnet's skip on a NaN grad norm (fp32 too)
    (
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
        "fp16-overflow",
    ),
    (
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
        "fp16-overflow",
    ),
    (
        "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 64.0",
        "fp16-overflow",
    ),  # fairseq 0.9+
    ("The grad norm is nan. Skipping updating the model.", "skipped-update"),  # ESPnet2
    (
        "detected inf or nan values in gradients. not updating model parameters",
        "skipped-update",
    ),  # the on_after_backward recipe of many Lightning repos
    ("Detected inf or nan values in gradients. Not updating model parameters.", "skipped-update"),
    ("Check overflow, downscale loss scale to 256.0", "fp16-overflow"),  # mmcv Fp16OptimizerHook
    (
        "[2021-03-01 10:00:00] [W] Seen NaN/Inf in gradient, skipping update, reducing "
        "cost-scaling factor to 2048",
        "fp16-overflow",
    ),  # Marian
    # the scaler at its floor
    (
        "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
        "loss-scale-minimum",
    ),  # DeepSpeed
    (
        "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably "
        "exploding. Try lowering the learning rate, using gradient clipping or increasing "
        "the batch size.",
        "loss-scale-minimum",
    ),  # fairseq
    # the trainer's own blow-up guard
    (
        "Aboring, cost seems to be exploding. Run gradcheck? Lower the learning rate?",
        "loss-exploding",
    ),  # neuraltalk driver.py (its typo)
    ("WARNING! COST SEEMS TO BE EXPLODING. ABORTING.", "loss-exploding"),  # neuraltalk (Matlab)
    ("loss seems to be exploding, quitting.", "loss-exploding"),  # neuraltalk2 / densecap
    ("loss is exploding, aborting.", "loss-exploding"),  # char-rnn
    ("Loss exploded to 412.27264 at step 2140!", "loss-exploding"),  # keithito tacotron
    ("Loss exploded to nan at step 113796!", "nonfinite-loss"),  # ... when it went NaN
    (
        "ERROR: LOSS EXPLOSION (>1e8) ! PLEASE SET PROPER PARAMETERS AND STRUCTURE! EXIT....",
        "loss-exploding",
    ),  # NCRF++
    # an epoch with no batch at all
    (
        "There seems not to be a single sample in your epoch_iterator, stopping training at "
        "step 0! This is expected if you're using an IterableDataset and set num_steps (100) "
        "higher than the number of available samples.",
        "empty-epoch",
    ),  # transformers Trainer
]


@pytest.mark.parametrize(("line", "kind"), _SAID, ids=[k + ":" + t[:30] for t, k in _SAID])
def test_a_trainers_message_is_its_event(line: str, kind: str) -> None:
    got = find(f"{line}\n".encode(), 1, Path("x.log"))
    assert [e.kind for e in got] == [kind]
    assert got[0].line == 1 and got[0].text == line.strip()[:300]


# Lines that only look like one: the code that prints a message (a pasted traceback or
# script), a user's own words, and warnings about something else.
_NOT_SAID = [
    "    print('loss seems to be exploding, quitting.')",
    "      print 'Aboring, cost seems to be exploding. Run gradcheck? Lower the learning rate?'",
    "        self:warn('loss is exploding, aborting.')",
    "        log('Loss exploded to %.05f at step %d!' % (loss, step), slack=True)",
    "            print(f'detected inf or nan values in gradients. not updating model parameters')",
    '                f"detected inf or nan values in gradients. not updating model parameters"',
    "After epoch 3 my loss is exploding and I do not know why",
    '"There seems not to be a single sample in your epoch_iterator, stopping training at step"',
    # tensorboardX's warning on any logged scalar (a healthy DOPE run prints it): no loss named
    "Warning: NaN or Inf found in input tensor.",
    'raise FloatingPointError("Loss became infinite or NaN at iteration={}!".format(it))',
]


@pytest.mark.parametrize("line", _NOT_SAID, ids=[t[:30] for t in _NOT_SAID])
def test_lookalikes_are_no_event(line: str) -> None:
    assert find(f"{line}\n".encode(), 1, Path("x.log")) == []


def test_scale_and_empty_epoch_values() -> None:
    """The value an event carries: the scale a skip set, the step an empty epoch stopped at."""
    (skip,) = find(
        b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4, reducing to 2\n",
        1,
        Path("x"),
    )
    assert skip.value == 2.0
    (mm,) = find(
        b"2021-05-01 10:00:00,000 - mmdet - WARNING - Check overflow, downscale loss scale to 256.0\n",
        1,
        Path("x"),
    )
    assert mm.kind == "fp16-overflow" and mm.value == 256.0
    body = b"There seems not to be a single sample in your epoch_iterator, stopping training at step 300!\n"
    (empty,) = find(body, 1, Path("x"))
    assert empty.kind == "empty-epoch" and empty.value == 300.0


# neuraltalk's driver.py prints its data term and its L2 term, then aborts (issue paste)
_NEURALTALK = (
    "253/15000 batch done in 5.037s. at epoch 0.84. loss cost = 37.447347, reg cost = 0.000001, "
    "ppl2 = 26.10 (smooth 48.09)\n"
    "254/15000 batch done in 5.082s. at epoch 0.85. loss cost = 39.408169, reg cost = 0.000001, "
    "ppl2 = 29.19 (smooth 47.91)\n"
    "255/15000 batch done in 4.914s. at epoch 0.85. loss cost = 140.730310, reg cost = 0.000001, "
    "ppl2 = 237360.65 (smooth 2421.03)\n"
    "Aboring, cost seems to be exploding. Run gradcheck? Lower the learning rate?\n"
)


def test_neuraltalk_reg_cost_is_a_regulariser_and_the_abort_is_placed(tmp_path: Path) -> None:
    run = load_log(tmp_path, _NEURALTALK)
    # the L2 term keeps its name (a bare "cost" would be read as a loss of its own)
    assert "reg_cost" in run.series and "cost" not in run.series
    loss = run.get("loss")
    assert loss is not None and list(loss.steps) == [253, 254, 255]
    assert np.allclose(loss.values, [37.447348, 39.40817, 140.730311])
    (abort,) = [e for e in run.events if e.kind == "loss-exploding"]
    assert abort.step == 255 and abort.line == 4


def test_a_traceback_on_one_line_quotes_the_raise_then_says_it() -> None:
    """A paste that lost its newlines: the raise's quoted message is code, the error after
    its closing quote is the trainer's word (OpenNMT-tf's "Model diverged with loss = NaN.")."""
    line = (
        'File "training.py", line 269, in _steps    raise RuntimeError("Model diverged with '
        'loss = NaN.")RuntimeError: Model diverged with loss = NaN.\n'
    )
    got = find(line.encode(), 1, Path("x.log"))
    assert [e.kind for e in got] == ["nonfinite-loss"]


# keithito's tacotron: the step lines, then the trainer's message naming its own step
_TACOTRON = (
    "".join(
        f"Step {s}  [0.880 sec/step, loss={v}, avg_loss=0.5]\n"
        for s, v in ((2137, "0.41"), (2138, "0.43"), (2139, "7.9"))
    )
    + "Loss exploded to 412.27264 at step 2140!\nExiting due to exception: Loss Exploded\n"
)


def test_tacotron_loss_exploded_is_at_the_step_it_names(tmp_path: Path) -> None:
    run = load_log(tmp_path, _TACOTRON)
    (said,) = [e for e in run.events if e.kind == "loss-exploding"]
    assert said.step == 2140 and said.value == 412.27264 and said.line == 4


# ------------------------------------------------- what follows a loss scaler's walk-down

_WALK = "".join(
    f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {2.0**k}\n"
    for k in range(15, -3, -1)
)


@pytest.mark.parametrize(
    ("after", "expect"),
    [
        # the program's own result lines, uncut: it went on past the last halving
        ("MSE loss = 8.86e+00\ny = 4.94e-04 + 8.57e-01 x\nLS model: MSE loss = 8.82e+00\n", 3),
        ("", 0),  # the log ends in the halvings
        ("[... excerpt gap ...]\nfinal loss 0.5\nstep 9 done\nstep 10 done\n", 0),  # cut
        ("Traceback (most recent call last):\nZeroDivisionError: float division\n3\n", 0),
        ("loss = nan at step 40\nstep 41\nstep 42\n", 0),  # a value gone non-finite
        ("Any idea why the loss scale keeps going down?\n", 0),  # the user's words
        ("## Environment\n- PyTorch 1.4\n- CUDA 10.1\n* GPU: 2080 Ti\n", 0),  # the user's notes
    ],
)
def test_lines_after_the_scaler_walk_down(tmp_path: Path, after: str, expect: int) -> None:
    run = load_log(tmp_path, _WALK + after)
    assert run.fact("lines_after_overflow") == expect
