"""rl-no-signal's reading of a return that only ever fell from its first log: no update
made the policy better than it was before training."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import diff_mad, fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._rl_random import _exploring

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def declined(run: Run, p: Params) -> Hit | None:
    """A return logged from the start of the run (5+ logs, `decline_points`) whose first
    log is above every later one, and whose last fifth lies below that first log by a
    tenth of its level (`decline_rel`) and by 4 standard errors of the log's own noise,
    with no step back up larger than a quarter of that fall (`decline_rise`: per-episode
    returns that scatter, 27 20 12 11 20 13, are noise around a level, not a line):
    the untrained policy is the best this run ever logged. A working agent starts at its
    untrained (random) level and rises from it, however slowly or noisily; a return
    that sinks from it and never comes back has had no learning signal that pays (a
    reward the policy is pushed away from, an update of the wrong sign, a broken
    environment). Not while an epsilon-greedy schedule is still above its final value
    (a greedy DQN policy is worse than random play until its Q-values are learned), nor
    for a log that is a late window of its run (its first log is no untrained policy)."""
    reward = run.get("reward")
    if reward is None:
        return None
    r = reward.finite()
    n = len(r)
    if n < p.decline_points or starts_mid_run(r):
        return None
    v = r.values
    first = float(v[0])
    if not bool(np.all(v[1:] < first)):
        return None
    k = max(2, n // 5)
    tail = float(np.mean(v[-k:]))
    drop = first - tail
    se = 1.2533 * diff_mad(v) / math.sqrt(2) * math.sqrt(1 + 1 / k)
    if drop < p.decline_rel * abs(first) or drop < p.flat_z * se:
        return None
    steps_up = np.diff(v)
    if bool(np.any(steps_up > p.decline_rise * drop)):
        return None  # it climbs back a good share of its fall: scatter, not a sinking line
    if _exploring(run, p, float(r.steps[-k])):
        return None
    s0, s1 = int(r.steps[0]), int(r.steps[-1])
    return Hit(
        title=(
            f"The return never beats its first log: {fmt(first)} at step {s0}, every later "
            f"log lower, {fmt(tail)} over the last {k} (steps {s0}-{s1})"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "reward below its first log",
            "reward_first": first,
            "reward_late": tail,
            "points": n,
        },
        explanation=(
            "A run's first logged return is its untrained policy's (random play). A "
            "working agent rises from there, however noisily; here every later log is "
            "lower and the run ends well below its start: no update made the policy "
            "better, and those it got pushed it away from the reward."
        ),
        prescription=(
            "Check the sign of the policy loss and of the advantages (reward maximised, "
            "not minimised), that the reward the agent is trained on is the one printed, "
            "and the environment's reset / done handling; then try the algorithm's "
            "reference hyperparameters for this environment."
        ),
        severity=Severity.WARNING,
    )
