"""loss-spike's hump reading: a paste's largest rise from one log to the next, beyond the
paste's own point-to-point noise, that comes back down."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt, mad
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._spike_largest import largest

if TYPE_CHECKING:
    from traindoc.rules.loss.loss_spike import Params


def _hump(run: Run, f: Series, p: Params) -> Hit | None:
    """A paste's largest rise from one log to the next, `min_rel` over the log it rose
    from and `k_sigma` noise bands beyond the paste's own point-to-point changes (their
    median and MAD: a curve falling smoothly has a narrow band, a noisy per-batch paste
    a wide one), `apart_factor` as far as any other rise, after which the loss took 2+
    logs to fall back to where it jumped from (warning). On a log of `min_points`+ the
    same test runs on the medians of `hump_bins` equal stretches of it (a slow hump over
    many logs, which the rolling level absorbs). A rise off the run's first
    logs is the start's (warmup-too-short's), and one where the logged LR
    jumps `lr_jump` is the schedule's."""
    y, steps = f.values, f.steps
    start = steps[0] <= steps[1] - steps[0]  # the log begins at the run's start
    unit, units = "log", "logs"
    head = max(float(np.median(y[: p.head_points])), float(np.median(y[: max(3, y.size // 20)])))
    learned = head - float(y.min())
    if y.size >= p.min_points:
        if y.size < p.hump_bins * p.hump_bin_points:
            return None  # stretches of fewer logs: the rolling level's multi-point spikes
        m = p.hump_bins
        edges = np.linspace(0, y.size, m + 1).astype(int)
        y = np.array([np.median(y[a:b]) for a, b in itertools.pairwise(edges)])
        steps = np.array([steps[b - 1] for b in edges[1:]])
        unit, units = "stretch", "stretches"
    d = np.diff(y)
    climb = _largest_climb(y, d)
    if climb is None:
        return None
    j, i = climb
    pre, rise, up = float(y[j]), float(y[i] - y[j]), i - j
    rest = np.concatenate([d[:j], d[i:]])  # the log's other changes: its trend and noise
    if rest.size < p.hump_min_changes or not pre > 0 or y[i] < (1 + p.min_rel) * pre:
        return None
    band = mad(rest)
    off = rise - up * float(np.median(rest))  # its departure from the log's own trend
    if off < p.k_sigma * band * math.sqrt(up) or rise < p.apart_factor * max(
        float(rest.max()), 0.0
    ):
        return None
    if not rise >= p.min_learned * learned:
        return None  # a relative blip on a loss solved to ~0
    back = np.flatnonzero(y[i + 1 :] <= pre)
    if not back.size or back[0] < p.hump_held - 1:
        return None  # never back, or back within a log or two: a bad batch, judged above
    if j < p.head_points and start:
        return None  # a log from the run's start: its first logs are the warmup's
    lr = run.get("lr")
    if lr is not None:
        lv = lr.finite()
        before, at = lv.values[lv.steps <= steps[j]], lv.values[lv.steps <= steps[i]]
        if before.size and at.size and before[-1] > 0 and at[-1] >= p.lr_jump * before[-1]:
            return None
    k = i + 1 + int(back[0])
    step, peak = int(steps[i]), float(y[i])
    return Hit(
        title=(
            f"Loss spike at step {step}: {fmt(pre)} -> {fmt(peak)} ({fmt(peak / pre)}x), "
            + (
                f"{fmt(off / band)} noise bands beyond the log's {unit}-to-{unit} changes"
                if band > 0
                else f"beyond every other {unit}-to-{unit} change of the log"
            )
            + f"; back under {fmt(pre)} by step {int(steps[k])}"
        ),
        step=step,
        end_step=int(steps[k]),
        evidence={
            "count": 1,
            **largest(step, peak, pre),
            "spike_steps": [step],
            "noise_band": band,
            "back_step": int(steps[k]),
            "points": int(y.size),
        },
        explanation=(
            f"The loss rose {fmt(peak / pre)}x over {up} {unit if up == 1 else units} of the log, far "
            f"outside the band its other {units} move in, and took {k - i} {units} to get "
            "back to where it jumped from: not one bad batch (that is "
            "gone at the next log) but the model thrown off its path (an LR at the edge of "
            "stability, a run of bad batches, a data-stream change) and repairing it."
        ),
        prescription=(
            "Keep the checkpoint from before the spike; "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=Severity.WARNING,
    )


def _largest_climb(y: np.ndarray, d: np.ndarray) -> tuple[int, int] | None:
    """(start, end) indices of the largest rise over consecutive rising logs (a climb,
    `d` being the log's changes), or None when the log never rises."""
    best: tuple[int, int] | None = None
    a = 0
    while a < d.size:
        if d[a] <= 0:
            a += 1
            continue
        b = a
        while b + 1 < d.size and d[b + 1] > 0:
            b += 1
        if best is None or y[b + 1] - y[a] > y[best[1]] - y[best[0]]:
            best = (a, b + 1)
        a = b + 1
    return best
