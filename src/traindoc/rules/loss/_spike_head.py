"""loss-spike's reading of a jump among the first points past the warmup, where the rolling
test has too few points before it, and the lone-spike finding and recovery test the
short-log readings share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.loss_spike import Params


def _head(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A jump among the first `side` points past the warmup, where the rolling test
    has too few points before it to judge: a point `tiny_factor` (10x) over both its
    neighbours that then falls at each log until back within `min_rel` of the log before
    it (`_recovering`): a spike coming back, however far the head is still falling."""
    y = f.values
    warm = run.fact("warmup_steps")
    skip_until = (
        f.steps[0] + warm if warm else f.steps[min(y.size - 1, int(p.skip_fraction * y.size))]
    )
    head = float(np.median(y[: p.head_points]))
    learned = head - float(y.min())
    for i in range(1, min(p.side, y.size - 1)):
        pre = float(y[i - 1])
        if f.steps[i] <= skip_until or not pre > 0:
            continue
        rise = float(y[i]) - max(pre, float(y[i + 1]))
        if not (
            y[i] >= p.tiny_factor * max(pre, float(y[i + 1])) and rise >= p.min_learned * learned
        ):
            continue
        ok, ret = _recovering(y, i, pre, p)
        if not (ok and ret.size):
            continue
        back = int(f.steps[i + int(ret[0])])
        yield _lone_spike(
            run,
            f,
            i,
            pre,
            f"{fmt(float(y[i]) / pre)}x the log before it, back at {fmt(float(y[i + int(ret[0])]))} "
            f"by step {back}",
            {"largest_rel": float(y[i]) / pre - 1, "back_step": back},
            f"One of the first logged losses is {fmt(float(y[i]) / pre)}x the log before it and "
            "10x the log after it, and the loss then fell at each log until it was back at its "
            "level: beyond any batch noise, the optimizer overshot (a bad batch, an LR at the "
            "edge of stability, fp16 overflow) and the run spent those logs repairing it.",
        )
        return


def _recovering(y: np.ndarray, peak_i: int, pre: float, p: Params) -> tuple[bool, np.ndarray]:
    """A jump at `peak_i` of `recovering_factor` over `pre` (the level before it) that
    falls at each point until it is back within `min_rel` of that level (2+ points after
    the peak; past that the paste wobbles at its level like any other stretch of it), or
    at each point to the end of the paste; and the index (into the points from the peak)
    of that return, when it came back so (empty otherwise)."""
    after = y[peak_i:]
    none = np.empty(0, np.int64)
    if not (pre > 0) or after.size <= p.recovering_points:
        return False, none
    ret = np.flatnonzero(after <= (1 + p.min_rel) * pre)
    ret = ret if ret.size and ret[0] >= 2 else none  # a lone point must fall to the end
    fell = after[: int(ret[0]) + 1] if ret.size else after
    ok = (
        y[peak_i] >= p.recovering_factor * pre
        and bool(np.all(np.diff(fell) < 0))
        and (after[0] - after[-1]) >= p.recovering_share * (after[0] - pre)
    )
    return ok, ret


def _lone_spike(
    run: Run,
    f: Series,
    i: int,
    baseline: float,
    size: str,
    evidence: dict[str, float],
    explanation: str,
) -> Hit:
    """One point of a short paste that jumped and was back at the next log: the finding
    the 3-4 line test and the negative-loss test share (they differ in how they measure
    the jump, `size`)."""
    y, steps = f.values, f.steps
    step, peak = int(steps[i]), float(y[i])
    return Hit(
        title=(
            f"Loss spike at step {step}: {fmt(float(y[i - 1]))} -> {fmt(peak)} -> "
            f"{fmt(float(y[i + 1]))}, {size}"
        ),
        step=step,
        end_step=int(steps[i + 1]),
        evidence={
            "count": 1,
            "largest_step": step,
            "largest_value": peak,
            "largest_baseline": baseline,
            **evidence,
            "spike_steps": [step],
            "points": int(y.size),
        },
        explanation=explanation,
        prescription=(
            "Log more points around the spike to see how often it happens; if it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )
