"""rl-no-signal's checks of LLM preference / RL trainers (DPO, PPO, GRPO in TRL, verl,
OpenRLHF): a margin or log-probs pinned at 0, a frozen policy, every completion
clipped, a task reward that is never earned."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, NotJudged, too_few
from traindoc.rules.loss._rl_common import (
    _TASK_REWARD,
    APPROX_KL,
    CLIP_FRACTION,
    CLIPPED,
    DPO_MARGINS,
    POLICY_ENTROPY,
    _at,
    _first,
)

if TYPE_CHECKING:
    from traindoc.rules.loss.rl_no_signal import Params


def _dpo_no_margin(run: Run, p: Params, margins: Series) -> Iterator[Hit | NotJudged]:
    """DPO whose implicit reward margin is exactly 0 at every log (3+): the policy and
    the reference give every pair the same log-ratio, so the reference moves with the
    policy (a deepcopy sharing its weights, the same adapter) or nothing is updated."""
    m = margins.finite()
    dead = bool(len(m)) and bool(np.all(np.abs(m.values) <= p.std_eps))
    unscored = dead and _logps_zero(run, p, m.steps)
    if len(m) < p.min_all_dead and not unscored:
        yield too_few(DPO_MARGINS, len(m), p.min_all_dead)
        return
    if not dead:
        return
    s0, s1 = int(m.steps[0]), int(m.steps[-1])
    yield Hit(
        title=(
            f"No preference signal for {len(m)} log point{'s' if len(m) > 1 else ''} (steps "
            f"{s0}-{s1}): DPO's rewards/margins is exactly 0 at every one"
            + (", and so are logps/chosen and logps/rejected" if unscored else "")
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": DPO_MARGINS + (" + logps 0" if unscored else ""),
            "dead_points": len(m),
            "dead_frac": 1.0,
        },
        explanation=(
            "The margin is beta x how much more the policy than the reference prefers the "
            "chosen answer over the rejected one. "
            + (
                "Here the summed log-probabilities of the chosen and rejected answers are "
                "exactly 0 as well: a real answer's log-probability is below 0, so no "
                "answer token was scored (all masked or truncated away). The margin, and "
                "the gradient, are 0 whatever the model does; the loss stays at ln 2."
                if unscored
                else "It starts at 0 (the policy is the reference) and moves with the first "
                "update; exactly 0 at every log means the reference is the policy itself, "
                "or the policy is never updated. The loss then stays at ln 2 = 0.6931."
            )
        ),
        prescription=(
            "Inspect a collated batch: count the label positions that are not -100 for the "
            "chosen and rejected answers (raise max_length / lower max_prompt_length, fix "
            "the chat template's masking)."
            if unscored
            else "Load the reference model separately (from_pretrained again, or "
            "ref_model=None with PEFT so the trainer disables the adapter), not as a "
            "deepcopy or the same object; then check that the policy has trainable "
            "parameters."
        ),
        severity=Severity.WARNING if len(m) < p.min_all_dead else None,
    )


def _logps_zero(run: Run, p: Params, steps: np.ndarray) -> bool:
    """DPO's summed log-probabilities of the chosen and rejected answers exactly 0 at
    every one of `steps`: no answer token was scored. That makes a 0 margin certain at
    any number of logs: it is the masking, not one early log before the first update."""
    for name in ("logps/chosen", "logps/rejected"):
        s = run.get(name)
        if s is None or not len(s.finite()):
            return False
        at = _at(s.finite(), steps)
        if not (np.all(np.isfinite(at)) and np.all(np.abs(at) <= p.std_eps)):
            return False
    return True


def _corroborated(
    run: Run,
    p: Params,
    steps: np.ndarray,
    g: np.ndarray | None,
    std: Series | None,
    tied_groups: np.ndarray | None = None,
) -> bool:
    """At a log or two with no reward difference, a second signal dead at the same
    logs: the grad norm exactly 0, or (verl) the advantages all equal besides the
    scores. One tied batch can happen; a tie that leaves no gradient at all, or that
    the advantages repeat, is what the whole pasted run looks like. When the dead
    signal is the advantages themselves (every group tied while the scores differ),
    the second one is verl's policy-gradient loss (`actor/pg_loss`) exactly 0."""
    if g is not None and g.size and bool(np.all(np.abs(g) <= p.grad_eps)):
        return True
    if tied_groups is not None and tied_groups.any():
        return _pg_loss_zero(run, p, steps)
    adv = _advantage_spread(run)
    if adv is None or std is None or std.name == adv.name:
        return False
    at = _at(adv, steps)
    return bool(np.all(np.isfinite(at)) and np.all(np.abs(at) <= p.std_eps))


