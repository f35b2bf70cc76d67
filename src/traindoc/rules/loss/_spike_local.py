"""loss-spike's readings of a 5-19 point paste with no single level: a loss that goes
negative (spikes measured against the other points' spread) and a loss still falling (a
point 10x over both neighbours), with the eval jump that confirms a spike."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._spike_head import _lone_spike
from traindoc.rules.loss._spike_largest import largest

if TYPE_CHECKING:
    from traindoc.rules.loss.loss_spike import Params


def _signed(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 5-19 points of a loss that goes negative (a normalising flow's or a
    density model's negative log-likelihood): ratios to its level mean nothing there, so
    a spike is measured against the spread of the other points. One point whose rise
    over their median is `tiny_factor` (10x) the range they span, with the next point
    back inside that range, is a jump no batch noise makes (warning)."""
    y = f.values
    i = int(np.argmax(y))
    if not 0 < i < y.size - 1:
        return
    rest = _ordinary_rest(np.delete(y, i), p.tiny_factor)
    lo, hi, mid = float(rest.min()), float(rest.max()), float(np.median(rest))
    spread = hi - lo
    peak = float(y[i])
    if not (spread > 0 and peak - mid >= p.tiny_factor * spread and lo <= y[i + 1] <= hi):
        return
    yield _lone_spike(
        run,
        f,
        i,
        mid,
        f"{fmt((peak - mid) / spread)}x the range of the other {rest.size} points",
        {"spread": spread},
        "This loss goes negative (a likelihood), so its spikes cannot be read as a "
        f"multiple of its level; this one rose {fmt((peak - mid) / spread)}x the whole "
        "range the other points span and was back inside it at the next log: the "
        "optimizer overshot at that step (a bad batch, an LR at the edge of stability, "
        "fp16 overflow).",
    )


def _ordinary_rest(rest: np.ndarray, factor: float) -> np.ndarray:
    """The other points of a signed paste without their highest when it is a spike
    by the same measure (its rise over the median of the rest `factor` x the range
    they span): a second spike is no part of the range the paste's noise spans, and
    two do not mask each other (the tail test's `highest_ordinary`, for a loss with
    no level to take a multiple of)."""
    j = int(np.argmax(rest))
    others = np.delete(rest, j)
    spread = float(np.ptp(others)) if others.size >= 2 else 0.0
    if spread > 0 and float(rest[j]) - float(np.median(others)) >= factor * spread:
        return others
    return rest


def _local(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 5-19 points whose loss is still falling has no one level: a point
    `tiny_factor` (10x) over both its neighbours, which agree with each other within
    `short_back`, rises past any batch noise whatever the rest of the curve does (the
    3-4 line test, applied at every point). Its rise must be `min_learned` of what the
    run learned (its first level minus its lowest): on a loss solved to ~0 a 10x blip
    is one misclassified sample. It is a warning when two rows do it, or when the eval
    loss logged at that step is `lone_eval_rise` above the evals on both sides of it
    (the held-out loss jumped and came back with it: the model was thrown off, not one
    batch); else info: a paste this short has no noise tail to set one row against. A
    row only `min_rel` over both neighbours counts when the eval loss at that log is
    `min_rel` over the evals on both sides too and it rises `both_learned` of what the
    paste learned (warning: two curves on different data in one jump)."""
    y, steps = f.values, f.steps
    head = float(np.median(y[: p.head_points]))
    learned = head - float(y.min())
    if not learned > 0:
        return
    found, both = [], []
    for i in range(1, y.size - 1):
        lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
        rise = float(y[i]) - hi
        if not (lo > 0 and hi <= p.short_back * lo):
            continue
        if y[i] >= p.tiny_factor * hi and rise >= p.min_learned * learned:
            found.append(i)
        elif (
            y[i] >= (1 + p.min_rel) * hi
            and rise >= p.both_learned * learned
            and _eval_jump(run, int(steps[i]), int(steps[i - 1]), int(steps[i + 1]), p, p.min_rel)
        ):
            # a smaller jump the held-out loss made too, at the same log and back at the
            # next: two curves on different data do not share one batch's noise
            both.append(i)
    if not (found or both):
        return
    i = max(found or both, key=lambda k: y[k])
    lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
    ref, peak, step = float(np.sqrt(lo * hi)), float(y[i]), int(steps[i])
    share = (peak - ref) / learned
    ev = _eval_jump(run, step, int(steps[i - 1]), int(steps[i + 1]), p)
    severity = Severity.WARNING if ev is not None or len(found) >= 2 else Severity.INFO
    evidence: dict[str, object] = {
        "count": len(found or both),
        **largest(step, peak, ref),
        "spike_steps": [int(steps[k]) for k in found],
        "learned_share": share,
        "points": int(y.size),
    }
    if ev is not None:
        evidence["eval_before"], evidence["eval_at"], evidence["eval_after"] = ev
    with_eval = (
        f"; the eval loss jumped with it ({fmt(ev[0])} -> {fmt(ev[1])} -> {fmt(ev[2])})"
        if ev is not None
        else ""
    )
    yield Hit(
        title=(
            f"Loss spike at step {step}: {fmt(float(y[i - 1]))} -> {fmt(peak)} -> "
            f"{fmt(float(y[i + 1]))} ({fmt(peak / ref)}x its neighbours) in {y.size} logged "
            f"points{with_eval}"
        ),
        step=step,
        end_step=int(steps[i + 1]),
        evidence=evidence,
        explanation=(
            f"One logged loss is {fmt(peak / ref)}x the points on both sides of it, which "
            "agree with each other: beyond any batch noise, on a curve still coming down. "
            "The optimizer overshot at that step (a bad batch, an LR at the edge of "
            "stability, fp16 overflow) and the loss came back"
            + (
                ", and the held-out loss rose and fell with it: the model itself was "
                "thrown off for that interval."
                if ev is not None
                else "."
            )
        ),
        prescription=(
            "Log more points around the spike to see how often it happens; if it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {step}",
            )
            + "."
        ),
        severity=severity,
    )


def _eval_jump(
    run: Run, step: int, prev: int, nxt: int, p: Params, rise: float | None = None
) -> tuple[float, float, float] | None:
    """(eval before, at, after) when the eval loss logged in (prev, step] is `rise`
    (default `lone_eval_rise`) above the last eval at or before `prev` and the first
    eval in (step, nxt], else None."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = ev.finite()
    es, ey = e.steps, e.values
    at = np.flatnonzero((es > prev) & (es <= step))
    before = np.flatnonzero(es <= prev)
    after = np.flatnonzero((es > step) & (es <= nxt))
    if not (at.size and before.size and after.size):
        return None
    b, a, c = float(ey[before[-1]]), float(ey[at[-1]]), float(ey[after[0]])
    if b > 0 and c > 0 and a >= (1 + (p.lone_eval_rise if rise is None else rise)) * max(b, c):
        return b, a, c
    return None
