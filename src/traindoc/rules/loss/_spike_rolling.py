"""loss-spike's rolling-level reading of a logged loss: points far above the curve's rolling
level that come back, less those something else explains (a loss term switched on, an
LR jump, an eval the spike never marked, the tail of a solved curve). It hands short
pastes to the short-log readings."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.spikes import Spike, baseline, highest_ordinary, loss_spikes, recurring
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules import advice
from traindoc.rules.api import Hit
from traindoc.rules.loss._spike_short import _grad_led, _short, _tiny

if TYPE_CHECKING:
    from traindoc.rules.loss.loss_spike import Params


# Words of a logged series name that make it no term of the training total: a
# held-out loss (val/cls_loss, logged from the first eval on), or the total itself
# aggregated or scaled (loss_avg, train_loss_epoch, loss_scale).
_NOT_A_TERM = frozenset(
    "eval val valid validation test avg average mean epoch step best scale running "
    "smooth ema lr".split()
)


# Words that name the total itself (train_loss) rather than a component of it.
_TOTAL = frozenset(("loss", "train", "training", "total"))


def _check(run: Run, p: Params, huge: bool = False) -> Iterator[Hit]:
    """The rolling-level, short-paste and grad-led tests (see `check`); with `huge`,
    the rolling level of a curve past its heavy-tail share keeps its lone 10x points
    (one logged point, back at the level at the next log)."""
    loss = run.get("loss")
    assert loss is not None
    if run.is_rl:
        return
    f = loss.finite()
    y = f.values
    n = y.size
    if n < p.min_points:
        if (hit := _grad_led(run, f, p)) is not None:
            yield hit
        elif n >= p.short_min_points:
            yield from _short(run, f, p)
        elif n >= p.tiny_min_points:
            yield from _tiny(run, f, p)
        return
    warm = run.fact("warmup_steps")
    skip_until = f.steps[0] + warm if warm else f.steps[min(n - 1, int(p.skip_fraction * n))]
    events = loss_spikes(
        f,
        window=p.window,
        k_sigma=p.k_sigma,
        min_rel=p.min_rel,
        side=p.side,
        max_len=1 if huge else p.max_len,
        min_learned=p.min_learned,
        skip_until=skip_until,
        max_share=p.max_share,
        max_events=p.max_events,
        return_share=0.0 if huge else p.return_share,
        huge=p.tiny_factor if huge else 0.0,
        few=p.several,
        few_apart=p.apart_factor,
    )
    # a total loss that jumps where a loss term first comes on is the term, and one
    # that jumps where the LR jumps up is the schedule restarting: neither is a spike
    onsets = _term_onsets(run, f)
    lr = run.get("lr")
    lrf = lr.finite() if lr is not None else None
    events = [
        e
        for e in events or ()
        if not _at_onset(e, f, onsets) and not (lrf is not None and _lr_jumped(e, f, lrf, p))
    ]
    if not events:
        return
    top = events[0]
    rel, step, peak, ref = top.rel, top.step, top.peak, top.ref
    count = len(events)
    # only spikes that stand apart from the log's own noise tail make a warning
    apart = [e for e in events if e.apart >= p.apart_factor]
    frequent = len(apart) >= p.several and len(apart) >= p.several_per_point * n
    # a lone point no higher than 2x the highest other logged batch past the warmup
    # is the tail of this log's own batch noise (a per-step loss of small batches)
    big = [
        e
        for e in apart
        if (e.rel >= p.huge_rel or _undoes_learning(e, p))
        and not e.lone(p.huge_single_rel, p.huge_single_learned)
    ]
    huge = any(e.length > 1 for e in big) or not all(
        _in_tail(f, [e.index for e in big if e.length == 1], skip_until, p)
    )
    severity = Severity.WARNING if frequent or huge else Severity.INFO
    steps = sorted(e.step for e in events)
    unseen = severity is Severity.WARNING and _eval_unmarked(run, steps, p)
    # spikes that keep a timetable are the log's epoch structure, not overshoots
    period = recurring(np.asarray(steps), float(np.median(np.diff(f.steps))), min_count=p.recur_min)
    if unseen or period is not None:
        severity = Severity.INFO
    evidence: dict[str, object] = {
        "count": count,
        "largest_step": step,
        "largest_value": peak,
        "largest_baseline": ref,
        "largest_rel": rel,
        "spike_steps": steps[:20],
        "apart": len(apart),
        # the smallest spike's rise over the log's largest ordinary rise (None: no
        # ordinary point rises above the level)
        "least_apart": least if math.isfinite(least := min(e.apart for e in events)) else None,
    }
    if period is not None:
        evidence["period"] = period
    gn = run.get("grad_norm")
    if gn is not None:
        g = gn.finite()
        near = g.values[np.abs(g.steps - step) <= max(1, int(np.median(np.diff(f.steps))))]
        if near.size and len(g) > 4:
            evidence["grad_norm_at_largest"] = float(near.max())
            evidence["grad_norm_median"] = float(np.median(g.values))
    yield Hit(
        title=(
            f"{count} loss spike{'s' if count > 1 else ''} that recovered; largest at step "
            f"{step}: {fmt(ref)} -> {fmt(peak)} ({rel:+.0%})"
        ),
        step=steps[0],
        end_step=steps[-1],
        evidence=evidence,
        explanation=(
            "The loss jumped well above its local level and came back. Each spike is a "
            "step where the optimizer overshot: a bad batch, an LR at the edge of "
            "stability, or fp16 overflow. Repeated or large spikes tend to precede "
            "divergence."
            + (
                " Here the eval loss was no higher after each spike than before it and ended "
                "at its lowest: the spikes left no lasting damage."
                if unseen
                else ""
            )
            + (
                f" Here they recur every {fmt(period)} steps, like clockwork: that is the "
                "log's epoch structure (the first batches of each epoch, a running mean "
                "that restarts, the same hard samples at the same place in an unshuffled "
                "order), not the optimizer overshooting at random."
                if period is not None
                else ""
            )
        ),
        prescription=(
            "If spikes repeat or are large: "
            + advice.join(
                *advice.steadier(run, "lower the peak LR 2-3x"),
                f"inspect the batches around step {step}",
            )
            + "."
        ),
        severity=severity,
    )


def _eval_unmarked(run: Run, steps: list[int], p: Params) -> bool:
    """The eval loss never rose across a spike: the eval after each spike is no higher
    (within `eval_tol`) than the eval before it, over `eval_min_points`+ evals, and the
    last eval is within `eval_tol` of the lowest."""
    ev = run.get("eval_loss")
    if ev is None:
        return False
    e = ev.finite()
    if len(e) < p.eval_min_points:
        return False
    es, ey = e.steps, e.values
    low = float(ey.min())
    if float(ey[-1]) > low + p.eval_tol * abs(low):
        return False
    for st in steps:
        i = int(np.searchsorted(es, st, side="right"))  # first eval after the spike
        if i == 0 or i >= es.size:
            return False
        if float(ey[i]) > float(ey[i - 1]) + p.eval_tol * abs(float(ey[i - 1])):
            return False
    return True


def _term_onsets(run: Run, f: Series) -> np.ndarray:
    """Steps where a logged loss term (`loss_cls`, `train/kl_loss`: a component of the
    total, not a held-out loss such as `val/cls_loss` nor the total aggregated, such as
    `loss_avg`) first turns nonzero after the total's first log: an auxiliary,
    distillation or adversarial term switched on at a scheduled step."""
    out = []
    for name, s in run.series.items():
        words = set(re.split(r"[/._\s-]+", name.lower()))
        if "loss" not in words or words & _NOT_A_TERM or not words - _TOTAL:
            continue
        g = s.finite()
        on = g.steps[g.values != 0]
        if on.size and on[0] > f.steps[0]:
            out.append(on[0])
    return np.asarray(out, dtype=np.float64)


def _at_onset(e: Spike, f: Series, onsets: np.ndarray) -> bool:
    """The spike's rise starts where a loss term comes on (from the logged point
    before its first high point to its peak)."""
    lo = f.steps[max(0, e.index - e.length)]
    return bool(np.any((onsets >= lo) & (onsets <= e.step)))


def _lr_jumped(e: Spike, f: Series, lr: Series, p: Params) -> bool:
    """The logged LR rose `lr_jump`x or more within the spike's rise (from the logged
    point before its first high point to its peak) over its last value before it."""
    lo = f.steps[max(0, e.index - e.length)]
    a = int(np.searchsorted(lr.steps, lo, side="left"))
    b = int(np.searchsorted(lr.steps, e.step, side="right"))
    if a == 0 or b <= a or not lr.values[a - 1] > 0:
        return False
    return float(lr.values[a:b].max()) >= p.lr_jump * float(lr.values[a - 1])


def _undoes_learning(e: Spike, p: Params) -> bool:
    """The spike rose half of what the run learned, and the run learned a quarter of
    the level it rose from or more (its rise over that level, `rel`, is then at least
    `learned_floor` x its share of what was learned)."""
    return e.learned >= p.huge_learned and e.learned * p.learned_floor <= e.rel


def _in_tail(f: Series, lone: list[int], skip_until: float, p: Params) -> np.ndarray:
    """For each lone point (its index) of a long log: under `huge_single_tail` (2x) the
    highest ordinary point past the warmup (`measure.spikes.highest_ordinary`, the
    level each point's rolling median), the top of the log's own batch noise."""
    a = int(np.searchsorted(f.steps, skip_until, side="right"))
    idx = np.asarray(lone, dtype=np.int64)
    if idx.size == 0:
        return np.ones(0, bool)
    other = highest_ordinary(
        f.values[a:],
        baseline(f.values, p.window)[a:],
        np.maximum(idx - a, 0),
        factor=p.spike_sized,
        few=p.several - 1,
    )
    # spike candidates start past the warmup; a point before it has no tail to be in
    return np.asarray((idx >= a) & (f.values[idx] < p.huge_single_tail * other))
