"""grad-spike: isolated gradient-norm spikes, told apart by whether the loss followed."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.grads import SHORT_POINTS, LossResponse, grad_spikes, loss_response, positive
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit, rule
from traindoc.rules.grads._common import lr_peak_step


@dataclass(frozen=True)
class Params:
    # Local baseline: 25 logged points is long enough that a spike cannot move
    # the median, short enough to follow warmup and decay.
    window: int = 25
    # In log space healthy grad-norm noise is ~0.1-0.3; 6 robust sigmas keeps
    # heavy-tailed but healthy logs (small batches, RL) quiet.
    k: float = 6.0
    # And at least 4x the local median: the floor for clean logs, where 6 sigmas
    # is only a few percent. Real tiny-batch runs (batch 4 x 32 tokens) have
    # log sigma ~0.25, so there the 6-sigma test (~4.5x) decides; a near-empty
    # batch there spikes the pre-clip norm 4.5-4.7x, which a 5x floor missed.
    min_ratio: float = 4.0
    # Frequent = at least this many spikes ...
    frequent_count: int = 5
    # ... and at least this share of the logged points (1 in 500).
    frequent_share: float = 0.002
    # A paste shorter than this shows too few steps after a spike to call it absorbed ...
    short_points: int = 20
    # ... so one 100x the median of the others is a warning there (batch noise is
    # within ~2x, a bad batch or an overflow reaches 100x).
    huge_ratio: float = 100.0
    # A loss that "follows" (rises k sigmas and 3% above its trailing median within 3
    # logs) at this share of all its logged points or more jumps on its own batches:
    # such a rise at a spike is the spike's own batch, not a step that made things worse.
    jumpy_share: float = 1 / 3
    # ... and then the spikes must leave the loss up more often than its ordinary logs
    # do, at this binomial significance.
    jumpy_p: float = 0.01
    # A paste of 3-11 norms (too short for a rolling baseline, where only a norm 100x
    # the others is a spike on its own): a norm 10x the median of the others, not the
    # first, whose loss (logged at that step or the next 2) rises above every loss
    # logged before it and 3% above their median: the two moving together.
    short_led_ratio: float = 10.0
    short_led_ahead: int = 3
    short_led_rise: float = 0.03


@rule(
    "grad-spike",
    minimum="9 logged grad norms (one 100x the median of the others in a short paste)",
    family="grads",
    severity=Severity.WARNING,
    params=Params(),
    requires=("grad_norm",),
    uses=("loss", "lr", "fact:max_grad_norm", "fact:warmup_steps"),
    explained_by=(
        "fp16-instability",
        "lr-too-high",
        "warmup-too-short",
        "small-effective-batch",
        # the same bad step seen in the loss, or a run already blowing up
        "loss-spike",
        "divergence",
        # ... or the first sign of gradients that grow or overflow for good
        "grad-explosion",
        "nonfinite-gradients",
        "nonfinite-loss",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Gradient-norm spikes far above the local median, and whether the loss followed.

    **What it does.** Finds points where the log gradient norm sits at least
    6 robust sigmas (MAD around a rolling median) and 4x above its local
    median. For each spike it asks the three questions practitioners ask: did
    the loss follow (the losses logged at and just after the spike against the
    median just before), was it clipped (grad norm above `max_grad_norm`), and
    is it before or after the LR peak (the end of warmup)?

    **Why it matters.** A spike the loss follows is a step that moved the
    weights into a worse region; repeated ones precede divergence. But a
    pre-clip spike absorbed by clipping is *not* a loss spike: clipping
    rescaled that update and the loss never noticed. So this is a warning only
    when the loss followed (or, with no loss logged, when the spikes are frequent),
    and info when the loss is logged and did not follow, however often. On an RL
    run the loss is a surrogate: the reward is the curve, and "followed" means it
    fell after the spike.

    A paste too short for a rolling baseline (3-11 norms) is judged too: a norm
    100x the median of the others is a spike. So is one 10x the median of the others
    (not the first: that may be the initialisation's) when the loss logged at it or
    at the next two logs rises above every loss logged before it, and 3% above their
    median (warning): a noisy batch moves the gradient or the loss, not both at once
    (a GLM-4 LoRA paste of 10 dicts: grad norm 2.4-5.7 then 237.6 while the loss went
    0.095 -> 0.105 -> 0.125, its highest). A paste still falling steeply never gets
    back above its first losses: there the loss follows when it jumps above each of the
    3 logs before the norm by more than every other rise between two consecutive logs of
    the paste (its own noise): 1.8, 1.6, 1.45, 1.9 at a 45x norm on a curve that falls at
    every other log. A 10-99x norm with the loss flat, or with no loss logged, stays
    unjudged: without a baseline one such norm is not enough. On a log of 12+ norms the
    loss's level before a spike is local too: the median of the 10 logs before it, or of
    a fifth of a shorter log (3 at least), and its noise is taken around a rolling median
    of 25 logs, or of a fifth of a log under 50, so that a 30-line paste still falling
    is not read against the level it had 10 logs earlier.

    "Followed" must mean more than the loss's own batch-to-batch jumps. A fine-tune
    that has fitted its data (a classifier at loss 0.0005, batch 8) logs a loss that
    leaps at every batch holding a still-misclassified sample (0.0005 -> 0.08 -> 0.0006),
    and that batch's gradient is the spike: the loss and the norm of the same batch move
    together whatever the update did. When the loss "follows" at a third or more of its
    ordinary logs (those whose next 3 logs hold no spike: in a 30-log paste the logs just
    before three spikes the loss answered "follow" the spikes' own jumps, which made it
    jumpy), a spike counts as followed only while the loss is still more than
    halfway up a little later (the median of the next 10 logs), and only when that
    happens at the spikes more often than at the loss's ordinary logs (binomial tail
    under 1%): a step that moved the weights somewhere worse leaves the loss up; a hard
    batch does not (CodeBERT tactics classifier: 56 spikes up to 108 at grad-norm median
    0.017; the loss "followed" at 55% of all its logs, stayed up after 4 of the 56
    spikes and after 2.8% of its ordinary logs: no more often than chance).

    **Known false positives.** The first points after initialisation (always
    large) are ignored; spikes during warmup are common and reported as such.
    An occasional absorbed spike in a long pre-training run is normal.

    **What to do.** If the loss followed: keep clipping on (max_grad_norm 1.0),
    lower the peak LR 2-3x or lengthen warmup to 2-5% of steps, and under fp16
    switch to bf16. If the spikes are absorbed: nothing, beyond checking the
    data at those steps if they recur at the same batches.
    """
    gn = run.get("grad_norm")
    assert gn is not None
    sp = grad_spikes(gn, p.window, p.k, p.min_ratio)
    count = int(sp.steps.size)
    if count == 0:
        if (hit := _short_led(run, gn, p)) is not None:
            yield hit
        return
    loss, curve = run.get("loss"), "loss"
    reward = run.get("reward") if run.is_rl else None
    if reward is not None and len(reward.finite()) >= 4:
        # an RL loss is a surrogate: the reward is the curve, and harm is it falling
        loss, curve = Series.from_arrays("reward", reward.steps, -reward.values), "reward"
    resp = loss_response(loss, sp.steps) if loss is not None else None
    followed = resp.followed if resp is not None else np.zeros(count, bool)
    if resp is not None and loss is not None and (base := _jumpy(loss, p, sp.steps)) is not None:
        # the loss jumps at a third of all its logs: at a spike only a loss still up a
        # little later is the step's harm, and only if that happens at the spikes
        # clearly more often than at the loss's ordinary logs
        stays = _stays_up(resp)
        k = int((followed & stays).sum())
        followed = followed & stays if _binom_tail(count, k, base) < p.jumpy_p else followed & False
    n_followed = int(followed.sum())
    frequent = count >= max(p.frequent_count, p.frequent_share * sp.n_points)
    worst = int(np.argmax(sp.ratio))
    clip = run.fact("max_grad_norm")
    clip = float(clip) if clip is not None else None
    clipped: bool | str = "unknown" if clip is None else bool(clip > 0 and sp.values[worst] > clip)
    peak = lr_peak_step(run)
    before_peak = int((sp.steps < peak).sum()) if peak is not None else None

    evidence: dict = {
        "count": count,
        "points": sp.n_points,
        "first_step": int(sp.steps[0]),
        "steps": [int(s) for s in sp.steps[:10]],
        "max_ratio": float(sp.ratio[worst]),
        "max_step": int(sp.steps[worst]),
        "max_grad_norm_value": float(sp.values[worst]),
        "log_sigma": sp.sigma,
        "loss_followed": n_followed if resp is not None else "unknown",
        "curve": curve,
        "frequent": frequent,
        "max_grad_norm": clip,
        "clipped": clipped,
        "lr_peak_step": peak,
        "before_lr_peak": before_peak,
    }
    if resp is not None:
        evidence["loss_before"] = float(resp.before[worst])
        evidence["loss_after"] = float(resp.after[worst])
        evidence["loss_settled"] = float(resp.settled[worst])
    if run.floor is not None and resp is not None:
        settled = float(resp.settled[worst])
        evidence["settled_at_floor"] = bool(abs(settled - run.floor) < 0.05 * run.floor)

    if n_followed:
        how = f"the {curve} followed {n_followed} of them"
    elif resp is None:
        how = "no loss logged to tell whether it followed"
    else:
        how = f"the {curve} did not follow (absorbed)"
    where = ""
    if peak is not None:
        where = f"; {before_peak} before the LR peak at step {peak}"
    # Absorbed (the loss logged and it did not follow) is info however often: that
    # update was clipped or harmless. Frequent spikes with no loss to tell: warning.
    absorbed = resp is not None and not n_followed
    severity = Severity.WARNING if (n_followed or (frequent and not absorbed)) else Severity.INFO
    if sp.n_points < p.short_points and (
        resp is None or (sp.ratio[worst] >= p.huge_ratio and _isolated(gn, int(sp.steps[worst])))
    ):
        # a paste too short to see what the next steps did: a norm 100x the others
        # needs looking at, whether or not the one loss after it moved
        severity = Severity.WARNING
    clip_txt = (
        "clipping was off or unknown, so the full spike reached the weights"
        if clipped is not True
        else f"clipping at {fmt(clip or 0)} rescaled the largest one"
    )
    yield Hit(
        title=(
            f"{count} gradient-norm spike{'s' if count > 1 else ''} up to "
            f"{sp.ratio[worst]:.0f}x the local median (largest at step {sp.steps[worst]}); "
            f"{how}"
        ),
        step=int(sp.steps[0]),
        end_step=int(sp.steps[-1]),
        evidence=evidence,
        explanation=(
            f"The pre-clip gradient norm jumped far above its running level; {clip_txt}{where}. "
            + (
                "The loss rose with it, so those updates did move the weights somewhere worse; "
                "repeated, this is how runs diverge."
                if n_followed
                else "A grad-norm spike the loss does not follow is a batch the clipper "
                "absorbed, not a loss spike."
            )
        ),
        prescription=(
            advice.sentence(*advice.steadier(run, "lower the peak LR 2-3x"))
            + ". Look at the batches at the spike steps if they recur."
            if severity == Severity.WARNING
            else "Nothing to do while the loss does not follow; keep clipping on."
        ),
        severity=severity,
    )


def _short_led(run: Run, gn: Series, p: Params) -> Hit | None:
    """A paste of 3-11 norms: one (not the first) `short_led_ratio` x the median of the
    others while the loss logged at it or the next logs rises above every loss before
    it (and `short_led_rise` over their median). See `check`."""
    g = positive(gn)
    loss = run.get("loss")
    if not 3 <= len(g) < SHORT_POINTS or loss is None or run.is_rl:
        return None
    f = loss.finite()
    v = g.values
    others = np.array([np.median(np.delete(v, i)) for i in range(v.size)])
    for i in np.argsort(-(v / others)):
        ratio = float(v[i] / others[i])
        if ratio < p.short_led_ratio:
            return None
        step = int(g.steps[i])
        if i == 0:
            continue  # the first norm of a paste may be the initialisation's
        before = f.values[f.steps < step]
        ahead = f.values[f.steps >= step][: p.short_led_ahead]
        if before.size == 0 or ahead.size == 0:
            continue
        peak, level = float(ahead.max()), float(np.median(before))
        if not (
            (peak > float(before.max()) and peak > (1 + p.short_led_rise) * level)
            or _rose_past_noise(f, step, peak, p)
        ):
            continue
        return Hit(
            title=(
                f"Gradient-norm spike of {ratio:.0f}x the median of the other logged norms at "
                f"step {step} "
                f"({fmt(float(v[i]))} vs {fmt(float(others[i]))}); the loss followed "
                f"({fmt(level)} -> {fmt(peak)}, above every loss before it)"
            ),
            step=step,
            evidence={
                "count": 1,
                "points": int(v.size),
                "max_ratio": ratio,
                "max_step": step,
                "max_grad_norm_value": float(v[i]),
                "loss_followed": 1,
                "curve": "loss",
                "loss_before": level,
                "loss_after": peak,
                "short_paste": True,
            },
            explanation=(
                "In a paste this short there is no running level to judge a spike by, but the "
                f"gradient norm at step {step} is {ratio:.0f}x the median of the others, and the "
                "loss rose above all its earlier values at the same logs: a noisy batch moves "
                "one of them, not both. That update moved the weights somewhere worse; "
                "repeated, this is how runs diverge."
            ),
            prescription=(
                advice.sentence(*advice.steadier(run, "lower the peak LR 2-3x"))
                + f". Look at the batches at step {step} if it recurs."
            ),
            severity=Severity.WARNING,
        )
    return None


