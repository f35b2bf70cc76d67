"""loss-spike's short-log readings, for a pasted excerpt too short for a rolling level:
points far above the paste's own level that the next point comes back from, a 3-4 point
paste's lone jump, a train and eval loss blown up at one row together, and a jump the
grad norm led."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.losses import solved
from traindoc.measure.spikes import highest_ordinary
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._spike_head import _lone_spike, _recovering
from traindoc.rules.loss._spike_largest import largest
from traindoc.rules.loss._spike_local import _local, _signed

if TYPE_CHECKING:
    from traindoc.rules.loss.loss_spike import Params


def _grad_led(run: Run, f: Series, p: Params) -> Hit | None:
    """A short paste whose grad norm jumps 10x between two logs while the loss jumps
    1.5x over its level at that log or the next: a loss spike the gradient led."""
    gn = run.get("grad_norm")
    if gn is None or len(f) < 2:
        return None
    g = gn.finite()
    if len(g) < 2 or not np.isin(f.steps, g.steps).all():
        return None  # the two must be logged at the same steps
    gv = g.values[np.searchsorted(g.steps, f.steps)]
    y, steps = f.values, f.steps
    for i in range(1, y.size):
        if not (gv[i - 1] > 0 and gv[i] >= p.led_grad_factor * gv[i - 1]):
            continue
        level = float(np.median(y[:i]))
        j = next((k for k in (i, i + 1) if k < y.size and y[k] >= p.led_loss_factor * level), None)
        if j is None or not level > 0:
            continue
        peak, came_back = float(y[j]), bool(j + 1 < y.size and y[-1] <= p.short_back * level)
        return Hit(
            title=(
                f"Loss jumped {fmt(level)} -> {fmt(peak)} ({peak / level:.1f}x) at step "
                f"{int(steps[j])}, as the grad norm jumped {fmt(float(gv[i - 1]))} -> "
                f"{fmt(float(gv[i]))} ({gv[i] / gv[i - 1]:.0f}x) at step {int(steps[i])}"
                + ("; it came back" if came_back else "; the paste ends before it comes back")
            ),
            step=int(steps[j]),
            end_step=int(steps[-1]),
            evidence={
                "count": 1,
                **largest(int(steps[j]), peak, level),
                "grad_norm_before": float(gv[i - 1]),
                "grad_norm_at_largest": float(gv[i]),
                "grad_step": int(steps[i]),
                "came_back": came_back,
                "points": int(y.size),
            },
            explanation=(
                f"Between two logs the gradient grew {gv[i] / gv[i - 1]:.0f}x and the loss "
                f"{peak / level:.1f}x: one update (or a few) large enough to throw the model off "
                "the path it was on. A noisy batch moves one of them, not both."
            ),
            prescription=(
                f"Restart from a checkpoint before step {int(steps[i - 1])} if it does not come "
                "back; "
                + advice.join(
                    *advice.steadier(run, "lower the peak LR 2-3x"),
                    f"inspect the batches at step {int(steps[i])}",
                )
                + "."
            ),
            severity=Severity.WARNING,
        )
    return None


def _tiny(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """A paste of 3-4 points: an interior point `tiny_factor` over both neighbours,
    which agree with each other within `short_back`: no batch noise does that."""
    y = f.values
    for i in range(1, y.size - 1):
        lo, hi = sorted((float(y[i - 1]), float(y[i + 1])))
        if not (lo > 0 and hi <= p.short_back * lo and y[i] >= p.tiny_factor * hi):
            continue
        ref, peak = float(np.sqrt(lo * hi)), float(y[i])
        yield _lone_spike(
            run,
            f,
            i,
            ref,
            f"{fmt(peak / ref)}x in a paste of {y.size} points",
            {"largest_rel": peak / ref - 1},
            f"Only {y.size} losses are logged, but one is {fmt(peak / ref)}x the points on "
            "both sides of it, which agree with each other: beyond any batch noise. The "
            "optimizer overshot at that step (a bad batch, an LR at the edge of stability, "
            "fp16 overflow) and the loss came back.",
        )
        return


def _short(run: Run, f: Series, p: Params) -> Iterator[Hit]:
    """Spikes in a pasted excerpt: points far above the log's own level that the next
    point comes back from, or one jump that has been falling ever since."""
    y, steps = f.values, f.steps
    level = float(np.median(y))
    if not level > 0:
        if float(y.min()) <= 0:
            yield from _signed(run, f, p)
        return
    back = [
        i
        for i in range(1, y.size - 1)
        # rises from the point before and comes back at the next: a steep descent
        # (0.9, 0.4, 0.1, ...) has points far above its median but no spike
        if y[i] >= p.short_factor * level and max(y[i - 1], y[i + 1]) <= p.short_back * level
    ]
    peak_i = int(np.argmax(y))
    pre = float(np.median(y[:peak_i])) if peak_i else math.nan
    recovering, ret = _recovering(y, peak_i, pre, p)
    if not (back or recovering) and y.size > p.head_points + p.recovering_points:
        # a paste still falling has its highest point at its start: the jump is the
        # point highest over the `head_points` logs just before it (its own level)
        i = p.head_points
        local = np.array([np.median(y[j - i : j]) for j in range(i, y.size)])
        j = i + int(np.argmax(y[i:] / np.where(local > 0, local, np.inf)))
        peak_i, pre = j, float(local[j - i])
        recovering, ret = _recovering(y, peak_i, pre, p)
        # ... held 25%+ above that level at the next log too: a lone row off a curve
        # still falling is the 3-4 line test's (`_local`), not a jump coming back; and
        # larger than every rise from one log to the next elsewhere in the paste: a jump
        # no larger than its own swings (a fit near 0 that swings 5x batch to batch) is
        # its noise
        recovering = (
            recovering
            and float(y[j + 1]) >= (1 + p.min_rel) * pre
            and float(y[j]) / pre > _largest_rise(y, j, int(ret[0]) if ret.size else y.size)
        )
    after = y[peak_i:]
    recovering = recovering and not back
    if not (back or recovering):
        if (hit := _both_blown(run, f, p)) is not None:
            yield hit
            return
        yield from _local(run, f, p)
        return
    ref = level if back else pre
    top = max(back, key=lambda i: y[i]) if back else peak_i
    peak = float(y[top])
    # 5x its level, and (a lone point) 2x the highest ordinary point of the paste: one
    # under that is the tail of the log's own batch noise, as in the long path (another
    # spike is no ordinary point while the paste has at most two)
    tail = float(highest_ordinary(y, level, [top], factor=p.spike_sized, few=p.several - 1)[0])
    big = peak >= (p.huge_single_rel + 1) * ref and not (
        len(back) == 1 and peak < p.huge_single_tail * tail
    )
    # a jump the loss has fallen back below by the end of the paste is judged by the
    # long path's size test: 2x its level for 2+ logged points (its peak and the point
    # after it still 25%+ above the level) warns, a lone doubled point is a bad batch
    came_back = recovering and (
        float(after[-1]) <= pre
        or (ret.size > 0 and float(np.median(after[int(ret[0]) :])) <= (1 + p.min_rel) * pre)
    )
    still = recovering and not came_back
    held = came_back and float(after[1]) >= (1 + p.min_rel) * pre
    # two blips are not "several" (3+, as in the long path): in a per-step paste two
    # 3-4x rows among rows that spread 2x are the loss's own tail, each a bad batch
    several = len(back) >= p.several
    severity = Severity.WARNING if several or big or still or held else Severity.INFO
    # a paste solved to ~0 (its lowest point 100x under its level) swings by multiples
    # of itself both ways: a spike that rises less far above the level than the paste's
    # own points dip under it is that swing (C3D at 0.008: 3.7e-5 and 0.085 in 8 logs)
    best = float(y.min())
    swing = solved(level, best) and peak / ref < level / best
    if swing:
        severity = Severity.INFO
    where = ", ".join(str(int(steps[i])) for i in back) if back else str(int(steps[peak_i]))
    what = (
        f"{len(back)} loss spike{'s' if len(back) > 1 else ''} in {y.size} logged points "
        f"(steps {where}) that came back at the next point; largest {fmt(ref)} -> {fmt(peak)}"
        if back
        else f"Loss jumped {fmt(pre)} -> {fmt(peak)} at step {where} and has fallen at each "
        f"of the {after.size - 1} points since (now {fmt(float(after[-1]))})"
    )
    yield Hit(
        title=f"{what} ({peak / ref:.1f}x)",
        step=int(steps[top]),
        end_step=int(steps[-1]),
        evidence={
            "count": max(len(back), 1),
            **largest(int(steps[top]), peak, ref),
            "spike_steps": [int(steps[i]) for i in back] or [int(steps[peak_i])],
            "recovering": bool(recovering),
            "points": int(y.size),
            "solved_swing": bool(swing),
        },
        explanation=(
            f"Only {y.size} losses are logged, but a jump of {peak / ref:.1f}x over the "
            "log's own level is beyond any batch noise: the optimizer overshot (a bad batch, "
            "an LR at the edge of stability, fp16 overflow) and the loss "
            + ("came back." if back else "is coming back, slowly.")
        ),
        prescription=(
            "Log more points around the spike (every step) to see how often it happens; if "
            "it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches at step {int(steps[top])}",
            )
            + "."
        ),
        severity=severity,
    )


def _back_within(y: np.ndarray, i: int, pre: float, p: Params) -> bool:
    """The curve is back within `min_rel` of `pre` at one of the `recovering_points`
    logs after `i`."""
    after = y[i + 1 : i + 1 + p.recovering_points]
    return bool(after.size and float(after.min()) <= (1 + p.min_rel) * pre)


def _both_blown(run: Run, f: Series, p: Params) -> Hit | None:
    """The row of a short paste where the train loss is `huge_single_rel` + 1 (5x)
    the log before it and the eval loss logged at that row `tiny_factor` (10x) the eval
    before it, both back within `min_rel` of where they jumped from within `recovering_points`
    logs (warning; the largest such train jump)."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    e = ev.finite()
    es, ey = e.steps, e.values
    y, steps = f.values, f.steps
    best: tuple[int, int, int] | None = None
    for i in range(1, y.size - 1):
        pre = float(y[i - 1])
        if not (pre > 0 and y[i] >= (p.huge_single_rel + 1) * pre and _back_within(y, i, pre, p)):
            continue
        at = np.flatnonzero((es > steps[i - 1]) & (es <= steps[i]))
        before = np.flatnonzero(es <= steps[i - 1])
        if not (at.size and before.size):
            continue
        k, b = int(at[-1]), float(ey[before[-1]])
        if not (b > 0 and ey[k] >= p.tiny_factor * b and _back_within(ey, k, b, p)):
            continue
        if best is None or y[i] / pre > y[best[0]] / y[best[0] - 1]:
            best = (i, k, int(before[-1]))
    if best is None:
        return None
    i, k, kb = best
    step, pre, peak = int(steps[i]), float(y[i - 1]), float(y[i])
    eb, ea = float(ey[kb]), float(ey[k])
    back = i + 1 + int(np.argmax(y[i + 1 :] <= (1 + p.min_rel) * pre))
    return Hit(
        title=(
            f"Loss spike at step {step}: train loss {fmt(pre)} -> {fmt(peak)} "
            f"({fmt(peak / pre)}x) and eval loss {fmt(eb)} -> {fmt(ea)} ({fmt(ea / eb)}x) "
            f"at the same log, both back by step {int(steps[back])}"
        ),
        step=step,
        end_step=int(steps[back]),
        evidence={
            "count": 1,
            **largest(step, peak, pre),
            "spike_steps": [step],
            "eval_before": eb,
            "eval_at": ea,
            "back_step": int(steps[back]),
            "points": int(y.size),
        },
        explanation=(
            f"The train loss jumped {fmt(peak / pre)}x from one log to the next and the "
            f"held-out loss jumped {fmt(ea / eb)}x at the same log; both were back near "
            "where they jumped from within a few logs. Two curves on different data blowing "
            "up together is the model itself thrown off (a bad update at an LR at the edge "
            "of stability, BatchNorm statistics wrecked), not one bad batch, and the run "
            "repaired it."
        ),
        prescription=(
            "If it repeats: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _largest_rise(y: np.ndarray, j: int, back: int) -> float:
    """The largest ratio of a log to the one before it, outside the jump at `j` and its
    fall over the `back` logs after it (1.0 when the paste never rises elsewhere)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        up = y[1:] / y[:-1]
    keep = np.ones(up.size, bool)
    keep[max(0, j - 1) : j + back] = False
    up = up[keep & np.isfinite(up)]
    return float(max(up.max(), 1.0)) if up.size else 1.0
