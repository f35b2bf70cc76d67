"""LR-sweep siblings: runs read together that differ in their peak LR, compared at one budget.

A folder of runs (lr_1e-4/, lr_3e-3/ ...) or a paste of several is often a learning-rate
sweep. An expert reads it arm against arm: at the same step, how far is each arm's loss
from the best arm's, and on which side of the best LR does it sit. This module measures
that; the rate rules decide what is too far.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np

from traindoc.measure.schedule import peak_lr
from traindoc.model import Fact, Run, Series

# A sweep is 3+ arms at 3+ distinct LRs: with two arms the worse one could sit on either
# side of an optimum neither of them reached.
MIN_ARMS = 3
# The budget every arm is read at: the shortest arm's last step among arms that ran at
# least this share of the longest (an arm stopped early because it diverged is judged by
# its own curve, not allowed to cut the others' budget to a few dozen steps).
MIN_SHARE = 0.5
# An eval loss counts at the budget when logged within its last fifth; a train loss is
# the median over the budget's last tenth (batch noise does not decide).
EVAL_WITHIN = 0.2
TRAIN_TAIL = 0.1


def lr_siblings(runs: list[Run]) -> list[Run]:
    """The runs, each arm of an LR sweep among them with the fact `lr_sweep`.

    Arms are grouped by optimizer and regime (an optimizer sweep's SGD arms are not
    AdamW's siblings); a group is a sweep when it holds 3+ runs with 3+ distinct peak
    LRs. Each arm's value is its eval loss at the common budget (the train loss when any
    arm lacks one); the fact holds the arm's LR and value, the best arm's, and the gap.
    """
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    lrs: dict[int, float] = {}
    for i, r in enumerate(runs):
        pk = peak_lr(r)
        if pk is None or pk.value <= 0 or r.is_rl:
            continue
        lrs[i] = pk.value
        groups[(str(r.fact("optim", "")).lower(), str(r.regime or ""))].append(i)
    out = list(runs)
    for members in groups.values():
        if len(members) < MIN_ARMS or len({lrs[i] for i in members}) < MIN_ARMS:
            continue
        values = _at_budget([runs[i] for i in members])
        if values is None:
            continue
        name, step, vals = values
        scored = [(i, v) for i, v in zip(members, vals, strict=True) if v is not None]
        if len(scored) < MIN_ARMS:
            continue
        best_i, best_v = min(scored, key=lambda iv: iv[1])
        if best_v <= 0:
            continue
        for i, v in scored:
            value = {
                "lr": lrs[i],
                "value": v,
                "series": name,
                "step": step,
                "best_lr": lrs[best_i],
                "best_value": best_v,
                "best_run": runs[best_i].name,
                "gap": (v - best_v) / best_v,
                "arms": len(scored),
            }
            src = f"{len(scored)} runs read together at LRs {sorted({lrs[j] for j, _ in scored})}"
            r = out[i]
            out[i] = replace(r, facts={**r.facts, "lr_sweep": Fact(value, src)})
    return out


def _at_budget(arms: list[Run]) -> tuple[str, int, list[float | None]] | None:
    """(series, budget step, each arm's value there, None where it has none)."""
    name = "eval_loss"
    series = [_finite(r, name) for r in arms]
    if sum(s is not None and len(s) >= 2 for s in series) < MIN_ARMS:
        name = "loss"
        series = [_finite(r, name) for r in arms]
    ends = [float(s.steps[-1]) for s in series if s is not None and len(s)]
    if len(ends) < MIN_ARMS:
        return None
    longest = max(ends)
    if longest <= 0:
        return None
    budget = min(e for e in ends if e >= MIN_SHARE * longest)
    vals = [_value(s, budget, name) if s is not None else None for s in series]
    return name, int(budget), vals


def _finite(run: Run, name: str) -> Series | None:
    s = run.get(name)
    f = s.finite() if s is not None else None
    return f if f is not None and len(f) else None


def _value(s: Series, budget: float, name: str) -> float | None:
    t, v = s.steps.astype(float), s.values
    if name == "eval_loss":
        keep = (t <= budget) & (t >= (1 - EVAL_WITHIN) * budget)
        return float(v[keep][-1]) if keep.any() else None
    keep = (t <= budget) & (t > (1 - TRAIN_TAIL) * budget)
    return float(np.median(v[keep])) if keep.sum() >= 3 else None
