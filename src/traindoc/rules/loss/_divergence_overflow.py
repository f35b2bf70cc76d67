"""divergence that ends past what floats hold: a loss that goes from finite to +Inf (or a
float32 softmax's clamped +Inf, 87.3365) and never comes back, or a loss component that
grew 10x over its earlier level before NaN appeared."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.losses import components
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


# -ln(FLT_MIN): the loss of a float32 softmax whose true-class probability underflowed
# and was clamped to the smallest normal float (Caffe's SoftmaxWithLoss prints 87.3365).
# It is +Inf with a floor under it, and Caffe users read it as such.
SATURATED = -math.log(float(np.finfo(np.float32).tiny))


def _overflowed(v: np.ndarray) -> np.ndarray:
    """+Inf, or the clamped +Inf of a float32 softmax (87.3365 to 4 decimals)."""
    return np.isposinf(v) | (np.abs(v - SATURATED) <= 1e-3)


def _overflow(p: Params, loss: Series) -> Hit | None:
    """The loss goes from finite to +Inf (or its clamped value 87.3365) and no finite
    loss after it is back near its level: it grew past what floats hold. (A NaN alone
    can be a 0/0 in a healthy model; +Inf is the limit of growth.)"""
    v = loss.values
    over = _overflowed(v)
    inf = np.flatnonzero(over)
    if not inf.size or not (np.isfinite(v[: inf[0]]) & ~over[: inf[0]]).any():
        return None
    i = int(inf[0])
    ok = np.isfinite(v) & ~over
    before, after = v[:i][ok[:i]], v[i:][ok[i:]]
    level = float(np.median(before[-p.head_points :]))
    if after.size and float(np.median(after)) < (1 + p.blowup_rise) * level:
        return None  # the loss came back: an overflowing batch, not a blow-up
    step, last = int(loss.steps[i]), int(loss.steps[i - 1])
    what = "Eval loss" if loss.name == "eval_loss" else "Loss"
    clamped = bool(np.isfinite(v[i]))
    to = f"saturates at {float(v[i]):.4f} = -ln(FLT_MIN)" if clamped else "overflows to +Inf"
    return Hit(
        title=(
            f"{what} {to} at step {step} (from {fmt(float(before[-1]))} at step {last}) and "
            "does not come back"
        ),
        step=step,
        end_step=int(loss.steps[-1]),
        evidence={
            "signal": loss.name,
            "last_finite_loss": float(before[-1]),
            "last_finite_step": last,
            "inf_step": step,
            "finite_after": int(after.size),
            **({"saturated_at": float(v[i])} if clamped else {}),
        },
        explanation=(
            (
                f"{float(v[i]):.4f} is -ln of the smallest float32: the softmax gave the true "
                "class a probability that underflowed to 0 and was clamped, on every sample: "
                if clamped
                else "A loss of +Inf is a loss that grew past the largest float: "
            )
            + "the logits or the activations blew up, and the run never returned to its "
            "earlier level. Every update after it is taken on garbage."
        ),
        prescription=(
            f"Restart from a checkpoint before step {last}; lower the peak LR 3-10x, keep "
            "gradient clipping on (max_grad_norm=1.0), and train in bf16 rather than fp16."
        ),
        severity=Severity.ERROR,
    )


def _component_blowup(run: Run, p: Params) -> Hit | None:
    """A loss component's last value >= 10x its earlier median, then NaN somewhere."""
    for name in components(run):
        s = run.get(name)
        f = s.finite() if s is not None else None
        if f is None or len(f) < p.short_min_points:
            continue
        before = float(np.median(f.values[:-1]))
        last, at = float(f.values[-1]), int(f.steps[-1])
        if not (before > 0 and last >= p.short_orders * before):
            continue
        dead = [
            n
            for n in ("loss", *components(run))
            if (x := run.get(n)) is not None and (~np.isfinite(x.values[x.steps >= at])).any()
        ]
        if not dead:
            continue
        lr = run.get("lr")
        evidence: dict[str, object] = {
            "signal": name,
            "before_median": before,
            "last_value": last,
            "ratio": last / before,
            "onset_step": at,
            "nonfinite_in": dead,
        }
        if lr is not None and len(lr.finite()):
            lf = lr.finite()
            evidence["lr_at_onset"] = float(lf.values[lf.steps <= at][-1:].max(initial=0.0))
        return Hit(
            title=(
                f"Loss component {name} blows up from {fmt(before)} to {fmt(last)} "
                f"({fmt(last / before)}x) at step {at}, and {', '.join(dead)} goes NaN"
            ),
            step=at,
            end_step=at,
            evidence=evidence,
            explanation=(
                f"{name} sat near {fmt(before)} and jumped {fmt(last / before)}x in one log, "
                "right where the loss turned NaN: the run diverged. A total that is a median "
                "over the last iterations (detectron2 prints one) still looks normal then."
            ),
            prescription=(
                advice.sentence(
                    "lower the base LR (scale it with the total batch: fewer GPUs than the "
                    "config was written for at the same LR is a hotter run)",
                    advice.warmup(run),
                    advice.clipping(run),
                )
                + "."
            ),
        )
    return None
