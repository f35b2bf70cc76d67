"""warmup-too-short: no or very short warmup at a high peak LR, and an unstable start."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from traindoc.measure.losses import nonfinite_loss
from traindoc.measure.noise import local_noise
from traindoc.measure.schedule import lr_values, peak_lr, total_steps, warmup
from traindoc.measure.spikes import loss_spikes, spike_events
from traindoc.measure.stats import fmt, median, rolling_median
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.rate._common import nonfinite, optimizer_scale


@dataclass(frozen=True)
class Params:
    # "Short": under 1% of the steps (the LoRA-plateau run recommends 2-5%) or under ~10 steps,
    # too few for Adam's second-moment estimates to settle.
    max_frac: float = 0.01
    max_steps: int = 10
    # "High" peak LR: the middle of each regime's usual range; below it a missing
    # warmup rarely hurts. Unknown regime: pre-training's, the most tolerant.
    high_lr: dict[str, float] = field(
        default_factory=lambda: {"pretraining": 3e-4, "full-finetune": 2e-5, "lora": 1e-4}
    )
    unknown_high_lr: float = 3e-4
    # The start of the run where a missing warmup shows: first 10% of steps.
    early_frac: float = 0.1
    # A rolling median 15% above the first loss: the loss went up, not down ...
    rise_rel: float = 0.15
    # ... by more than 4 robust sigmas of its own batch-to-batch noise where it is
    # judged (the local noise at the start and at the top, `measure.noise`), so one
    # lucky low first batch on a noisy curve is not a "rise".
    rise_noise_k: float = 4.0
    loss_spike_rel: float = 0.25
    grad_spike_rel: float = 1.0
    # Grad-norm spikes absorbed by clipping are not loss spikes (DOMAIN): one alone
    # is weak evidence, two or more in the first 10% of steps are a pattern.
    min_grad_spikes: int = 2
    # A loss spike must stand apart from the log's own noise tail, as loss-spike asks
    # (its apart_factor): two +50% batches on a batch-24 per-batch loss whose ordinary
    # batches swing nearly as far are that loss's noise, not an unstable start.
    spike_apart: float = 2.0
    # The very first points of a fast-falling curve look like spikes against a
    # centred median; they are the curve, not instability.
    skip_points: int = 3
    # Broke at the start: the loss is NaN/Inf by update 10 (`max_steps`, inside any usual
    # warmup), at step 2 or later (a loss logged at step 0-1 comes from the initial
    # weights, before an update could have hurt them), with at most one finite loss
    # before it - and the logged LR was at 98%+ of its peak from its first log there,
    # within those first updates: the first updates came at full LR. Too short a curve
    # for a rise, but a NaN needs no curve.
    break_first_step: int = 2
    break_max_finite: int = 1
    peak_held: float = 0.98
    # 2% of the run is the low end of the usual warmup (2-5%): a start that broke under
    # such a ramp is the peak LR's doing, and it did harm only if the run never got back
    # below where it started (the loss's last tenth, 3+ points, against its start).
    usual_frac: float = 0.02
    end_share: float = 0.1


@rule(
    "warmup-too-short",
    minimum="the warmup and the peak LR, with an unstable start in the loss (before a run, "
    "preflight: the config alone)",
    family="rate",
    severity=Severity.WARNING,
    params=Params(),
    requires=("loss|fact:learning_rate",),
    uses=("lr", "grad_norm"),
    explained_by=("absurd-initial-loss", "fp16-instability"),
    # an overflowing fp16 run breaks at its first updates too: that NaN is the dtype's
    reads=("fp16-instability",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """No or very short warmup with a high peak LR, and an unstable start to show it.

    **What it does.** Measures warmup (logged LR, else config), and when it is
    under 1% of total steps or under 10 steps with a peak LR at or above the
    middle of the regime's range (pre-training 3e-4, full fine-tune 2e-5, LoRA
    1e-4), looks at the first 10% of the run for instability: the loss rising
    15% (and 4 sigmas of the noise around it) above where it started (a 3-point rolling median
    against the first loss, so a blow-up at step 2-3 counts), loss spikes (>= 25% over the local median),
    two or more grad-norm spikes (>= 2x), or NaN/Inf. On RL runs the loss is a
    surrogate, so only the grad-norm spikes and NaN/Inf count.

    A start too short for a curve is read too: a loss already NaN/Inf within the first
    10 updates (at step 2 or later, so at least one update came before it; at most one
    finite loss before it; not a log that counts whole epochs), while the LR logged from
    those first steps is already at 98%+ of a high peak, says the first updates at full
    LR blew the model up: no warmup (darknet's YOLOv3 with its burn_in removed: loss inf
    from iteration 2 at rate 0.0999). Divergence and lr-too-high cannot judge a curve of
    0-1 finite points; a NaN at update 2 under full LR needs none. Not when the run
    overflows in fp16 (fp16-instability found): that breaks the first updates at any LR.

    A stretch is a rise when it stands apart from the noise of its own neighbourhood,
    and the same curve shape gives the same verdict at 300, 3,000 or 100,000 points:
    the sigma is the local one at the start and at the top (`measure.noise`), not the
    run's tail. A per-batch loss's noise scales with its level, and against the small
    noise of its low tail a healthy LoRA run at 2e-4 logged at every one of 100k steps
    (2.2 -> 1.0, batches +-20%) "rose" at its start; logged at 300 points it did not.

    **Why it matters.** The LoRA-plateau run: a warmup that is too short makes the first steps
    too large while Adam's statistics are still empty, and throws the model into
    a bad region it may never leave; 2-5% of total steps is the recommendation.

    Before a run (preflight: a config, no loss curve) it says the same from the
    config alone: a warmup under those bounds at such a peak LR. A training log
    with no train loss (only evals, as a speedrun record that prints its val loss
    every 250 steps) is not preflight: the run happened and its start cannot be
    seen, so the config's numbers are info, not a warning (the 10-step warmup of a
    Muon speedrun that reached its target).

    A warmup already of the usual length (2%+ of the run; fewer than 10 steps, so a short
    run or a log whose steps are epochs) under which the start broke points at the peak
    LR, and it did harm only if the run never got back below where it started: a
    continued fine-tune at YOLO's lr0 0.01 whose loss rises 20% over its 3 warmup epochs
    and ends at 57% of its start trained through it (not reported); the same start whose
    loss ends 28% above it, every metric best in the first epoch, is reported (lower the
    peak LR).

    **Known false positives.** Resumed runs whose log starts after the warmup
    (the measured warmup is then 0): pass the config. A paste that prints no step
    numbers its lines, so a warmup measured from its logged LR has no length in
    steps: it is not judged. An unstable start can also
    come from a broken checkpoint or fp16 overflow (linked when found).

    **What to do.** Add a linear warmup of 2-5% of total steps
    (`warmup_ratio=0.03`), or lower the peak LR.
    """
    loss = run.get("loss")
    pk, w, total = peak_lr(run), warmup(run), total_steps(run)
    if pk is not None and loss is not None and (broke := _broke_at_full_lr(run, p)):
        yield _broke_hit(run, pk.value, *broke)
        return
    if pk is None or w is None or not total:
        return
    if run.fact("steps_ordinal") and w.source != "config":
        return  # lines of a paste that prints no step (with gaps): its warmup has no length
    regime = run.regime if run.regime in p.high_lr else None
    high = (p.high_lr[regime] if regime else p.unknown_high_lr) * optimizer_scale(run)
    frac = w.steps / float(total)
    if pk.value < high or not (w.steps < p.max_steps or frac < p.max_frac):
        return
    if loss is None:
        # preflight: the config says it before any step is taken. A training log that
        # printed no train loss (evals only) has no start to show harm: info.
        hit = _planned(pk.value, w.steps, frac, int(total))
        yield hit if run.fact("preflight") else replace(hit, severity=Severity.INFO)
        return
    f = loss.finite()
    if len(f) < 10:
        return
    end = f.steps[0] + p.early_frac * (f.steps[-1] - f.steps[0])
    n_early = max(int(np.searchsorted(f.steps, end, side="right")), 10)
    early = f.values[:n_early]

    signs: dict[str, int] = {}
    # Where the loss started: the first logged loss, or the median of the first few
    # when that is lower (a lucky first batch). Without warmup the blow-up can come
    # at step 2-3, inside those first few, so their median alone would hide it.
    head = min(float(early[0]), median(early[: p.skip_points]))
    # A rise must last: a 3-point rolling median from the second point on (a
    # single bad batch is a spike, below), and clear the loss's own noise.
    rm = rolling_median(early, 3)[1:]
    rl = run.is_rl  # an RL surrogate loss has no learning curve to rise or spike
    if rm.size and head > 0 and not rl:
        at = 1 + int(np.argmax(rm))
        top = float(rm[at - 1])
        if top >= (1 + p.rise_rel) * head and top - head >= p.rise_noise_k * _noise(f, at):
            signs["loss-rise"] = int(f.steps[at])
    # The loss-spike rule's own detector: early spikes that are not lone bad batches
    # (one logged point under 5x the level), or two or more of those.
    early_spikes = [
        sp
        for sp in loss_spikes(f, min_rel=p.loss_spike_rel, max_share=1.0) or []
        if p.skip_points <= sp.index < n_early and sp.apart >= p.spike_apart
    ]
    if not rl and (
        any(not sp.lone() for sp in early_spikes) or len(early_spikes) >= p.min_grad_spikes
    ):
        signs["loss-spike"] = min(sp.step for sp in early_spikes)
    gn = run.get("grad_norm")
    if gn is not None:
        g = gn.finite()
        gs = spike_events(g.values, min_rel=p.grad_spike_rel)
        gs = gs[gs >= p.skip_points]
        gs = gs[g.steps[gs] <= end]
        if gs.size >= p.min_grad_spikes:
            signs["grad-spike"] = int(g.steps[gs[0]])
    for name in ("loss", "grad_norm"):
        cnt, first = nonfinite(run, name, until=end)
        if cnt:
            signs["non-finite"] = int(first)  # type: ignore[arg-type]
    if not signs:
        return
    if frac >= p.usual_frac and _recovered(f, head, signs, rl, p):
        return  # a usual-length ramp and a run that ended below its start: no harm
    onset = min(signs.values())
    order = sorted(signs, key=signs.__getitem__)
    kinds = ", ".join(order)
    said = ", ".join(_SAID.get(k, k) for k in order)
    yield Hit(
        title=(
            f"Warmup of {w.steps:.0f} steps ({100 * frac:.1f}%) at peak LR {fmt(pk.value)}; "
            f"the start was unstable: {said}"
        ),
        step=onset,
        end_step=int(end),
        evidence={
            "warmup_steps": w.steps,
            "warmup_frac": frac,
            "peak_lr": pk.value,
            "regime": regime or "unknown",
            "instability": kinds,
            "onset_step": onset,
        },
        explanation=(
            "The run starts at (nearly) full LR while the optimiser's moment estimates are "
            "still empty, so the first updates are too large; the curve shows it in the first "
            "10% of steps. Early damage can leave the model in a bad region for the whole run."
        ),
        prescription=_prescription(frac, total, high, p),
    )


def _recovered(f: Series, head: float, signs: dict[str, int], rl: bool, p: Params) -> bool:
    """The loss ended (median of its last tenth, 3+ points) below where it started, with
    nothing NaN/Inf on the way: the rough start cost the run nothing it did not win back
    (a continued fine-tune nudged out of its minimum as the LR ramps up, then converging
    lower). An RL surrogate loss has no start to come back to."""
    if rl or "non-finite" in signs:
        return False
    end = median(f.values[-max(3, int(p.end_share * len(f))) :])
    return end < head


def _prescription(frac: float, total: float, high: float, p: Params) -> str:
    """More warmup only where the run has less than the usual 2%; a run that already
    warms up that long broke at its peak LR, so the LR is the lever left."""
    if frac >= p.usual_frac:
        return (
            f"Lower the peak LR below {fmt(high)}: the warmup ({100 * frac:.1f}% of the run) "
            "is already the usual length, and the start still broke."
        )
    return (
        f"Add a linear warmup of 2-5% of total steps (~{max(10, round(0.03 * total))} "
        f"steps, warmup_ratio=0.03), or lower the peak LR below {fmt(high)}."
    )


def _broke_at_full_lr(run: Run, p: Params) -> tuple[int, float, int] | None:
    """(first bad step, LR there, first LR log step) when the loss broke within the first
    updates at an LR already at its peak: NaN/Inf at step 2..10 with at most one finite
    loss before it, the LR logged at 98%+ of its peak from a first log at or before the
    break, and the peak high for the regime. The run had no warmup to speak of."""
    if run.fact("steps_ordinal"):
        return None  # a paste's line numbers are not updates: "step 2" could be any step
    if run.symptom("fp16-instability") is not None:
        return None  # fp16 overflow breaks the first updates at any LR: the dtype's NaN
    broken = nonfinite_loss(run)
    lr = lr_values(run)
    if broken is None or broken[0] == "eval_loss" or lr is None:
        return None
    s = broken[1]
    bad = ~np.isfinite(s.values)
    i = int(np.argmax(bad))
    at = int(s.steps[i])
    if not p.break_first_step <= at <= p.max_steps:
        return None
    if int(np.isfinite(s.values[:i]).sum()) > p.break_max_finite or _epochs_done(run, at):
        return None
    st, v = lr
    regime = run.regime if run.regime in p.high_lr else None
    high = (p.high_lr[regime] if regime else p.unknown_high_lr) * optimizer_scale(run)
    peak = float(v.max())
    if st[0] > at or peak < high or v[0] < p.peak_held * peak:
        return None  # a ramp was logged, or the LR log starts after the break
    return at, float(np.interp(at, st, v)), int(st[0])


def _epochs_done(run: Run, at: int) -> bool:
    """A whole epoch or more is done by step `at`: the log counts epochs, not updates."""
    ep = run.get("epoch")
    if ep is None:
        return False
    f = ep.finite()
    done = f.values[f.steps <= at]
    return bool(done.size and done[-1] >= 1)


def _broke_hit(run: Run, peak: float, at: int, lr_at: float, lr_from: int) -> Hit:
    return Hit(
        title=(
            f"The loss was NaN/Inf by step {at}, with the LR at its peak {fmt(peak)} from "
            f"step {lr_from}: no warmup, and the first updates blew up"
        ),
        step=at,
        evidence={
            "warmup_steps": 0.0,
            "peak_lr": peak,
            "lr_at_break": lr_at,
            "lr_logged_from": lr_from,
            "break_step": at,
            "regime": run.regime or "unknown",
            "instability": "non-finite",
            "onset_step": at,
        },
        explanation=(
            f"The logged LR is already at its peak at step {lr_from} and the loss is NaN/Inf "
            f"by step {at}: the very first updates came at full LR, while the optimiser's "
            "moment estimates were still empty, and wrecked the weights before the run could "
            "learn anything. The peak LR may be fine once reached gradually."
        ),
        prescription=(
            "Add a warmup (a linear ramp over 2-5% of total steps, or the config's burn-in "
            f"back), or start lower than {fmt(peak)}; restart from the initial weights."
        ),
    )


def _noise(f: Series, at: int) -> float:
    """Robust sigma of the loss around its local median where the rise is judged: the
    larger of its local noise at the start and at the rise's top (`measure.noise`). A
    per-batch loss's noise scales with its level, so the start's batches are judged by
    the start's noise, not the smaller one of the run's low tail."""
    if len(f) < 8:
        return 0.0
    sigma = local_noise(f.values)[1]
    return max(float(sigma[0]), float(sigma[at]))


def _planned(peak: float, steps: float, frac: float, total: int) -> Hit:
    return Hit(
        title=f"Warmup of {steps:.0f} steps ({100 * frac:.1f}% of {total}) at peak LR {fmt(peak)}",
        step=0,
        evidence={
            "warmup_steps": steps,
            "warmup_frac": frac,
            "peak_lr": peak,
            "total_steps": total,
        },
        explanation=(
            "Without warmup the first updates come at full LR while Adam's moment estimates are "
            "still empty; 2-5% of total steps is the usual warmup."
        ),
        prescription=(
            f"Set warmup to 2-5% of total steps (~{max(10, round(0.03 * total))} steps, "
            "warmup_ratio=0.03)."
        ),
    )


# The title's words for each sign of an unstable start (the evidence keeps the kinds).
_SAID = {
    "grad-spike": "the gradient norm spiked",
    "loss-rise": "the loss rose",
    "loss-spike": "the loss spiked",
    "non-finite": "values went NaN/Inf",
}
