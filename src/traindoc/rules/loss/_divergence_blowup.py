"""divergence as a blow-up: a loss that leaves its first logged level by orders of
magnitude, or reaches an astronomical value over the level before it, and whether the
loss ends NaN/Inf."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure import floor as fl
from traindoc.measure.stats import fmt, mad, rolling_median
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._common import starts_mid_run
from traindoc.rules.loss._divergence_short import _lr_at, _steadier_from

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _ends_nonfinite(loss: Series, f: Series) -> bool:
    """The loss is NaN/Inf after its last finite log (and so to the end of the log)."""
    return bool(len(f)) and bool((~np.isfinite(loss.values[loss.steps > f.steps[-1]])).any())


def _early_blowup(
    run: Run,
    p: Params,
    f: Series,
    st: np.ndarray,
    vals: np.ndarray,
    late: float,
    kt: int,
) -> Hit | None:
    """A blow-up measured against the first logged level (no "best" needed)."""
    start = float(np.median(f.values[: p.head_points]))
    if not start > 0:
        return None  # a zero/negative start (degenerate or non-CE loss): no ratio
    sm = rolling_median(vals, p.blowup_window)
    i_peak = int(np.argmax(sm))
    peak = float(sm[i_peak])
    if peak < p.blowup_factor * start:
        return None
    floor = run.floor
    # Noise of the end level from the tail's own batch-to-batch differences (the
    # blow-up itself would inflate a whole-run estimate); the 3-point start is
    # noisier than the tail median, hence the 1/3 term.
    tail = f.values[-kt:]
    sigma = mad(np.diff(tail)) / math.sqrt(2) if tail.size >= 4 else 0.0
    se = 1.2533 * (sigma if math.isfinite(sigma) else 0.0) * math.sqrt(1 / kt + 1 / p.head_points)
    still_up = late >= (1 + p.blowup_rise) * start and late - start >= p.noise_z * se
    on_floor = False
    if floor is not None:
        lo, hi = fl.band(run, floor)
        on_floor = lo <= late <= hi and peak >= p.blowup_factor * floor
    if not (still_up or on_floor):
        return None  # it came back below its start: transient, not divergence
    up = np.flatnonzero(sm[: i_peak + 1] >= (1 + p.blowup_rise) * start)
    onset = int(st[up[0]]) if up.size else int(st[i_peak])
    evidence: dict[str, object] = {
        "start_loss": start,
        "peak_loss": peak,
        "peak_step": int(st[i_peak]),
        "peak_ratio": peak / start,
        "late_loss": late,
        "rise": (late - start) / start,
        "onset_step": onset,
        "ends": "still above its start" if still_up else "on the uniform floor",
    }
    if floor is not None:
        evidence["floor"] = floor
    if (lr := _lr_at(run, onset)) is not None:
        evidence["lr_at_onset"] = lr
    if still_up:
        end = f"is still {fmt(late)} at the end ({(late - start) / start:+.0%} over its start)"
        why = "it never came back to where it started: the updates wrecked the model."
    else:
        end = (
            f"lands on the uniform floor {fl.log_name(run)}({run.vocab_size}) = {fmt(floor or 0.0)} "
            f"({fmt(late)} at the end)"
        )
        why = (
            "it then settled exactly on the uniform floor ln(V): the model was wrecked into "
            "predicting the same distribution for every input (dead units, collapsed "
            "logits), so the flat loss after the blow-up is not convergence."
        )
    return Hit(
        title=(
            f"Loss blows up from {fmt(start)} to {fmt(peak)} ({fmt(peak / start)}x, step "
            f"{int(st[i_peak])}) and {end}"
        ),
        step=onset,
        end_step=int(f.steps[-1]),
        evidence=evidence,
        explanation=(
            f"From step {onset} the training loss climbed to {fmt(peak / start)}x its starting "
            f"level, and {why} That is the signature of steps far too large for the loss "
            "surface (LR too high for the regime, no warmup) or of numerics breaking down."
        ),
        prescription=(
            "Restart from the initial checkpoint (nothing after the blow-up is worth keeping); "
            + advice.join(*advice.steadier(run, "lower the peak LR 3-10x or more"))
            + "."
        ),
        severity=Severity.ERROR,
    )


def _astronomical(run: Run, p: Params, f: Series) -> Hit | None:
    """A finite loss >= `astronomical` after the start (or anywhere in a late window).

    With points before it, it must also be `short_orders` (10x) over their level (the
    median of the last `head_points` before it: a loss that always sat near 1e6 is on
    that scale, not blown up); with points after it, their median must still be
    `blowup_rise` over that level: a 1e14 batch the next log is back from is a spike
    (`loss-spike`'s), however large. The first loss that passes is the blow-up: the
    largest of a run of them (1.7e13, 2.1e13, 2.15e13) stands against its blown-up
    neighbours, not against the level the run blew up from. A run's first log counts
    when it is past step 1 (updates were made before it) and `overflowing` (1e30+, within 8 orders of float32's
    largest): no initialisation gives that, the updates before it overflowed."""
    if not len(f) or run.fact("task") == "regression":
        return None
    if (
        len(f) < p.short_min_points
        and float(f.values.min()) >= p.astronomical
        and starts_mid_run(f)
    ):
        # a 1-2 line paste from mid-run whose every line is 1e6+: judged as a one-line
        # paste is (6e35 -> 7.6e35 is still blown up, not 1.2x over a level); one the
        # next line is back from (3e14 -> 0.25) is a spike
        i = 0
    else:
        i = next(
            (j for j in np.flatnonzero(f.values >= p.astronomical) if _blew_up_at(p, f, int(j))),
            int(np.argmax(f.values)),
        )
    peak = float(f.values[i])
    # a first log past step 1 at float32's edge overflowed after updates: no init's loss
    overflowed = i == 0 and peak >= p.overflowing and int(f.steps[0]) > 1
    if peak < p.astronomical or (i == 0 and not starts_mid_run(f) and not overflowed):
        return None
    if i > 0 and not _blew_up_at(p, f, i):
        return None
    if i == 0 and len(f) > 1 and float(np.median(f.values[1:])) < p.astronomical:
        return None  # a window from mid-run that opens at 3e14 and is back at 0.25: a spike
    step = int(f.steps[i])
    # With no level before it (a window that opens at 1e6+) the value's scale is all the
    # evidence: a summed loss can sit there by design. From `unseen_error` up (or a 10x
    # jump over logged levels) it is an error ...
    # ... or one the loss turns NaN/Inf after, to the end: the blow-up ended the run
    raw = run.get("loss")
    dies = raw is not None and len(raw) > len(f) and _ends_nonfinite(raw, f)
    unseen = i == 0 and not overflowed and peak < p.unseen_error and not dies
    return Hit(
        title=f"Loss reaches {fmt(peak)} at step {step}: the model has blown up",
        step=step,
        end_step=int(f.steps[-1]),
        evidence={"peak_loss": peak, "peak_step": step, "points": len(f)},
        explanation=(
            f"A loss of {fmt(peak)} is beyond any cross-entropy (-log of the smallest float is "
            "~104) and any loss over normalised targets: the weights or activations have grown "
            "without bound, and every update from them is garbage."
        ),
        prescription=_steadier_from(run, f"Restart from a checkpoint before step {step}"),
        severity=Severity.WARNING if unseen else Severity.ERROR,
    )


def _blew_up_at(p: Params, f: Series, i: int) -> bool:
    """The loss at `i` (> 0) is `short_orders` over the level before it (the median of its
    last `head_points`) and the points after it stay `blowup_rise` over that level."""
    if i <= 0:
        return False
    level = float(np.median(f.values[max(0, i - p.head_points) : i]))
    if not float(f.values[i]) >= p.short_orders * level:
        return False
    after = f.values[i + 1 :]
    return not (after.size and float(np.median(after)) < (1 + p.blowup_rise) * level)
