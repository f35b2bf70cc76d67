"""loss-spike's sparse reading: the finding for a confirmed multi-point excursion of a sparsely
logged loss that came back."""

from __future__ import annotations

from traindoc.measure.spikes import Excursion
from traindoc.measure.stats import fmt
from traindoc.model import Run, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._spike_largest import largest


def _sparse_hit(run: Run, e: Excursion) -> Hit:
    """A confirmed multi-point excursion of a sparse loss that came back (warning)."""
    points = e.end - e.start + 1
    return Hit(
        title=(
            f"Loss spike over {points} logged points, steps {e.step}-{e.end_step}: "
            f"{fmt(e.level)} -> {fmt(e.peak)} ({e.peak / e.level:.1f}x), with {e.confirmed_by} "
            f"{fmt(e.confirm_ref)} -> {fmt(e.confirm_value)} at the same points; it came back"
        ),
        step=e.step,
        end_step=e.end_step,
        evidence={
            "count": 1,
            **largest(e.step, e.peak, e.level),
            "spike_steps": [e.step],
            "points": points,
            "confirmed_by": e.confirmed_by,
            "confirm_before": e.confirm_ref,
            "confirm_worst": e.confirm_value,
        },
        explanation=(
            f"The loss left its level for {points} consecutive logged points, far beyond the "
            f"point-to-point noise of this log, and {e.confirmed_by} got as clearly worse at "
            "the same points: the model itself was thrown off (an LR at the edge of "
            "stability, a run of bad batches), not one noisy batch. It recovered, but the "
            "epochs in between were lost and it can happen again."
        ),
        prescription=(
            "Keep the checkpoint from before the spike; "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {e.step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )
