"""vanishing-gradients: the gradient norm is near zero while the loss is still high."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import fmt, median, trend
from traindoc.model import Run, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Whole-model grad norms of healthy runs are ~0.05-10 (fine-tunes near
    # convergence ~0.01); below 1e-3 over half the run no update moves anything.
    abs_max: float = 1e-3
    # Or a collapse to 1/1000 of the early level, whatever the absolute scale.
    collapse: float = 1e-3
    # The window judged: the last half of the log (a long window, not a dip).
    late_frac: float = 0.5
    # Early reference: first 10% of the log.
    early_frac: float = 0.1
    # "Loss high" with V known: at or above 80% of ln(V) (barely below uniform).
    floor_frac: float = 0.8
    # Without V: the loss kept at least half its early value ...
    kept_frac: float = 0.5
    # ... and is not near zero (a memorised set legitimately has tiny grads).
    min_loss: float = 0.05
    min_points: int = 10


@rule(
    "vanishing-gradients",
    minimum="10 logged grad norms and losses",
    family="grads",
    severity=Severity.WARNING,
    params=Params(),
    requires=("grad_norm", "loss"),
    explained_by=("no-trainable-parameters",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Gradient norm near zero over a long window while the loss stays high.

    **What it does.** Takes the median grad norm over the last half of the log
    and flags it when it is below 1e-3, or below 1/1000 of its early level,
    while the loss over the same window is still high: at or above 0.8 ln(V)
    when V is known, else still at least half its early value, above 0.05 and
    not falling.

    **Why it matters.** With no gradient no learning rate can move the
    weights: the run burns compute at a fixed loss. Usual causes are saturated
    activations or a dead output layer, a loss that is detached or multiplied
    by ~0 (masking every token), or fp16 gradients underflowing without loss
    scaling.

    **Known false positives.** A model that has memorised its training set has
    tiny gradients at a near-zero loss: not flagged. A grad norm of exactly 0
    throughout is `no-trainable-parameters`, not this rule.

    **What to do.** Check that the loss is attached to the trainable
    parameters and that the label mask keeps real tokens; look for saturated
    activations or a dead head; under fp16 make sure loss scaling is on (or use
    bf16).
    """
    gn, loss = run.get("grad_norm"), run.get("loss")
    assert gn is not None and loss is not None
    g = gn.finite()
    if len(g) < p.min_points or median(g.values) == 0:
        return  # exact zeros are no-trainable-parameters' territory
    n = len(g)
    cut = int(g.steps[int(n * (1 - p.late_frac))])
    late_g = median(g.values[g.steps >= cut])
    early_g = median(g.values[: max(3, int(n * p.early_frac))])
    tiny = late_g < p.abs_max or (early_g > 0 and late_g < p.collapse * early_g)
    if not tiny:
        return
    lf = loss.finite()
    if len(lf) < p.min_points:
        return
    late_l = lf.after(cut)
    if len(late_l) < 3:
        return
    late_loss = median(late_l.values)
    early_loss = median(lf.values[: max(3, int(len(lf) * p.early_frac))])
    floor = run.floor
    at_floor = floor is not None and late_loss >= p.floor_frac * floor
    stuck = (
        late_loss >= p.kept_frac * early_loss
        and late_loss >= p.min_loss
        and not trend(late_l.steps, late_l.values).falling
    )
    if not (at_floor or stuck):
        return
    why = (
        f"{late_loss:.3g}, {late_loss / floor:.0%} of the uniform floor {fl.log_name(run)}(V) = {floor:.2f}"
        if at_floor and floor
        else f"{late_loss:.3g}, still {late_loss / early_loss:.0%} of its early {early_loss:.3g}"
    )
    yield Hit(
        title=f"Gradient norm is {fmt(late_g)} from step {cut} on while the loss stays at {why}",
        step=cut,
        end_step=int(g.steps[-1]),
        evidence={
            "late_grad_norm": late_g,
            "early_grad_norm": early_g,
            "collapse_ratio": late_g / early_g if early_g > 0 else math.nan,
            "late_loss": late_loss,
            "early_loss": early_loss,
            "floor": floor,
            "zero_share": float(np.mean(g.values == 0)),
        },
        explanation=(
            "The gradient is vanishingly small, so no update can change the model and the "
            "loss stays where it is. Typical causes: saturated activations or a dead output "
            "layer, a loss detached from the trainable weights or masked to ~0 tokens, or "
            "fp16 gradients underflowing without loss scaling."
        ),
        prescription=(
            "Check that the loss reaches the trainable parameters (requires_grad, no "
            ".detach()/no_grad), that labels are not all masked (-100), and the activations of "
            "the output layer"
            + (
                "; under fp16 enable loss scaling or switch to bf16"
                if advice.precision(run)
                else ""
            )
            + ". Raising the "
            "LR does not fix it: Adam already rescales small gradients, so a tiny norm with a "
            "stuck loss means the gradient carries no signal."
        ),
    )