def _pg_loss_zero(run: Run, p: Params, steps: np.ndarray) -> bool:
    """The policy-gradient part of the loss (verl's `actor/pg_loss`) is exactly 0 at
    every one of `steps`: with every advantage 0 it cannot be anything else."""
    for name, s in run.series.items():
        if name.split("/")[-1] == "pg_loss" and len(s.finite()):
            at = _at(s.finite(), steps)
            return bool(np.all(np.isfinite(at)) and np.all(np.abs(at) <= p.std_eps))
    return False


def _advantage_spread(run: Run) -> Series | None:
    """max - min of the advantages (verl's critic/advantages/max and /min)."""
    for name, hi in run.series.items():
        if name.endswith("/max") and "advantage" in name:
            lo = run.series.get(name[: -len("max")] + "min")
            if lo is not None and np.array_equal(hi.steps, lo.steps):
                return Series.from_arrays(
                    name[: -len("/max")] + "/spread", hi.steps, hi.values - lo.values
                )
    return None


def _clipped_at(run: Run, steps: np.ndarray) -> np.ndarray | None:
    """The share of completions cut at the length limit at each of `steps`."""
    for name in CLIPPED:
        s = run.get(name)
        if s is not None and len(s.finite()):
            return _at(s.finite(), steps)
    return None


def _all_clipped(run: Run, p: Params) -> Series | None:
    """The clipped-completion share, when it is ~1 at every log: every answer was cut."""
    for name in CLIPPED:
        s = run.get(name)
        if s is not None and len(s.finite()) and bool(np.all(s.finite().values >= p.clipped_all)):
            return s
    return None


def _collapsed(ent: Series | None) -> bool:
    """The policy's entropy is ~0 (|H| <= 1e-6) at every log: the action distribution
    has collapsed onto one action (a saturated softmax)."""
    return ent is not None and len(ent) > 0 and bool(np.all(np.abs(ent.values) <= 1e-6))


