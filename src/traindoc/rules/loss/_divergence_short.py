"""divergence's verdicts on logs too short for its trend test (2-9 losses): a loss
that lands above ln(V) after a sane start, jumps confirmed by the evals, a rise that
holds at every log, a rise in step with the eval loss or with the LR."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import diff_mad, fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._evalcurve import task_metrics, train_metrics

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _steadier_from(run: Run, lead: str) -> str:
    """`lead` (where to go back to), then the advice for a steadier run: LR 3-10x lower first."""
    return f"{lead}; " + advice.join(*advice.steadier(run, "lower the peak LR 3-10x")) + "."


def _worse_than_uniform(run: Run, p: Params, f: Series) -> Hit | None:
    """Two logged losses, a sane one and then one above ln(V): wrecked by an update."""
    fl_known = fl.known(run)
    if fl_known is None:
        return None
    (a, b), s0 = f.values, f.steps[0]
    floor = fl_known.value
    if not (0 < a < p.two_sane * floor and b > floor):
        return None
    return _two_point_hit(
        run,
        f,
        f"above the uniform floor {fl.log_name(run)}({fl_known.count}) = {fmt(floor)}",
        (
            f"At step {int(s0)} the model predicted well (loss {fmt(float(a))}, under half of "
            f"{fl.log_name(run)}({fl_known.count})); one logged interval later it does worse than guessing "
            "uniformly over its outputs. Only updates that wreck the weights do that: steps "
            "far too large (LR too high, no warmup) or numerics breaking down."
        ),
        {"floor": floor},
    )


def _confirming_evals(run: Run, p: Params) -> list[str]:
    """The eval curves that jumped the wrong way by `two_jump` from their first value to
    their last (eval loss up, a higher-better metric halved, a lower-better one doubled)."""
    out = []
    ev = run.get("eval_loss")
    curves = [(ev, False)] if ev is not None else []
    for m, higher in [*curves, *task_metrics(run)]:
        v = m.finite().values
        if v.size < 2 or not v[0] > 0:
            continue
        worse = v[-1] <= v[0] / p.two_jump if higher else v[-1] >= p.two_jump * v[0]
        if worse:
            out.append(f"{m.name} {fmt(float(v[0]))} -> {fmt(float(v[-1]))}")
    return out


def _two_confirmed(run: Run, p: Params, f: Series) -> Hit | None:
    """Two logged losses, the second 2x the first, and the evals jump the wrong way too."""
    (a, b) = f.values
    if not (a > 0 and b >= p.two_jump * a):
        return None
    confirmed = _confirming_evals(run, p)
    if not confirmed:
        return None
    return _two_point_hit(
        run,
        f,
        f"{fmt(float(b / a))}x, and the evals with it: " + ", ".join(confirmed),
        (
            f"Between two logs the training loss more than doubled and the held-out curves "
            f"moved the same way ({', '.join(confirmed)}): the model got worse on every "
            "measure at once, which no batch noise does. Updates that wreck the weights do: "
            "steps too large for the loss surface (LR or momentum), or numerics breaking down."
        ),
        {"confirmed_by": confirmed},
    )


def _last_jump_confirmed(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log whose last loss jumps 3x, with the evals at that step worse as well."""
    y, steps = f.values, f.steps
    if y.size < 4:
        return None
    before = float(np.median(y[-4:-1]))
    if not (before > 0 and y[-1] >= p.last_jump * before):
        return None
    ev = run.get("eval_loss")
    curves = [(ev, False)] if ev is not None else []
    worse, better = [], 0
    for m, higher in [*curves, *task_metrics(run)]:
        mf = m.finite()
        late = mf.steps > steps[-2]  # logged with (or after) the jump, not before it
        if late.sum() != 1 or late[0] or not mf.values[~late].size:
            continue
        a, b = float(mf.values[~late][-1]), float(mf.values[late][0])
        if not a > 0:
            continue
        change = (b - a) / a * (-1 if higher else 1)
        if change >= p.last_eval_worse:
            worse.append(f"{m.name} {fmt(a)} -> {fmt(b)}")
        else:
            better += 1
    if not worse or better:
        return None
    s1, peak = int(steps[-1]), float(y[-1])
    return Hit(
        title=(
            f"Loss jumps {fmt(before)} -> {fmt(peak)} ({peak / before:.1f}x) at the last log, "
            f"step {s1}, and the eval there is worse too: " + ", ".join(worse)
        ),
        step=s1,
        end_step=s1,
        evidence={
            "best_loss": before,
            "peak_loss": peak,
            "peak_step": s1,
            "peak_ratio": peak / before,
            "onset_step": s1,
            "confirmed_by": worse,
            "points": int(y.size),
        },
        explanation=(
            f"The logged train loss (an average over the logging interval) grew {peak / before:.1f}x "
            "in one interval, and the held-out curves measured at the same step moved the "
            "same way: the weights themselves got worse, which one bad batch does not do. "
            "The log ends there, so whether it came back is not known."
        ),
        prescription=_steadier_from(run, f"Keep the checkpoint before step {s1}"),
        severity=Severity.WARNING,
    )


