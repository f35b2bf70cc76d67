"""rl-no-signal: an RL trainer whose reward has no variance and whose gradient is zero."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # reward_std below this is "every completion of a group scored the same":
    # rewards are usually O(0.1-1), and a real spread is never below 1e-6.
    std_eps: float = 1e-6
    # grad_norm below this is zero (some stacks log 1e-12-ish instead of 0.0).
    grad_eps: float = 1e-8
    # Without reward_std, a reward that moves less than this over a few logs is "constant".
    reward_eps: float = 1e-6
    # Consecutive dead log points needed: one dead batch (an easy prompt set) is normal ...
    min_points: int = 10
    # ... and the dead stretch must be 20% of the log, i.e. a long window.
    min_frac: float = 0.20


def _at(s: Series, steps: np.ndarray) -> np.ndarray:
    """Values of `s` at `steps` (the last logged value at or before each step)."""
    i = np.searchsorted(s.steps, steps, side="right") - 1
    out = np.full(steps.size, np.nan)
    ok = i >= 0
    out[ok] = s.values[i[ok]]
    return out


def _longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of True."""
    if not mask.any():
        return 0, 0
    m = np.r_[False, mask, False].astype(np.int8)
    d = np.diff(m)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k] - starts[k])


@rule(
    "rl-no-signal",
    minimum="10 logged reward / reward_std points",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("reward_std|reward",),
    uses=("grad_norm",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """RL trainer (GRPO/PPO) with zero reward variance and zero grad norm: nothing to learn from.

    **What it does.** On RL runs (those that log `reward_std` or `reward`) it looks for the longest stretch where reward_std is ~0 (every completion
    of a prompt group got the same reward) and grad_norm is ~0. A stretch of 10+
    log points and 20%+ of the run is an error; reward_std ~0 with no grad_norm
    logged is a warning. Without reward_std, a constant reward stands in for it.

    **Why it matters.** GRPO-style trainers learn from reward differences inside
    a group: with zero variance every advantage is 0, the policy gradient is 0
    and the run burns compute learning nothing. RL trainers log a loss that can
    legitimately be 0; what matters is grad_norm (>0 fine, =0 broken) and
    reward_std (0 = no learning signal). A 0 loss alone is never flagged here.

    **Known false positives.** A stretch of prompts that are all trivially easy
    (or impossible) gives zero variance for a while; that is why only a long
    window counts.

    **What to do.** Test the reward function on a few sampled completions: it
    probably returns a constant (a parsing/format mismatch, always 0). Raise the
    number of generations per prompt and the sampling temperature so group
    members differ; make the reward less binary (partial credit); check that the
    completions are not all truncated at max_completion_length.
    """
    std, reward, grad = run.get("reward_std"), run.get("reward"), run.get("grad_norm")
    if std is None and reward is None:
        return
    if std is not None:
        base = std.finite()
        dead_signal = np.abs(base.values) <= p.std_eps
        what = "reward_std"
    else:
        assert reward is not None
        base = reward.finite()
        x = base.values
        if x.size < 3:
            return
        # Constant reward: no change from either neighbour.
        d = np.abs(np.diff(x)) <= p.reward_eps
        dead_signal = np.r_[d[:1], d] & np.r_[d, d[-1:]]
        what = "reward (constant)"
    n = base.steps.size
    if n < p.min_points:
        return
    g = _at(grad.finite(), base.steps) if grad is not None and len(grad.finite()) else None
    dead = dead_signal & (np.abs(g) <= p.grad_eps) if g is not None else dead_signal
    start, length = _longest_run(dead)
    if length < max(p.min_points, p.min_frac * n):
        return
    s0, s1 = int(base.steps[start]), int(base.steps[start + length - 1])
    evidence = {
        "signal": what,
        "dead_points": length,
        "dead_frac": length / n,
        "start_step": s0,
        "end_step": s1,
        "grad_norm_max": float(np.nanmax(np.abs(g[start : start + length])))
        if g is not None
        else None,
    }
    if std is not None:
        evidence["reward_std_max"] = float(np.max(np.abs(base.values[start : start + length])))
    if reward is not None:
        r = reward.finite()
        seg = r.values[(r.steps >= s0) & (r.steps <= s1)]
        if seg.size:
            evidence["reward_median"] = float(np.median(seg))
    both = g is not None
    title = f"No RL learning signal for {length} log points (steps {s0}-{s1}): {what} ~0" + (
        " and grad_norm ~0" if both else ""
    )
    rm = evidence.get("reward_median")
    yield Hit(
        title=title,
        step=s0,
        end_step=s1,
        evidence=evidence,
        explanation=(
            "Group-relative RL (GRPO, RLOO, PPO with group baselines) learns from reward "
            "differences between completions of the same prompt. With no variance every "
            "advantage is zero"
            + (", and the zero grad_norm confirms that nothing is being updated." if both else ".")
            + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            + " A 0 loss on its own is normal for these trainers; this is not."
        ),
        prescription=(
            "Score a few sampled completions with the reward function by hand: it probably "
            "returns a constant (format/parsing mismatch). Then raise num_generations and the "
            "sampling temperature, give partial credit instead of a 0/1 reward, and check the "
            "completions are not all cut at max_completion_length."
        ),
        severity=None if both else Severity.WARNING,
    )
