"""keras-rl's test() after fit(): "Episode 1: reward: -1583.770, steps: 200" lines are
evaluation episodes (layouts.Layouts._keras_rl), not points of the train reward. Real
excerpt under assets/trainers/ with its `.source.txt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.readers import load_run

ASSETS = Path(__file__).parent / "assets" / "trainers"


# -- keras-rl: the test episodes after fit() are an evaluation, not the train reward ---------
def test_keras_rl_test_episodes_are_one_evaluation_apart_from_the_train_reward() -> None:
    run = load_run(ASSETS / "keras_rl_cdqn_pendulum.log")
    # the train curve: each interval's mean episode return
    assert values(run, "reward") == pytest.approx([-1479.559, -1410.411, -1374.752, -1494.492])
    # the five test episodes after "done, took 304.161 seconds": their mean, once
    assert values(run, "eval_reward") == pytest.approx([-1476.556])
    alt = values(run, "reward_alt")  # the bar's mean reward per step, alone
    assert all(-8 < v < -6 for v in alt)


def test_near_miss_episode_lines_outside_a_keras_rl_test_phase_stay_train_returns(
    tmp_path: Path,
) -> None:
    body = "".join(f"Episode {i}: reward: {-200 + i:.3f}, steps: 200\n" for i in range(1, 6))
    run = one_log(tmp_path, body)
    assert run.get("eval_reward") is None
    assert values(run, "reward") == pytest.approx([-199.0, -198.0, -197.0, -196.0, -195.0])
