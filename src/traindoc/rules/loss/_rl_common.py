"""What rl-no-signal reads in an RL log: the signal names (episode spread, success,
approx KL, clip fraction, entropy, ...) and the small helpers its checks share."""

from __future__ import annotations

import re

import numpy as np

from traindoc.model import Run, Series

# The spread of the episode returns behind each mean return (ml-agents' Std of Reward).
EPISODE_STD = "episode_reward_std"


# The best and worst episode return behind each mean return, as (max, min) name pairs:
# devsisters/DQN-tensorflow's "max_ep_r / min_ep_r", RLlib's episode_reward_max / _min
# (env_runners/episode_return_max / _min from Ray 2.10), pytorch-a2c-ppo-acktr-gail's
# "min/max reward -21.0/-19.0" (of the last 10 episodes).
EPISODE_RANGE = (
    ("max_ep_r", "min_ep_r"),
    ("max_reward", "min_reward"),
    ("episode_reward_max", "episode_reward_min"),
    ("env_runners/episode_return_max", "env_runners/episode_return_min"),
)


def episode_range(run: Run) -> tuple[Series, Series] | None:
    """The (max, min) episode-return series the run logs beside its mean, if any."""
    for hi, lo in EPISODE_RANGE:
        a, b = run.get(hi), run.get(lo)
        if a is not None and b is not None and len(a.finite()) and len(b.finite()):
            return a.finite(), b.finite()
    return None


# FinRL's trading env summary at each episode's end: the trades the agent made in it,
# and the env's episode count.
TRADES = "total_trades"
EPISODE = "episode"


# tianshou's test line: the epoch of the best test return so far (#0 = before training).
BEST_EPOCH = "eval_best_reward_epoch"


# TRL's GRPO logs the share of prompt groups whose rewards all tie: 1.0 is
# reward_std 0 in every group.
ZERO_STD_FRACTION = "frac_reward_zero_std"


# DPO's implicit reward margin: beta * (policy - reference) log-ratio of chosen over
# rejected. Exactly 0 at every log: the policy never differs from the reference.
DPO_MARGINS = "rewards/margins"


# The share of completions cut at the length limit (TRL / ms-swift, verl).
CLIPPED = ("completions/clipped_ratio", "response_length/clip_ratio")


# A goal-conditioned agent's success rate (OpenAI baselines HER's test/ and train/
# success_rate, SB3's eval/ and rollout/success_rate): its learning curve when no
# return is logged. The deterministic test / eval rate first: the train rate mixes
# in the exploration noise.
SUCCESS = (
    "test/success_rate",
    "eval/success_rate",
    "eval_success_rate",
    "success_rate",
    "rollout/success_rate",
    "train/success_rate",
)


# PPO's approx KL between the policy that collected the rollout and the updated one,
# and the share of samples whose ratio was clipped, averaged over the epochs and
# minibatches of an update (SB3 / SB2 / baselines, CleanRL, TRL's PPOTrainer). Not
# verl's actor/ppo_kl nor TRL GRPO's clip_ratio: with one update per rollout (their
# default) those are on-policy and exactly 0 by construction.
APPROX_KL = ("approx_kl", "train/approx_kl", "approxkl", "losses/approx_kl", "policy/approxkl_avg")


CLIP_FRACTION = (
    "clip_fraction",
    "train/clip_fraction",
    "clipfrac",
    "losses/clipfrac",
    "policy/clipfrac_avg",
)


# The policy's entropy (SB3's entropy_loss is its negative; SB2's policy_entropy).
POLICY_ENTROPY = (
    "entropy",
    "train/entropy_loss",
    "policy_entropy",
    "losses/entropy",
    "policy/entropy_avg",
)


# Unity ml-agents' summary line ending in the trainer's status "Not Training." (an Event
# whose value is the step the line prints).
NOT_TRAINING = "rl-not-training"


# A GRPO reward function that scores the task itself (TRL logs each under rewards/<fn>,
# /mean from 0.17): open-r1's accuracy_reward, the GSM8K recipes' correctness_reward_func.
_TASK_REWARD = re.compile(r"^rewards?/[^/]*(?:accura|correct)[^/]*(?:/mean)?$")


def reward_spread(run: Run) -> Series | None:
    """max - min of the batch's rewards, from a `<reward>/max` and `<reward>/min` pair
    (verl logs critic/score/max and /min but no std): 0 when every completion tied.
    Without one, the advantages' pair (verl's critic/advantages): all advantages equal
    is the same dead signal one step later."""
    # the task score first (verl: critic/score; critic/rewards adds the KL penalty),
    # then rewards, then advantages
    names = sorted(run.series, key=lambda n: ("advantage" in n, "score" not in n))
    for name in names:
        hi = run.series[name]
        if not name.endswith("/max") or not any(
            w in name for w in ("score", "reward", "advantage")
        ):
            continue
        lo = run.series.get(name[: -len("max")] + "min")
        if lo is None or len(hi) != len(lo) or not np.array_equal(hi.steps, lo.steps):
            continue
        return Series.from_arrays(name[: -len("/max")] + "/spread", hi.steps, hi.values - lo.values)
    return None


def _at(s: Series, steps: np.ndarray) -> np.ndarray:
    """Values of `s` at `steps` (the last logged value at or before each step)."""
    i = np.searchsorted(s.steps, steps, side="right") - 1
    out = np.full(steps.size, np.nan)
    ok = i >= 0
    out[ok] = s.values[i[ok]]
    return out


def _longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of True."""
    if not mask.any():
        return 0, 0
    m = np.r_[False, mask, False].astype(np.int8)
    d = np.diff(m)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k] - starts[k])


def _tail_run(mask: np.ndarray) -> int:
    """How many of the last entries are True in a row."""
    k = 0
    for v in mask[::-1]:
        if not v:
            break
        k += 1
    return k


def _first(run: Run, names: tuple[str, ...]) -> Series | None:
    for name in names:
        s = run.get(name)
        if s is not None and len(s.finite()):
            return s.finite()
    return None