def _worse_on_train(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log whose train loss holds 25%+ above its best while a train task metric
    holds 10%+ below its own best: worse on the training data by two measures."""
    y, steps = f.values, f.steps
    held = _held_above_best(y, p)
    if held is None:
        return None
    i_best, k = held
    n = y.size
    worse = []
    for m, higher in train_metrics(run):
        v = m.finite().values
        km = max(2, v.size // 3)
        if v.size < km + 2:
            continue
        best = float(np.max(v[:-km]) if higher else np.min(v[:-km]))
        if not best > 0:
            continue
        late = v[-km:]
        bad = late <= (1 - p.worse_metric) * best if higher else late >= (1 + p.worse_metric) * best
        if bool(np.all(bad)):
            worse.append(f"{m.name} {fmt(best)} -> {fmt(float(v[-1]))}")
    if not worse:
        return None
    onset = int(steps[n - k])
    evidence = _rise_evidence(
        run, f, i_best, onset, peak_loss=float(np.max(y[i_best:])), confirmed_by=worse
    )
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss climbs from {fmt(float(y[i_best]))} (step {int(steps[i_best])}) to "
            f"{fmt(float(y[-1]))} and the training metrics fall with it: " + ", ".join(worse)
        ),
        explanation=(
            f"At each of the last {k} logs the training loss sits 25%+ above its best and "
            "the accuracy on the training data 10%+ below its own best: the model got worse "
            "on the data it trains on, by two measures at once. Overfitting does the "
            "opposite on the training data, and batch noise does not move both the wrong "
            "way log after log: the updates are undoing what was learned."
        ),
    )


def _worse_on_eval_too(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log whose train loss holds 25%+ above its best over its last third while
    the eval loss, at each of its 2+ evals in that stretch, holds 25%+ above its own best
    before it: worse on the training data and on held-out data at once."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    y, steps = f.values, f.steps
    held = _held_above_best(y, p)
    if held is None:
        return None
    i_best, k = held
    n = y.size
    onset = int(steps[n - k])
    e = ev.finite()
    before, late = e.values[e.steps < onset], e.values[e.steps >= onset]
    if not before.size or late.size < 2:
        return None
    best = float(before.min())
    if not (best > 0 and np.all(late >= (1 + p.worse_rise) * best)):
        return None
    worse = [f"eval_loss {fmt(best)} -> {fmt(float(late[-1]))}"]
    evidence = _rise_evidence(
        run, f, i_best, onset, peak_loss=float(np.max(y[i_best:])), confirmed_by=worse
    )
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss climbs from {fmt(float(y[i_best]))} (step {int(steps[i_best])}) to "
            f"{fmt(float(y[-1]))} and the eval loss climbs with it: " + worse[0]
        ),
        explanation=(
            f"At each of the last {k} logs the training loss sits 25%+ above its best, and at "
            f"each of the {late.size} evals since, the eval loss sits 25%+ above its own best: "
            "the model got worse on the data it trains on and on held-out data at once. "
            "Overfitting lowers the training loss while the eval loss rises, and batch noise "
            "does not hold both up log after log: the updates are undoing what was learned."
        ),
    )


def _climbs_with_eval(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log whose train loss rose at each of its last 3+ logs, 5%+ in all, while the
    eval loss rose at each of its 3+ evals over that stretch, 5%+ in all: worse on the
    training data and on held-out data at every log, in step."""
    ev = run.get("eval_loss")
    if ev is None:
        return None
    y, steps = f.values, f.steps
    i_low = int(np.argmin(y))
    climb = y[i_low:]
    low, last = float(y[i_low]), float(y[-1])
    if (
        climb.size < p.lockstep_rises + 1
        or not bool(np.all(np.diff(climb) > 0))
        or not (low > 0 and last >= (1 + p.lockstep_rise) * low)
    ):
        return None
    e = ev.finite()
    inside = e.values[(e.steps >= steps[i_low]) & (e.steps <= steps[-1])]
    if (
        inside.size < p.lockstep_evals
        or not bool(np.all(np.diff(inside) > 0))
        or not (inside[0] > 0 and inside[-1] >= (1 + p.lockstep_rise) * inside[0])
    ):
        return None
    onset = int(steps[i_low + 1])
    worse = [f"eval_loss {fmt(float(inside[0]))} -> {fmt(float(inside[-1]))}"]
    evidence = _rise_evidence(run, f, i_low, onset, peak_loss=last, confirmed_by=worse)
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss climbs {fmt(low)} -> {fmt(last)} at each of its last {climb.size - 1} logs "
            f"and the eval loss climbs with it at each eval: " + worse[0]
        ),
        explanation=(
            f"The training loss rose at each of the last {climb.size - 1} logs and the eval "
            f"loss at each of its {inside.size} evals over the same stretch: the model got "
            "worse on the data it trains on and on held-out data, log after log. Batch noise "
            "does not move two curves on different data the wrong way in step, and "
            "overfitting lowers the training loss: the updates are undoing what was learned."
        ),
    )


