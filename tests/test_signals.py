"""Key spellings of the RL trainers' reward columns map onto one signal."""

from __future__ import annotations

import pytest

from traindoc.model.signals import canonical


@pytest.mark.parametrize(
    ("key", "signal"),
    [
        ("env/reward_mean", "reward"),  # TRL PPOTrainer < 0.12
        ("ppo/mean_scores", "reward"),
        ("objective/scores", "reward"),  # TRL PPO / RLOO >= 0.12
        ("critic/score/mean", "reward"),  # verl
        ("env/reward_std", "reward_std"),
        ("ppo/std_scores", "reward_std"),
    ],
)
def test_rl_reward_spellings(key: str, signal: str) -> None:
    assert canonical(key) == signal


@pytest.mark.parametrize(
    "key",
    [
        "objective/rlhf_reward",  # the score minus the KL penalty: not the task reward
        "critic/rewards/mean",  # verl's token reward after the KL penalty
        "rewards/chosen",  # DPO's implicit reward: no RL run
    ],
)
def test_near_miss_reward_spellings_keep_their_name(key: str) -> None:
    assert canonical(key) == key
