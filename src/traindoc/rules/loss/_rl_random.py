"""rl-no-signal's reading of a return against its environment's random-policy level
(measure/rl_envs.py): still at it after the env steps any working agent needs to leave it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.rl_envs import EXPLORATION, level_of
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._rl_common import POLICY_ENTROPY, _at, _first

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params

# Counters of the env steps taken so far, printed beside the return (pytorch-a2c-ppo-acktr's
# "num timesteps 802480", SB3 / baselines' total_timesteps, RLlib's timesteps_total).
TIMESTEPS = (
    "num_timesteps",
    "timesteps",
    "total_timesteps",
    "time/total_timesteps",
    "misc/total_timesteps",
    "timesteps_total",
)

# Readers whose reward steps are env steps: an SB3 Monitor's cumulative episode lengths.
_ENV_STEP_AXIS = ("sb3-monitor",)
# The note a progress.csv reader leaves when its rows are numbered by the env steps.
_ENV_STEP_NOTE = "steps: the environment steps"
# SB3's console rollout table (rollout/ep_len_mean beside ep_rew_mean) is numbered by its
# time/total_timesteps, the env steps.
_SB3_TABLE = "ep_len_mean"


# A column of its own named for steps, printed beside the return (angela's "Steps:
# 4193636"): the env steps so far when it rises at every log (`_cumulative`); a column
# that is each episode's own length (keras-rl's "steps: 200") does not.
# Should the counter be the updates instead (some agents print their optimizer steps),
# each of them follows at least one env step in the standard agents (A2C / PPO update
# after a rollout of many, DQN / DDPG / SAC once per env step or less often): read as
# env steps it reaches the budget later, never sooner.
STEP_COLUMNS = ("steps", "total_steps", "env_steps")
# ... over this many logs at least: two rising numbers can be episode lengths by chance.
_CUMULATIVE_LOGS = 3


def _cumulative(at: np.ndarray) -> bool:
    """A counter of env steps: finite, and higher at every log than at the one before."""
    return (
        at.size >= _CUMULATIVE_LOGS
        and bool(np.all(np.isfinite(at)))
        and bool(np.all(np.diff(at) > 0))
    )


def _env_steps(run: Run, reward: Series) -> np.ndarray | None:
    """The env steps taken at each of the reward's logs, when the log says."""
    for name in TIMESTEPS:
        s = run.get(name)
        if s is not None and len(s.finite()):
            at = _at(s.finite(), reward.steps)
            return at if bool(np.all(np.isfinite(at))) else None
    for name in STEP_COLUMNS:
        s = run.get(name)
        if s is not None and len(s.finite()):
            at = _at(s.finite(), reward.steps)
            if _cumulative(at):
                return at
    if (
        run.fact("trainer") in _ENV_STEP_AXIS
        or any(n.message.startswith(_ENV_STEP_NOTE) for n in run.notes)
        or run.get(_SB3_TABLE) is not None
    ):
        return reward.steps.astype(float)
    return None


def _exploring(run: Run, p: Params, step: float) -> bool:
    """An epsilon-greedy schedule still above its usual final value (`explore_eps`) at
    `step`, or its value unknown there."""
    for name in EXPLORATION:
        s = run.get(name)
        if s is not None and len(s.finite()):
            at = _at(s.finite(), np.asarray([step]))
            return not (np.isfinite(at[0]) and float(at[0]) <= p.explore_eps)
    return False


def _budget(run: Run, budget: int) -> int:
    """The env steps a working agent needs: half the table's for a policy-gradient agent
    (it logs its policy's entropy and no epsilon schedule), which acts from its own
    policy from the first step, with no epsilon-greedy phase of random play to wait out
    (A2C / PPO pass 5% of the human score on the table's Atari games well within 1M
    steps)."""
    if _first(run, POLICY_ENTROPY) is not None and not any(run.get(n) for n in EXPLORATION):
        return budget // 2
    return budget


# A long log is judged on at least this many logs past the budget (fewer when its last
# fifth is fewer): one late per-episode return is a single game, not the policy's level.
_LATE_MIN = 3


def _late_logs(steps: np.ndarray, budget: int) -> int:
    """How many of the last logs are judged: the last fifth (at least one) when every one
    of them is past `budget`; else the logs past it, when they are at least `_LATE_MIN`
    (or the whole last fifth, if that is fewer): a log whose middle is cut out (an
    author's "..." between episode 3000 and 19000) has its last fifth reach back before
    the budget, while its logs after the cut are all far past it. 0 when too few are."""
    k = max(1, steps.size // 5)
    past = int(np.sum(steps >= budget))
    if past >= k and bool(np.all(steps[-k:] >= budget)):
        return k
    if past > 0 and past >= min(k, _LATE_MIN) and bool(np.all(steps[-past:] >= budget)):
        return past
    return 0


def random_level(run: Run, p: Params) -> Hit | None:
    """A mean return that is still its environment's random-policy level (within
    `random_frac` of the way from random play to a competent score) over the last fifth
    of the logs, every one of them past the env steps a working standard agent needs to
    leave that level (`EnvLevel.budget`), and no epsilon schedule still exploring there:
    the policy plays no better than uniformly random actions, so no learning signal
    has reached it (a broken environment or reward wrapper, an update that does not
    reach the policy). Judged from one log: a logged mean return averages many
    episodes, and the budget is far past any standard agent's exploration phase."""
    env = run.fact("env_id")
    lvl = level_of(env) if isinstance(env, str) else None
    reward = run.get("reward")
    if lvl is None or reward is None or not len(reward.finite()):
        return None
    r = reward.finite()
    steps = _env_steps(run, r)
    if steps is None:
        return None
    k = _late_logs(steps, _budget(run, lvl.budget))
    if k == 0:
        return None
    first = float(steps[-k])
    if _exploring(run, p, float(r.steps[-k])):
        return None
    late = float(np.mean(r.values[-k:]))
    bar = lvl.random + p.random_frac * (lvl.competent - lvl.random)
    if late > bar:
        return None
    s0, s1 = int(r.steps[-k]), int(r.steps[-1])
    return Hit(
        title=(
            f"The return is still a random policy's on {env}: {fmt(late)} over the last "
            f"{k} log{'s' if k > 1 else ''} after {fmt(first)} env steps (random play scores "
            f"about {fmt(lvl.random)}, a competent agent {fmt(lvl.competent)})"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward at the random-policy level",
            "env_id": env,
            "reward_late": late,
            "random_level": lvl.random,
            "competent_level": lvl.competent,
            "env_steps": first,
            "points": k,
        },
        explanation=(
            f"On {env} a policy of uniformly random actions scores about {fmt(lvl.random)} "
            "(the published random-agent score), and a working standard agent leaves that "
            f"level well before {fmt(float(lvl.budget))} env steps. This run's return is "
            f"still within {p.random_frac:.0%} of the way from random play to a competent "
            "score: after all those steps the policy plays no better than chance, so the "
            "updates have not made any action more likely than another."
        ),
        prescription=(
            "Play a few episodes with the agent and with random actions through the same "
            "wrappers: check the environment install and its wrappers (frame skip, reward "
            "clipping, episode-life resets), that the actions reach the environment, and "
            "that the optimizer steps the policy (learning rate, gradients not 0)."
            + (f" {lvl.hint}" if lvl.hint else "")
        ),
        severity=Severity.WARNING,
    )
