"""The reward-signal reading of rl-no-signal's `check`: a mean return flat from its first
summary or 0 at every log, a DPO margin or success rate where no reward is logged, and
above all a reward signal that went dead (per-group reward std ~0, a zero-std fraction
near 1, a constant reward) over a long enough stretch, with the grad norm, advantages,
truncation and clipping that sharpen the finding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, NotJudged, too_few
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._rl_common import (
    DPO_MARGINS,
    EPISODE_STD,
    ZERO_STD_FRACTION,
    _at,
    _longest_run,
    _tail_run,
    episode_range,
    reward_spread,
)
from traindoc.rules.loss._rl_dead import _at_climbed_ceiling, _dead_after_first, _fallen_tail
from traindoc.rules.loss._rl_flat import _flat_reward, _reward_rises
from traindoc.rules.loss._rl_llm import (
    _advantage_spread,
    _all_clipped,
    _clipped_at,
    _corroborated,
    _dpo_no_margin,
)
from traindoc.rules.loss._rl_spread import _flat_from_start, _zero_return
from traindoc.rules.loss._rl_success import _success_flat, _success_rate

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _main(run: Run, p: Params) -> Iterator[Hit | NotJudged]:
    """The reward-signal reading of `check` (its docstring)."""
    std, reward, grad = run.get("reward_std"), run.get("reward"), run.get("grad_norm")
    fallen = 0  # a constant reward's last logs, at the lowest value it fell to
    zero_frac = run.get(ZERO_STD_FRACTION)
    spread = reward_spread(run)
    ep_std = run.get(EPISODE_STD)
    if (
        std is None
        and zero_frac is None
        and reward is not None
        and ep_std is not None
        and (hit := _flat_from_start(p, reward, ep_std)) is not None
    ):
        yield hit
        return
    if (
        std is None
        and zero_frac is None
        and reward is not None
        and (rng := episode_range(run)) is not None
        and (hit := _zero_return(p, reward, rng)) is not None
    ):
        yield hit
        return
    if std is None and reward is None and zero_frac is None:
        if (margins := run.get(DPO_MARGINS)) is not None:
            yield from _dpo_no_margin(run, p, margins)
        elif (rate := _success_rate(run)) is not None:
            yield from _success_flat(p, rate)
        return
    if std is None and spread is not None:
        std = spread  # max - min of the batch's scores: 0 when every completion tied
    if std is not None:
        base = std.finite()
        dead_signal = np.abs(base.values) <= p.std_eps
        what = std.name if std is spread else "reward_std"
    elif zero_frac is not None:
        base = zero_frac.finite()
        dead_signal = base.values >= 1 - p.std_eps
        what = f"{ZERO_STD_FRACTION} = 1"
    else:
        assert reward is not None
        base = reward.finite()
        x = base.values
        if x.size < 3:
            yield too_few("reward", x.size, p.min_all_dead)
            return
        # Constant reward: no change from either neighbour.
        d = np.abs(np.diff(x)) <= p.reward_eps
        dead_signal = np.r_[d[:1], d] & np.r_[d, d[-1:]]
        dead_signal &= ~_at_climbed_ceiling(p, x, late=starts_mid_run(base))
        fallen = _fallen_tail(p, x)
        if fallen:
            dead_signal[x.size - fallen :] = True
        what = "reward (constant)"
    tied_groups = None  # logs where the scores differ but every advantage is equal
    adv = _advantage_spread(run) if std is not None and std is spread else None
    if adv is not None and spread is not None and adv.name != spread.name:
        # The score's max - min spans the whole batch, across prompt groups; the
        # advantages are taken inside each group. All advantages equal while the
        # scores differ is every group tied (each prompt all right or all wrong):
        # no policy gradient, however live the batch's score spread looks.
        a = _at(adv.finite(), base.steps)
        adv_dead = np.isfinite(a) & (np.abs(a) <= p.std_eps)
        tied_groups = adv_dead & ~dead_signal
        if tied_groups.any():
            dead_signal = dead_signal | adv_dead
            what = adv.name
    n = base.steps.size
    g = _at(grad.finite(), base.steps) if grad is not None and len(grad.finite()) else None
    truncated = None  # logs dead because nearly every completion was cut, with no gradient
    cut = _clipped_at(run, base.steps)
    if cut is not None and g is not None:
        trunc_dead = (cut >= p.clipped_most) & (np.abs(g) <= p.grad_eps)
        if (trunc_dead & ~dead_signal).any():
            truncated = trunc_dead & ~dead_signal
            dead_signal = dead_signal | trunc_dead
    # No reward difference anywhere is no task signal, whatever the grad norm: what
    # gradient there is comes from the KL / entropy terms, which pull the policy back
    # to the reference or spread it, never towards the reward. A zero grad norm as
    # well (no such terms) makes it certain: an error rather than a warning.
    dead = dead_signal
    clipped = _all_clipped(run, p)
    short_and_mixed = n < p.min_points and (n < p.min_all_dead or not dead.all())
    if short_and_mixed and clipped is not None and n and dead.all():
        short_and_mixed = False  # truncation explains the tie: judged at any length
    few = n < p.min_all_dead
    if (
        short_and_mixed
        and n
        and dead.all()
        and _corroborated(run, p, base.steps, g, std, tied_groups)
    ):
        short_and_mixed = False  # a second dead signal at the same logs: a warning
    # A short log that ends in 3+ cut-off logs with no gradient while the rewards still
    # differ, dead for at least half of it: the run stopped learning and never came
    # back. Not a stretch of easy prompts: groups whose rewards differ have non-zero
    # advantages, so an exactly-0 norm at each of them is no batch luck. (A tail of
    # tied logs, reward_std 0, could be one; it keeps the all-dead test above.)
    tail = _tail_run(truncated) if truncated is not None else 0
    terminal = (
        n < p.min_points and tail >= p.min_all_dead and 2 * tail >= n and tail == _tail_run(dead)
    )
    if not terminal and fallen and fallen == _tail_run(dead):
        # the reward fell to its lowest value and sits there, exactly, for its last 3+
        # logs (half the log or more): the policy settled on one behaviour and never
        # left it, the same end as the cut-off logs above, from the reward alone
        tail, terminal = fallen, True
    if (
        not terminal
        and short_and_mixed
        and _dead_after_first(run, p, base, dead, g, std, tied_groups)
    ):
        tail, terminal = n - 1, True
    if short_and_mixed and terminal:
        short_and_mixed = False
    if short_and_mixed:
        if dead.any() or n < p.min_all_dead:
            yield too_few(what.split()[0], n, p.min_points)
        return  # (no dead point at all: the signal is there, judged healthy)
    start, length = _longest_run(dead)
    if terminal:
        start, length = n - tail, tail
    span = np.zeros(n, dtype=bool)
    span[start : start + length] = True
    mostly = False
    if not terminal and length < min(n, max(p.min_points, p.min_frac * n)):
        # Scattered rather than in one stretch: dead at most logs of a long one is the
        # same lack of signal, and unlike the longest stretch it survives a sparser
        # logging interval.
        mostly = n >= p.min_points and float(dead.mean()) >= p.dead_share
        if not mostly or (reward is not None and _reward_rises(p, reward)):
            if reward is not None and (hit := _flat_reward(p, reward)) is not None:
                yield hit  # the rewards differ, but the policy never gets better at them
            return
        span, length = dead, int(dead.sum())
    s0, s1 = int(base.steps[span][0]), int(base.steps[span][-1])
    evidence = {
        "signal": what,
        "dead_points": length,
        "dead_frac": length / n,
        "start_step": s0,
        "end_step": s1,
        "grad_norm_max": float(np.nanmax(np.abs(g[span]))) if g is not None else None,
    }
    if mostly:
        evidence["mode"] = "most logs"
    if std is not None:
        live = np.abs(base.values)
        if tied_groups is not None:
            live = np.where(tied_groups, 0.0, live)
        evidence["reward_std_max"] = float(np.max(live[span]))  # a tied group adds 0
    if reward is not None:
        r = reward.finite()
        seg = r.values[(r.steps >= s0) & (r.steps <= s1)]
        if seg.size:
            evidence["reward_median"] = float(np.median(seg))
    both = g is not None and bool(np.all(np.abs(g[span]) <= p.grad_eps))
    where = (
        f"at {length} of {n} log points ({length / n:.0%}, steps {s0}-{s1})"
        if mostly
        else f"for {length} log points (steps {s0}-{s1})"
    )
    # every dead log of the span is a cut-off one whose rewards still differ
    by_cut = truncated is not None and bool(np.all(truncated[span]))
    if by_cut:
        assert cut is not None
        share = float(np.min(cut[span]))
        title = (
            f"No RL learning signal {where}: {share:.0%}+ of completions cut at the length "
            "limit and grad_norm exactly 0, though the rewards differ"
        )
        evidence["signal"] = "completions clipped + grad_norm 0"
        evidence["clipped_min"] = share
    elif what == "reward (constant)" and not both:
        level = evidence.get("reward_median")
        at = f" at {fmt(level)}" if isinstance(level, float) else ""
        title = f"No RL learning signal {where}: the reward is constant{at}"
        if fallen and terminal and reward is not None:
            prior = reward.finite().values[: n - fallen]
            evidence["fallen_from"] = float(np.median(prior))
            title += f", fallen there from {fmt(float(np.median(prior)))}"
    else:
        title = f"No RL learning signal {where}: {what} ~0" + (" and grad_norm ~0" if both else "")
    if truncated is not None and truncated[span].any():
        evidence["truncated_points"] = int(truncated[span].sum())
    if tied_groups is not None and tied_groups[span].any():
        title += f": every prompt group tied, though {spread.name} is not 0"
        evidence["tied_groups"] = int(tied_groups[span].sum())
    if clipped is not None:
        title += f", every completion cut at the length limit ({clipped.name} 1)"
        evidence["clipped_signal"] = clipped.name
        evidence["clipped_min"] = float(np.min(clipped.finite().values))
    rm = evidence.get("reward_median")
    # a reward logged without any spread beside it, constant: an environment's return
    # (or a trainer that logs no per-completion spread), not a GRPO group's tie
    constant = what == "reward (constant)" and clipped is None and not by_cut
    yield Hit(
        title=title,
        step=s0,
        end_step=s1,
        evidence=evidence,
        explanation=(
            "Nearly every completion hit the length limit, so almost no answer finishes. "
            "A cut completion carries no gradient when the trainer masks overlong ones "
            "(DAPO's mask_truncated_completions / overlong filtering), and the grad norm of "
            "exactly 0 shows the rest gave none either: the reward differences are there, "
            "but no update reaches the policy."
            + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            if by_cut
            else "The reward is the same at every one of these logs: every episode or batch "
            "scores exactly alike, so no update can tell a better action from a worse one. "
            "A sparse reward the agent never earns (always 0, or the same penalty), a reward "
            "function that returns a constant, or episodes that always end the same way do "
            "this." + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            if constant
            else "Group-relative RL (GRPO, RLOO, PPO with group baselines) learns from reward "
            "differences between completions of the same prompt. With no variance every "
            "advantage is zero"
            + (
                ", and the zero grad_norm confirms that nothing is being updated."
                if both
                else ", so what gradient there is comes from the KL / entropy terms, not "
                "from the reward."
                if g is not None
                else "."
            )
            + (f" The reward sits at {fmt(rm)}." if rm is not None else "")
            + " A 0 loss on its own is normal for these trainers; this is not."
        ),
        prescription=(
            "Raise max_completion_length (TRL) / max_response_length (verl) until most "
            "completions finish, or ask for shorter answers in the prompt; then check a "
            "few finished completions against the reward function."
            if clipped is not None or by_cut
            else "Check what the environment (or reward function) returns on a few episodes "
            "you play by hand; for a sparse reward, shape it or explore more (an entropy "
            "bonus, a higher epsilon), and confirm the agent's actions reach the environment."
            if constant
            else "Score a few sampled completions with the reward function by hand: it "
            "probably returns a constant (format/parsing mismatch). Then raise "
            "num_generations and the sampling temperature, give partial credit instead of "
            "a 0/1 reward, and check the completions are not all cut at "
            "max_completion_length."
        ),
        severity=None if both and not few else Severity.WARNING,
    )
