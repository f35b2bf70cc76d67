"""Two LRs in a paste's prose, one said to work: the other is the pasted run's. A user
pastes the run that fails and names the LR that works as the contrast ("when I use
lr = 0.001 there is no problem; but lr = 0.01 ... the train loss increases")."""

from __future__ import annotations

from pathlib import Path

from tests.readers.test_prose import _LOG, _facts
from traindoc.readers.logs.prose import StatedLR


def _stated(*lines: bytes) -> float | None:
    s = StatedLR()
    for no, line in enumerate(lines):
        s.scan(no, line)
    got = s.value()
    return None if got is None else got[0]


def test_the_lr_said_to_work_is_the_contrast_the_other_is_the_runs(tmp_path: Path) -> None:
    body = (
        "when I use lr = 0.001 in my model, there is no problem ; but lr = 0.01 or 0.1 , "
        "the train loss decrease first and then increase . What is wrong\n" + _LOG
    )
    assert _facts(tmp_path, body)["learning_rate"] == 0.01
    assert _stated(b"lr 1e-4 works fine but lr 1e-3 gives nan") == 1e-3
    # the contrast in its own sentence, on another line
    assert _stated(b"My lr is 3e-4 and the loss explodes.", b"With lr 1e-4 it was fine.") == 3e-4


def test_a_sweep_with_no_lr_said_to_work_stays_unread(tmp_path: Path) -> None:
    body = "With lr 1e-3 it diverges, with lr 1e-5 it learns slowly.\n" + _LOG
    assert "learning_rate" not in _facts(tmp_path, body)
    # two said to work, or every one: no failing run is singled out
    assert _stated(b"lr 1e-4 works, lr 3e-4 works too") is None


def test_near_miss_a_negated_work_is_a_failure_not_the_contrast() -> None:
    assert _stated(b"lr=3e-4 does not work, lr 1e-4 neither") is None
    # the negated one failed; the other, said to be fine, is the contrast
    assert _stated(b"lr 1e-4 didn't work, lr 1e-3 is fine") == 1e-4
    # "works" in the next clause (after "but") belongs to that clause's value
    assert _stated(b"lr 0.1 explodes but 0.01 works") == 0.1


def test_one_lr_said_to_work_is_still_the_runs() -> None:
    assert _stated(b"lr 1e-4 works fine on dataset A") == 1e-4