def _climbs_with_lr(run: Run, p: Params, f: Series) -> Hit | None:
    """A short log whose loss rose at each of its last 2+ logs to 3x+ its lowest, while
    the logged LR rose at each of them too: the warmup's ramp is breaking the run."""
    y, steps = f.values, f.steps
    if y.size < 3:
        return None
    i_low = int(np.argmin(y))
    climb = y[i_low:]
    if climb.size < 3 or not bool(np.all(np.diff(climb) > 0)):
        return None
    low, last = float(y[i_low]), float(y[-1])
    if not (low > 0 and last >= p.lr_climb * low):
        return None
    lrs = [_lr_at(run, int(st)) for st in steps[i_low:]]
    if any(v is None for v in lrs) or not all(b > a for a, b in itertools.pairwise(lrs)):
        return None
    onset = int(steps[i_low + 1])
    evidence = _rise_evidence(
        run, f, i_low, onset, peak_loss=last, lr_rising=True, lr_last=float(lrs[-1])
    )
    return Hit(
        title=(
            f"Loss climbs {fmt(low)} -> {fmt(last)} ({last / low:.1f}x) over its last "
            f"{climb.size - 1} logs while the LR rises {fmt(float(lrs[0]))} -> {fmt(float(lrs[-1]))}"
        ),
        step=onset,
        end_step=int(steps[-1]),
        evidence=evidence,
        explanation=(
            f"The loss rose at each of the last {climb.size - 1} logs, to {last / low:.1f}x its "
            "best, in step with a learning rate that was still ramping up: each larger step "
            "made the model worse. A warmup that carries the LR past what the run takes breaks "
            "it this way, before the peak is even reached."
        ),
        prescription=_steadier_from(
            run, f"Lower the peak LR below the {fmt(float(lrs[1]))} at which the climb began"
        ),
        severity=Severity.WARNING,
    )