def _rose_past_noise(f: Series, step: int, peak: float, p: Params) -> bool:
    """The loss at the spike (`peak`, at it or the next logs) above each of the
    `short_led_ahead` losses just before it, by more than the largest rise between two
    consecutive losses anywhere else in the paste: a paste still falling steeply never
    gets back above its first losses, yet a loss that jumps past its own noise at the
    norm's log followed it as surely as one above every earlier loss."""
    i = int(np.searchsorted(f.steps, step))
    near = f.values[max(0, i - p.short_led_ahead) : i]
    if near.size < 2:
        return False
    level = float(np.median(near))
    keep = np.ones(f.values.size - 1, bool)
    keep[max(0, i - 1) : i + p.short_led_ahead] = False  # the rises into and at the spike
    rises = np.diff(f.values)[keep]
    noise = float(rises.max()) if rises.size else math.inf
    return peak > float(near.max()) and peak - level > max(noise, p.short_led_rise * level)


def _isolated(gn: Series, step: int, within: float = 10.0) -> bool:
    """The points on both sides of `step` sit near the log's median: a lone spike, not
    a high stretch (an unstable start whose norms are all large, then settle)."""
    f = gn.finite()
    i = int(np.searchsorted(f.steps, step))
    med = float(np.median(f.values))
    around = f.values[max(i - 1, 0) : i][-1:].tolist() + f.values[i + 1 : i + 2].tolist()
    return med > 0 and all(v <= within * med for v in around)


