"""grad-spike: isolated gradient-norm spikes, told apart by whether the loss followed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.measure.grads import grad_spikes, loss_response
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
    100x the median of the others is a spike.

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
        return
    loss, curve = run.get("loss"), "loss"
    reward = run.get("reward") if run.is_rl else None
    if reward is not None and len(reward.finite()) >= 4:
        # an RL loss is a surrogate: the reward is the curve, and harm is it falling
        loss, curve = Series.from_arrays("reward", reward.steps, -reward.values), "reward"
    resp = loss_response(loss, sp.steps) if loss is not None else None
    followed = resp.followed if resp is not None else np.zeros(count, bool)
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


def _isolated(gn: Series, step: int, within: float = 10.0) -> bool:
    """The points on both sides of `step` sit near the log's median: a lone spike, not
    a high stretch (an unstable start whose norms are all large, then settle)."""
    f = gn.finite()
    i = int(np.searchsorted(f.steps, step))
    med = float(np.median(f.values))
    around = f.values[max(i - 1, 0) : i][-1:].tolist() + f.values[i + 1 : i + 2].tolist()
    return med > 0 and all(v <= within * med for v in around)
