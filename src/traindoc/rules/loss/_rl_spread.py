"""rl-no-signal read against the spread of the episodes behind each mean return: a mean
that never leaves its first summary's level by a tenth of that spread, and a mean of
exactly 0 at every log while the episodes go both ways (wins and losses cancel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._rl_common import _at

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _flat_from_start(p: Params, reward: Series, spread: Series) -> Hit | None:
    """A mean return that never leaves its first summary's level: 5+ summaries from the
    start of the run (the first one a logging interval in) whose means all lie within a
    tenth of the episodes' own spread (the median `episode_reward_std`). Each mean
    averages the episodes of its interval; a policy that got better at anything would
    shift them by a visible part of that spread. Not judged when the spread is 0 (one
    episode per summary, or every episode at the same capped return)."""
    r = reward.finite()
    n = len(r)
    if n < p.band_points:
        return None
    sd = _at(spread.finite(), r.steps)
    sd = sd[np.isfinite(sd)]
    if sd.size < p.band_points:
        return None
    sigma = float(np.median(sd))
    if not sigma > 0:
        return None
    steps, v = r.steps, r.values
    gap = float(np.median(np.diff(steps)))
    if not gap > 0 or steps[0] > 1.5 * gap:
        return None  # the log starts mid-run: a plateau there can be the converged one
    width = float(v.max() - v.min())
    if width > p.band_frac * sigma:
        return None
    s0, s1 = int(steps[0]), int(steps[-1])
    return Hit(
        title=(
            f"The mean reward does not move over {n} summaries from the start (steps "
            f"{s0}-{s1}): it stays within {fmt(width)} of {fmt(float(np.median(v)))}, while "
            f"the episodes' rewards spread {fmt(sigma)}"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward (flat from the start)",
            "reward_start": float(v[0]),
            "reward_end": float(v[-1]),
            "reward_range": width,
            "episode_reward_std": sigma,
            "points": n,
        },
        explanation=(
            "Each summary's mean reward averages the episodes finished in its interval, and "
            "the std beside it is how much those episodes differ. From the first summary on, "
            f"the means stay within {p.band_frac:.0%} of that spread: the distribution of "
            "returns has not shifted at all, so the policy plays as it did at the start "
            "(a random policy's level). Either the run is far too short for the task, or "
            "the updates do not change the policy."
        ),
        prescription=(
            "Compare with the task's published training budget (sparse or self-play tasks "
            "need millions of steps); if the run is long enough, check that the policy's "
            "parameters are updated (approx KL / clip fraction above 0) and that the reward "
            "the agent receives is the one you intend (inspect a few episodes)."
        ),
        severity=Severity.WARNING,
    )


def _zero_return(p: Params, reward: Series, spread: tuple[Series, Series]) -> Hit | None:
    """A mean return of 0 at every one of 3+ logs (within `zero_band` of its episodes'
    best - worst range) while the episodes behind each mean go both ways: the agent's
    wins and losses cancel, whatever the interval (devsisters/DQN-tensorflow's trading
    agent: "avg_ep_r: 0.0000, max_ep_r: 0.0911, min_ep_r: -0.0984", report after report
    6.4M steps in). A policy that learned anything would earn more than it loses: a
    reward that is 0 on average is the level of play with no edge, a random policy's in
    a market or a symmetric game. Judged at any point of the run: no learning curve ends
    at a mean of exactly nothing with its episodes spread on both sides of it."""
    r = reward.finite()
    if len(r) < p.min_all_dead:
        return None
    hi, lo = _at(spread[0], r.steps), _at(spread[1], r.steps)
    if not (np.all(np.isfinite(hi)) and np.all(np.isfinite(lo))):
        return None
    width = hi - lo
    both_ways = (lo < 0) & (hi > 0)
    if not (both_ways.all() and np.all(np.abs(r.values) <= p.zero_band * width)):
        return None
    s0, s1 = int(r.steps[0]), int(r.steps[-1])
    return Hit(
        title=(
            f"The mean return is 0 at all {len(r)} logs (steps {s0}-{s1}), while single "
            f"episodes range {fmt(float(np.min(lo)))} to {fmt(float(np.max(hi)))}"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward (zero mean, episodes both ways)",
            "reward_max_abs": float(np.max(np.abs(r.values))),
            "episode_range_min": float(np.min(width)),
            "points": len(r),
        },
        explanation=(
            "Each log's mean return averages the episodes of its interval, and the best "
            "and worst of them lie on both sides of 0. A mean of 0 at every log is "
            "gains and losses cancelling out: the policy has no edge, the level of "
            "random play, however many steps it has trained. Episodes that differ give "
            "advantages, yet the updates have not made the winning behaviour more likely."
        ),
        prescription=(
            "Check the reward the agent gets per step (scale, sign, and that it depends on "
            "the action: a trading reward of price noise has no edge to learn); compare "
            "with a random and a buy-and-hold policy, then check the learning rate, the "
            "target-network updates and the exploration schedule."
        ),
        severity=Severity.WARNING,
    )
