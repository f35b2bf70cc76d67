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
