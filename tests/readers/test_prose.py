"""An LR stated in words next to a pasted log is the run's configured LR."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers.logs import text
from traindoc.readers.logs.prose import StatedLR

_LOG = "epoch 0\ntrain_loss:4.2177\nepoch 1\ntrain_loss:4.0946\nepoch 2\ntrain_loss:4.0842\n"


def _facts(tmp_path: Path, body: str) -> dict[str, object]:
    p = tmp_path / "paste.txt"
    p.write_text(body)
    (run,) = text.read(p)
    return {k: f.value for k, f in run.facts.items()}


def test_one_lr_in_a_sentence_is_the_learning_rate(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "The model does not learn.\nPS: the learning rate  was 1e-3.\n" + _LOG)
    assert facts["learning_rate"] == 1e-3


def test_an_lr_in_the_call_that_started_the_run(tmp_path: Path) -> None:
    body = "%time learn.fit_one_cycle(cyc_len=2, max_lr=5e-4, moms=(0.8,0.7), wd=1e-3)\n" + _LOG
    assert _facts(tmp_path, body)["learning_rate"] == 5e-4


def test_two_different_lrs_are_a_sweep_not_the_setting(tmp_path: Path) -> None:
    body = "With lr 1e-3 it diverges, with lr 1e-5 it learns slowly.\n" + _LOG
    assert "learning_rate" not in _facts(tmp_path, body)


def test_a_config_line_beats_the_prose(tmp_path: Path) -> None:
    body = "learning_rate: 0.0002\nI also tried a learning rate of 1e-4 before.\n" + _LOG
    assert _facts(tmp_path, body)["learning_rate"] == 2e-4


def test_near_misses_are_no_lr() -> None:
    s = StatedLR()
    for no, line in enumerate(
        [
            b"the lr 1000 steps later",  # a count after the word, not an LR
            b"learning rate scheduler: cosine",
            b"clr=3",  # another word that ends in lr
            b"lr_scheduler_warmup 0.1",
        ]
    ):
        s.scan(no, line)
    assert s.value() is None


def test_the_same_lr_said_twice_is_one_value() -> None:
    s = StatedLR()
    s.scan(1, b"I use lr=3e-4.")
    s.scan(9, b"(lr 0.0003 as in the paper)")
    assert s.value() == (3e-4, 1)
