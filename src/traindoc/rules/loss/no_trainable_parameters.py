"""no-trainable-parameters: nothing is being trained (grad norm 0, flat loss, or 0 trainable params)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import fmt, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # "Zero" gradient: exactly 0.0, or the 1e-12-ish some stacks log for an empty
    # parameter list. A real (even vanishing) gradient norm of a network is orders
    # of magnitude above 1e-8.
    grad_eps: float = 1e-8
    # "Throughout": 95% of the logged grad norms are zero (the first log may
    # predate the freeze, or be a NaN from an fp16 scaler probe).
    zero_frac: float = 0.95
    # At least this many grad-norm points, so a 2-point log cannot decide.
    min_points: int = 5
    # The loss counts as flat when it drops less than 5% head-to-tail (medians of
    # 10%) with no significant downward trend: with no update, the loss only moves
    # with the batches. A 5% real drop with grad 0 means grad_norm is mis-logged
    # (a known DeepSpeed ZeRO-3 logging bug), not that nothing trains.
    max_drop_rel: float = 0.05
    # A head-to-tail change this large is no batch noise, trend or not (8 points that
    # go 2.77 -> 7.19 have moved, whatever a test on 8 points says).
    moved_rel: float = 0.5
    # reward_std ~0 means an RL run has zero advantages: that is rl-no-signal's case.
    rl_std_eps: float = 1e-6
    # An RL run whose rewards differ at every log has non-zero advantages: a grad norm
    # and KL exactly 0 at each of 2 logs cannot be batch luck (a zero norm needs every
    # advantage 0), so 2 logs settle it there.
    min_rl_points: int = 2
    # ... and one log settles it when no group tied at all (frac_reward_zero_std 0: every
    # group's advantages are non-zero) and it comes after the first optimizer step (the
    # KL is 0 by construction before it): a warning, one log being one log.
    one_log_min_step: int = 2


@rule(
    "no-trainable-parameters",
    minimum=(
        "a trainable-parameter count of 0, or 5 logged grad norms and losses (2 grad norms "
        "and KLs on an RL run whose rewards differ at every log, 1 past step 1 when no group "
        "tied)"
    ),
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    uses=("loss", "grad_norm", "reward_std", "kl"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Nothing is being trained: grad norm exactly 0 with a flat loss, or 0 trainable parameters.

    **What it does.** Fires when the run's facts say the trainable-parameter count
    is 0, or when the logged grad norm is 0 (or ~1e-12) at 95%+ of the logged
    steps while the train loss shows no downward trend.

    **Why it matters.** A PEFT / freeze mistake (target_modules that match no
    layer, `requires_grad=False` on everything, a LoRA model built but the base
    model passed to the trainer) gives a perfectly flat loss with grad_norm 0:
    every step is wasted. This is not `vanishing-gradients` (small but non-zero
    with a high loss): here there is nothing to differentiate.

    **Known false positives.** Some DeepSpeed ZeRO-3 versions log grad_norm as 0
    while training fine, and some Megatron-DeepSpeed versions print `grad norm:
    0.000` because they do not compute it; the loss-is-flat condition keeps those
    out (a loss that trends away from its start, down or up, is being updated). RL runs with
    zero reward variance also have zero gradients: that is `rl-no-signal`. On an
    RL run with reward variance (its loss is a surrogate ~0 by design) the KL to
    the reference stands in for the flat loss: grad norm 0 and KL exactly 0 at
    95%+ of 5+ logs means the policy never left the reference. When the rewards
    differ within the groups at every log (reward_std above 0, or not every group
    tied), 2 logs with grad norm and KL exactly 0 settle it: with non-zero
    advantages an updated policy cannot have a zero gradient. One such log is a
    warning when no group tied at all (frac_reward_zero_std 0) and it was logged
    after the first optimizer step (step 2+; before it the KL is 0 by construction).

    **What to do.** Print `model.print_trainable_parameters()` (PEFT) or
    `sum(p.numel() for p in model.parameters() if p.requires_grad)` before
    training. Check LoRA target_modules against the model's module names; with
    gradient checkpointing on a frozen base call `model.enable_input_require_grads()`.
    """
    count = run.fact("trainable_params")
    if count is not None and int(count) == 0:
        src = run.facts["trainable_params"].source
        yield Hit(
            title="The run has 0 trainable parameters",
            evidence={"trainable_params": 0, "source": src},
            explanation=(
                f"{src} reports no parameter with requires_grad: the optimizer has nothing to "
                "update, so the loss can only move with the batches."
            ),
            prescription=_FIX,
        )
        return
    loss, grad = run.get("loss"), run.get("grad_norm")
    if loss is None or grad is None:
        return
    g = grad.finite()
    live = run.is_rl and _rewards_differ(run, p)
    one = live and len(g) == 1 and _every_group_differs(run, p, int(g.steps[0]))
    if len(g) < (p.min_rl_points if live else p.min_points) and not one:
        return
    zero = np.abs(g.values) <= p.grad_eps
    frac = float(zero.mean())
    if frac < (p.zero_frac if len(g) >= p.min_points else 1.0):
        return
    std = run.get("reward_std")
    if std is not None and np.nanmedian(np.abs(std.values)) <= p.rl_std_eps:
        return  # zero advantages explain zero gradients: rl-no-signal
    if run.is_rl:
        # An RL loss is a surrogate that is legitimately ~0: judge the policy by its
        # KL to the reference instead, which grows from the first update on.
        if (hit := _rl_frozen(run, p, g, frac, live, one)) is not None:
            yield hit
        return
    lf = loss.finite()
    if len(lf) < p.min_points:
        return
    x = lf.values
    if np.all(x == 0):
        return  # a loss of exactly 0 is degenerate-loss's case (masking / logging)
    k = max(3, x.size // 10)
    a, b = float(np.median(x[:k])), float(np.median(x[-k:]))
    drop = (a - b) / abs(a) if a else 0.0
    # With no update the loss is stationary: it only moves with the batches. A level
    # that trends away from its start, down or up, means the weights do change and the
    # logged zero is a placeholder (Megatron-DeepSpeed printing "grad norm: 0.000").
    t = trend(lf.steps, x)
    if abs(drop) >= p.moved_rel or (
        abs(drop) >= p.max_drop_rel and (t.falling if drop > 0 else t.rising)
    ):
        return
    yield Hit(
        title=(
            f"Nothing is training: grad_norm is 0 at {frac:.0%} of {len(g)} logged steps and the "
            f"loss stays at {fmt(float(np.median(x)))}"
        ),
        step=int(g.steps[0]),
        end_step=int(g.steps[-1]),
        evidence={
            "zero_grad_frac": frac,
            "grad_norm_max": float(np.max(np.abs(g.values))),
            "loss_median": float(np.median(x)),
            "loss_drop_rel": drop,
            "trainable_params": count,
        },
        explanation=(
            "A gradient norm of exactly zero at every step means no parameter receives a "
            "gradient: the trainable set is empty or disconnected from the loss. The loss only "
            "moves with the batches (a vanishing gradient would be small but non-zero)."
        ),
        prescription=_FIX,
    )


def _rewards_differ(run: Run, p: Params) -> bool:
    """The completions' rewards differ within the groups at every log (reward_std above
    0, or not every group tied): every advantage cannot be 0, so a policy that is
    updated at all has a non-zero gradient, however short the log."""
    std = run.get("reward_std")
    if std is not None and len(std.finite()):
        return bool(np.all(np.abs(std.finite().values) > p.rl_std_eps))
    tied = run.get("frac_reward_zero_std")
    return tied is not None and len(tied.finite()) > 0 and bool(np.all(tied.finite().values < 1))


def _every_group_differs(run: Run, p: Params, step: int) -> bool:
    """No prompt group tied at this log (frac_reward_zero_std exactly 0), and the log
    comes after the first optimizer step (the step is printed, not a line count)."""
    tied = run.get("frac_reward_zero_std")
    if tied is None or run.fact("steps_ordinal") or step < p.one_log_min_step:
        return False
    t = tied.finite()
    return len(t) == 1 and float(t.values[0]) == 0.0


def _rl_frozen(
    run: Run, p: Params, g: Series, frac: float, live: bool, one: bool = False
) -> Hit | None:
    """Grad norm 0 and KL to the reference exactly 0 throughout, while the rewards
    differ: the reward gives a signal but no update ever reaches the policy."""
    kl = run.get("kl")
    k = kl.finite() if kl is not None else None
    need = 1 if one else (p.min_rl_points if live else p.min_points)
    if k is None or len(k) < need:
        return None  # without the KL a zero norm may be a logging placeholder
    kl_zero = float((np.abs(k.values) <= p.grad_eps).mean())
    if kl_zero < (p.zero_frac if len(k) >= p.min_points else 1.0):
        return None  # the policy moved away from the reference: the norm is mis-logged
    return Hit(
        title=(
            f"Nothing is training: grad_norm and the KL to the reference are exactly 0 at step "
            f"{int(g.steps[0])}, though no prompt group's rewards tied"
            if len(g) == 1
            else f"Nothing is training: grad_norm is 0 at {frac:.0%} of {len(g)} logged steps "
            f"and the KL to the reference is 0 at {kl_zero:.0%} of {len(k)}"
        ),
        step=int(g.steps[0]),
        end_step=int(g.steps[-1]),
        evidence={
            "zero_grad_frac": frac,
            "zero_kl_frac": kl_zero,
            "grad_norm_max": float(np.max(np.abs(g.values))),
            "kl_max": float(np.max(np.abs(k.values))),
        },
        explanation=(
            "The rewards differ between completions (there is a signal), yet no gradient "
            "reaches the weights: the policy is still exactly the reference model (KL 0) after "
            "every logged step. The trainable set is empty or cut off from the loss, or the "
            "optimizer step is lost (an engine / version bug)."
        ),
        prescription=_FIX
        + " On RL stacks also try the current DeepSpeed / trainer release: a zero grad norm "
        "with KL 0 throughout has been an engine bug.",
        severity=Severity.WARNING if len(g) == 1 else None,
    )


_FIX = (
    "Count trainable parameters before training (PEFT: model.print_trainable_parameters()). "
    "Check that LoRA target_modules match the model's module names and that the PEFT model, "
    "not the base model, is passed to the trainer; with gradient checkpointing on a frozen "
    "base call model.enable_input_require_grads()."
)