# The logs a spike's loss response reads: the one at it and the next two (loss_response's
# default `ahead`).
_AHEAD = 3


def _stays_up(r: LossResponse) -> np.ndarray:
    """The loss a little later (median of the next logs) still over halfway up the rise."""
    with np.errstate(invalid="ignore"):
        return np.asarray(r.settled > r.before + 0.5 * (r.after - r.before))


def _jumpy(loss: Series, p: Params, spikes: np.ndarray) -> float | None:
    """When the loss rises like a spike's response at `jumpy_share` or more of its own
    ordinary logs: the share of them where it also stays up (the base rate), else None.
    A log is ordinary when no spike falls within the logs its response reads (the one at
    it and the next two): a log just before a spike "follows" the spike's own loss jump,
    so in a 20-log paste three spikes the loss answered would make a third of it jumpy."""
    f = loss.finite()
    if len(f) < 20:
        return None
    base = loss_response(f, f.steps)
    at = np.searchsorted(f.steps, spikes, side="left")
    near = np.zeros(len(f), bool)
    for lag in range(_AHEAD):
        near[np.clip(at - lag, 0, len(f) - 1)] = True
    ordinary = ~near
    if not ordinary.any() or float(base.followed[ordinary].mean()) < p.jumpy_share:
        return None
    return float((base.followed & _stays_up(base))[ordinary].mean())


def _binom_tail(n: int, k: int, q: float) -> float:
    """P(X >= k) for X ~ Binomial(n, q)."""
    if k <= 0:
        return 1.0
    q = min(max(q, 1e-9), 1.0)
    return float(sum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(k, n + 1)))
