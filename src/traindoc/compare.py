"""Where two runs part: the first step their loss, LR or grad norm separate for good.

Two runs never log identical numbers (data order, non-deterministic kernels,
bf16 rounding), so "the first point that differs" is usually step 1 and tells
nobody anything. A run parts from another where the *smoothed* gap between
them leaves the band that both runs' own step-to-step noise explains, and
stays out: one spike in either run is not a parting, nor is an offset smaller
than the noise or than a small relative tolerance.

Computing only: the reports draw a Comparison, they never compute one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from traindoc.measure.stats import mad, rolling_median
from traindoc.model import Run, Series

SIGNALS = ("loss", "lr", "grad_norm")
# Scale-like signals are compared as ratios (log10), so a 2x LR difference
# counts the same at 1e-6 as at 1e-3.
RATIO_SIGNALS = frozenset({"lr", "grad_norm", "throughput"})


@dataclass(frozen=True)
class Params:
    # Robust sigmas of the smoothed gap: with the persistence below, noise alone
    # essentially never crosses it (4 sigma is ~6e-5 per point for Gaussian noise).
    k: float = 4.0
    # Gaps under 2% of the level are never a parting: bf16 loss is logged with
    # 0.4-0.8% steps, and LR schedules differ by float rounding.
    rel_tol: float = 0.02
    # The gap must stay out for 5% of the compared points (at least min_persist):
    # a spike in one run lasts a few points, a parting lasts.
    persist_frac: float = 0.05
    min_persist: int = 3
    # Centred rolling median of the gap: ~2% of the points, odd, at most 25, so
    # an onset is located within a dozen logged points on long runs.
    window_frac: float = 0.02
    max_window: int = 25


@dataclass(frozen=True)
class Parting:
    """One signal of one run against the reference run.

    `step` is None when the runs agree over their common steps (or cannot be
    compared: `reason` says which). `a` and `b` are the smoothed levels of the
    reference and of the other run at `step`.
    """

    signal: str
    step: int | None
    a: float | None = None
    b: float | None = None
    overlap: tuple[int, int] | None = None
    reason: str = ""

    def to_dict(self) -> dict:
        return {
            "signal": self.signal,
            "step": self.step,
            "a": self.a,
            "b": self.b,
            "overlap": list(self.overlap) if self.overlap else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Comparison:
    reference: str
    other: str
    partings: tuple[Parting, ...]

    @property
    def first(self) -> Parting | None:
        """The earliest parting over all signals (ties: loss before LR before grad norm)."""
        parted = [p for p in self.partings if p.step is not None]
        return min(parted, key=lambda p: p.step) if parted else None  # type: ignore[arg-type, return-value]

    def to_dict(self) -> dict:
        first = self.first
        return {
            "reference": self.reference,
            "other": self.other,
            "first_step": first.step if first else None,
            "first_signal": first.signal if first else None,
            "signals": [p.to_dict() for p in self.partings],
        }


# The settings an experiment tracker puts first when runs differ: what sets
# the LR curve, the batch, the numerics and the length, in that order.
CONFIG_KEYS = (
    "learning_rate",
    "lr_scheduler",
    "warmup_steps",
    "warmup_ratio",
    "per_device_batch",
    "grad_accum",
    "devices",
    "effective_batch",
    "precision",
    "max_steps",
    "num_train_epochs",
    "max_grad_norm",
    "regime",
    "base_model",
    "dataset",
)


@dataclass(frozen=True)
class ConfigRow:
    """One setting across the runs (None where a run does not record it)."""

    key: str
    values: tuple[object, ...]
    differs: bool

    def to_dict(self) -> dict:
        return {"key": self.key, "values": list(self.values), "differs": self.differs}


def config_diff(runs: Sequence[Run], keys: Sequence[str] = CONFIG_KEYS) -> tuple[ConfigRow, ...]:
    """The runs' settings side by side, those that differ first (then in `keys` order).

    A setting no run records is left out; one that only some runs record
    differs (the reader cannot tell it is the same).
    """
    rows = []
    for k in keys:
        vals = tuple(_plain(r.fact(k)) for r in runs)
        if all(v is None for v in vals):
            continue
        rows.append(ConfigRow(k, vals, len({repr(v) for v in vals}) > 1))
    return tuple(sorted(rows, key=lambda r: not r.differs))


def _plain(v: object) -> object:
    if isinstance(v, float) and v.is_integer() and abs(v) >= 1:
        return int(v)
    return v


def compare_runs(
    runs: Sequence[Run], signals: Sequence[str] = SIGNALS, params: Params | None = None
) -> tuple[Comparison, ...]:
    """Every run after the first against the first (the reference)."""
    p = params or Params()
    ref = runs[0]
    out = []
    for other in runs[1:]:
        partings = []
        for sig in signals:
            a, b = ref.get(sig), other.get(sig)
            if a is None or b is None:
                who = " and ".join(r.name for r, s in ((ref, a), (other, b)) if s is None)
                partings.append(Parting(sig, None, reason=f"not logged by {who}"))
            else:
                partings.append(first_parting(a, b, sig, p))
        out.append(Comparison(ref.name, other.name, tuple(partings)))
    return tuple(out)


@dataclass(frozen=True)
class RunComparison:
    """What `traindoc compare` reports: the runs, where each parts from the first, and
    their settings side by side. `command` names it for report.render."""

    runs: tuple[Run, ...]
    comparisons: tuple[Comparison, ...]
    config: tuple[ConfigRow, ...]
    command: str = "compare"

    @classmethod
    def of(cls, runs: Sequence[Run]) -> RunComparison:
        return cls(tuple(runs), compare_runs(runs), config_diff(runs))


def first_parting(a: Series, b: Series, signal: str, params: Params | None = None) -> Parting:
    """The first step from which `b` stays apart from `a`, beyond noise and tolerance."""
    p = params or Params()
    nonfinite = _nonfinite_parting(a, b, signal, p)
    fa, fb = a.finite(), b.finite()
    if len(fa) < 2 or len(fb) < 2:
        return nonfinite or Parting(signal, None, reason="fewer than 2 finite points")
    lo, hi = int(max(fa.steps[0], fb.steps[0])), int(min(fa.steps[-1], fb.steps[-1]))
    if hi <= lo:
        return nonfinite or Parting(signal, None, reason="no common steps")
    # Compare on the sparser run's steps; the denser one is interpolated there.
    ga = fa.steps[(fa.steps >= lo) & (fa.steps <= hi)]
    gb = fb.steps[(fb.steps >= lo) & (fb.steps <= hi)]
    grid = ga if ga.size <= gb.size else gb
    ratio = signal in RATIO_SIGNALS and fa.values.min() >= 0 and fb.values.min() >= 0
    va = np.interp(grid, fa.steps, fa.values)
    vb = np.interp(grid, fb.steps, fb.values)
    if ratio:
        pos = np.r_[va[va > 0], vb[vb > 0]]
        tiny = 1e-6 * float(np.median(pos)) if pos.size else 1e-30
        va, vb = np.log10(np.maximum(va, tiny)), np.log10(np.maximum(vb, tiny))
    n = grid.size
    w = int(min(p.max_window, max(1, round(n * p.window_frac)))) | 1
    ma, mb = rolling_median(va, w), rolling_median(vb, w)
    gap = ma - mb
    sigma = math.hypot(_noise(va), _noise(vb))
    band = p.k * sigma * 1.2533 / math.sqrt(w)  # the standard error of a median of w
    if ratio:
        tol = np.full(n, math.log10(1 + p.rel_tol))
    else:
        tol = p.rel_tol * np.maximum(np.abs(ma), np.abs(mb))
    out = np.abs(gap) > np.maximum(band, tol)
    need = max(p.min_persist, math.ceil(p.persist_frac * n))
    i = _first_lasting(out, need, p.min_persist)
    overlap = (lo, hi)
    if i is None:
        if nonfinite:
            return nonfinite
        return Parting(signal, None, overlap=overlap, reason="within noise over the common steps")
    i = _refine(va - vb, i, w)
    step = int(grid[i])
    if nonfinite and nonfinite.step is not None and nonfinite.step <= step:
        return nonfinite
    back = (lambda x: float(10**x)) if ratio else float
    av, bv = back(ma[i]), back(mb[i])
    return Parting(
        signal,
        step,
        av,
        bv,
        overlap,
        f"{_g(av)} vs {_g(bv)} from step {step}, for {_run_len(out, i)} of {n} compared points",
    )


def _refine(raw: np.ndarray, i: int, w: int) -> int:
    """Place the onset at the best two-level split of the raw gap within a window of i.

    A centred median switches up to w/2 points before a step change; a local
    L1 changepoint fit puts it back on the step.
    """
    if w < 3 or i == 0:  # apart from the first compared point: nothing to refine
        return i
    lo, hi = max(0, i - w), min(raw.size, i + w + 1)
    x = raw[lo:hi]
    best, best_cost = i, math.inf
    for j in range(max(1, i - w // 2 - lo), min(x.size - 1, i + w // 2 - lo) + 1):
        left, right = x[:j], x[j:]
        cost = np.abs(left - np.median(left)).sum() + np.abs(right - np.median(right)).sum()
        if cost < best_cost:
            best, best_cost = lo + j, cost
    return best


def _noise(v: np.ndarray) -> float:
    """Point-to-point noise sigma: MAD of first differences (a steady slope cancels)."""
    if v.size < 3:
        return 0.0
    s = mad(np.diff(v)) / math.sqrt(2)
    return s if math.isfinite(s) else 0.0


def _first_lasting(out: np.ndarray, need: int, min_tail: int) -> int | None:
    """Start of the first run of True at least `need` long, or reaching the end (>= min_tail)."""
    if not out.any():
        return None
    edges = np.flatnonzero(np.diff(np.r_[0, out.astype(np.int8), 0]))
    starts, ends = edges[::2], edges[1::2]
    for s, e in zip(starts, ends, strict=True):
        if e - s >= need or (e == out.size and e - s >= min_tail):
            return int(s)
    return None


def _run_len(out: np.ndarray, i: int) -> int:
    rest = np.flatnonzero(~out[i:])
    return int(rest[0]) if rest.size else int(out.size - i)


def _nonfinite_parting(a: Series, b: Series, signal: str, p: Params) -> Parting | None:
    """One run turns NaN/Inf for good (min_persist logged points) while the other is finite."""
    sa, sb = _nonfinite_from(a, p.min_persist), _nonfinite_from(b, p.min_persist)
    if sa == sb:
        return None
    first, who = (sa, "reference") if sb is None or (sa is not None and sa < sb) else (sb, "other")
    other = b if who == "reference" else a
    if first is None or other.steps[-1] < first:
        return None
    return Parting(signal, int(first), reason=f"the {who} run is non-finite from step {first}")


def _nonfinite_from(s: Series, need: int) -> int | None:
    bad = ~np.isfinite(s.values)
    i = _first_lasting(bad, need, need)
    return int(s.steps[i]) if i is not None else None


def _g(x: float) -> str:
    return f"{x:.3e}" if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5) else f"{x:.4g}"
