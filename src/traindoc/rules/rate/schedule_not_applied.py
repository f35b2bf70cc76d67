"""schedule-not-applied: LR stuck at 0, constant despite a schedule, decaying far too fast, or a
step schedule whose first cut falls after the run's end."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from traindoc.measure.metrics import task_metrics
from traindoc.measure.schedule import lr_values, total_steps
from traindoc.measure.stats import fmt, part_medians, trend
from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule


@dataclass(frozen=True)
class Params:
    # "Nearly all" logged LR exactly 0: a linear schedule legitimately logs 0 at its
    # first and last steps, never for 90% of the run.
    zero_frac: float = 0.9
    min_points: int = 5
    # A short log with the LR exactly 0 at every one of 3+ logs (epochs, say) is
    # stuck at 0 too: a warmup from 0 logs it once.
    min_zero_points: int = 3
    # Constant: post-warmup LR moves by < 1% of peak although a decaying schedule
    # was configured and >= 30% of its horizon has been logged (linear would have
    # dropped 30%, cosine ~20% by then).
    const_rel: float = 0.01
    const_min_frac: float = 0.3
    # Too fast: LR at <= 1% of peak before 50% of the planned steps, and staying
    # there. Micro-batches counted as steps with accumulation 2+ end at <= 50%.
    zero_rel: float = 0.01
    early_end_frac: float = 0.5
    # A post-peak LR with at most this many distinct levels is a step schedule.
    max_step_levels: int = 4
    # Where the run is in its plan (epoch / num_train_epochs, else step / max_steps):
    # past 30% of a linear or cosine decay, an LR still at its peak and >= 2x what
    # the schedule gives there was never scheduled (a 5-line excerpt can show it).
    plan_min_progress: float = 0.3
    plan_ratio: float = 2.0
    # A step schedule's first cut at or after the planned last epoch: LR points logged
    # at the initial LR, none lower, confirm that the config read is the one that ran.
    min_cut_points: int = 2
    # A printed "0" is an LR of 0 only when the print could show a real one: a log
    # with d decimals hides every LR below 0.5 x 10^-d (4 decimals: 5e-5). Fine-tunes
    # train at 1e-6 and up, so below 6 decimals a zero is named, not flagged.
    resolvable_lr: float = 1e-6
    # An LR of 0 leaves the weights where they are: the loss cannot fall. A loss that
    # falls 20%+ (median of the last third against the first) over the stretch logged at
    # LR 0, in a trend (Mann-Kendall z <= -2.58, or lower at each of 3-8 logs), is a model
    # that trains: the logged LR is not the one stepping it (a print rounded to 0, a
    # frozen param group's LR, another column). No batch noise halves a loss's level.
    learns_fall: float = 0.2
    learns_z: float = -2.58
    learns_min_points: int = 3
    learns_each_max_points: int = 8
    # At fixed weights the train loss is stationary: its batches' noise averages out of
    # a third of a long log, so over 10+ logs a 5%+ fall in a trend (the same z) is the
    # weights moving, whatever the size of a fine-tune's gain (a LoRA at 2e-4 learns
    # 10-20% in a run; a data-order drift at fixed weights moves no median that far).
    learns_trend_fall: float = 0.05
    learns_trend_points: int = 10
    # An eval loss at fixed weights on a fixed eval set repeats to its print: one lower at
    # each of 3+ evals, 2%+ in all, is a model that changed between them.
    learns_eval_fall: float = 0.02
    # A warmup from 0 can print 0 at any fixed precision in a run's first steps: linear to
    # 1e-4 over 2,000 steps reads 0.000000 for 10 steps, darknet's burn-in (lr x
    # (iter/1000)^4, burn_in=1000 by default) for ~150 at lr 1e-3. LR-0 logs at fixed
    # decimals all within the first 1,000 steps (and the first epoch) are info.
    warmup_span: int = 1000
    # An error needs the run itself to confirm the LR of 0: the loss watched over the
    # LR-0 stretch (3+ finite logs in it) and flat there (under the 5% trend fall that
    # fixed weights cannot make). An LR column alone (no loss logged across the stretch)
    # may be a frozen group's, a print's or another optimizer's: a warning.
    flat_fall: float = 0.05


# Schedules whose decay spans the whole run (max_steps is their horizon).
_DECAYING = ("linear", "cosine", "polynomial", "cosine_with_min_lr", "inverse_sqrt")
# Schedules that are constant or may legitimately reach ~0 early.
_NOT_HORIZON = ("constant", "restart", "cycl", "plateau", "step", "wsd", "warmup_stable")


@rule(
    "schedule-not-applied",
    minimum=(
        "5 logged LRs (3 when all are 0; one line placed in its plan by epoch; 2 under a step"
        " schedule whose first cut falls after the run)"
    ),
    family="rate",
    severity=Severity.ERROR,
    params=Params(),
    requires=("lr",),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """LR stuck at 0, constant where a schedule was configured, or decaying far too fast.

    **What it does.** Four checks on the logged LR. (1) Error: 90% or more of the
    logged values are exactly 0 (in a log of under 5 points, all of 3 or more), and the
    loss, logged 3+ times over that stretch, stays flat there (its last third under 5%
    below its first): the run confirms the weights did not move. With no loss logged
    across the stretch the LR column alone is a warning (a frozen group's LR, another
    optimizer's, a print). (2) Warning: `lr_scheduler` is a decaying schedule
    (linear, cosine, polynomial, ...) but after warmup the LR moves by less than
    1% over a stretch covering >= 30% of the planned steps. (3) Warning: with a
    linear/cosine-like schedule (or none configured), the LR reaches <= 1% of its
    peak before 50% of `max_steps` (else of the logged run) and stays there; a
    multi-step schedule (at most 4 distinct levels after the peak) is by design.
    (4) Warning: with a linear or cosine schedule configured and the run's place in
    its plan known (the logged epoch over `num_train_epochs`, else the step over
    `max_steps`), the LR is still at its peak past 30% of the decay and >= 2x what
    the schedule gives there: a few logged lines are enough. (5) Warning: an OpenMMLab
    step schedule (`lr_config` step= / `MultiStepLR` milestones, by epoch) whose first
    cut is at or after the planned number of epochs (runner / train_cfg `max_epochs`,
    `total_epochs`): the decay never happens; flagged when 2+ logged LRs show it has
    not (none below 99% of the peak).

    **Why it matters.** mmcv's `step=200` means "every 200 epochs": with
    `max_epochs=200` the run ends one epoch before the first cut (mmpretrain#938: LR
    fixed at 1e-3 although a step decay was configured). A step schedule copied from a
    longer recipe (3x steps in a 2000-iteration fine-tune) does the same.
    A scheduler that is never stepped, an LR read before the
    first step, or an LR of 0 leaves the loss flat at or near ln(V) while
    everything looks normal. Counting micro-batches as optimizer steps (gradient
    accumulation) makes the schedule decay accumulation-times too fast: the rest
    of the run trains at LR ~0.

    **Known false positives.** A log that prints the LR with few decimals
    (`lr 0.0000`) rounds a small real LR to 0: below 6 decimals the zero is named
    as a print artefact (info), not flagged. At any fixed precision, zeros logged only
    in the run's first 1,000 steps (and first epoch) may be a warmup from 0 still under
    the print's resolution (darknet's burn-in prints `0.000000 rate` for its first ~150
    iterations): info. An LR of 0 leaves the weights where they
    are, so a loss that falls 20%+ over the stretch logged at LR 0 (its last third's median
    against its first's, in a Mann-Kendall trend or lower at each of 3-8 logs) says the
    logged LR is not the one training; so does a fall of 5%+ in that trend over 10+ logs
    (at fixed weights a long log's thirds have the same median: a LoRA fine-tune that
    learns 15% in its run is no LR-0 run), an eval loss or held-out task metric better at
    each of 3+ evals by 2%+ in all (fixed weights score a fixed eval set the same every
    time), and an RL return that climbs by those loss tests (a fixed policy's return is
    stationary) (a print rounded to 0 the log's decimals did not
    reveal, a frozen param group's LR, another column): info, not an error. Schedules with an explicitly shorter decay horizon
    than `max_steps`; constant LR chosen on purpose while the config names another
    schedule (pass the config that really ran).

    **What to do.** Check that `scheduler.step()` is called once per optimizer step
    (after `optimizer.step()`, not per micro-batch), that the optimizer the
    scheduler wraps is the one training, and that the horizon is `max_steps`
    optimizer steps.
    """
    lr = lr_values(run)
    if lr is None or not lr[1].size:
        return
    st, v = lr
    if (hit := _cut_after_end(run, p, st, v)) is not None:
        yield hit  # the config's first cut comes after the run's last epoch
        return
    peak = float(v.max())
    zero = float(np.mean(v == 0))
    decimals = run.fact("lr_print_decimals")
    resolvable = not (isinstance(decimals, int) and 10.0**-decimals > p.resolvable_lr)
    learns = _learns_at_zero(run, p, st, v) if zero >= p.zero_frac else None
    if zero >= p.zero_frac and isinstance(decimals, int) and _in_warmup(run, p, st[v == 0]):
        yield _printed_in_warmup(st, zero, decimals)
        return
    if v.size >= 2 and zero == 1.0 and resolvable and (hit := _zero_early(run, p, st)):
        yield _graded(run, p, st, v, hit, learns)  # LR 0 from epoch 0 of 210
        return
    if v.size < p.min_points and not (v.size >= p.min_zero_points and zero == 1.0):
        sched = str(run.fact("lr_scheduler") or "").lower()
        if sched and (hit := _not_decayed(run, p, st, v, sched)) is not None:
            yield hit  # a short excerpt placed in the run's plan by its epoch
        return
    if zero >= p.zero_frac and isinstance(decimals, int) and 10.0**-decimals > p.resolvable_lr:
        # "0.0000" at 4 decimals is any LR below 5e-5: a fine-tune's 2e-5 prints so too.
        cfg = run.fact("learning_rate")
        yield Hit(
            title=(
                f"Learning rate prints as 0 at {decimals} decimals in {100 * zero:.0f}% of the "
                "logged steps: too coarse to tell a small LR from none"
            ),
            step=int(st[0]),
            end_step=int(st[-1]),
            evidence={"zero_frac": zero, "lr_print_decimals": decimals, "learning_rate": cfg},
            explanation=(
                f"The log rounds the LR to {decimals} decimals, so anything below "
                f"{0.5 * 10.0**-decimals:.0e} is printed as 0"
                + (f"; the configured LR is {cfg:g}." if isinstance(cfg, float) else ".")
            ),
            prescription="Log the LR in scientific notation (f'{lr:.3e}') to see the schedule.",
            severity=Severity.INFO,
        )
        return
    if zero >= p.zero_frac:
        hit = Hit(
            title=f"Learning rate is exactly 0 in {100 * zero:.0f}% of the logged steps",
            step=int(st[0]),
            end_step=int(st[-1]),
            evidence={"zero_frac": zero, "peak_lr": peak, "points": int(v.size)},
            explanation=(
                "With LR 0 the weights never change: the loss stays flat (often at ln(V)). "
                "Usual causes: the scheduler is never stepped or starts at 0 with a warmup "
                "that never advances, the LR is read before the first step, or a scheduler "
                "wraps a different optimizer than the one training."
            ),
            prescription=(
                "Call scheduler.step() once per optimizer step, check that learning_rate and "
                "warmup are set, and that the scheduler wraps the optimizer that trains."
            ),
        )
        yield _graded(run, p, st, v, hit, learns)
        return
    if peak <= 0:
        return
    sched = str(run.fact("lr_scheduler") or "").lower()
    if any(k in sched for k in _NOT_HORIZON):
        return
    max_steps = run.fact("max_steps")
    horizon = float(max_steps or total_steps(run) or st[-1])
    i_peak = int(np.argmax(v >= 0.98 * peak))
    post_s, post_v = st[i_peak:], v[i_peak:]

    if sched and any(k in sched for k in _DECAYING) and post_v.size >= p.min_points:
        span = float(post_s[-1] - post_s[0])
        moved = float(post_v.max() - post_v.min()) / peak
        # The share of the plan the constant stretch covers: by epochs when they are
        # logged (a pasted excerpt's line numbers are not the run's steps).
        a, b = _progress(run, float(post_s[0])), _progress(run, float(post_s[-1]))
        share = b[0] - a[0] if a and b else span / horizon
        if share >= p.const_min_frac and moved < p.const_rel:
            yield Hit(
                title=(
                    f"LR stays at {fmt(peak)} for {span:.0f} steps although the scheduler "
                    f"is {sched!r}"
                ),
                step=int(post_s[0]),
                end_step=int(post_s[-1]),
                evidence={
                    "peak_lr": peak,
                    "scheduler": sched,
                    "constant_span": span,
                    "horizon": horizon,
                    "lr_change": moved,
                },
                explanation=(
                    f"A {sched} schedule should have lowered the LR over {100 * span / horizon:.0f}% "
                    "of its horizon; it did not move, so the scheduler is not being stepped (or "
                    "steps another optimizer)."
                ),
                prescription=(
                    "Call scheduler.step() once per optimizer step and make sure it wraps the "
                    "optimizer that trains; log the LR from optimizer.param_groups."
                ),
                severity=Severity.WARNING,
            )
            return

    if sched and (hit := _not_decayed(run, p, st, v, sched)) is not None:
        yield hit
        return
    low = post_v <= p.zero_rel * peak
    if not low.any() or _steps_schedule(post_v, p):
        return
    i_low = int(np.argmax(low))
    end_step = float(post_s[i_low])
    stays = float(np.mean(low[i_low:])) >= 0.9 and post_s[-1] > end_step
    frac = end_step / horizon
    if stays and frac < p.early_end_frac:
        accum = run.fact("grad_accum")
        yield Hit(
            title=(
                f"LR decays to ~0 by step {end_step:.0f}, {100 * frac:.0f}% of the "
                f"{horizon:.0f} planned steps"
            ),
            step=int(end_step),
            end_step=int(post_s[-1]),
            evidence={
                "peak_lr": peak,
                "decay_end_step": end_step,
                "horizon": horizon,
                "decay_end_frac": frac,
                "scheduler": sched or "unknown",
                "grad_accum": accum,
            },
            explanation=(
                "The schedule reached ~0 long before the planned end, so the rest of the run "
                "trains at LR ~0. The usual cause is a scheduler stepped per micro-batch "
                "(gradient accumulation) or a horizon computed from samples instead of "
                "optimizer steps"
                + (f"; with grad_accum={accum} the decay ends ~{accum}x early." if accum else ".")
            ),
            prescription=(
                "Step the scheduler once per optimizer step and set its horizon to max_steps "
                "optimizer steps (num_update_steps = batches / grad_accum x epochs)."
            ),
            severity=Severity.WARNING,
        )


def _cut_after_end(run: Run, p: Params, st: np.ndarray, v: np.ndarray) -> Hit | None:
    """(5): a step schedule whose first cut is at or after the planned last epoch."""
    first, n_ep = run.fact("lr_first_decay_epoch"), run.fact("num_train_epochs")
    if not (first and n_ep) or float(first) < float(n_ep):
        return None
    peak = float(v.max())
    i_peak = int(np.argmax(v >= 0.98 * peak)) if peak > 0 else 0
    post = v[i_peak:]
    if peak <= 0 or post.size < p.min_cut_points or float(post.min()) < (1 - p.const_rel) * peak:
        return None  # the logged LR did fall: the config read is not the one that ran
    return Hit(
        title=(
            f"Step schedule's first LR cut is at epoch {int(first)}, but the run has "
            f"{int(n_ep)} epochs: the LR never decays (stays {fmt(peak)})"
        ),
        step=int(st[0]),
        end_step=int(st[-1]),
        evidence={
            "first_decay_epoch": int(first),
            "num_train_epochs": int(n_ep),
            "peak_lr": peak,
            "lr_points": int(v.size),
        },
        explanation=(
            f"The step policy multiplies the LR by its gamma once the (0-based) epoch "
            f"reaches {int(first)}; the last epoch of a {int(n_ep)}-epoch run is "
            f"{int(n_ep) - 1}, so the decay the config asks for never happens and the whole "
            "run trains at the initial LR (the logged LR agrees)."
        ),
        prescription=(
            "Set the step (or milestones) inside the run, e.g. at ~2/3 and ~8/9 of the "
            "epochs (mmdet's 1x: step=[8, 11] of 12), or use a cosine schedule over the "
            "planned epochs."
        ),
        severity=Severity.WARNING,
    )


def _steps_schedule(v: np.ndarray, p: Params) -> bool:
    """A multi-step schedule (x0.1 at chosen epochs): a handful of levels, each held.

    Its last level is 1% of the peak by design and may start early (mmdet's 1x
    schedule); a decay counted in micro-batches is a smooth curve instead.
    """
    levels = {float(f"{x:.3g}") for x in np.unique(v[v > 0])}
    return 1 < len(levels) <= p.max_step_levels


def _zero_early(run: Run, p: Params, st: np.ndarray) -> Hit | None:
    """Every logged LR is 0 and the first already sits in the first half of the plan:
    no schedule reaches 0 that early (an LR decayed per step instead of once)."""
    where = _progress(run, float(st[0]))
    if where is None or where[0] >= p.early_end_frac:
        return None
    prog, how = where
    return Hit(
        title=f"Learning rate is 0 at every one of {st.size} logs, from {how} ({prog:.0%} of the plan)",
        step=int(st[0]),
        end_step=int(st[-1]),
        evidence={"points": int(st.size), "first_zero_progress": prog, "where": how},
        explanation=(
            f"The LR is already 0 at {how}: no warmup-and-decay schedule gets there before "
            "the end of its plan, so the weights stopped changing. Usual causes: a decay "
            "applied at every step instead of once (layer-wise LR decay multiplied in each "
            "step), a scheduler stepped per micro-batch over a far too short horizon, or a "
            "scheduler that wraps another optimizer."
        ),
        prescription=(
            "Print the optimizer's param_groups LRs for the first steps: apply any layer-wise "
            "decay once, at initialisation, and step the scheduler once per optimizer step."
        ),
    )


def _progress(run: Run, step: float) -> tuple[float, str] | None:
    """(fraction of the planned run, how it is known) at a logged step."""
    ep, n_ep = run.get("epoch"), run.fact("num_train_epochs")
    if ep is not None and n_ep:
        f = ep.finite()
        at = f.values[f.steps <= step]
        if at.size:
            e = float(at[-1])
            return e / float(n_ep), f"epoch {e:g} of {float(n_ep):g}"
    ms = run.fact("max_steps")
    if ms:
        return step / float(ms), f"step {step:g} of {int(ms)}"
    return None


def _not_decayed(run: Run, p: Params, st: np.ndarray, v: np.ndarray, sched: str) -> Hit | None:
    """(4): the LR where the configured decay says it should long be lower."""
    shape = "cosine" if "cosine" in sched else "linear" if "linear" in sched else None
    if shape is None:
        return None
    where = _progress(run, float(st[-1]))
    if where is None:
        return None
    prog, how = where
    warm = float(run.fact("warmup_ratio") or 0.0)
    if run.fact("warmup_steps") and run.fact("max_steps"):
        warm = float(run.fact("warmup_steps")) / float(run.fact("max_steps"))
    x = (prog - warm) / (1.0 - warm) if warm < 1 else 0.0
    if not (p.plan_min_progress <= x <= 1.0):
        return None
    peak = float(run.fact("learning_rate") or v.max())
    now = float(np.median(v[-3:]))
    factor = 1.0 - x if shape == "linear" else 0.5 * (1.0 + np.cos(np.pi * x))
    expected = factor * peak
    if now < 0.98 * peak or now < p.plan_ratio * expected:
        return None
    return Hit(
        title=(
            f"LR is still {fmt(now)} (its peak) at {how} ({prog:.0%} of the run); a {shape} "
            f"schedule would be at {fmt(expected)} there"
        ),
        step=int(st[0]),
        end_step=int(st[-1]),
        evidence={
            "lr_now": now,
            "peak_lr": peak,
            "expected_lr": expected,
            "progress": prog,
            "progress_from": how,
            "scheduler": sched,
            "warmup_fraction": warm,
        },
        explanation=(
            f"At {prog:.0%} of the planned run a {shape} decay has brought the LR to "
            f"{factor:.0%} of its peak; the log still shows the peak. The configured schedule "
            "is not the one stepping the optimizer: a DeepSpeed config's own scheduler "
            "(WarmupLR is constant after warmup) overrides lr_scheduler_type, or the "
            "scheduler is never stepped."
        ),
        prescription=(
            "Remove the scheduler block from the DeepSpeed config (or set it to the schedule "
            "you want), or make sure scheduler.step() runs once per optimizer step; check the "
            "LR in the log falls as planned before the next long run."
        ),
        severity=Severity.WARNING,
    )


def _learns_at_zero(run: Run, p: Params, st: np.ndarray, v: np.ndarray) -> str | None:
    """Something the model does improves over the LR-0 stretch: the loss falls in a trend
    (20%+ from its first third to its last; 5%+ over 10+ logs), or a held-out one (the
    eval loss, a task metric) is better at each of 3+ evals, or an RL return climbs in a
    trend. Fixed weights improve at nothing, so the logged LR is not the one training."""
    zeros = st[v == 0]
    watched = [
        ("loss", run.get("loss"), True, False),
        ("eval_loss", run.get("eval_loss"), True, True),
    ]
    watched += [(m.name, m, not higher, True) for m, higher in task_metrics(run)]
    watched.append(("reward", run.get("reward"), False, False))
    for name, s, lower, held_out in watched:
        if s is None:
            continue
        f = s.finite()
        m = (f.steps >= zeros[0]) & (f.steps <= zeros[-1])
        x, y = f.steps[m], f.values[m]
        if y.size < p.learns_min_points or (lower and not (y > 0).all()):
            continue
        first, _, last = part_medians(y)
        if first == 0:
            continue
        sign = 1.0 if lower else -1.0
        fall = sign * (first - last) / abs(first)  # the improvement, relative
        better = sign * np.diff(y) < 0  # each log better than the one before
        each = y.size <= p.learns_each_max_points and bool(np.all(better))
        z = sign * trend(x, y).z  # <= -2.58: improving in a trend
        long_trend = y.size >= p.learns_trend_points and fall >= p.learns_trend_fall
        gain = sign * (float(y[0]) - float(y[-1])) / abs(float(y[0])) if y[0] else 0.0
        evals = held_out and bool(np.all(better)) and gain >= p.learns_eval_fall
        if (
            (fall >= p.learns_fall and (each or z <= p.learns_z))
            or (long_trend and z <= p.learns_z)
            or evals
        ):
            way = "lower" if lower else "higher"
            return f"{name} {fmt(first)} -> {fmt(last)} ({abs(fall):.0%} {way}) at LR 0"
    return None


def _graded(
    run: Run, p: Params, st: np.ndarray, v: np.ndarray, hit: Hit, learns: str | None
) -> Hit:
    """An LR-0 hit's severity from what the loss did over the LR-0 stretch: info when it
    learned, an error only when it was watched there and stayed flat, else a warning."""
    if learns:
        return _trains_anyway(hit, learns)
    if _flat_at_zero(run, p, st, v):
        return hit
    return replace(
        hit,
        title=hit.title + " (no loss logged across it to confirm)",
        evidence={**hit.evidence, "loss_confirms": False},
        severity=Severity.WARNING,
    )


def _flat_at_zero(run: Run, p: Params, st: np.ndarray, v: np.ndarray) -> bool:
    """The train (or eval) loss logged 3+ times over the LR-0 stretch, positive, and no
    lower at its last third than at its first by `flat_fall`: the weights did not move."""
    zeros = st[v == 0]
    for name in ("loss", "eval_loss"):
        s = run.get(name)
        if s is None:
            continue
        f = s.finite()
        m = (f.steps >= zeros[0]) & (f.steps <= zeros[-1])
        y = f.values[m]
        if y.size < p.learns_min_points or not (y > 0).all():
            continue
        first, _, last = part_medians(y)
        if first > 0 and (first - last) / first < p.flat_fall:
            return True
    return False


def _in_warmup(run: Run, p: Params, zeros: np.ndarray) -> bool:
    """Every LR-0 log sits in the run's first `warmup_span` steps and its first epoch:
    where a warmup from 0 may still be under the print's resolution."""
    if not zeros.size or float(zeros[-1]) > p.warmup_span:
        return False
    ep = run.get("epoch")
    e = ep.finite() if ep is not None else None
    if e is None or not len(e):
        return True
    return float(np.interp(float(zeros[-1]), e.steps, e.values)) < 1.0


def _printed_in_warmup(st: np.ndarray, zero: float, decimals: int) -> Hit:
    """An LR printed as 0 at fixed decimals in the first steps of a run: a warmup's start
    under the print's resolution as much as an LR of 0 (info)."""
    return Hit(
        title=(
            f"Learning rate prints as 0 at {decimals} decimals in {100 * zero:.0f}% of the "
            f"logged steps, all in the run's first steps (to step {int(st[-1])}): a warmup "
            "there can be under the print's resolution"
        ),
        step=int(st[0]),
        end_step=int(st[-1]),
        evidence={"zero_frac": zero, "lr_print_decimals": decimals, "in_warmup_span": True},
        explanation=(
            f"The log prints the LR with {decimals} decimals, so anything below "
            f"{0.5 * 10.0**-decimals:.0e} reads 0, and a warmup from 0 spends its first steps "
            "there (a linear warmup to 1e-4 over 2,000 steps for 10 steps; darknet's burn-in, "
            "lr x (iter/1000)^4, for its first ~150 iterations at lr 1e-3). These logs cannot "
            "tell that from an LR stuck at 0; the logs after the warmup can."
        ),
        prescription=(
            "Log the LR in scientific notation (f'{lr:.3e}'), or read a line from after the "
            "warmup: a scheduler that never steps still prints 0 there."
        ),
        severity=Severity.INFO,
    )


def _trains_anyway(hit: Hit, learns: str) -> Hit:
    """An LR logged as 0 beside a loss that learns: the log's LR, not the run, is wrong."""
    return replace(
        hit,
        title=hit.title
        + f"; yet the {learns.split(' ', 1)[0]} improves: the logged LR is not the one training",
        evidence={**hit.evidence, "learns_at_zero_lr": learns},
        explanation=(
            "An LR of 0 leaves the weights unchanged, so neither the loss nor anything the "
            "model does could improve; here it does ("
            + learns
            + "). The LR in the log is not the one stepping the model: a value rounded to 0 "
            "by its print, the LR of a frozen parameter group, or another column."
        ),
        prescription=(
            "Log the LR of every param group in scientific notation (optimizer.param_groups) "
            "to see the schedule that really runs."
        ),
        severity=Severity.INFO,
    )