def _policy_frozen(run: Run, p: Params) -> Hit | None:
    """PPO whose policy never changes: the approx KL of every update ~0 (<= 1e-10) at
    3+ logs, the clip fraction exactly 0 at each where it is logged, and the entropy
    the same at every log where that is. The KL and the clip fraction compare the
    updated policy with the one that collected the rollout; an update that moved it
    makes both non-zero, and a policy that moves between rollouts changes its entropy.
    An error when the entropy confirms it, else a warning (a single-minibatch,
    single-epoch update also logs 0: its KL is taken before the step). From 1 log
    when the entropy is ~0 there too (|H| <= 1e-6, SB3's entropy_loss -2e-18): the
    policy collapsed onto one action, its softmax saturated, so the log-probability
    gradients PPO follows vanish and no update can move it again (a too-high learning
    rate does this) - that is why its KL is 0, not a single-minibatch update."""
    kl = _first(run, APPROX_KL)
    if kl is None or not len(kl):
        return None
    if not bool(np.all(np.abs(kl.values) <= p.kl_eps)):
        return None
    clip = _first(run, CLIP_FRACTION)
    if clip is not None and not bool(np.all(clip.values == 0)):
        return None
    ent = _first(run, POLICY_ENTROPY)
    if len(kl) < p.min_all_dead and not _collapsed(ent):
        return None
    still = None
    if ent is not None and len(ent) >= 2:
        e = ent.values
        still = float(e.max() - e.min()) <= 1e-6 * max(1.0, float(np.abs(np.median(e))))
        if not still:
            return None  # the policy's entropy moved: it did change between rollouts
    s0, s1 = int(kl.steps[0]), int(kl.steps[-1])
    what = f"{kl.name} <= {p.kl_eps:g}" + (f", {clip.name} 0" if clip is not None else "")
    collapsed = _collapsed(ent)
    if still:
        assert ent is not None
        what += f", {ent.name} {fmt(float(ent.values[0]))} throughout"
    elif collapsed:
        assert ent is not None
        what += f", {ent.name} ~0 (the policy collapsed onto one action)"
    return Hit(
        title=f"The policy never changes: {what} at all {len(kl)} logs (steps {s0}-{s1})",
        step=s0,
        end_step=s1,
        evidence={
            "signal": "policy frozen",
            "approx_kl_max": float(np.max(np.abs(kl.values))),
            "clip_fraction_max": float(np.max(clip.values)) if clip is not None else None,
            "entropy_unchanged": still,
            "entropy_collapsed": collapsed,
            "points": len(kl),
        },
        explanation=(
            "PPO logs how far each update moved the policy from the one that collected "
            "the rollout: the approx KL and the share of clipped ratios. Both are 0 at "
            "every log, so no update changed the policy"
            + (
                ", and its entropy is the same number at every log (the action "
                "distribution is still the initial one)."
                if still
                else ", and its entropy is ~0: the action distribution collapsed onto one "
                "action, whose saturated probabilities leave PPO no gradient to follow."
                if collapsed
                else "."
            )
            + " The reward can only change through the environment, not through learning."
        ),
        prescription=(
            "Check that the optimizer steps the policy's parameters (learning rate not 0, "
            "the policy network's parameters in the optimizer and requiring grad), and that "
            "the advantages are not all 0 (a constant reward, or advantages normalised away); "
            "an update of one minibatch and one epoch also logs a KL of 0 (measured before "
            "its step), so rule that out first."
        ),
        severity=None if still else Severity.WARNING,
    )


def _task_reward_dead(run: Run, p: Params) -> Hit | None:
    """A GRPO task reward (a reward function named for accuracy / correctness) exactly 0
    at each of 10+ logs while the run's reward is logged: not one completion was ever
    right, so that function never made one completion better than another, and what
    the policy learns comes from the other (format) rewards alone."""
    for name, s in sorted(run.series.items()):
        if not _TASK_REWARD.match(name):
            continue
        v = s.finite()
        if len(v) < p.min_points or not bool(np.all(np.abs(v.values) <= p.std_eps)):
            continue
        s0, s1 = int(v.steps[0]), int(v.steps[-1])
        total = run.get("reward")
        rm = (
            float(np.median(total.finite().values))
            if total is not None and len(total.finite())
            else None
        )
        return Hit(
            title=(
                f"The task reward never fires: {name} is 0 at every one of {len(v)} logs "
                f"(steps {s0}-{s1})" + (f", while the total reward sits at {fmt(rm)}" if rm else "")
            ),
            step=s0,
            end_step=s1,
            evidence={"signal": f"{name} = 0", "dead_points": len(v), "reward_median": rm},
            explanation=(
                "GRPO learns from reward differences inside a group of completions. This "
                "reward function gave 0 to every completion at every log: no answer was ever "
                "scored right, so it never told a better completion from a worse one, and the "
                "policy can only learn what the other reward functions (format, length) pay "
                "for."
            ),
            prescription=(
                "Score a few sampled completions with this reward function by hand: check the "
                "answer extraction (tags, \\boxed{}, the dataset's solution column) and that "
                "the task is within the model's reach (a few right answers per group); give "
                "partial credit or start from an easier subset if none are."
            ),
            severity=Severity.WARNING,
        )
    return None
