"""One schedule summary for every rule, preflight and live: the logged LR, its peak,
the warmup and the planned length.

LR series are strided before any scan: the LR is a smooth, deterministic function
of the step, so a few thousand samples resolve any schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Series

# LR series longer than this are strided before any scan: LR is a smooth,
# deterministic function of the step, so 4,000 samples resolve any schedule.
_LR_POINTS = 4000


def lr_values(run: Run) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, values) of the finite logged LR, strided to a few thousand points."""
    s = run.get("lr")
    if s is None:
        return None
    f = s.finite()
    if len(f) == 0:
        return None
    stride = max(1, -(-len(f) // _LR_POINTS))
    st, v = f.steps[::stride], f.values[::stride]
    if stride > 1 and st[-1] != f.steps[-1]:
        st, v = np.r_[st, f.steps[-1]], np.r_[v, f.values[-1]]
    return st.astype(np.float64), v


@dataclass(frozen=True)
class PeakLR:
    value: float
    source: str  # "logged" | "config"
    still_warming: bool  # logged LR still rising at the end: the logged peak is a lower bound


def peak_lr(run: Run) -> PeakLR | None:
    """The run's peak LR: the max of the logged LR, else the configured learning_rate."""
    lr = lr_values(run)
    cfg = run.fact("learning_rate")
    if lr is not None:
        _, v = lr
        peak = float(v.max())
        warming = v.size >= 3 and v[-1] >= 0.999 * peak and v[0] < 0.5 * peak
        max_steps = run.fact("max_steps")
        if warming and max_steps and lr[0][-1] >= 0.98 * float(max_steps):
            warming = False  # a schedule that ends at its peak (constant_with_warmup)
        if warming and cfg:
            return PeakLR(max(float(cfg), peak), "config", True)
        if peak > 0 or cfg is None:
            return PeakLR(peak, "logged", warming)
    if cfg is None:
        return None
    return PeakLR(float(cfg), "config", False)


def total_steps(run: Run) -> int | None:
    ms = run.fact("max_steps")
    if ms:
        return int(ms)
    return run.last_step


def planned_steps(run: Run, whole_epochs: bool = False) -> int | None:
    """The planned length: `max_steps`, else the configured epochs when the steps count
    epochs (a YOLO results.csv stopped early at epoch 55 of 200), else the configured
    epochs at the steps per epoch the log shows (HF's fractional epoch: step 4000 at epoch 0.85 of a 1-epoch
    plan is ~4,700 steps), else the last step. A log that stops short of its plan
    (a model card's last eval row, an excerpt) is not the whole run.

    `whole_epochs`: global steps logged at whole epochs that keep one steps-per-epoch
    (a model card's rows at epochs 4, 8, 12 and steps 500, 1000, 1500) show it as well,
    so a log that stops at epoch 8 of 30 is 8/30 of its plan; an epoch index that floors
    a running count, or steps that restart each epoch, give no one ratio and are not read."""
    last = total_steps(run)
    epochs, e = run.fact("num_train_epochs"), run.get("epoch")
    if run.fact("max_steps") or not last or not epochs or e is None:
        return last
    f = e.finite()
    if len(f) == 0 or f.values[-1] <= 0:
        return last
    if run.fact("steps_epochs") or np.array_equal(f.values, f.steps):
        return max(last, round(float(epochs)))  # the steps count epochs: the plan is E
    # fractional epochs say how far through the plan a step is; an epoch counter beside
    # a step count of its own does not
    if np.all(f.values == np.round(f.values)) and not (whole_epochs and _one_epoch_length(f)):
        return last
    per_epoch = float(f.steps[-1]) / float(f.values[-1])
    return max(last, round(per_epoch * float(epochs)))


def in_last_planned_epoch(run: Run) -> bool:
    """The log reaches the last of its configured epochs: an epoch index from 0 that ends
    at E - 1, or from 1 that ends at E (fairseq-style `max_epoch=3` over "Epoch 000" to
    "Epoch 002"), so its last logged step is about its planned length. Not that the run
    finished (a stall inside the last epoch still ends the log there): not the `ended`
    fact."""
    epochs, e = run.fact("num_train_epochs"), run.get("epoch")
    if not epochs or e is None:
        return False
    f = e.finite().values
    if not f.size or not np.all(f == np.round(f)) or f[0] not in (0, 1):
        return False
    return bool(f[-1] == float(epochs) - 1 + f[0])


def _one_epoch_length(epoch: Series, tol: float = 0.01) -> bool:
    """2+ logs past epoch 0 whose step / epoch agree within `tol`: global steps at whole
    epochs, each epoch the same number of steps."""
    m = epoch.values > 0
    if int(m.sum()) < 2:
        return False
    per = epoch.steps[m] / epoch.values[m]
    return bool(per.max() - per.min() <= tol * per.max())


def reached_peak_lr(run: Run) -> PeakLR | None:
    """The highest LR the run applied: `peak_lr`, except that a configured peak reached
    through a configured warmup longer than the planned run was never applied. A linear
    warmup of W steps gets to T/W of the peak by step T, so a run planned for T < W steps
    trained at most at peak x T/W (a wav2vec2 card at 3e-4 with 500 warmup steps in a
    210-step run never went above 1.26e-4). A logged LR says what was applied itself."""
    pk = peak_lr(run)
    if pk is None or pk.source != "config":
        return pk
    w, total = warmup(run), planned_steps(run)
    if w is None or w.source != "config" or not total or w.steps <= total:
        return pk
    return PeakLR(pk.value * float(total) / w.steps, "config", True)


@dataclass(frozen=True)
class Warmup:
    steps: float
    source: str  # "logged" | "config"
    complete: bool  # False when the logged LR never left its warmup
    # The least it can be: a logged LR seen below its peak at step 0 and at it at step
    # 1000 ramped for anywhere in (0, 1000]; the last step logged below the peak.
    at_least: float | None = None

    @property
    def lower(self) -> float:
        return self.steps if self.at_least is None else self.at_least


# An LR this far below its running top has turned down: a decay, not noise in a ramp.
_TURN_DOWN = 0.1


def warmup(run: Run) -> Warmup | None:
    """Warmup length: steps until the logged LR first reaches ~its peak, else from config."""
    lr = lr_values(run)
    if lr is not None and lr[1].size >= 3 and lr[1].max() > 0:
        st, v = lr
        peak = float(v.max())
        # The warmup is the first ramp: an LR that turns down well below its running top
        # (a decay began) ended its warmup there, even if a later phase climbs higher
        # (mmpose's warmup to 4.2e-4 at iteration 117, a decay, then a ramp to 6.6e-4).
        top = np.maximum.accumulate(v)
        down = np.flatnonzero(v < (1.0 - _TURN_DOWN) * top)
        if down.size and v[0] < 0.98 * top[down[0]]:
            peak = float(top[down[0]])
        if v[0] >= 0.98 * peak:
            # Starts at its peak: no warmup, unless the log starts late (resumed).
            if st[0] <= max(2 * interval(st), 0.01 * st[-1]):
                return Warmup(0.0, "logged", True)
        else:
            i = int(np.argmax(v >= 0.98 * peak))
            start = st[0] - interval(st) if v[0] < 0.5 * peak else 0.0
            # Complete once the LR has stayed at/after its peak for a while (not just
            # touched 98% on the last points of a ramp) or the planned end is reached.
            # An LR that rises at every record from the 98% mark to the last is still
            # ramping: a pasted slice of a linear warmup (mmengine's lr 1.9547e-05 ...
            # 2.0079e-05 over five lines) is within 2% of its last value throughout,
            # yet no record shows the ramp end.
            tail = v[max(i - 1, 0) :]
            still_rising = tail.size >= 3 and bool(np.all(np.diff(tail) > 0))
            complete = (v.size - 1 - i >= max(3, v.size // 20) and not still_rising) or bool(
                run.fact("max_steps") and st[-1] >= 0.98 * run.fact("max_steps")
            )
            before = float(st[i - 1]) if i > 0 else float(st[0])
            low = max(before - max(start, 0.0), 0.0)
            return Warmup(float(st[i] - max(start, 0.0)), "logged", complete, low)
    ws = run.fact("warmup_steps")
    if ws:
        return Warmup(float(ws), "config", True)
    ratio, ms = run.fact("warmup_ratio"), run.fact("max_steps")
    if ratio is not None and ms:
        return Warmup(float(ratio) * float(ms), "config", True)
    if ws == 0 or ratio == 0:
        return Warmup(0.0, "config", True)
    return None


def interval(steps: np.ndarray) -> float:
    return float(np.median(np.diff(steps))) if steps.size > 1 else 1.0


def effective_batch(run: Run) -> int | None:
    """Samples per optimizer step: the fact, else per-device x devices x accumulation."""
    eb = run.fact("effective_batch")
    if eb:
        return int(eb)
    pdb = run.fact("per_device_batch")
    if not pdb or float(pdb) <= 0:
        return None

    def factor(name: str) -> int:
        # Lightning's devices=-1 means "all there are": unknown, so counted as 1
        v = run.fact(name)
        return int(v) if v and float(v) > 0 else 1

    return int(pdb) * factor("devices") * factor("grad_accum")