def _undid_learning(start: float, best: float, late: float, p: Params) -> bool:
    """The rise from `best` to `late` gave back `blowup_gave_back` (a quarter) or more of what
    the log had learned before it (`start` - `best`): the evidence an error needs. A log that
    learned nothing before its best (it starts at or under it) gives all of it back with
    any rise. A loss near 0 that doubles (0.006 -> 0.019 after falling from 2.3) has given
    back 1% of what it learned: a warning, however large the ratio."""
    return late - best >= p.blowup_gave_back * max(start - best, 0.0)


def _rise_hit(
    run: Run,
    f: Series,
    onset: int,
    evidence: dict[str, object],
    *,
    title: str,
    explanation: str,
    severity: Severity = Severity.WARNING,
) -> Hit:
    """The finding of a short-log rise from `onset` to the log's end, whose remedy is a
    restart from a checkpoint before it with steadier settings."""
    return Hit(
        title=title,
        step=onset,
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=explanation,
        prescription=_steadier_from(run, f"Restart from a checkpoint before step {onset}"),
        severity=severity,
    )


def _gave_back(y: np.ndarray, p: Params) -> int | None:
    """Index of the low when the loss gave back all it learned, else None: it fell 10%+
    from its first log to its lowest point, then rose at each of the 2+ logs since, the
    last two 10%+ above that low, to end above the first log.

    It must have learned (the first log 10%+ above the low): a run that barely moved
    from its start has nothing to give back, and a climb from there is a rise from the
    start, the other tests' to judge. The last two logs both sit 10%+ above the low: a
    jump at the last log alone is one batch, whatever came before it.

    A low that is a lone dip, both its neighbours 10%+ above it, is one lucky batch, not
    a level: the rise is then measured from the lower neighbour. A flat per-step paste
    with 10%+ batch noise has such a dip under its first log and under the logs after it
    often enough to "give back" what it never learned about one time in twenty; a run that
    learned and climbed back clears its neighbour too (YOLOX 98 -> 49 -> 38 -> 65 -> 130),
    and a smooth low (epoch means 2.0, 1.9, 2.0) is its own level."""
    n = y.size
    i_low = int(np.argmin(y))
    low = float(y[i_low])
    if not (0 < i_low <= n - 1 - p.gave_back_rises and low > 0):
        return None
    beside = float(np.min(y[i_low - 1 : i_low + 2 : 2]))  # the lower neighbour
    level = beside if beside >= (1 + p.min_rise) * low else low
    if not (
        bool(np.all(np.diff(y[i_low:]) > 0))
        and float(y[0]) >= (1 + p.min_rise) * level
        and float(y[-1]) > float(y[0])
        and float(y[-2]) >= (1 + p.min_rise) * level
    ):
        return None
    return i_low


def _gave_back_hit(run: Run, p: Params, f: Series) -> Hit | None:
    """A sparse log (10-20 losses: epochs, a pasted stretch) that gave back all it learned
    (`_gave_back`): too few logs for the trend tests' smoothing to see a climb of its
    last few, and the same evidence as in a shorter one."""
    y, steps = f.values, f.steps
    if y.size > p.gave_back_max_points or (i_low := _gave_back(y, p)) is None:
        return None
    low, last = float(y[i_low]), float(y[-1])
    up = np.flatnonzero(y[i_low:] >= (1 + p.min_rise) * low)
    onset = int(steps[i_low + int(up[0])])
    evidence = _rise_evidence(
        run,
        f,
        i_low,
        onset,
        peak_loss=last,
        peak_step=int(steps[-1]),
        peak_ratio=last / low,
        first_loss=float(y[0]),
    )
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss climbs: from {fmt(low)} (step {int(steps[i_low])}) to {fmt(last)} "
            f"({fmt(last / low)}x, step {int(steps[-1])}), higher at each of the "
            f"{y.size - 1 - i_low} points since, above its first log ({fmt(float(y[0]))}): "
            "all it learned given back"
        ),
        explanation=(
            f"The loss fell from {fmt(float(y[0]))} to {fmt(low)}, then rose at every log "
            f"since and ends at {fmt(last)}, above where it started: the updates undid all "
            "the progress of the run and more. Steps too large for the loss surface (LR too "
            "high, no warmup, a batch too small for the LR) or numerics breaking down."
        ),
    )


