"""divergence's reading of an off-policy actor-critic (DDPG, TD3, SAC, DQN): values no
policy earns.

The actor of an off-policy actor-critic minimises -Q(s, pi(s)), so its loss is the
critic's value estimate with the sign flipped; the critic's loss is the mean squared TD
error, so its square root is the size of the value errors. A value estimate is a
discounted sum of rewards, which bounds both by the scale of the returns:

- when the logged reward is an episode's return (named as one: `episode_reward`,
  `ep_rew_mean`, `episodic_return`), a value is a discounted part of one episode's
  rewards and stays within the returns' scale; 100x leaves room for rewards of both
  signs that cancel in a return;
- when it may be one step's reward (a bare `reward`), a value is at most
  r / (1 - gamma), 10,000 r for gamma = 0.9999, the longest horizon in use.

An actor loss (on the negative side) or a critic loss's root that sits beyond that bound,
after growing by orders of magnitude from its own start, is a critic whose estimates
exploded (the overestimation feedback of bootstrapped targets: Q chases max Q), whatever
the return does meanwhile. The run's summed loss hides it (the actor's -Q cancels the
critic's rise), so the actor and critic losses are read by their names.
"""

from __future__ import annotations

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.model.signals import is_episode_return
from traindoc.rules.api import Hit

# 10,000x: 1 / (1 - gamma) for gamma = 0.9999, the longest horizon in use, times the
# largest reward (a per-step reward read as the return can be 1 / (1 - gamma) short).
BEYOND = 1e4
# 100x an episode's return: a value is a discounted part of one episode's rewards, and
# rewards of both signs cancel in a return by a factor of tens at most.
BEYOND_RETURN = 1e2
# A return scale under 1 (sparse 0/1 rewards) is taken as 1: the bound is then 100+.
MIN_SCALE = 1.0
# The loss's level: the median of its last fifth, 3+ logs (one wild batch is no level).
MIN_POINTS = 3
# Orders of magnitude: the late level is 100x+ the first fifth's (a critic that starts
# beyond the bound is a reward scale misread, not an explosion seen happening).
GROWTH = 1e2


def _named(run: Run, word: str, squashed: tuple[str, ...]) -> Series | None:
    """The first series whose name holds `word` and "loss", or a squashed alias."""
    for n in sorted(run.series):
        low = n.lower()
        flat = "".join(c for c in low.rsplit("/", 1)[-1] if c.isalnum())
        if (word in low and "loss" in low) or flat in squashed:
            return run.get(n)
    return None


def _actor_loss(run: Run) -> Series | None:
    """The actor's loss by name (Spinning Up's LossPi), else the loss."""
    return _named(run, "actor", ("losspi", "piloss")) or run.get("loss")


def _critic_loss(run: Run) -> Series | None:
    """The critic's (TD) loss by name (Spinning Up's LossQ, SAC's qf_loss)."""
    return _named(run, "critic", ("lossq", "qloss", "qfloss", "qf1loss"))


def _bound(reward: Series) -> float:
    """How far beyond the largest |return| a value can sit (see the module)."""
    tag = reward.source.rsplit(": ", 1)[-1].split("/ ")[-1]
    return BEYOND_RETURN if is_episode_return(tag) else BEYOND


def _levels(s: Series) -> tuple[Series, float, float] | None:
    """(finite points, first fifth's median, last fifth's median), 3+ points each."""
    f = s.finite()
    if len(f) < MIN_POINTS:
        return None
    k = max(MIN_POINTS, len(f) // 5)
    return f, float(np.median(f.values[:k])), float(np.median(f.values[-k:]))


def value_explosion_hit(run: Run) -> Hit | None:
    """divergence's finding for a critic whose value estimates exploded (error)."""
    reward = run.get("reward")
    if reward is None or not len(rf := reward.finite()):
        return None
    scale = max(float(np.abs(rf.values).max()), MIN_SCALE)
    bound = _bound(reward)
    actor = _actor_loss(run)
    if actor is not None and (lv := _levels(actor)) is not None:
        f, early, late = lv
        # the value -late past the bound, grown from its start unless it is the bound
        # of a per-step reward (the reading of old: no start to compare with)
        grew = bound == BEYOND or -late >= GROWTH * max(abs(early), MIN_SCALE)
        if late < 0 and -late >= bound * scale and grew:
            return _hit(actor, f, -late, late, scale, bound, "actor's loss (-Q)")
    critic = _critic_loss(run)
    if critic is not None and (lv := _levels(critic)) is not None:
        f, early, late = lv
        root = float(np.sqrt(max(late, 0.0)))
        if root >= bound * scale and late >= GROWTH * max(early, MIN_SCALE):
            return _hit(critic, f, root, late, scale, bound, "critic's loss's root (TD error)")
    return None


def _hit(
    loss: Series, f: Series, size: float, late: float, scale: float, bound: float, what: str
) -> Hit:
    values = np.sqrt(np.abs(f.values)) if "critic" in what else -f.values
    onset = int(f.steps[int(np.argmax(values >= bound * scale))])
    kind = "episode return" if bound == BEYOND_RETURN else "return logged"
    return Hit(
        title=(
            f"The {what} reaches {fmt(size)}, {size / scale:.0e}x the largest {kind} "
            f"({fmt(scale)}): the critic's value estimates exploded"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence={
            "signal": loss.name,
            "loss_late": late,
            "reward_scale": scale,
            "ratio": size / scale,
            "bound": bound,
            "onset_step": onset,
        },
        explanation=(
            "An off-policy actor minimises -Q, so its loss is the critic's value estimate "
            "with the sign flipped, and the critic's loss is its squared TD error. No "
            f"policy earns a value {bound:.0e}x beyond every {kind}: the critic's "
            "bootstrapped targets fed on their own overestimates and diverged, and the "
            "actor is now chasing those numbers."
        ),
        prescription=(
            "Lower the critic's LR 3-10x and clip its gradients; use target networks with "
            "a slow soft update (tau ~0.005) and clipped double-Q (TD3); scale the rewards "
            "into ~[-1, 1] and check the done flags stop bootstrapping at episode ends."
        ),
        severity=Severity.ERROR,
    )
