"""lr-too-high's reading of an RL run: an LR far above every tuned configuration, and a
curve that shows what such steps do to a value-based or actor-critic agent.

An RL loss is a surrogate (a policy-gradient loss near 0, a TD loss whose targets move),
so the LM table's tolerances and its loss-curve symptoms do not apply. What does:

- the LR against the highest one the tuned standard configurations use on the env's
  family (measure/rl_envs.top_lr: 7e-4 on Atari, 4e-3 on classic control, 1e-3 on
  MuJoCo), 3x above it; for an env not known, 1e-2 (10x Adam's default, above any of
  them, the same bar lr-too-high keeps for Adam far past every table);
- the critic's (TD) loss, whose typical level over the last third of the run is 10x+
  its level over the first fifth: steps this large keep the value estimates from
  fitting their own targets, and the error grows instead of settling (CS285's DQN on
  CartPole at Adam 5e-2, critic loss ~1 -> 25-50, against 0.4 at 1e-3);
- or, with the env known, a return that has stopped improving (its last fifth no
  better than the fifth before it by 5% of the way from random play to a competent
  score) a quarter of the way to a competent score or less, once any epsilon schedule
  has reached its floor: the steps overshoot into a poor policy and stay there (SB3's
  DQN on Breakout at 5e-3: 5.3 for the last 200k steps, against 21.5 at 5e-4).
"""

from __future__ import annotations

import numpy as np

from traindoc.measure.rl_envs import EXPLORATION, level_of, top_lr
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

# 3x the highest tuned LR on the env's family; 1e-2 for an unknown env (10x Adam's 1e-3).
HOT = 3.0
HOT_UNKNOWN = 1e-2
ADAM_DEFAULT = 1e-3
# The TD loss's level (medians: a few wild batches are no level) over the last third
# against the first fifth, 3+ logs each, 10+ logs in all.
GROWTH = 10.0
MIN_POINTS = 10
# A return under a quarter of the way from random play to a competent score, that rose
# by under 5% of that way from the fifth before its last, over 10+ logs.
POOR = 0.25
STALL = 0.05
# An epsilon schedule within 10% of its floor has finished exploring.
EPS_FLOOR = 1.1

# The critic's loss by name (CS285's critic_loss, Spinning Up's LossQ, SAC's qf1_loss). Not
# an on-policy value loss (PPO / A2C's value_loss): it regresses the returns themselves,
# so it grows with them in a run that learns (a return 10x higher is a loss ~100x higher).
_CRITIC = ("critic_loss", "lossq", "qloss", "qfloss", "qf1loss", "tdloss")


def _td_loss(run: Run) -> Series | None:
    """The critic's loss by name, else a DQN's loss (its only loss is the TD error): a run
    with an epsilon schedule logged."""
    for name in sorted(run.series):
        flat = "".join(c for c in name.lower().rsplit("/", 1)[-1] if c.isalnum() or c == "_")
        if flat in _CRITIC or flat.replace("_", "") in _CRITIC:
            return run.series[name].finite()
    loss = run.get("loss")
    if loss is not None and any(run.get(n) is not None for n in EXPLORATION):
        return loss.finite()
    return None


def _td_grew(run: Run) -> tuple[Series, float, float] | None:
    """(the TD loss, its first fifth's median, its last third's median) when it grew 10x+."""
    td = _td_loss(run)
    if td is None or len(td) < MIN_POINTS:
        return None
    v = td.values
    early = float(np.median(v[: max(3, v.size // 5)]))
    late = float(np.median(v[-max(3, v.size // 3) :]))
    if early <= 0 or late < GROWTH * early:
        return None
    return td, early, late


def _explored_from(run: Run) -> int | None:
    """The first step where an epsilon schedule sits at its floor; 0 with none logged."""
    for name in EXPLORATION:
        s = run.get(name)
        if s is not None and len(f := s.finite()):
            at = np.flatnonzero(f.values <= EPS_FLOOR * float(f.values.min()))
            return int(f.steps[at[0]]) if at.size else None
    return 0


def _stalled_poor(run: Run, env: str) -> tuple[float, float, int] | None:
    """(the last fifth's mean return, the competent score, its first step) for a return
    stalled a quarter of the way to competent or less, past the exploration phase."""
    lvl = level_of(env)
    reward = run.get("reward")
    if lvl is None or reward is None or len(r := reward.finite()) < MIN_POINTS:
        return None
    k = max(2, len(r) // 5)
    explored = _explored_from(run)
    if explored is None or int(r.steps[-2 * k]) < explored:
        return None  # still exploring over the stretch compared: a random return by design
    way = lvl.competent - lvl.random
    late, before = float(np.mean(r.values[-k:])), float(np.mean(r.values[-2 * k : -k]))
    if late > lvl.random + POOR * way or late - before > STALL * way:
        return None
    return late, lvl.competent, int(r.steps[-k])


def rl_hot_hit(run: Run, lr: float) -> Hit | None:
    """lr-too-high's finding on an RL run (see the module), a warning."""
    if not run.is_rl or "sgd" in str(run.fact("optim", "")).lower():
        return None
    env = run.fact("env_id")
    top = top_lr(env) if isinstance(env, str) else None
    bar = HOT * top if top is not None else HOT_UNKNOWN
    if lr < bar:
        return None
    usual = top if top is not None else ADAM_DEFAULT
    said = f"{fmt(usual)} on {env}'s family" if top is not None else "1e-3 (Adam's default)"
    if (grew := _td_grew(run)) is not None:
        td, early, late = grew
        shown = (
            f"the critic's TD loss grew {late / early:.0f}x ({fmt(early)} over the first fifth "
            f"-> {fmt(late)} over the last third)"
        )
        step, evidence = int(td.steps[0]), {"td_loss_early": early, "td_loss_late": late}
        signal = td.name
    elif isinstance(env, str) and (poor := _stalled_poor(run, env)) is not None:
        late_r, competent, step = poor
        shown = (
            f"the return stalled at {fmt(late_r)} on {env}, under a quarter of the way to a "
            f"competent {fmt(competent)}"
        )
        evidence, signal = {"reward_late": late_r, "competent_level": competent}, "reward"
    else:
        return None
    return Hit(
        title=f"Peak LR {fmt(lr)} is far above what RL agents train at; {shown}",
        step=step,
        evidence={
            "signal": signal,
            "peak_lr": lr,
            "hot_lr": bar,
            "ratio": lr / bar,
            **({"env_id": env} if isinstance(env, str) else {}),
            **evidence,
        },
        explanation=(
            f"The tuned standard RL configurations train at {said} or below; this run's LR "
            f"is {lr / usual:.0f}x that. Bootstrapped value targets move with every step: "
            "steps this large overshoot them, so the critic's error grows instead of settling "
            "and the policy built on it settles into a poor one."
        ),
        prescription=(
            f"Lower the LR 10x (toward {fmt(lr / 10)}), keep the target network's update slow, "
            "and clip the gradients; compare one seed at the lower LR before a long run."
        ),
        severity=Severity.WARNING,
    )
