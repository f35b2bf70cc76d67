"""Tesseract's lstmtraining progress lines (LSTMTrainer::PrepareLogMsg): "At iteration
learning/training/sample, mean rms=..%, delta=..%, BCER train=..%, BWER train=..%, skip
ratio=..%," (tesseract 4.0 wrote "Mean rms", "char train", "word train"), then what
happened ("New best BCER = x", "New worst char error = x wrote checkpoint."), with the
background evaluator's result glued on ("At iteration 1553, stage 0, Eval Char error
rate=267.3, Word error rate=100"). "char train" / "BCER train" are character ERROR rates
in percent (above 100 when the output has more wrong characters than the truth has), and
never an accuracy."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

_OLD = (
    "At iteration {a}/{b}/{b}, Mean rms={rms}%, delta={d}%, char train={c}%, word train={w}%, "
    "skip ratio=0%,  "
)
_NEW = (
    "At iteration {a}/{b}/{b}, mean rms={rms:.3f}%, delta={d:.3f}%, BCER train={c:.3f}%, "
    "BWER train={w:.3f}%, skip ratio=0.000%,"
)


def test_tesseract_4_char_and_word_train_are_error_rates(tmp_path: Path) -> None:
    body = (
        _OLD.format(a=5734, b=6200, rms=2.735, d=2.655, c=101.05, w=84.4)
        + "New worst char error = 101.05At iteration 1553, stage 0, Eval Char error "
        "rate=267.30769, Word error rate=100 wrote checkpoint.\n\n"
        + _OLD.format(a=5834, b=6300, rms=2.726, d=2.623, c=100.6, w=84.3)
        + "wrote checkpoint.\n\n"
        + _OLD.format(a=5934, b=6400, rms=2.716, d=2.594, c=100.95, w=84.7)
        + "wrote checkpoint.\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "train_cer") == [101.05, 100.6, 100.95]
    assert values(run, "train_wer") == [84.4, 84.3, 84.7]
    assert [int(s) for s in run.get("train_cer").steps] == [6200, 6300, 6400]
    assert values(run, "eval_cer") == [267.30769]
    assert values(run, "eval_wer") == [100.0]
    assert int(run.get("eval_cer").steps[0]) == 6200  # where it was reported
    assert run.get("train_acc") is None and run.get("train_acc_3") is None


def test_tesseract_5_bcer_bwer_lines(tmp_path: Path) -> None:
    body = ""
    for i, c in enumerate((98.123, 91.5, 80.25, 60.0)):
        body += _NEW.format(a=100 * (i + 1), b=100 * (i + 1), rms=4.5, d=19.9, c=c, w=100.0)
        body += f" New best BCER = {c:.3f} wrote checkpoint.\n"
    run = one_log(tmp_path, body)
    assert values(run, "train_cer") == [98.123, 91.5, 80.25, 60.0]
    assert values(run, "train_wer") == [100.0] * 4
    assert [int(s) for s in run.get("train_cer").steps] == [100, 200, 300, 400]


def test_near_miss_a_lone_lstmeval_result_is_read_at_its_own_iteration(tmp_path: Path) -> None:
    body = "At iteration 0, stage 0, Eval Char error rate=13.552394, Word error rate=30.028059\n"
    run = one_log(tmp_path, body)
    assert values(run, "eval_cer") == [13.552394]
    assert values(run, "eval_wer") == [30.028059]
    assert run.get("train_cer") is None
