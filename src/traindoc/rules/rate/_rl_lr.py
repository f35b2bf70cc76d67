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

Whatever the LR, a PPO-family run logs how far each update moved its policy: the approx
KL between the policy that collected the rollout and the updated one (SB3's
train/approx_kl, CleanRL's losses/approx_kl, RLlib's learner_stats/kl) is meant to stay
around 0.01-0.05 (SB3's target_kl suggestions; the PPO paper's adaptive-KL target 0.01),
and the share of clipped ratios around 0.1-0.3. A KL of 0.5+ (10x the top of that band)
or a clip fraction above 0.5, at 3+ updates and 10%+ of them, while the policy's entropy
falls under half its first value and the return (a rolling mean) gives back half or more
of what it had gained by its best, means each update moved the policy too far: the step
(the LR, or epochs x minibatches per rollout) is too large for the setup (an SB3 PPO on
Street Fighter II: KL 24 at the third update, entropy 8.1 -> 2.7, the return 3.3e4 ->
1.7e3 and never back). A KL that jumps once, with the return holding, is an update that
overshot and was pulled back, not this.
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

# PPO's approx KL per update (its 0.01-0.05 band x 10) and clip fraction (0.1-0.3 usually),
# over 3+ updates and 10%+ of them, with 5+ updates logged. The names are rl-no-signal's
# (rules/loss/_rl_common.py) plus RLlib's learner_stats/kl; a bare `kl` is not read: it is
# a KL to a reference model or a VAE's prior as often, and grows there by design.
KL_FAR = 0.5
CLIP_FAR = 0.5
FAR_MIN = 3
FAR_SHARE = 0.1
MIN_UPDATES = 5
# The entropy's last third under half its first value; the return's rolling mean (a tenth
# of its logs, 3+) giving back half of what it had gained from its lowest to its best.
ENTROPY_FELL = 0.5
GAVE_BACK = 0.5
_APPROX_KL = ("approx_kl", "train/approx_kl", "approxkl", "losses/approx_kl", "policy/approxkl_avg")
_CLIP_FRACTION = ("clip_fraction", "train/clip_fraction", "clipfrac", "losses/clipfrac")
# SB3's entropy_loss is the entropy's negative.
_ENTROPY = ("entropy", "policy_entropy", "losses/entropy", "train/entropy_loss")

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


def _named(run: Run, names: tuple[str, ...], suffix: str = "") -> Series | None:
    """The first of names logged, else a series whose name ends in suffix."""
    for name in names:
        if (s := run.get(name)) is not None and len(f := s.finite()):
            return f
    for name in sorted(run.series) if suffix else ():
        if name.lower().endswith(suffix) and len(f := run.series[name].finite()):
            return f
    return None


def _entropy_fell(run: Run) -> tuple[float, float] | None:
    """(the first entropy, the last third's median) when it fell under half its first."""
    ent = _named(run, _ENTROPY)
    if ent is None or len(ent) < MIN_UPDATES:
        return None
    v = -ent.values if ent.name.endswith("entropy_loss") else ent.values
    first, late = float(v[0]), float(np.median(v[-max(2, v.size // 3) :]))
    return (first, late) if first > 0 and late < ENTROPY_FELL * first else None


def _gave_back(run: Run) -> tuple[float, float] | None:
    """(the best rolling-mean return, the last one) when it gave back half its gain."""
    reward = run.get("reward")
    if reward is None or len(r := reward.finite()) < MIN_UPDATES:
        return None
    k = max(3, len(r) // 10)
    sm = np.convolve(r.values, np.ones(k) / k, mode="valid")
    at = int(np.argmax(sm))
    best, low, last = float(sm[at]), float(sm[: at + 1].min()), float(sm[-1])
    if at == sm.size - 1 or best - last < GAVE_BACK * max(best - low, abs(best) * 0.5):
        return None
    return best, last


def _far_updates(run: Run) -> tuple[Series, int, float] | None:
    """(the KL or clip-fraction series, how many updates went far, its largest value)."""
    for s, far in (
        (_named(run, _APPROX_KL, "learner_stats/kl"), KL_FAR),
        (_named(run, _CLIP_FRACTION), CLIP_FAR),
    ):
        if s is None or len(s) < MIN_UPDATES:
            continue
        n = int(np.count_nonzero(s.values > far))
        if n >= FAR_MIN and n >= FAR_SHARE * len(s):
            return s, n, float(s.values.max())
    return None


def _kl_hit(run: Run, lr: float) -> Hit | None:
    """A PPO-family run whose updates moved the policy far past the trust region (see the
    module), its entropy collapsing and its return falling from its best: a warning."""
    far = _far_updates(run)
    if far is None or (fell := _entropy_fell(run)) is None or (back := _gave_back(run)) is None:
        return None
    s, n, top = far
    band = "0.01-0.05" if "kl" in s.name.lower() else "0.1-0.3"
    line = KL_FAR if "kl" in s.name.lower() else CLIP_FAR
    first = int(s.steps[np.flatnonzero(s.values > line)[0]])
    return Hit(
        title=(
            f"PPO updates moved the policy too far: {s.name} above {fmt(line)} at {n} of "
            f"{len(s)} updates (max {fmt(top)}; usual {band}), entropy {fmt(fell[0])} -> "
            f"{fmt(fell[1])}, return (rolling mean) {fmt(back[0])} at its best -> {fmt(back[1])}"
        ),
        step=first,
        evidence={
            "signal": s.name,
            "far_updates": n,
            "updates": len(s),
            "max": top,
            "entropy_first": fell[0],
            "entropy_late": fell[1],
            "reward_best": back[0],
            "reward_last": back[1],
            "peak_lr": lr,
        },
        explanation=(
            f"PPO's approx KL is meant to stay around {band} per update (the clip fraction "
            "around 0.1-0.3): the clipped objective only bounds the step while the new policy "
            "stays near the one that collected the rollout. Updates this far past that band, "
            "with the entropy collapsing and the return falling from its best, mean each "
            "update overshoots into a near-deterministic, worse policy that the next "
            "rollouts cannot pull back from."
        ),
        prescription=(
            f"Lower the LR 3-10x (from {fmt(lr)}) or the epochs x minibatches per rollout, "
            "set target_kl (~0.02) to stop an update early, and keep the gradient clip "
            "(max_grad_norm 0.5); watch approx_kl stay under ~0.05."
        ),
        severity=Severity.WARNING,
    )


def rl_hot_hit(run: Run, lr: float) -> Hit | None:
    """lr-too-high's finding on an RL run (see the module), a warning."""
    if not run.is_rl or "sgd" in str(run.fact("optim", "")).lower():
        return None
    if (kl := _kl_hit(run, lr)) is not None:
        return kl
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