def _rise_evidence(
    run: Run, f: Series, i_best: int, onset: int, **extra: object
) -> dict[str, object]:
    """The evidence every short-log rise reports: where it was best, where the rise
    began and ended, how many points, the LR at its onset; then what is its own."""
    y, steps = f.values, f.steps
    evidence: dict[str, object] = {
        "best_loss": float(y[i_best]),
        "best_step": int(steps[i_best]),
        "last_loss": float(y[-1]),
        "onset_step": onset,
        "points": int(y.size),
        **extra,
    }
    if (lr := _lr_at(run, onset)) is not None:
        evidence["lr_at_onset"] = lr
    return evidence


def _two_point_hit(
    run: Run, f: Series, what: str, explanation: str, extra: dict[str, object]
) -> Hit:
    """The finding of a two-point blow-up: from the first loss to the second, `what`."""
    (a, b), (s0, s1) = f.values, f.steps
    evidence: dict[str, object] = {
        "best_loss": float(a),
        "best_step": int(s0),
        "peak_loss": float(b),
        "peak_step": int(s1),
        "peak_ratio": float(b / a),
        "onset_step": int(s1),
        "points": 2,
        **extra,
    }
    if (lr := _lr_at(run, int(s0))) is not None:
        evidence["lr_at_onset"] = lr
    return Hit(
        title=(
            f"Loss went from {fmt(float(a))} (step {int(s0)}) to {fmt(float(b))} (step "
            f"{int(s1)}), {what}"
        ),
        step=int(s1),
        end_step=int(s1),
        evidence=evidence,
        explanation=explanation,
        prescription=_steadier_from(run, f"Restart from the checkpoint before step {int(s1)}"),
    )


