"""fp16 symptom detection shared by fp16-instability and precision-suboptimal.

One function decides what counts as instability, so the two rules can never
disagree: precision-suboptimal speaks exactly when fp16-instability is silent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from traindoc.measure.grads import grad_spikes, loss_response
from traindoc.measure.stats import median
from traindoc.model import Run, Series
from traindoc.rules.grads.grad_explosion import Params as ExplosionParams
from traindoc.rules.grads.grad_explosion import check as explosion

# Extra series names under which loggers write the dynamic loss scale / skipped steps.
SCALE_KEYS = ("loss_scale", "scaler/scale", "grad_scale", "train/loss_scale")
SKIP_KEYS = ("skipped_steps", "train/skipped_steps", "overflow_steps", "num_skipped_steps")
# Megatron's "number of skipped iterations: N" counts the iterations skipped since the
# previous log line (it resets), not a running total.
PER_LOG_SKIP_KEYS = ("skipped_iterations",)


@dataclass(frozen=True)
class Params:
    # Non-finite grad norms: a loss scaler legitimately overflows now and then
    # (mostly while calibrating); more than 1% of points, or not recovered, is not that.
    nonfinite_grad_share: float = 0.01
    recovered_points: int = 5
    # The scaler's floor: "loss scale already at minimum" is a scale of 1 (or below) ...
    scale_min: float = 1.0
    # ... or a collapse by 2^12 from its highest value (65536 -> 16), or from where
    # the scaler starts when only a line or two is logged. fairseq sums its loss over
    # the batch's tokens (not a mean), so it starts at 128 and healthy runs go under
    # 1 (0.5 at epoch 30 of a maintainer's run): its floor is 128 / 2^12 = 0.03.
    scale_drop: float = 2.0**12
    init_scale: float = 2.0**16
    init_scale_fairseq: float = 128.0
    # Skipped steps: calibration skips ~15-20 steps at the start; more than
    # max(20, 1% of steps) is overflow in earnest.
    skipped_min: int = 20
    skipped_share: float = 0.01
    # A per-log skip count equal to the iterations since the last log, at each of 3+
    # logs: not one optimizer step was applied (no calibration skips every step).
    all_skipped_logs: int = 3
    # Huge gradients: spikes >= 10x the local median that the loss followed,
    # at least twice ("intermittent", the LoRA-plateau run): one recovered spike is grad-spike's.
    spike_ratio: float = 10.0
    spike_count: int = 2
    # Overflow messages at this many consecutive steps past the calibration allowance.
    overflow_streak: int = 4
    # A calibration walk-down: the scale halving from its first point (at or before the
    # second logged loss), ending above the floor, with this many logged losses after it
    # and no further halving below where it ended before them.
    calibration_after: int = 3
    # A walk-down from the scaler's start with no loss logged settled when the console
    # goes on for this many lines past its last halving (uncut, no error): the program
    # went on without another overflow (the apex polyfit that halves 18 times to 0.25 and
    # then prints its fit, matching fp32's).
    settled_lines: int = 3
    # Underflow: the loss exactly 0 at the last 2+ logs (after a logged non-zero loss)
    # while an accuracy logged beside it stays under half: a loss of 0 means every
    # prediction right, so the value (and its gradient) flushed to 0 in fp16.
    underflow_logs: int = 2
    underflow_acc_below: float = 0.5
    # An overflow past the calibration that the loss and grad norm leap after: at the
    # next log the loss is 1.2x the highest of the (up to 3) logged before it and the
    # grad norm 3x their median. A scaler's probe overflow (its scale grown past the
    # range after its window) skips one step and leaves both as they were; both leaping
    # with it means the gradients themselves left fp16's range.
    blowup_before: int = 3
    blowup_loss: float = 1.2
    blowup_grad: float = 3.0


@dataclass(frozen=True)
class Symptom:
    what: str  # short id: nonfinite-loss, nonfinite-grad, loss-scale, skipped-steps, grad-spikes
    step: int | None
    detail: str


def _series(run: Run, keys: tuple[str, ...]) -> Series | None:
    for k in keys:
        s = run.get(k)
        if s is not None:
            return s
    return None


def fp16_symptoms(run: Run, t: Params = Params()) -> list[Symptom]:
    """Signs of numeric overflow in the logs (meaningful when the run is fp16)."""
    out: list[Symptom] = []
    loss = run.get("loss")
    if loss is not None:
        bad = ~np.isfinite(loss.values)
        if bad.any():
            first = int(loss.steps[np.argmax(bad)])
            out.append(Symptom("nonfinite-loss", first, f"{int(bad.sum())} NaN/Inf losses"))
    gn = run.get("grad_norm")
    if gn is not None:
        bad = ~np.isfinite(gn.values)
        share = float(bad.mean())
        recovered = bool(np.isfinite(gn.values[-t.recovered_points :]).all())
        if bad.any() and (share > t.nonfinite_grad_share or not recovered):
            first = int(gn.steps[np.argmax(bad)])
            out.append(
                Symptom(
                    "nonfinite-grad", first, f"{int(bad.sum())} NaN/Inf grad norms ({share:.1%})"
                )
            )
        sp = grad_spikes(gn)  # grad-spike's (cached) spikes, kept when >= spike_ratio
        big = sp.ratio >= t.spike_ratio
        if big.any() and loss is not None:
            resp = loss_response(loss, sp.steps[big])
            hit = np.flatnonzero(resp.followed)
            if hit.size >= t.spike_count:
                out.append(
                    Symptom(
                        "grad-spikes",
                        int(sp.steps[big][hit[0]]),
                        f"{hit.size} grad-norm spikes >= {t.spike_ratio:.0f}x that the loss "
                        f"followed (up to {float(sp.ratio[big][hit].max()):.0f}x)",
                    )
                )
        growth = next(iter(explosion(run, ExplosionParams())), None)
        if growth is not None:
            out.append(Symptom("grad-growth", growth.step, growth.title))
    scale = _series(run, SCALE_KEYS)
    calibrated = calibration_end(run, t)
    if scale is not None:
        f = scale.finite()
        floor = scale_floor(run, t)
        low = f.values[f.values <= floor]
        if len(f) and len(f) < 3 and low.size:
            # The scaler halves once per overflow from its start: a scale at its floor,
            # even logged once, is overflow at (nearly) every step.
            at = int(f.steps[int(np.argmax(f.values <= floor))])
            out.append(
                Symptom("loss-scale", at, f"loss scale is {float(low.min()):g} (floor {floor:g})")
            )
        elif len(f) >= 3:
            # where the scale ended: the median of its last logs, or the last one when
            # it is still falling (a scale halving at every log has its state at the end)
            late = min(median(f.values[-max(3, len(f) // 10) :]), float(f.values[-1]))
            # the drop is measured from where the scaler settled, not from the probe it
            # started at (DeepSpeed's initial_scale_power 32: 2^32 halved 22 times to 1024)
            kept = f.values[f.steps >= calibrated] if calibrated is not None else f.values
            top = float(kept.max()) if kept.size else float(f.values.max())
            if late <= floor or (late > 0 and top / late >= t.scale_drop):
                at = int(f.steps[int(np.argmax(f.values <= max(late, t.scale_min) * 1.0001))])
                out.append(Symptom("loss-scale", at, f"loss scale fell from {top:g} to {late:g}"))
    under = _loss_underflow(run, t)
    if under is not None:
        out.append(under)
    skipped = _series(run, SKIP_KEYS)
    span = run.last_step or 0
    first_step = None
    if skipped is not None and len(skipped.finite()):
        v = skipped.finite().values
        # A cumulative counter only grows; otherwise each point counts its interval.
        n_skipped = float(v[-1]) if bool((np.diff(v) >= 0).all()) else float(v.sum())
        grew = np.flatnonzero(v > 0)
        first_step = int(skipped.finite().steps[grew[0]]) if grew.size else None
    else:
        fact = run.fact("skipped_steps")
        n_skipped = float(fact) if fact is not None else None
    every = _every_step_skipped(run, t)
    if every is not None:
        out.append(every)
    elif n_skipped is not None and n_skipped > max(t.skipped_min, t.skipped_share * span):
        out.append(Symptom("skipped-steps", first_step, f"{n_skipped:.0f} optimizer steps skipped"))
    out += _event_symptoms(
        run, t, span, counted=any(s.what == "skipped-steps" for s in out), after=calibrated
    )
    blowup = _overflow_blowup(run, t, calibrated)
    if blowup is not None:
        out.append(blowup)
    if walkdown_alone(run, out, t) and _went_on(run, t):
        return []  # the scaler calibrated, stopped, and the program went on
    return out


def _went_on(run: Run, t: Params) -> bool:
    """The console goes on for `settled_lines`+ lines past the scaler's last message, with
    no cut and no failure between (the reader's lines_after_overflow): the halvings
    stopped, as a calibration's do, and the program went on to its next lines."""
    n = run.fact("lines_after_overflow")
    return isinstance(n, int) and n >= t.settled_lines


def _overflow_blowup(run: Run, t: Params, after: int | None) -> Symptom | None:
    """An overflow message past the calibration (step 20+, after any calibration
    walk-down) that the loss and the grad norm both leap after: at the first log past
    it the loss is `blowup_loss`x the highest of the `blowup_before` logged up to it
    and the grad norm `blowup_grad`x their median. A scaler's periodic probe overflow
    skips one step and changes no weight, so the next log looks like the ones before;
    both leaping with it is the gradients themselves growing past fp16's range (the
    fairseq run whose "overflow detected, setting loss scale to: 32.0" is followed by
    loss 8.2 -> 10.5 and gnorm 1.5 -> 6.1)."""
    loss, gn = run.get("loss"), run.get("grad_norm")
    if loss is None or gn is None:
        return None
    lf, gf = loss.finite(), gn.finite()
    for e in run.events:
        if e.kind != "fp16-overflow" or e.step is None or e.step <= t.skipped_min:
            continue
        if after is not None and e.step <= after:
            continue
        lb = lf.values[lf.steps <= e.step][-t.blowup_before :]
        gb = gf.values[gf.steps <= e.step][-t.blowup_before :]
        la, ga = lf.values[lf.steps > e.step], gf.values[gf.steps > e.step]
        if lb.size < 2 or gb.size < 2 or not la.size or not ga.size:
            continue
        top, mid = float(lb.max()), median(gb)
        if top <= 0 or mid <= 0:
            continue
        if la[0] >= t.blowup_loss * top and ga[0] >= t.blowup_grad * mid:
            return Symptom(
                "overflow-blowup",
                int(e.step),
                f"overflow at step {int(e.step)} (line {e.line}), then loss {top:g} -> "
                f"{float(la[0]):g} and grad norm {mid:g} -> {float(ga[0]):g} at the next log",
            )
    return None


_ACCURACY = re.compile(r"(?:^|[_/])(?:acc|accuracy)$")


def _loss_underflow(run: Run, t: Params) -> Symptom | None:
    """A loss that reads exactly 0 at its last `underflow_logs`+ logs, after a non-zero
    one, while every accuracy logged at those steps is under `underflow_acc_below` (a
    percent read as a fraction): no model with a zero loss gets most answers wrong, so
    the loss underflowed to 0 in fp16 (Keras `floatx float16`, pure-fp16 weights without
    a loss scaler) and no gradient reaches the weights."""
    loss = run.get("loss")
    if loss is None:
        return None
    f = loss.finite()
    zero = f.values == 0.0
    if not zero.any() or zero.all():
        return None
    n = len(zero) - int(np.flatnonzero(~zero)[-1]) - 1
    if n < t.underflow_logs:
        return None
    start = int(f.steps[len(zero) - n])
    accs = [s for name, s in run.series.items() if _ACCURACY.search(name)]
    late = [s.finite().values[s.finite().steps >= start] for s in accs]
    late = [v / 100.0 if bool((v > 1.0).any()) else v for v in late if v.size]
    if not late or not all(bool((v < t.underflow_acc_below).all()) for v in late):
        return None
    top = max(float(v.max()) for v in late)
    return Symptom(
        "loss-underflow",
        start,
        f"loss exactly 0 at the last {n} logs while accuracy stays at most {top:.1%}",
    )


def calibration_end(run: Run, t: Params = Params()) -> int | None:
    """The step at which the scaler's calibration walk-down ended, or None.

    A dynamic loss scaler starts high on purpose (apex and DeepSpeed at 2^16, DeepSpeed
    configs with initial_scale_power 32 at 2^32) and halves at each overflow until the
    gradients fit: a run of halvings from the scale's first point, at the start of
    training (at or before the second logged loss), that stops above the floor and is
    followed by logged losses (3+) with the scale never cut below where it stopped, is
    that calibration - however many halvings it took - not overflow in earnest. A
    walk-down to the floor, one mid-run, or one the log ends in is not one."""
    scale = _series(run, SCALE_KEYS)
    loss = run.get("loss")
    if scale is None or loss is None or len(loss) < 2:
        return None
    f = scale.finite()
    if len(f) < 2 or float(f.steps[0]) > float(loss.steps[1]):
        return None
    down = np.flatnonzero(np.diff(f.values) >= 0)
    j = int(down[0]) if down.size else len(f) - 1  # the last point of the strict walk-down
    end_step, end = float(f.steps[j]), float(f.values[j])
    if j < 1 or end <= scale_floor(run, t):
        return None
    if int((loss.steps > end_step).sum()) < t.calibration_after:
        return None
    if bool((f.values[j + 1 :] < end).any()):
        return None  # cut below it later: judged as a whole, not as a calibration
    return int(end_step)


def walkdown_alone(run: Run, found: list[Symptom], t: Params = Params()) -> bool:
    """The scale's fall is the only symptom, and all the log shows of it is a walk-down
    from where a dynamic scaler starts: every logged scale below the one before (half of
    it, or a power of two under it when the log prints only some of the halvings; none
    regrown), the first at or above the default start's first halving (2^15), and no loss
    logged at all. That is the shape of a scaler calibrating
    at the start (apex, DeepSpeed and torch halve from 2^16 at each overflow until the
    gradients fit) as much as of one collapsing; whether it settled shows only in what
    comes after it (calibration_end needs 3+ losses after the walk-down), and nothing
    comes after it here. A NaN, a skipped-step count, a streak past the start or a loss
    beside it decide instead."""
    if run.get("loss") is not None or [s.what for s in found] != ["loss-scale"]:
        return False
    scale = _series(run, SCALE_KEYS)
    if scale is None:
        return False
    v = scale.finite().values
    if v.size < 3 or float(v[0]) < t.init_scale / 2:
        return False
    k = np.log2(v[:-1] / v[1:])  # halvings between consecutive logs
    return bool(np.all(k >= 1 - 1e-6) and np.allclose(k, np.round(k), atol=1e-6))


def _event_symptoms(
    run: Run, t: Params, span: int, counted: bool, after: int | None = None
) -> list[Symptom]:
    """Console lines: "loss scale already at minimum" by itself; overflow messages
    ("Gradient overflow. Skipping step", DeepSpeed "OVERFLOW! ...") past the
    calibration allowance, unless a skipped-steps counter already said so. `after`:
    the step a calibration walk-down ended at (calibration_end); its messages are the
    scaler calibrating and are not counted."""
    out = []
    floor = next((e for e in run.events if e.kind == "loss-scale-minimum"), None)
    if floor is not None:
        out.append(
            Symptom(
                "loss-scale-minimum", floor.step, f"loss scale at its minimum (line {floor.line})"
            )
        )
    # ESPnet's skipped update on a NaN grad norm is the scaler's overflow under fp16
    over = [e for e in run.events if e.kind in ("fp16-overflow", "skipped-update")]
    if after is not None:
        over = [e for e in over if e.step is None or e.step > after]
    streak = _overflow_streak(run, over, t)
    if streak is not None:
        out.append(streak)
    elif not counted and len(over) > max(t.skipped_min, t.skipped_share * span):
        out.append(
            Symptom(
                "overflow-messages",
                over[t.skipped_min].step,
                f"{len(over)} overflow / skipped-step messages (first at line {over[0].line})",
            )
        )
    return out


def _overflow_streak(run: Run, over: list, t: Params) -> Symptom | None:
    """Overflow messages at 4+ consecutive optimizer steps past the calibration (step
    20+): after calibrating, a scaler overflows once in a while and then runs for its
    scale window; skipping step after step halves it towards its minimum."""
    if run.fact("steps_ordinal"):
        return None  # numbered in order, not by step: consecutive numbers say nothing
    steps = np.array(sorted({int(e.step) for e in over if e.step is not None}))
    steps = steps[steps > t.skipped_min]
    if steps.size < t.overflow_streak:
        return None
    breaks = np.flatnonzero(np.diff(steps) != 1)
    starts = np.r_[0, breaks + 1]
    ends = np.r_[breaks, steps.size - 1]
    k = int(np.argmax(ends - starts))
    n = int(ends[k] - starts[k] + 1)
    if n < t.overflow_streak:
        return None
    a, b = int(steps[starts[k]]), int(steps[ends[k]])
    return Symptom(
        "overflow-streak",
        a,
        f"loss-scale overflow at each of the {n} steps {a}-{b}: no step applied",
    )


def is_fp16(run: Run) -> bool:
    """fp16 by a logged loss scale above 1, else by the config, else by the log when
    the config is silent: a dynamic loss scale or loss-scaler overflow messages exist
    only in fp16 training (Megatron prints a constant "loss scale: 1.0" in bf16: that
    is no scaler)."""
    scale = _series(run, SCALE_KEYS)
    v = scale.finite().values if scale is not None else np.empty(0)
    # A logged scale above 1 is the dynamic scaler of this very run: it outweighs a
    # precision setting read elsewhere (a config beside the log, a quoted --bf16 fix).
    if bool((v > 1.0).any()):
        return True
    precision = run.fact("precision")
    if precision is not None:
        return str(precision).lower() == "fp16"
    # A loss scaler's message ("Gradient overflow", DeepSpeed's "OVERFLOW!", a loss
    # scale); not ESPnet's "grad norm is nan. Skipping updating" (a skipped-update event),
    # printed in fp32 too.
    if any(e.kind in ("loss-scale-minimum", "fp16-overflow") for e in run.events):
        return True
    return bool(v.size) and not (v.size >= 3 and bool(np.all(v == 1.0)))


def scale_floor(run: Run, t: Params) -> float:
    """The loss scale at which the scaler has given up: 1, or 2^12 under its start."""
    init = t.init_scale_fairseq if run.fact("trainer") == "fairseq" else t.init_scale
    return min(t.scale_min, init / t.scale_drop)


def _every_step_skipped(run: Run, t: Params) -> Symptom | None:
    """Every iteration of every logged interval skipped (Megatron's per-log count)."""
    s = _series(run, PER_LOG_SKIP_KEYS)
    if s is None:
        return None
    f = s.finite()
    if len(f) < t.all_skipped_logs:
        return None
    # the first line's interval runs from step 0 to its own step
    interval = np.diff(np.r_[0, f.steps]).astype(np.float64)
    if not bool(np.all((f.values >= interval) & (f.values > 0))):
        return None
    return Symptom(
        "skipped-steps",
        int(f.steps[0]),
        f"every one of the {int(f.steps[-1])} iterations logged was skipped "
        f"({s.name} at each of {len(f)} logs): no optimizer step was applied",
    )
