"""divergence's reading of an RL return: a policy that learned and then collapsed.

In RL the return is the learning curve, and its divergence is a collapse: the return
climbs well clear of where the run started (or of its environment's random-policy
level), then falls back and stays down. The updates carried a signal (the climb shows
it), so this is not rl-no-signal's "no improvement"; it is the policy being wrecked
by its own updates (an LR or clip range too large for the value estimates, an entropy
bonus that pushes it back to random play, a replay buffer drowned in stale data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from traindoc.measure.rl_envs import level_of
from traindoc.measure.stats import diff_mad, fmt, rolling_median
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit

# 20+ logs: a first reference (3 logs), a peak held over a tenth of them, a last fifth.
MIN_POINTS = 20
START_POINTS = 3
# The climb and the fall must each clear 4 standard errors of the levels they compare,
# the climb must be a quarter of the return's scale (its level, or 1 for a rate in
# [0, 1]), and the fall must give back half of the climb or more.
Z = 4.0
CLIMB_REL = 0.25
GIVE_BACK = 0.5
# Only a return that reached a tenth of the way from random play to a competent score
# (its env known) proves the policy learned: without that, a sparse-reward run's lucky
# early stretch rises and falls with its exploration schedule (a DQN on FrozenLake 8x8,
# success 0 -> 0.16 -> 0, whose thread settled it as no signal at all).
COMPETENCE = 0.1


@dataclass(frozen=True)
class Collapse:
    ref: float  # where the climb is measured from (random play, or the first logs)
    ref_is_random: bool
    best: float
    best_step: int
    late: float
    late_from: int


def collapse(run: Run) -> Collapse | None:
    """The return's collapse, when it climbed (its best stretch, a rolling median over a
    tenth of the logs, clears the reference by Z standard errors and a quarter of the
    scale, and reaches COMPETENCE of the way from its known env's random play to a
    competent score) and then gave back half the climb or more over its whole last
    fifth (also by Z standard errors). The reference is the env's random-policy level
    when it is below the run's start (a log that opens after the first climb), else
    the run's first 3 logs."""
    reward = run.get("reward")
    if reward is None or not run.is_rl:
        return None
    r = reward.finite()
    v, n = r.values, len(r)
    if n < MIN_POINTS or np.unique(v).size <= 4:
        return None  # a count of successes or a 0/1 outcome: too coarse for a level
    w, k = max(3, n // 10), max(3, n // 5)
    smooth = rolling_median(v, w)
    i = int(np.argmax(smooth[: n - k]))
    best, late, start = (
        float(smooth[i]),
        float(np.median(v[-k:])),
        float(np.median(v[:START_POINTS])),
    )
    env = run.fact("env_id")
    lvl = level_of(env) if isinstance(env, str) else None
    if lvl is None or best < lvl.random + COMPETENCE * (lvl.competent - lvl.random):
        return None  # no proof the policy ever played better than random: no collapse
    ref_is_random = lvl.random < start
    ref = lvl.random if ref_is_random else start
    sigma = diff_mad(v) / math.sqrt(2)
    rate = float(v.min()) >= 0.0 and float(v.max()) <= 1.0
    scale = 1.0 if rate else max(abs(ref), abs(best), sigma)
    climb, fall = best - ref, best - late
    se_climb = 1.2533 * sigma * math.sqrt((0 if ref_is_random else 1 / START_POINTS) + 1 / w)
    se_fall = 1.2533 * sigma * math.sqrt(1 / w + 1 / k)
    if climb < max(Z * se_climb, CLIMB_REL * scale) or fall < max(Z * se_fall, GIVE_BACK * climb):
        return None
    return Collapse(ref, ref_is_random, best, int(r.steps[i]), late, int(r.steps[-k]))


def collapse_hit(run: Run) -> Hit | None:
    """divergence's finding for a collapsed return (warning)."""
    c = collapse(run)
    if c is None:
        return None
    ref = "random play" if c.ref_is_random else "the first logs"
    lost = (c.best - c.late) / (c.best - c.ref)
    return Hit(
        title=(
            f"The return climbed to {fmt(c.best)} by step {c.best_step} (from {fmt(c.ref)}, "
            f"{ref}), then fell back to {fmt(c.late)} over the last fifth: the policy "
            "collapsed"
        ),
        step=c.best_step,
        end_step=c.late_from,
        evidence={
            "signal": "reward",
            "reward_ref": c.ref,
            "ref": "random policy" if c.ref_is_random else "first logs",
            "reward_best": c.best,
            "best_step": c.best_step,
            "reward_end": c.late,
            "lost_share": lost,
        },
        explanation=(
            f"In RL the return is the learning curve. This one rose well clear of {ref} "
            f"and then lost {'all' if lost >= 1 else f'{lost:.0%}'} of what it had gained, "
            "for the whole last fifth of "
            "the run: the updates carried a signal, then wrecked the policy they had "
            "built (steps too large for the value estimates, an entropy bonus or "
            "exploration that drives it back to random play, a replay buffer of stale "
            "data). Training longer will not bring it back."
        ),
        prescription=(
            f"Keep the checkpoint from around step {c.best_step}; lower the LR 3x (or anneal "
            "it), tighten the clip range / target KL, lower the entropy coefficient, and "
            "watch the value loss and approx KL at the turn."
        ),
        severity=Severity.WARNING,
    )


__all__ = ["Collapse", "collapse", "collapse_hit"]
