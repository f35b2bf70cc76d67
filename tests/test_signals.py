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
        # hand-written loops: an averaged, summed or per-episode reward / return
        ("Avg. reward", "reward"),
        ("running reward", "reward"),  # keras.io DQN example
        ("mean_reward", "reward"),
        ("episode_return", "reward"),
        ("Episode Reward", "reward"),
        ("Total Reward", "reward"),
        ("ep_rew", "reward"),
        ("EpRet", "reward"),
        ("reward_mean", "reward"),
        ("Return", "reward"),  # tf2rl's "Return: -21.0000"
        ("Average Returns", "reward"),
        ("Ep_r", "reward"),  # MorvanZhou's tutorials: "Ep: 12 | Ep_r: -1203"
        # the averaging window's size after the name (a CSV column of a custom PPO trainer)
        ("Avg_Reward_100", "reward"),
        ("mean_return_10", "reward"),
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
        # an evaluation return is its own curve; extremes and spreads are not the mean
        "eval/mean_reward",
        "test_reward",
        "eval_return",
        "best_reward",
        "max_reward",
        "critic/returns/mean",  # verl: the advantage targets, not the episode return
        "rewards/accuracy_reward",  # one GRPO reward function, not the total
        "return code",
        "average score",  # "score" stays a task metric without the word reward / return
        "reward_2",  # a single digit: a second column of the same name, not a window
        "avg_final_score_100",  # a game score beside the reward stays a score
    ],
)
def test_near_miss_reward_spellings_keep_their_name(key: str) -> None:
    assert canonical(key) == key
