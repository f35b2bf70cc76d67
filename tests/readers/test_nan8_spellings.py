"""C99's NaN with its parenthesised n-char-sequence, read as NaN (helper nan8): the Microsoft
runtime since VS 2015 prints a NaN as `-nan(ind)` (indeterminate) or `nan(snan)`, so darknet's
Windows builds log `-nan(ind), -nan(ind) avg loss`; a bare `(ind)` after `-nan` is part of the
value, not a parenthesised running average. Lines as the frameworks' code formats them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log
from traindoc.readers.logs.numbers import nonfinite_text, parse, to_num


def test_c99_nan_char_sequence_parses_as_nan() -> None:
    for raw in ("-nan(ind)", "nan(ind)", "nan(snan)", "-nan(snan)", "NaN(0)", "nan()"):
        assert math.isnan(parse(raw)), raw
        assert math.isnan(to_num(raw.encode())), raw
        assert nonfinite_text(raw), raw
    # near misses: a name, and a number with a parenthesised average, are not NaN spellings
    assert parse("nanny(ind)") is None
    assert parse("1.5(ind)") is None


# darknet's per-iteration line (detector.c: "%ld: %f, %f avg loss, %f rate, %lf seconds, %d
# images") as a VS 2015+ build prints a NaN
_DARKNET_UCRT = (
    " 1001: 5.123456, 5.234567 avg loss, 0.001000 rate, 3.456000 seconds, 64064 images\n"
    " 1002: 5.012345, 5.212345 avg loss, 0.001000 rate, 3.456000 seconds, 64128 images\n"
    " 1003: -nan(ind), -nan(ind) avg loss, 0.001000 rate, 3.456000 seconds, 64192 images\n"
    " 1004: -nan(ind), -nan(ind) avg loss, 0.001000 rate, 3.456000 seconds, 64256 images\n"
)


def test_darknet_ucrt_nan_ind_keeps_its_lines(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DARKNET_UCRT)
    loss = run.get("loss")
    assert list(loss.steps) == [1001, 1002, 1003, 1004]
    assert np.isfinite(loss.values[:2]).all() and np.isnan(loss.values[2:]).all()


# a key/value console line with the UCRT's NaN and a running average after it
_KV_UCRT = "".join(
    f"Epoch: [0][{i * 10}/500]\tLoss {v} (1.9000)\tlr 0.001\n"
    for i, v in enumerate(("2.1000", "1.9500", "-nan(ind)", "-nan(ind)"), 1)
)


def test_key_value_nan_ind_is_nan_not_its_average(tmp_path: Path) -> None:
    loss = one_log(tmp_path, _KV_UCRT).get("loss")
    assert loss is not None and len(loss.values) == 4
    assert np.isnan(loss.values[2:]).all()


# Lightning's EarlyStopping(check_finite=True): early_stopping.py's message, as printed
_LIGHTNING_STOP = (
    "Epoch 0: 100%|##########| 50/50 [00:05<00:00, 9.71it/s, v_num=3, train_loss=2.10]\n"
    "Epoch 1: 100%|##########| 50/50 [00:05<00:00, 9.70it/s, v_num=3, train_loss=1.80]\n"
    "Epoch 2: 100%|##########| 50/50 [00:05<00:00, 9.72it/s, v_num=3, train_loss=1.60]\n"
    "Monitored metric val_loss = nan is not finite. Previous best value was 1.652. "
    "Signaling Trainer to stop.\n"
)


def test_lightning_early_stopping_nonfinite_loss_is_an_event(tmp_path: Path) -> None:
    run = one_log(tmp_path, _LIGHTNING_STOP)
    assert "nonfinite-loss" in [e.kind for e in run.events]


def test_lightning_early_stopping_on_accuracy_or_code_is_no_loss_event(tmp_path: Path) -> None:
    acc = _LIGHTNING_STOP.replace("val_loss = nan", "val_acc = nan")
    assert "nonfinite-loss" not in [e.kind for e in one_log(tmp_path, acc).events]
    code = _LIGHTNING_STOP.replace(
        "val_loss = nan is not finite. Previous best value was 1.652.",
        "{self.monitor} = {current} is not finite.",
    )
    assert "nonfinite-loss" not in [e.kind for e in one_log(tmp_path, code).events]


# EESEN's train-ctc-parallel report, verbatim from srvk/eesen#60 (the NaN line as
# yajiemiao/eesen#2 prints it); Obj is the CTC log-likelihood, so the loss is -Obj
_EESEN = (
    "VLOG[1] (train-ctc-parallel:EvalParallel():ctc-loss.cc:182) After 330265 sequences "
    "(407.316Hr): Obj(log[Pzx]) = -32.8957   TokenAcc = 67.0366%\n"
    "VLOG[1] (train-ctc-parallel:EvalParallel():ctc-loss.cc:182) After 340269 sequences "
    "(420.524Hr): Obj(log[Pzx]) = -36.0733   TokenAcc = 66.5803%\n"
    "VLOG[1] (train-ctc-parallel:EvalParallel():ctc-loss.cc:182) After 350272 sequences "
    "(433.553Hr): Obj(log[Pzx]) = -3.06908e+29   TokenAcc = 13.6926%\n"
    "VLOG[1](train-ctc-parallel:EvalParallel%28%29:ctc-loss.cc:183) After 360280 sequences "
    "(446.0Hr): Obj(log[Pzx]) = nan   TokenAcc = -260%\n"
)


def test_eesen_ctc_objective_is_the_negative_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _EESEN)
    loss = run.get("loss")
    assert list(loss.steps) == [330265, 340269, 350272, 360280]
    assert loss.values[0] == 32.8957 and loss.values[2] == 3.06908e29
    assert math.isnan(loss.values[3])
    acc = run.get("accuracy")
    assert abs(acc.values[0] - 0.670366) < 1e-9
