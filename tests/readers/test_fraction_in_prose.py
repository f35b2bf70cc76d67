"""A fraction a sentence states as its value (a model's answer printed in an RL log)
is no progress counter: it neither sets the step total nor starts a new run."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers import load_runs

_HEAD = "[step 10] avg_loss=0.0294 acc=0.8000\n[step 20] avg_loss=0.0088 acc=0.8800\n"
_TAIL = "reward is 0.9\n[step 30] avg_loss=0.0031 acc=0.9200\n[step 40] avg_loss=0.0023 acc=0.82\n"


def _runs(tmp_path: Path, line: str) -> list:
    p = tmp_path / "train.log"
    p.write_text(_HEAD + line + "\n" + _TAIL)
    return load_runs(p)


@pytest.mark.parametrize(
    "line",
    [
        "The answer is 1/19",
        "   * the probability of drawing another red ball is 4/19",
        "**Final answer:** 1/19 ",
    ],
)
def test_a_stated_fraction_is_no_counter(tmp_path: Path, line: str) -> None:
    (run,) = _runs(tmp_path, line)
    assert "max_steps" not in run.facts
    assert run.get("loss").steps.tolist() == [10, 20, 30, 40]


def test_near_miss_a_labelled_counter_still_counts(tmp_path: Path) -> None:
    """A fraction after its own step label is the progress it always was."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"step {i}/40 loss: 2.{9 - i // 5}\n" for i in range(5, 40, 5)))
    (run,) = load_runs(p)
    assert run.facts["max_steps"].value == 40
