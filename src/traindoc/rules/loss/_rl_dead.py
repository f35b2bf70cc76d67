"""rl-no-signal on a reward logged without any spread that went dead: a short log dead at
every log after its first with a second signal dead too, a reward that fell to one exact
value and stays there, and the logs where a reward sits at the maximum it climbed to
(a solved task, not a dead one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.model import Run, Series
from traindoc.rules.loss._rl_llm import _corroborated

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _dead_after_first(
    run: Run,
    p: Params,
    base: Series,
    dead: np.ndarray,
    g: np.ndarray | None,
    std: Series | None,
    tied_groups: np.ndarray | None,
) -> bool:
    """A short log dead at every log after its first, with a second signal dead at each
    of them too (the grad norm exactly 0, or the advantages all equal): the first log
    can be the last batch before the run broke (memgen's GRPO: reward_std 0.52 and
    grad_norm 6.2 at its first log, then reward_std 0, frac_reward_zero_std 1 and
    grad_norm 0.0 from the second on). A tie that leaves no gradient at all, from one
    log to the end of the log, is the evidence a wholly dead short log gives, only
    after one live batch: the run lost its signal and did not get it back."""
    if dead.size < 2 or bool(dead[0]) or not bool(dead[1:].all()):
        return False
    rest = slice(1, None)
    return _corroborated(
        run,
        p,
        base.steps[rest],
        g[rest] if g is not None else None,
        std,
        tied_groups[rest] if tied_groups is not None else None,
    )


def _fallen_tail(p: Params, x: np.ndarray) -> int:
    """How many logs a reward logged without any spread ends in at one exact value it
    fell to: 3+ logs, half the log or more, below every log before them (0 when it does
    not). An RL return that drops to its lowest value and repeats it exactly, log after
    log, comes from a policy that settled on one behaviour (FinRL's agent that stops
    trading: total_reward 0.00 at every episode after one of 94.35; deepq's Pong at -21,
    every point lost, after -20.3 .. -20.6): the episodes no longer differ, so nothing
    is left to learn from. Not a reward that climbed to a constant (the task's cap,
    `_at_climbed_ceiling`), nor one pinned from its first log (judged as a whole)."""
    n = x.size
    k = 1
    while k < n and abs(float(x[n - 1 - k]) - float(x[-1])) <= p.reward_eps:
        k += 1
    if k >= n or k < p.min_all_dead or 2 * k < n:
        return 0
    return k if float(x[-1]) < float(np.min(x[: n - k])) else 0


def _at_climbed_ceiling(p: Params, x: np.ndarray, late: bool = False) -> np.ndarray:
    """The logs where a reward with no spread logged sits at the run's maximum after
    climbing there: the logs before its first visit to that maximum lie, by their
    median, 5%+ (of the maximum's size) below it. A return pinned at a value it rose
    to is the task's cap reached (CartPole's 500, an accuracy reward of 1 for every
    completion): solved, nothing left to gain, not a reward that never reached the
    policy. A constant it started at, or fell to, is still dead. A `late` window (the
    log starts far into the run) pinned at a positive value from its first log may have
    climbed before it (TF-Agents' DQN: "Average Return = 200.0", CartPole-v0's cap, at
    every eval from step 73000 on): not dead either; pinned at 0 or below it still is.
    Nor is a return pinned from its first log at a positive whole multiple of 100
    (`cap_unit`): Gym's time limits are round (CartPole-v0 200, v1 500, InvertedPendulum
    1000), and a +1-per-step survival return that equals one at every episode is every
    episode run to the limit (a trained CartPole policy tested: "reward: 500.00" at each
    episode) - the most the task pays, not a reward that never reached the policy. A
    negative round constant is the opposite end (MountainCar's -200: every episode
    failed at the limit) and stays dead, as do returns that are not round (a
    deterministic policy's -943.4 or 5.367 repeated)."""
    top = float(np.max(x))
    at_top = np.abs(x - top) <= p.reward_eps
    first = int(np.argmax(at_top))
    if first == 0:
        if late and top > 0:
            return at_top  # the climb, if any, lies before the window
        if top > 0 and top % p.cap_unit == 0:
            return at_top  # every episode ran to a round time limit: the cap, solved
        return np.zeros(x.size, dtype=bool)  # pinned from the first log: never climbed
    before = float(np.median(x[:first]))
    if top - before < p.flat_rel * max(abs(top), p.std_eps):
        return np.zeros(x.size, dtype=bool)
    return at_top