def _short_blowup(run: Run, p: Params, f: Series) -> Hit | None:
    """A blow-up in a short log: a rise that holds, or one of orders of magnitude."""
    y, steps = f.values, f.steps
    n = y.size
    # the last third, and never fewer than 2 points once 3+ come before them: one point
    # up is a batch, two in a row that hold 50% above the best are a level
    k = max(2 if n >= 5 else 1, n // 3)
    i_best = int(np.argmin(y[: n - k]))
    best = float(y[i_best])
    if not best > 0:
        return None
    # The level the rise is measured from: the minimum with its neighbours (a median of
    # 3), so one lucky batch of a noisy per-step loss is not the "best" it rose from.
    level = float(np.median(y[max(0, i_best - 1) : i_best + 2]))
    late = y[-k:]
    peak_i = i_best + int(np.argmax(y[i_best:]))
    peak = float(y[peak_i])
    # A level the loss already swung to before its best, once down in its low band
    # (within 50% of that level), is a stretch of its noise, not a rise that holds: a
    # diffusion loss, whose value moves with the timesteps each batch drew (0.17 among
    # 0.06-0.10, then 0.11-0.15 at the end).
    band = (1 + p.short_hold_rise) * level
    low_from = int(np.argmax(y <= band))
    visited = float(np.max(y[low_from:i_best], initial=-math.inf))
    holds = k >= 2 and bool(np.all(late >= band)) and float(np.median(late)) > visited
    # Orders of magnitude above the level too, not above one lucky batch: a CRF's loss
    # summed over a batch of sentences swings 946 <-> 22,737 from one log to the next. A
    # low with a neighbour on each side can be told lucky; the first log has no before.
    base = level if i_best >= 1 else best
    orders = peak >= p.short_orders * base and float(y[-1]) >= p.short_still_up * base
    # ... and above every loss the paste logged before its best, or held there: a loss
    # that swings by orders of magnitude within the paste (a fitted probe's per-batch
    # loss: 0.57, 0.003, 0.06, ..., 0.002, 0.03, 0.015, 0.32 at train accuracy 0.97) comes
    # back to a level it already had, which is its noise, not a blow-up from a level.
    new_high = i_best == 0 or peak > float(np.max(y[:i_best]))
    orders = orders and (new_high or bool(np.all(late >= p.short_still_up * base)))
    # A steady climb: from the global minimum on, every point above the one before,
    # for 4+ points and 10%+ (a Keras run at RMSprop 1e-3 rising every epoch).
    i_low = int(np.argmin(y))
    climb = y[i_low:]
    steady = (
        climb.size > p.short_climb_points
        and bool(np.all(np.diff(climb) > 0))
        and float(climb[-1]) >= (1 + p.min_rise) * float(y[i_low])
    )
    # ... or a climb to a new high of the paste at each of its last 3 logs, the last 25%+
    # above the first log: a noisy paste that does not climb sets 3 records in a row at
    # its end about 1 time in C(n,3)*3! (n=7: 1 in 210), a loss the updates wreck does it
    # at every log (a VLM fine-tune at grad norm 1e7: 2.56, 2.70, 2.67, 2.62, 2.81, 2.92, 3.32).
    r = p.short_record_points
    records = (
        n > r
        and y[0] > 0
        and all(float(y[i]) > float(y[:i].max()) for i in range(n - r, n))
        and float(y[-1]) >= (1 + p.short_record_rise) * float(y[0])
    )
    # ... or a shorter climb from a low the loss had fallen to, that ends above the
    # first log: the run gave back everything it learned (YOLOX 98 -> 38 -> 65 -> 130).
    gave_back = _gave_back(y, p) is not None
    # ... or a climb of 50%+ whose last finite point is where the loss turns NaN/Inf
    # for good: it never came back, it broke on the way up.
    raw = run.get("loss")
    then_nonfinite = raw is not None and bool(
        (~np.isfinite(raw.values[raw.steps > steps[-1]])).any()
    )
    into_nan = then_nonfinite and float(y[-1]) >= (1 + p.short_hold_rise) * level
    holds = holds or into_nan
    # ... or a step up of 10%+ that holds at each of the last third and stands 6 noise
    # sigmas of the points before it above their level: quiet logs (epoch means,
    # interval averages) that jump and stay up, which their own noise cannot explain
    before = y[: n - k]
    sigma = (
        max(diff_mad(before) / math.sqrt(2), p.step_noise_floor * level)
        if before.size >= 3
        else math.inf
    )
    stepped = (
        k >= 2
        and before.size >= 3
        and bool(np.all(late >= max((1 + p.min_rise) * level, level + p.step_sigmas * sigma)))
    )
    if not (holds or orders or steady or stepped or gave_back or records):
        return None
    # A loss solved to ~0 (100x under where it was) wobbles by large relative amounts:
    # 3.5e-5 -> 0.007 is 200x and nothing. Only a rise of 5%+ of what it learned counts.
    head = float(np.max(y[: i_best + 1]))
    if best * p.solved_ratio <= head and (peak - best) < p.solved_rise * (head - best):
        return None
    # A jump that has fallen at each of the 3+ points since its peak, by 20%+ of the
    # jump, is a spike coming back (loss-spike's short path), unless it was 10x.
    after = y[peak_i:]
    if (
        not orders
        and after.size > 3
        and bool(np.all(np.diff(after) < 0))
        and (after[0] - after[-1]) >= 0.2 * (after[0] - best)
    ):
        return None
    if (steady or gave_back or records) and not (holds or orders):
        i_best, best = i_low, float(y[i_low])
        peak_i, peak = n - 1, float(y[-1])
    rise = p.short_hold_rise if (holds or orders) else p.min_rise
    up = np.flatnonzero(y[i_best:] >= (1 + rise) * best)
    onset = int(steps[i_best + int(up[0])]) if up.size else int(steps[i_best])
    evidence = _rise_evidence(
        run,
        f,
        i_best,
        onset,
        peak_loss=peak,
        peak_step=int(steps[peak_i]),
        peak_ratio=peak / best,
        then_nonfinite=then_nonfinite,
        **({"first_loss": float(y[0])} if gave_back and not (holds or orders or steady) else {}),
        **({"new_highs": p.short_record_points} if records else {}),
    )
    # An error needs what a noisy healthy paste cannot show: orders of magnitude, a NaN at
    # the end of the climb, or a held rise that undid a quarter or more of what it learned.
    blowup = holds or orders
    # A paste that learned nothing before its best (its first log within `min_rise` of the
    # level) shows no learning to undo, and a 50% rise held over two logs is what a noisy
    # per-batch loss does in any window of it (a spleen segmenter's per-iteration Dice
    # loss: 0.12, 0.12, 0.11, 0.21, 0.34, then 0.30, 0.16, 0.24 ... 0.18): an error needs
    # each late log `short_still_up` (3x) over the level there.
    learned = float(y[0]) >= (1 + p.min_rise) * level
    severe = (
        orders
        or into_nan
        or (
            holds
            and (
                _undid_learning(float(y[0]), best, float(np.median(late)), p)
                if learned
                else bool(np.all(late >= p.short_still_up * level))
            )
        )
    )
    tail = " and then goes NaN/Inf" if then_nonfinite else f", still {fmt(float(y[-1]))} at the end"
    if not blowup:
        tail = f", higher at each of the {n - 1 - i_best} points since"
        if records and not (steady or gave_back):
            tail = (
                f", a new high of the paste at each of its last {p.short_record_points} logs, "
                f"{fmt(float(y[-1]) / float(y[0]))}x its first"
            )
        if gave_back and not steady:
            tail += f", above its first log ({fmt(float(y[0]))}): all it learned given back"
    return _rise_hit(
        run,
        f,
        onset,
        evidence,
        title=(
            f"Loss {'blows up' if blowup else 'climbs'}: from {fmt(best)} (step "
            f"{int(steps[i_best])}) to {fmt(peak)} ({fmt(peak / best)}x, step "
            f"{int(steps[peak_i])}){tail}"
        ),
        explanation=(
            f"Only {n} losses are logged, too few for a trend, but the rise is beyond any "
            f"batch noise: the loss went from {fmt(best)} to {fmt(peak)} and did not come "
            "back. The updates are wrecking the model: steps too large for the loss surface "
            "(LR too high, no warmup, a batch too small for the LR) or numerics breaking down."
        ),
        severity=Severity.ERROR if severe else Severity.WARNING,
    )


def _lr_at(run: Run, step: int) -> float | None:
    """The last logged LR at or before `step` (None when no LR was logged by then)."""
    lr = run.get("lr")
    if lr is None:
        return None
    lf = lr.finite()
    at = lf.values[lf.steps <= step]
    return float(at[-1]) if at.size else None


def _held_above_best(y: np.ndarray, p: Params) -> tuple[int, int] | None:
    """(index of the best loss, k) when each of the last k = n//3 (2+) losses holds
    `worse_rise` above the level around the best before them; None otherwise."""
    n = y.size
    k = max(2, n // 3)
    if n < k + 2:
        return None
    i_best = int(np.argmin(y[: n - k]))
    level = float(np.median(y[max(0, i_best - 1) : i_best + 2]))
    if not (level > 0 and np.all(y[-k:] >= (1 + p.worse_rise) * level)):
        return None
    return i_best, k
