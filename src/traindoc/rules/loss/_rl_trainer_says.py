"""rl-no-signal from what an RL trainer's own lines say: ml-agents' "Not Training." at step
0 on every status line, FinRL's last episode with 0 trades and a total reward of exactly
0, and tianshou's best test epoch still #0 (the untrained policy) after 3+ epochs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity, Signal
from traindoc.rules.api import Hit
from traindoc.rules.loss._rl_common import BEST_EPOCH, EPISODE, NOT_TRAINING, TRADES, _at, _tail_run

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _no_trades(run: Run) -> Hit | None:
    """FinRL's summary of the last episode shows 0 trades and a total_reward of exactly 0,
    past the env's first episode: the agent held its cash for the whole episode, so its
    actions never reach the market (every one rounds to "hold") and every return is the
    same 0 - there is no difference left to learn from (a warning, from one summary: a
    policy that still explores trades at least once in an episode of hundreds of days)."""
    trades, reward, ep = run.get(TRADES), run.get(Signal.REWARD.value), run.get(EPISODE)
    if trades is None or reward is None or ep is None:
        return None
    t, r, e = trades.finite(), reward.finite(), ep.finite()
    if not (len(t) and len(r) and len(e)):
        return None
    last_r = float(_at(r, t.steps[-1:])[0])
    if float(t.values[-1]) != 0 or last_r != 0 or float(e.values[-1]) <= 1:
        return None
    zero = int(_tail_run(t.values == 0))
    s0, s1 = int(t.steps[-zero]), int(t.steps[-1])
    episode = int(e.values[-1])
    return Hit(
        title=(
            f"The agent made no trade in its last episode (episode {episode}"
            + (f", and the {zero - 1} before it" if zero > 1 else "")
            + "): total_reward exactly 0"
        ),
        step=s0,
        end_step=s1,
        evidence={"signal": f"{TRADES} = 0", "episode": episode, "dead_points": zero},
        explanation=(
            "FinRL's env sums each episode up: 0 trades and a total_reward of exactly 0 "
            "mean the agent held its starting cash from the first day to the last. Its "
            "actions never moved a share (each one rounds to 'hold', or is clipped away), "
            "so every episode returns the same 0 and the updates have nothing to compare."
        ),
        prescription=(
            "Print the raw actions: if they sit in (-1, 1) they round to 0 shares at "
            "hmax scaling, so raise hmax or the action scale; check the reward scaling, "
            "the turbulence threshold (it forces selling / holding) and that the "
            "technical-indicator features are not all NaN or constant."
        ),
        severity=Severity.WARNING,
    )


def _not_training(run: Run) -> Hit | None:
    """ml-agents' "... Step: 0. ... Not Training." on every status line, no line at a
    later step: the trainer never updated its policy (error)."""
    idle = [e for e in run.events if e.kind == NOT_TRAINING]
    if not idle or any(e.value != 0 for e in idle):
        return None
    for s in run.series.values():
        if len(s) and float(np.nanmax(s.steps)) > 0:
            return None  # some line printed a later step: that behaviour did train
    first = idle[0]
    return Hit(
        title=(
            f"The RL trainer is not training: {len(idle)} summary line"
            f'{"s" if len(idle) != 1 else ""} end in "Not Training." at step 0'
        ),
        step=0,
        evidence={
            "signal": "trainer status (Not Training.)",
            "not_training_lines": len(idle),
            "line": first.line,
            "text": first.text,
        },
        explanation=(
            "ml-agents prints its trainer's status at the end of every summary: \"Not "
            'Training." means the policy is only run, never updated, and Step 0 means it '
            "has never taken a training step. The rewards shown are the untrained policy's."
        ),
        prescription=(
            "Start mlagents-learn with --train (ml-agents 0.x; later releases train unless "
            "--inference is given), and check the agents use a learning brain / behaviour "
            "type Default, not a player or inference-only one."
        ),
        severity=Severity.ERROR,
    )


def _never_beats_start(run: Run, p: Params) -> Hit | None:
    """tianshou's test line names the epoch of the best test return so far, and tests
    the policy before any training as epoch #0. Still #0 after 3+ epochs: no trained
    policy has scored above the untrained one on its own test, i.e. nothing learned
    (or the training made it worse)."""
    best = run.get(BEST_EPOCH)
    if best is None or len(best.finite()) < p.min_all_dead:
        return None
    b = best.finite()
    if not bool(np.all(b.values == 0)):
        return None
    ev = run.get("eval_reward")
    lvl = float(ev.finite().values[0]) if ev is not None and len(ev.finite()) else None
    s0, s1 = int(b.steps[0]), int(b.steps[-1])
    return Hit(
        title=(
            "No epoch beats the untrained policy: the best test reward is still epoch #0's"
            + (f" ({fmt(lvl)})" if lvl is not None else "")
            + f" after {len(b)} epochs (steps {s0}-{s1})"
        ),
        step=s0,
        end_step=s1,
        evidence={"signal": f"{BEST_EPOCH} = 0", "dead_points": len(b), "eval_reward_first": lvl},
        explanation=(
            "The trainer tests the policy before any update (epoch #0) and after each "
            "epoch, and names the epoch of the best test return so far. It is still #0: "
            "after every epoch of training the test return is no better than the untrained "
            "policy's, so the updates have not made the policy better at the task."
        ),
        prescription=(
            "Watch a few test episodes: if the actions never change, check the reward the "
            "environment returns (a constant, or a penalty the agent cannot avoid) and that "
            "the policy's updates reach it (learning rate, gradients, the right network "
            "being optimised); then the exploration (the entropy term, action noise)."
        ),
        severity=Severity.WARNING,
    )
