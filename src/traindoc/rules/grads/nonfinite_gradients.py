"""nonfinite-gradients: NaN or Inf in the logged gradient norm."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # Under fp16 dynamic loss scaling an occasional overflow (Inf norm, step
    # skipped, scale halved) is the scaler working: rare (<= 1% of points) and
    # recovered (the last `recovered_points` norms finite) is a warning, not an error.
    fp16_rare_share: float = 0.01
    recovered_points: int = 5
    # Bad norms only in the first 2 logs (or 2% of them), then finite, with the loss
    # falling after: the scaler's calibration at the start (info).
    start_share: float = 0.02


@rule(
    "nonfinite-gradients",
    minimum="one logged grad norm",
    family="grads",
    severity=Severity.ERROR,
    params=Params(),
    requires=("grad_norm",),
    uses=("loss", "fact:precision"),
    explained_by=("fp16-instability", "grad-explosion", "nonfinite-loss"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """NaN or Inf gradient norm, even when the logged loss looks finite.

    **What it does.** Counts the non-finite values in the logged gradient norm
    and reports the first bad step, the count and the share, and whether the
    loss logged at those steps is finite.

    **Why it matters.** A NaN gradient poisons the weights on the next
    optimizer step (unless a loss scaler skips it). And the loss column can
    hide it: HF Trainer's `logging_nan_inf_filter` (on by default) replaces
    NaN/Inf step losses by the window average, so `trainer_state.json` shows a
    finite loss while `grad_norm` is NaN. The grad norm is the honest signal.

    **Known false positives.** Under fp16 with dynamic loss scaling, a few Inf
    norms (early, while the scaler calibrates, and now and then after each scale
    increase) are skipped steps, not damage: rare (<= 1%), recovered and with the
    loss falling they are info; with the loss not falling, a warning. Bad norms only in the
    first logs (2, or 2%), finite after and with the loss falling, are info in any
    precision: the step was skipped and the weights are intact.

    **What to do.** Find the first bad step and the batch at it. Under fp16,
    switch to bf16 (or fp32); lowering the LR only delays the NaN. Otherwise
    lower the LR, keep clipping on, and check the data and the loss for
    log(0) / division by zero.
    """
    gn = run.get("grad_norm")
    assert gn is not None
    bad = ~np.isfinite(gn.values)
    count = int(bad.sum())
    if count == 0:
        return
    steps = gn.steps[bad]
    share = count / len(gn)
    n_nan = int(np.isnan(gn.values).sum())
    after = gn.values[int(np.flatnonzero(bad)[-1]) + 1 :]
    # Finite norms after the last bad one: the bad step was skipped (a NaN in the
    # weights would make every later norm NaN). A short log needs every point after.
    recovered = after.size >= min(p.recovered_points, 1 + len(gn) // 10) and bool(
        np.isfinite(after[-p.recovered_points :]).all()
    )
    fp16 = str(run.fact("precision", "")).lower() == "fp16"
    # Only the first logged norm(s), then finite ones and a falling loss: a loss
    # scaler calibrating (or a NaN guard) skipped those steps; nothing was damaged.
    start_only = recovered and int(np.flatnonzero(bad)[-1]) < max(2, p.start_share * len(gn))
    falling = _loss_falls(run, int(steps[-1]))

    evidence: dict = {
        "first_step": int(steps[0]),
        "last_step": int(steps[-1]),
        "count": count,
        "share": share,
        "nan": n_nan,
        "inf": count - n_nan,
        "recovered": recovered,
        "precision": run.fact("precision"),
    }
    hidden = ""
    loss = run.get("loss")
    if loss is not None:
        at = _isin(loss.steps, steps)
        logged = int(at.sum())
        finite_at = int(np.isfinite(loss.values[at]).sum())
        evidence["loss_logged_at_bad_steps"] = logged
        evidence["loss_finite_at_bad_steps"] = finite_at
        if finite_at:
            hidden = (
                f" The loss logged at {finite_at} of these steps is finite: HF Trainer's "
                "logging_nan_inf_filter (on by default) replaces NaN/Inf losses by the window "
                "average, so the loss column hides the NaN; the grad norm does not."
            )
    severity = Severity.ERROR
    rare_fp16 = fp16 and share <= p.fp16_rare_share and recovered
    if (start_only or rare_fp16) and falling:
        # a dynamic loss scaler raises its scale every few thousand steps on purpose and
        # overflows now and then: a skipped step, by design, while the loss keeps falling
        severity = Severity.INFO
    elif rare_fp16:
        severity = Severity.WARNING
    kind = "NaN" if n_nan == count else "Inf" if n_nan == 0 else "NaN/Inf"
    yield Hit(
        title=(
            f"Gradient norm is {kind} at {count} logged step{'s' if count > 1 else ''} "
            f"({share:.1%}), first at step {steps[0]}"
        ),
        step=int(steps[0]),
        end_step=int(steps[-1]),
        evidence=evidence,
        explanation=(
            "A non-finite gradient norm means at least one gradient overflowed or became NaN; "
            "an optimizer step taken on it writes NaN into the weights."
            + (
                " Under fp16 a rare, recovered overflow is the loss scaler skipping the step."
                if severity == Severity.WARNING
                else " Only the first logged norms are bad and the loss falls after them: the "
                "steps were skipped while the loss scaler calibrated; the weights are intact."
                if severity == Severity.INFO
                else ""
            )
            + hidden
        ),
        prescription=(
            "Switch to bf16 (or fp32): under fp16 lowering the LR only delays the NaN. "
            if fp16
            else ""
        )
        + (
            f"Inspect the batch and the loss at step {steps[0]} (log(0), division by zero, "
            "bad labels); keep clipping on (max_grad_norm=1.0) and lower the LR if the grad "
            "norm was climbing before it."
        ),
        severity=severity,
    )


def _loss_falls(run: Run, after_step: int) -> bool:
    """The finite loss after `after_step` ends below where it was at that step."""
    loss = run.get("loss")
    if loss is None:
        return False
    f = loss.finite()
    v = f.values[f.steps >= after_step]
    return v.size >= 2 and float(v[-1]) < float(v[0])


def _isin(a: np.ndarray, b: np.ndarray, part: int = 1 << 20) -> np.ndarray:
    """np.isin(a, b) a part of `a` at a time: on a long loss its temporaries (an int64
    copy of a, a table or a sort) are several times the loss."""
    out = np.empty(a.size, bool)
    for i in range(0, a.size, part):
        out[i : i + part] = np.isin(a[i : i + part], b)
    return out
