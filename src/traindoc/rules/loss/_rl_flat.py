"""Whether an RL reward improved over the run: its level (a median, or a mean for a log of
few distinct values such as 0/1 successes), the flat-reward test (no late level above
the early one beyond noise) and the late-rise test that says the live batches still
teach the policy something."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import diff_mad, fmt
from traindoc.model import Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._common import starts_mid_run

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _few_levels(p: Params, v: np.ndarray) -> bool:
    """The log takes only a few distinct values (`few_levels`) over 20+ logs, each of them
    again and again (at 5%+ of the logs): counts of outcomes (0/1 success per episode, or
    means of 2-4 of them), not a continuous return. A mostly-0 reward with a few one-off
    spikes is not one: its rare values are not levels it returns to."""
    if v.size < p.flat_min_points:
        return False
    _, counts = np.unique(v, return_counts=True)
    return counts.size <= p.few_levels and int(counts.min()) >= 0.05 * v.size


def _level(v: np.ndarray, discrete: bool) -> float:
    """A window's level: its median, or its mean for a log of few levels (`_few_levels`):
    the median of such a window snaps to one of the levels, so a success share that
    rises from 30% to 64% of the episodes keeps the median at 0.5 while the mean moves
    with it."""
    return float(np.mean(v)) if discrete else float(np.median(v))


def _flat_reward(p: Params, reward: Series, rate: bool = False) -> Hit | None:
    """A reward that does not improve over the whole run (20+ logs): the policy gets no
    better at what it is rewarded for (warning). Improving takes a late level above the
    early one by more than the noise (4 standard errors) or 5% of its level, and by a
    fifth of the span the logs cover (their 5-95 percentile range): a rise buried in the
    scatter of a long log is noise around one level, however significant. For a success
    rate (`rate`) the 5% is of its range [0, 1], not of its level: a rate near 0 has no
    level to take 5% of, and 5 points of success is the least gain that counts as one."""
    r = reward.finite()
    n = len(r)
    if n < p.flat_min_points:
        return None
    v = r.values
    few = _few_levels(p, v)
    k = max(3, n // 5)
    head, tail = _level(v[:k], few), _level(v[-k:], few)
    sigma = diff_mad(v) / math.sqrt(2)
    if few:  # a diff MAD of 0/1 outcomes is 0 or 1 by chance: take their spread
        sigma = float(np.std(v))
    se = 1.2533 * sigma * math.sqrt(2 / k)
    scale = 1.0 if rate else max(abs(head), abs(tail), sigma, p.std_eps)
    gain = tail - head
    span = float(np.percentile(v, 95) - np.percentile(v, 5))
    if (gain >= p.flat_z * se or gain >= p.flat_rel * scale) and (
        gain >= p.span_frac * span or gain >= p.big_rel * scale
    ):
        return None
    if float(v.min()) >= 0.0 and float(v.max()) <= 1.0 and tail >= p.solved_rate:
        return None  # a success rate in [0, 1] at its ceiling: solved, nothing left to gain
    # learned inside the first fifth, then held: the first logs are the start, and the
    # last fifth clears them by the same two gates, both
    k0 = min(p.early_points, k)
    start = _level(v[:k0], few)
    se0 = 1.2533 * sigma * math.sqrt(1 / k0 + 1 / k)
    scale0 = 1.0 if rate else max(abs(start), abs(tail), sigma, p.std_eps)
    rise = tail - start
    if (
        rise >= p.flat_z * se0
        and rise >= p.flat_rel * scale0
        and (rise >= p.span_frac * span or rise >= p.big_rel * scale0)
    ):
        return None
    s0, s1 = int(r.steps[0]), int(r.steps[-1])
    what = f"The success rate ({reward.name})" if rate else "The reward"
    late = starts_mid_run(r)
    return Hit(
        title=(
            f"{what} does not improve over {n} logs (steps {s0}-{s1}): "
            f"{fmt(head)} at the start, {fmt(tail)} at the end"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": f"{reward.name} (flat)" if rate else "reward (flat)",
            "reward_start": head,
            "reward_end": tail,
            "reward_gain": gain,
            "noise": sigma,
            "points": n,
        },
        explanation=(
            "In RL the reward is the learning curve. Here its last fifth is no better than "
            "its first, within the noise and 5% of its level, or by less than a fifth of the "
            "span its logs cover: the episodes or completions "
            "differ in reward, yet the updates do not make the better ones more likely (advantages "
            "too small or too noisy, a KL or clip that holds the policy back, or a reward "
            "the policy cannot reach)."
            + (
                f" But the log opens mid-run (step {s0}): it shows no start to improve on, "
                "and a trained policy holds its level just as flatly."
                if late
                else ""
            )
        ),
        prescription=(
            "Score sampled completions by hand to check the reward ranks them sensibly; then "
            "check the advantages (normalised, not ~0), the KL coefficient and clip range, the "
            "LR, and that the policy's trainable parameters are the ones updated."
        ),
        # A log that opens mid-run (resumed, or its head cut) shows no start to improve
        # on: a flat return there may be a trained policy holding its level (info); the
        # level itself is judged against random play where the env is known (_rl_random).
        severity=Severity.INFO if late else Severity.WARNING,
    )


def _reward_rises(p: Params, reward: Series) -> bool:
    """The reward's last fifth is 5%+ (of its scale) above its first: the live batches
    still teach the policy something."""
    v = reward.finite().values
    if v.size < 5:
        return False
    few = _few_levels(p, v)
    k = max(1, v.size // 5)
    head, tail = _level(v[:k], few), _level(v[-k:], few)
    return tail - head >= p.flat_rel * max(abs(head), abs(tail), p.std_eps)
