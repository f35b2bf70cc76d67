"""Training loops that number their lines with a short counter: "it" (a StyleGAN latent
projector's `print("it: {}, loss: {:.3f}, reg: {:.7f}, dist: {:.7f}".format(...))`, an
ImageNet loop's `print("It: {}, Loss: {:.4f}, ...")`) and "#N" (an AlphaZero-style
trainer's `print("#{} loss: {}, acc: {}".format(stepNum, loss, accuracy))`, a segmenter's
`print("#{} loss:{}".format(e, tloss))`). The counter is the step; "#N" is no comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.readers._base import ReadError


def test_it_colon_counter_is_the_step(tmp_path: Path) -> None:
    body = "".join(
        f"it: {i}, loss: {0.9 - i / 1000:.3f}, reg: {1e-6:.7f}, dist: {0.1234567:.7f}\n"
        for i in range(0, 60, 10)
    )
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [0, 10, 20, 30, 40, 50]
    assert values(run, "loss") == [0.9, 0.89, 0.88, 0.87, 0.86, 0.85]


def test_capitalised_it_counter_after_a_logger_prefix(tmp_path: Path) -> None:
    body = "".join(f"[INFO] It: {i}, Loss: {6.9 - i / 1000:.4f}\n" for i in range(100, 500, 100))
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [100, 200, 300, 400]
    assert values(run, "loss")[0] == 6.8


def test_hash_counter_opens_a_record_not_a_comment(tmp_path: Path) -> None:
    body = "".join(f"#{s} loss: {1.5 - s / 1000}, acc: {0.3 + s / 2000}\n" for s in (0, 100, 200))
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [0, 100, 200]
    assert values(run, "loss") == [1.5, 1.4, 1.3]
    glued = "".join(f"#{e} loss:{0.5 / (e + 1)}\n" for e in range(4))
    assert values(one_log(tmp_path, glued), "loss") == [0.5, 0.25, 0.5 / 3, 0.125]


def test_near_miss_a_comment_and_it_in_a_sentence_name_no_counter(tmp_path: Path) -> None:
    with pytest.raises(ReadError):  # a commented-out record is code, not a record
        one_log(tmp_path, "".join(f"# {s} loss: 0.5\n" for s in range(4)))
    body = "I think it: 5 times, loss: 2.3\n" + "".join(
        f"step {s}, loss: {2.0 - s / 10:.2f}\n" for s in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert 5 not in [int(s) for s in run.get("loss").steps]
