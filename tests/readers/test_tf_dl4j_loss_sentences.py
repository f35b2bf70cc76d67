"""Sentence loss lines of classic tutorials (readers34): TensorFlow's MNIST scripts and
DL4J's ScoreIterationListener, on lines as they print them, with a near miss."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values


def test_tf_after_training_steps_sentence_is_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"After {i * 1000 + 1} training step(s), loss on training batch is {3.0 / (i + 1):g}.\n"
        for i in range(6)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss")[:2] == [3.0, 1.5]
    assert [int(s) for s in run.get("loss").steps] == [1, 1001, 2001, 3001, 4001, 5001]


def test_dl4j_score_at_iteration_is_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"10:00:{i:02d}.123 [main] INFO  o.d.o.l.ScoreIterationListener - "
        f"Score at iteration {i * 10} is {0.5 + i!r}\n"
        for i in range(6)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    assert [int(s) for s in run.get("loss").steps] == [0, 10, 20, 30, 40, 50]


def test_near_miss_score_sentence_in_prose_is_no_record(tmp_path: Path) -> None:
    body = "My Score at iteration 3 is 0.5 but then it explodes.\n"
    body += "".join(f"step {i} loss: {1.0 - 0.1 * i:.2f}\n" for i in range(6))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]
