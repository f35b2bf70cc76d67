"""grad-explosion: the gradient norm keeps growing after warmup."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.grads import positive
from traindoc.measure.stats import bins, fmt, median, trend
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.grads._common import lr_peak_step


@dataclass(frozen=True)
class Params:
    # Late median / early median. Healthy runs drift up late in training by
    # 2-5x at most (weight-decay / LR-decay interplay); 10x is growth without bound.
    ratio: float = 10.0
    # Or a smaller rise (>= 3x) that ends at a whole-model norm no mean-reduced
    # loss produces in a healthy run.
    huge: float = 1e4
    huge_ratio: float = 3.0
    # A rise that has levelled off is only flagged when this large: a plateau
    # 100x above the early level is not a warm-up shape.
    plateau_ratio: float = 100.0
    # Early window: first 20% of the post-warmup bins; late window: last 10%.
    early_frac: float = 0.2
    late_frac: float = 0.1
    # Without an LR peak, skip the first 10% of the log (the init transient).
    head_frac: float = 0.1
    # Fewer post-warmup points than this cannot show a trend.
    min_points: int = 20
    # Runaway into NaN/Inf (too short for the trend above, e.g. SGD at a huge LR:
    # 2.9 -> 1.5e8 in 7 steps): the last finite points before the first
    # non-finite grad norm, at most this many ...
    runaway_window: int = 20
    # ... at least this many (fewer cannot show a monotone rise) ...
    runaway_min_points: int = 5
    # ... ending 100x above where the window started (a healthy init transient
    # falls; an fp16 overflow jumps to Inf from a normal level in one step, with
    # no rise before it), with a significant Mann-Kendall rise over the window.
    runaway_ratio: float = 100.0
    # Significant there means p < 0.05 (z >= 1.96), not the long-log test's p < 0.01:
    # with 5-6 points Mann-Kendall's z tops out at 2.2-2.6, so 2.58 would demand a
    # perfectly monotone 6+ points and make the 5-point minimum unreachable. The 100x
    # rise carries the evidence; the trend only rules out one isolated spike. (A
    # cosine-restart run: grad norm 0.24, 1.65, 14.8, 13.8, 70, 109 over 6 epochs
    # while its validation error went 7% -> 46%: z = 2.25.)
    runaway_z: float = 1.96
    # An RL run whose return rose over half its range (last fifth's median over the
    # first fifth's) and ended there: the agent learned. A critic's grad norm follows
    # its TD targets, which grow with the return (DQN on CartPole: Q 4 -> 99 toward
    # 1/(1-gamma) as the return went 35 -> 500, grad norm median 3.8 -> 78), and its
    # TD-error gradients are heavy-tailed: a rise alongside a return that learned is
    # info, not an explosion.
    return_rise: float = 0.5
    return_share: float = 0.2


@rule(
    "grad-explosion",
    minimum="20 logged grad norms (5 for a runaway growth)",
    family="grads",
    severity=Severity.ERROR,
    params=Params(),
    requires=("grad_norm",),
    uses=("loss", "lr", "fact:warmup_steps"),
    explained_by=("lr-too-high", "warmup-too-short", "fp16-instability"),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Gradient norm grows without bound: a rising trend ending 10x+ above its early level.

    **What it does.** After warmup (the LR peak, or the first 10% of the log),
    reduces log grad norm to ~200 bin medians and compares the median of the
    last 10% with that of the first 20%; a Mann-Kendall test must confirm a
    rising trend over the whole window and, unless the rise exceeds 100x, over
    its second half too (still climbing). It flags a rise of 10x or more, or
    of 3x ending above 1e4. A short log (under 20 grad norms), or the last
    finite points before a NaN/Inf grad norm, is read as a runaway: 5+ points
    whose last 3 sit 100x+ above their first third, rising at p < 0.05 (one
    dip allowed in 6 points), unless the loss falls significantly over them.

    **Why it matters.** A gradient norm that keeps climbing means the updates
    are feeding the instability that produces them: the LR is too high for the
    curvature the model has reached, or fp16 is overflowing. It ends in NaN or
    a loss blow-up; clipping only hides it by shrinking every step.

    **Known false positives.** Grad norm often rises slowly late in healthy
    pre-training (2-5x); that stays below the threshold. If the loss is still
    clearly falling at the end, the finding is lowered to a warning. Isolated
    spikes are `grad-spike`'s, not this rule's (medians ignore them). LoRA
    grad norms grow while B leaves 0, then level off: not flagged. In RL, a
    critic's grad norm grows with its value targets, which grow with the return:
    when the return rose by half its range or more and ended there (its last
    fifth's median over its first fifth's), with no NaN/Inf grad norm, the rise
    is info (the agent learned; DQN on CartPole: Q 4 -> 99, grad norm 4 -> 78,
    return 35 -> 500).

    **What to do.** Lower the peak LR 3-10x, lengthen warmup to 2-5% of steps,
    keep clipping on (max_grad_norm=1.0), and under fp16 switch to bf16.
    """
    gn = run.get("grad_norm")
    assert gn is not None
    g = positive(gn)
    runaway = _runaway(run, gn, p)
    if runaway is not None:
        yield runaway
        return
    if len(g) < p.min_points:
        return
    start = lr_peak_step(run)
    post = g.after(start) if start is not None else g
    if start is None or len(post) < p.min_points:
        post = Series(
            g.name, g.steps[int(len(g) * p.head_frac) :], g.values[int(len(g) * p.head_frac) :]
        )
    if len(post) < p.min_points:
        return
    st, lv = bins(Series(post.name, post.steps, np.log(post.values)))
    n = lv.size
    early = median(lv[: max(3, int(n * p.early_frac))])
    late = median(lv[-max(3, int(n * p.late_frac)) :])
    ratio = math.exp(late - early)
    late_val = math.exp(late)
    if not (ratio >= p.ratio or (ratio >= p.huge_ratio and late_val >= p.huge)):
        return
    tr = trend(st, lv)
    if not tr.rising:
        return
    # Still climbing in the second half: a rise that levelled off (LoRA's B
    # matrices growing from 0 early on) is not growth without bound.
    still = trend(st[n // 2 :], lv[n // 2 :])
    if not still.rising and ratio < p.plateau_ratio:
        return
    onset = int(st[int(np.argmax(lv > early + math.log(p.huge_ratio)))])
    nonfinite_after = int((~np.isfinite(gn.values) & (gn.steps >= onset)).sum())

    severity = Severity.ERROR
    learned = _return_learned(run, p) if run.is_rl else None
    loss_falling = None
    loss = run.get("loss")
    if loss is not None:
        lt = loss.after(int(st[-max(3, n // 3)]))
        if len(lt) >= 8:
            loss_falling = bool(trend(lt.steps, lt.values).falling) and bool(
                np.isfinite(lt.values).all()
            )
            if loss_falling and nonfinite_after == 0:
                severity = Severity.WARNING
    if learned is not None and nonfinite_after == 0:
        severity = Severity.INFO  # the critic's targets grew with a return that learned
    yield Hit(
        title=(
            f"Gradient norm grew {ratio:.0f}x after warmup "
            f"(median {fmt(math.exp(early))} -> {fmt(late_val)})"
        ),
        step=onset,
        end_step=int(post.steps[-1]),
        evidence={
            "early_median": math.exp(early),
            "late_median": late_val,
            "ratio": ratio,
            "trend_z": tr.z,
            "second_half_z": still.z,
            "from_step": int(post.steps[0]),
            "onset_step": onset,
            "nonfinite_after": nonfinite_after,
            "loss_still_falling": loss_falling,
            "return_learned": learned,
        },
        explanation=(
            "After warmup the gradient norm kept rising instead of settling: each update "
            "pushes the weights into a steeper region, which produces larger gradients. "
            "Left alone this ends in NaN or a loss blow-up; clipping only hides it by "
            "shrinking every step."
            + (
                f" Here the return rose {fmt(learned[0])} -> {fmt(learned[1])} over the same run: "
                "a critic's gradients grow with the value targets it fits, so this is worth "
                "watching, not an explosion."
                if severity == Severity.INFO and learned is not None
                else ""
            )
        ),
        prescription=(
            advice.sentence(*advice.steadier(run, "lower the peak LR 3-10x"))
            + f". Restart from a checkpoint before step {onset}."
        ),
        severity=severity,
    )


def _return_learned(run: Run, p: Params) -> list[float] | None:
    """[first fifth's median, last fifth's median] of an RL return that rose by
    `return_rise` of its range and ended there: an agent that learned; else None."""
    for name in ("eval_return", "eval_reward", "reward"):
        r = run.get(name)
        if r is None:
            continue
        v = r.finite().values
        if v.size < 5:
            continue
        k = max(1, int(v.size * p.return_share))
        head, tail = median(v[:k]), median(v[-k:])
        span = float(v.max() - v.min())
        if span > 0 and tail - head >= p.return_rise * span:
            return [head, tail]
        return None
    return None


def _runaway(run: Run, gn: Series, p: Params) -> Hit | None:
    """Grad norm that climbs 100x+ in the points just before it first goes NaN/Inf."""
    bad = ~np.isfinite(gn.values)
    if not bad.any() and len(gn) >= p.min_points:
        return None  # a long finite log is judged on its trend (check)
    # a short paste that ends in the climb, without a NaN (yet), is judged the same way
    first_bad = int(np.argmax(bad)) if bad.any() else len(gn)
    st, v = gn.steps[:first_bad], gn.values[:first_bad]
    ok = v > 0
    st, v = st[ok][-p.runaway_window :], v[ok][-p.runaway_window :]
    n = v.size
    if n < p.runaway_min_points:
        return None
    lv = np.log(v)
    k = max(2, n // 3)
    start, end = median(lv[:k]), median(lv[-3:])
    ratio = math.exp(end - start)
    tr = trend(st, lv)
    if ratio < p.runaway_ratio or tr.z < p.runaway_z or _loss_falls(run, int(st[0]), int(st[-1])):
        return None
    onset = int(st[int(np.argmax(lv > start + math.log(p.huge_ratio)))])
    ended = first_bad < len(gn)
    nan_step = int(gn.steps[first_bad]) if ended else None
    n_bad = int(bad.sum())
    return Hit(
        title=(
            f"Gradient norm ran away over {n} logged steps (median {fmt(math.exp(start))} "
            f"-> peak {fmt(float(v.max()))})"
            + (f", then went non-finite at step {nan_step}" if ended else ", and is still rising")
        ),
        step=onset,
        end_step=nan_step if ended else int(st[-1]),
        evidence={
            "early_median": math.exp(start),
            "late_median": math.exp(end),
            "max_finite": float(v.max()),
            "ratio": ratio,
            "trend_z": tr.z,
            "from_step": int(st[0]),
            "onset_step": onset,
            "first_nonfinite_step": nan_step,
            "nonfinite_after": n_bad,
            "runaway": True,
        },
        explanation=(
            "The gradient norm grew by orders of magnitude over a few steps: each update pushed "
            "the weights into a steeper region, producing a larger gradient and a larger "
            "update"
            + (
                ", until the numbers left the float range. The NaN/Inf gradients after it are "
                "the consequence, not the cause."
                if ended
                else "; left alone it ends in NaN/Inf."
            )
        ),
        prescription=(
            advice.sentence(*advice.steadier(run, "lower the peak LR 10x or more"))
            + f". Restart from a checkpoint before step {onset}"
            + (f"; the weights after step {nan_step} are not usable." if ended else ".")
        ),
        severity=Severity.ERROR,
    )


def _loss_falls(run: Run, start: int, end: int) -> bool:
    """The loss falls significantly (p < 0.05) over the grad norm's rise: the model is still
    learning, so the rise is an early transient (a LoRA B matrix leaving 0, an init that
    starts in a flat region), not updates feeding their own instability."""
    loss = run.get("loss")
    if loss is None:
        return False
    f = loss.finite()
    ok = (f.steps >= start) & (f.steps <= end)
    if ok.sum() < 4:
        return False
    return trend(f.steps[ok], f.values[ok]).z <= -1.96
