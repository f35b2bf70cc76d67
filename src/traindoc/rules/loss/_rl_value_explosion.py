"""divergence's reading of an off-policy actor-critic (DDPG, TD3, SAC): values no policy earns.

The actor of an off-policy actor-critic minimises -Q(s, pi(s)), so its loss is the
critic's value estimate with the sign flipped. A value estimate is a discounted sum of
rewards: with per-step rewards r and a discount gamma <= 0.9999 it is at most
r / (1 - gamma) = 10,000 r, and it never exceeds an episode's whole return by orders
of magnitude. A loss that sits 10,000x beyond the largest return the run ever logged,
on the negative side, is a critic whose estimates exploded (the overestimation feedback
of bootstrapped targets: Q chases max Q), whatever the return does meanwhile.
"""

from __future__ import annotations

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

# 10,000x: 1 / (1 - gamma) for gamma = 0.9999, the longest horizon in use, times the
# largest reward (a per-step reward read as the return can be 1 / (1 - gamma) short).
BEYOND = 1e4
# A return scale under 1 (sparse 0/1 rewards) is taken as 1: the bound is then 10,000.
MIN_SCALE = 1.0
# The loss's level: the median of its last fifth, 3+ logs (one wild batch is no level).
MIN_POINTS = 3


def _actor_loss(run: Run) -> Series | None:
    """The actor's loss when logged by name, else the loss (the sum a reader derives)."""
    named = [n for n in sorted(run.series) if "actor" in n.lower() and "loss" in n.lower()]
    return run.get(named[0]) if named else run.get("loss")


def value_explosion_hit(run: Run) -> Hit | None:
    """divergence's finding for a critic whose value estimates exploded (error)."""
    loss, reward = _actor_loss(run), run.get("reward")
    if loss is None or reward is None:
        return None
    lf, rf = loss.finite(), reward.finite()
    if len(lf) < MIN_POINTS or not len(rf):
        return None
    tail = lf.values[-max(MIN_POINTS, len(lf) // 5) :]
    late = float(np.median(tail))
    scale = max(float(np.abs(rf.values).max()), MIN_SCALE)
    if late >= 0 or -late < BEYOND * scale:
        return None
    onset = int(lf.steps[int(np.argmax(lf.values <= -BEYOND * scale))])
    return Hit(
        title=(
            f"The actor's loss (-Q) reaches {fmt(late)}, {-late / scale:.0e}x the largest "
            f"return logged ({fmt(scale)}): the critic's value estimates exploded"
        ),
        step=onset,
        end_step=int(lf.steps[-1]),
        evidence={
            "signal": loss.name,
            "loss_late": late,
            "reward_scale": scale,
            "ratio": -late / scale,
            "onset_step": onset,
        },
        explanation=(
            "An off-policy actor minimises -Q, so its loss is the critic's value estimate "
            f"with the sign flipped. No policy earns a value {BEYOND:.0e}x beyond every "
            "return the run logged: the critic's bootstrapped targets fed on their own "
            "overestimates and diverged, and the actor is now chasing those numbers."
        ),
        prescription=(
            "Lower the critic's LR 3-10x and clip its gradients; use target networks with "
            "a slow soft update (tau ~0.005) and clipped double-Q (TD3); scale the rewards "
            "into ~[-1, 1] and check the done flags stop bootstrapping at episode ends."
        ),
        severity=Severity.ERROR,
    )
