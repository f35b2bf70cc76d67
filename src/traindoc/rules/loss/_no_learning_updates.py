"""no-learning where the log shows the updates never happen: an fp16 loss scaler already
at its floor that keeps reporting overflows (every step skipped), or a gradient norm
that is NaN/Inf at every logged step while the loss column still looks finite."""

from __future__ import annotations

from typing import TYPE_CHECKING

from traindoc.model import Run, Series
from traindoc.rules import advice
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.no_learning import Params


def _all_skipped(run: Run, p: Params) -> Hit | None:
    """Overflow messages with the loss scale already at its floor (DeepSpeed's
    "Attempted loss scale: 1, reducing to 1"): the scaler skips the step and cannot
    go lower, so every step it prints is an update that never happens."""
    over = [e for e in run.events if e.kind == "fp16-overflow" and e.value is not None]
    floor = [e for i, e in enumerate(over) if e.value <= 1.0 and _at_floor(over, i)]
    if len(floor) < p.min_dead_grads:
        return None
    loss = run.get("loss")
    if loss is not None and len(loss.finite()) >= p.min_points:
        return None  # a curve to judge: the curve decides
    first = floor[0]
    return Hit(
        title=(
            f"{len(floor)} fp16 overflows with the loss scale already at its floor "
            f"({first.value:g}): each of those steps is skipped, no update is applied"
        ),
        step=first.step,
        evidence={
            "skipped_at_floor": len(floor),
            "loss_scale": first.value,
            "first_line": first.line,
            "example": first.text[:160],
        },
        explanation=(
            "Each overflow makes the scaler skip the step and halve the scale; at the floor it "
            "cannot halve any more, so every step overflows again and is skipped: the step "
            "counter advances, the weights never change."
        ),
        prescription=(
            "Train in bf16 (or fp32); a model pre-trained in bf16 (T5, many LLMs) overflows "
            "in fp16 whatever the scale. Check the first batch for inf/NaN inputs too."
        ),
    )


# fp16's smallest positive (subnormal) value: a loss scale under it turns every scaled
# gradient to 0, so an overflow reported there does not come from the gradients' size.
FP16_TINY = 2.0**-24


def _at_floor(over: list, i: int) -> bool:
    """The i-th overflow message shows a scaler that cannot get out by cutting: it
    repeats the scale of the message before or after it (the scaler cannot go lower: DeepSpeed's
    "Attempted loss scale: 1, reducing to 1"), or cuts below fp16's smallest value (no
    scale makes that step finite: the Inf/NaN is in the forward pass). A scale still
    being halved above that (1 -> 0.5 -> 0.25: apex walking down for a summed loss) is
    the scaler calibrating; it skips the steps of its search, not every step."""
    v = over[i].value
    near = [over[j].value for j in (i - 1, i + 1) if 0 <= j < len(over)]
    return v < FP16_TINY or v in near


def _dead_gradients(run: Run, f: Series, gn: Series) -> Hit:
    prec = advice.precision(run)
    return Hit(
        title=(
            f"The gradient norm is NaN/Inf at every one of {len(gn)} logged steps: no "
            "optimizer step is being applied"
        ),
        step=int(gn.steps[0]),
        end_step=int(gn.steps[-1]),
        evidence={"grad_norm_points": len(gn), "finite_grad_norms": 0, "loss_points": len(f)},
        explanation=(
            "With a non-finite gradient at every step, the fp16 loss scaler skips each update "
            "(the weights never change) or the update writes NaN into the weights; the loss "
            "column can still look finite (HF replaces NaN losses by the window average, and "
            "exact zeros follow an overflow). Either way the run is not learning."
        ),
        prescription=(
            advice.sentence(
                prec and prec + " (a model pre-trained in bf16 overflows in fp16)",
                "check the first batch for inf/NaN inputs and the loss for log(0)",
            )
            + "; then confirm a finite grad norm on the first steps before relaunching."
        ),
    )
