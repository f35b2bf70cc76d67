"""An LR in a sentence about changing it is the fix tried (another run's LR), not the LR
this log ran at: "yeah, now it works, I change the lr to 0.001" (an mxnet issue's reply)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.test_prose import _LOG, _facts
from traindoc.readers.logs.prose import StatedLR


def _stated(line: bytes) -> float | None:
    s = StatedLR()
    s.scan(1, line)
    got = s.value()
    return None if got is None else got[0]


def test_the_lr_a_reply_changed_to_is_not_the_runs(tmp_path: Path) -> None:
    body = (
        _LOG
        + "\nMay need to change the lr?\n\nyeah, now it works, I change the lr to 0.001. Thanks\n"
    )
    assert "learning_rate" not in _facts(tmp_path, body)
    assert _stated(b"lowering the learning rate to 1e-5 helped") is None


def test_the_lr_it_ran_at_survives_the_change_sentence(tmp_path: Path) -> None:
    body = "The learning rate was 0.1. After I reduced the lr to 0.001 it learns.\n" + _LOG
    assert _facts(tmp_path, body)["learning_rate"] == 0.1


def test_near_miss_set_to_is_the_setting_and_a_verb_in_another_clause_is_not_one() -> None:
    assert _stated(b"I set lr to 0.01 and loss is nan") == 0.01
    assert _stated(b"I changed the batch size. lr to 0.02 in the config") == 0.02
    assert _stated(b"dropout 0.1, lr to 0.02") == 0.02
