"""A one-line picture of the loss curve with the uniform floor, for terminals."""

from __future__ import annotations

import numpy as np

from traindoc.model import Series

BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(s: Series, width: int = 60, floor: float | None = None) -> tuple[str, list[bool]]:
    """Cells (median per bin) and, per cell, whether it sits on the floor (±1%)."""
    f = s.finite()
    if len(f) == 0:
        return "", []
    chunks = np.array_split(f.values, min(width, len(f)))
    med = np.array([np.median(c) for c in chunks])
    lo = min(float(med.min()), floor) if floor else float(med.min())
    hi = float(med.max())
    span = hi - lo or 1.0
    idx = np.clip(((med - lo) / span * (len(BLOCKS) - 1)).round().astype(int), 0, len(BLOCKS) - 1)
    on_floor = [bool(floor and abs(v - floor) <= 0.01 * floor) for v in med]
    return "".join(BLOCKS[i] for i in idx), on_floor


def shared_sparklines(
    series: list[Series | None], width: int = 40, floors: list[float | None] | None = None
) -> tuple[list[tuple[str, list[bool]]], tuple[float, float, float, float] | None]:
    """One sparkline per series on one shared axis, as trackers overlay runs; and the
    axis: (lowest, highest) bin median and (first, last) step.

    The same y-scale (lowest to highest bin median over all runs, floors
    included) and the same x-range (the first to the last step of any run,
    in equal step bins): a run that stopped early ends early, and a lower
    loss is a lower block. A bin with no logged point is a space.
    """
    floors = floors or [None] * len(series)
    fin = [s.finite() if s is not None else None for s in series]
    have = [f for f in fin if f is not None and len(f)]
    if not have:
        return [("", []) for _ in series], None
    x0 = min(float(f.steps[0]) for f in have)
    x1 = max(float(f.steps[-1]) for f in have)
    edges = np.linspace(x0, x1, width + 1)
    meds: list[np.ndarray | None] = []
    for f in fin:
        if f is None or len(f) == 0:
            meds.append(None)
            continue
        b = np.clip(np.searchsorted(edges, f.steps, side="right") - 1, 0, width - 1)
        m = np.full(width, np.nan)
        for i in np.unique(b):
            m[i] = np.median(f.values[b == i])
        meds.append(m)
    vals = np.concatenate([m[np.isfinite(m)] for m in meds if m is not None])
    lo = min([float(vals.min()), *[fl for fl in floors if fl]])
    hi = float(vals.max())
    span = hi - lo or 1.0
    out = []
    for m, fl in zip(meds, floors, strict=True):
        if m is None:
            out.append(("", []))
            continue
        cells, on = [], []
        for v in m:
            if not np.isfinite(v):
                cells.append(" ")
                on.append(False)
                continue
            i = int(np.clip(round((v - lo) / span * (len(BLOCKS) - 1)), 0, len(BLOCKS) - 1))
            cells.append(BLOCKS[i])
            on.append(bool(fl and abs(v - fl) <= 0.01 * fl))
        out.append(("".join(cells), on))
    return out, (lo, hi, x0, x1)
