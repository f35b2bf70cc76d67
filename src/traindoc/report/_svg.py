"""Hand-written SVG panels for the HTML report: scales, ticks, min/max envelopes.

Long series are reduced for *drawing* only, per pixel column, to the first,
lowest, highest and last point (M4): the polyline then looks exactly like the
full one at that width, so a one-step spike stays visible. The diagnosis never
sees the reduced points. Every string that reaches the SVG goes through
html.escape here; numbers are formatted by this module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from traindoc.model import Series

# viewBox geometry shared by every panel, so all panels share the step axis.
W, LEFT, RIGHT, TOP, BOTTOM = 940, 64, 84, 10, 24
PW = W - LEFT - RIGHT


@dataclass(frozen=True)
class Line:
    label: str
    series: Series
    color: str
    dash: bool = False


@dataclass(frozen=True)
class Ref:
    """A horizontal reference: the ln(V) floor, max_grad_norm."""

    value: float
    label: str
    color: str


@dataclass(frozen=True)
class Mark:
    """A step span drawn across a panel: a finding (onset to end) or a parting."""

    key: str  # css class tying the mark to its card ("f1", "p2")
    step: float
    end: float | None
    color: str
    kind: str = "band"  # band: shaded on hover, dashed onset line; parting: solid line


def num(v: float) -> str:
    """Tick and value labels: short, scientific when tiny or huge."""
    if not math.isfinite(v):
        return str(v)
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        m, e = f"{v:.2e}".split("e")
        m = m.rstrip("0").rstrip(".")
        return f"{m}e{int(e)}"
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def step_label(v: float) -> str:
    """Step ticks: 25k, 1.5M rather than 2.5e+04."""
    if abs(v) >= 1e6:
        return f"{v / 1e6:.4g}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.4g}k"
    return f"{v:.0f}"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    span = hi - lo
    raw = span / n
    if not (math.isfinite(span) and raw > 0):  # inf, NaN, or a span that underflows
        return [lo]
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step) + 1)]


def log_ticks(lo: float, hi: float, most: int = 8) -> list[float]:
    """Decades (every k-th when many); with 2 and 5 too when few, so labels never crowd.
    Limits beyond [1e-300, 1e300] (0, a denormal, inf) are taken at those bounds."""
    lo, hi = min(max(lo, _TINY), _HUGE), min(max(hi, _TINY), _HUGE)
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if 3 * (b - a) <= most else (1,)
    every = max(1, math.ceil((b - a + 1) / max(most, 2)))
    ticks = [m * 10.0**e for e in range(a, b + 1, every) for m in mults]
    return [t for t in ticks if lo <= t <= hi]


_HUGE, _TINY = 1e300, 1e-300  # axis limits: padding and ticks stay finite inside them


class XScale:
    def __init__(self, x0: float, x1: float) -> None:
        self.x0, self.x1 = x0, (x1 if x1 > x0 else x0 + 1)

    def __call__(self, x: np.ndarray | float) -> np.ndarray | float:
        return LEFT + (np.asarray(x, dtype=float) - self.x0) / (self.x1 - self.x0) * PW


class YScale:
    def __init__(self, values: Sequence[float], h: float, log: bool) -> None:
        v = np.asarray([x for x in values if math.isfinite(x) and (x > 0 or not log)], float)
        # 1e308, 5e-324: drawn at the edge of what the axis can span without overflow
        v = np.clip(v, *((_TINY, _HUGE) if log else (-_HUGE, _HUGE)))
        lo, hi = (float(v.min()), float(v.max())) if v.size else (float(log), 1.0 + 9 * log)
        if log:
            lo, hi = math.log10(lo), math.log10(hi)
        if hi - lo < 1e-12 * max(abs(hi), 1.0) or (log and hi - lo < 0.3):
            mid = (lo + hi) / 2  # a constant: a readable band around it
            half = 0.3 if log else (abs(mid) * 0.5 or 1.0)
            lo, hi = mid - half, mid + half
        pad = (hi - lo) * 0.06
        self.lo, self.hi, self.log, self.h = lo - pad, hi + pad, log, h

    def __call__(self, y: np.ndarray | float) -> np.ndarray | float:
        y = np.asarray(y, dtype=float)
        if self.log:
            y = np.log10(np.maximum(y, 1e-300))
        return TOP + (self.hi - y) / (self.hi - self.lo) * self.h

    def ticks(self) -> list[float]:
        if self.log:
            lo, hi = max(self.lo, -300), min(self.hi, 300)  # the axis, padded, in decades
            return log_ticks(10**lo, 10**hi, max(2, int(self.h // 18)))
        return nice_ticks(self.lo, self.hi, max(3, int(self.h // 40)))


def reduce(s: Series, x: XScale) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(steps, values) to draw, path-break flags, and non-finite steps.

    Per pixel column keep first, min, max and last of the finite points; break
    the path only across a logged non-finite value, not across a logging gap.
    """
    ok = np.isfinite(s.values)
    st, v = s.steps[ok].astype(float), s.values[ok]
    bad = s.steps[~ok].astype(float)
    if st.size > 2 * PW:
        col = np.clip(((st - x.x0) / (x.x1 - x.x0) * PW).astype(np.int64), 0, PW)
        starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
        ends = np.r_[starts[1:], st.size] - 1
        order = np.lexsort((v, col))  # within a column: ascending value
        keep = np.unique(np.r_[starts, ends, order[starts], order[ends]])
        st, v = st[keep], v[keep]
    brk = np.zeros(st.size, bool)
    if bad.size and st.size > 1:
        brk[1:] = np.searchsorted(bad, st[1:]) > np.searchsorted(bad, st[:-1])
    return st, v, brk, bad


def hover_columns(s: Series, x: XScale) -> dict[str, list]:
    """Per pixel column: last step, last value, min, max (what the hover readout shows)."""
    f = s.finite()
    st, v = f.steps.astype(float), f.values
    if st.size == 0:
        return {"x": [], "v": [], "lo": [], "hi": []}
    col = np.clip(((st - x.x0) / (x.x1 - x.x0) * PW).astype(np.int64), 0, PW)
    starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
    ends = np.r_[starts[1:], st.size] - 1
    return {
        "x": [int(a) for a in st[ends]],
        "v": [float(f"{a:.5g}") for a in v[ends]],
        "lo": [float(f"{a:.5g}") for a in np.minimum.reduceat(v, starts)],
        "hi": [float(f"{a:.5g}") for a in np.maximum.reduceat(v, starts)],
    }


def path(xs: np.ndarray, ys: np.ndarray, brk: np.ndarray) -> str:
    parts = []
    for i, (a, b) in enumerate(zip(xs, ys, strict=True)):
        parts.append(f"{'M' if i == 0 or brk[i] else 'L'}{a:.1f} {b:.1f}")
    return "".join(parts)


def loggable(lines: Sequence[Line], refs: Sequence[Ref]) -> bool:
    vals = [ln.series.finite().values for ln in lines]
    return bool(vals) and all(v.size == 0 or v.min() > 0 for v in vals)


def panel(
    name: str,
    lines: Sequence[Line],
    refs: Sequence[Ref],
    marks: Sequence[Mark],
    x: XScale,
    h: int,
    *,
    x_labels: bool = True,
) -> str:
    """One panel: grid, marks, a linear and (when positive) a log group, crosshair."""
    height = TOP + h + BOTTOM
    out = [
        f'<svg class="plot" data-panel="{escape(name)}" viewBox="0 0 {W} {height}" '
        f'role="img" aria-label="{escape(name)}">',
        f'<rect class="bg" x="{LEFT}" y="{TOP}" width="{PW}" height="{h}"/>',
    ]
    for t in nice_ticks(x.x0, x.x1, 8):
        px = x(t)
        out.append(f'<line class="grid" x1="{px:.1f}" x2="{px:.1f}" y1="{TOP}" y2="{TOP + h}"/>')
        if x_labels:
            out.append(
                f'<text class="tick" x="{px:.1f}" y="{TOP + h + 15}" text-anchor="middle">'
                f"{escape(step_label(t))}</text>"
            )
    out.append(marks_svg(marks, x, TOP, h))
    groups = [False, True] if loggable(lines, refs) else [False]
    for log in groups:
        out.append(_scaled(lines, refs, x, h, log))
    for ln in lines:
        _, _, _, bad = reduce(ln.series, x)
        for b in np.unique(np.round(x(bad))):
            out.append(
                f'<path class="nonfinite" d="M{b:.1f} {TOP}l-4 -0l4 9l4 -9z">'
                f"<title>{escape(ln.label)}: NaN/Inf</title></path>"
            )
    out.append(f'<line class="xhair" x1="0" x2="0" y1="{TOP}" y2="{TOP + h}"/>')
    out.append("</svg>")
    return "".join(out)


def marks_svg(marks: Sequence[Mark], x: XScale, top: float, h: float) -> str:
    out = []
    for m in marks:
        a = float(x(m.step))
        b = float(x(m.end if m.end is not None else m.step))
        cls = escape(m.key)
        if m.kind == "parting":
            out.append(
                f'<line class="parting {cls}" x1="{a:.1f}" x2="{a:.1f}" y1="{top}" '
                f'y2="{top + h}" stroke="{m.color}"/>'
            )
            continue
        out.append(
            f'<rect class="band {cls}" x="{a - 1:.1f}" y="{top}" width="{max(b - a, 0) + 2:.1f}" '
            f'height="{h}" fill="{m.color}"/>'
            f'<line class="onset {cls}" x1="{a:.1f}" x2="{a:.1f}" y1="{top}" y2="{top + h}" '
            f'stroke="{m.color}"/>'
        )
    return f'<g class="marks">{"".join(out)}</g>'


def _scaled(lines: Sequence[Line], refs: Sequence[Ref], x: XScale, h: int, log: bool) -> str:
    vals: list[float] = [r.value for r in refs]
    for ln in lines:
        f = ln.series.finite().values
        if f.size:
            vals += [float(f.min()), float(f.max())]
    y = YScale(vals, h, log)
    out = [f'<g class="{"log" if log else "lin"}">']
    for t in y.ticks():
        py = float(y(t))
        if TOP - 0.5 <= py <= TOP + h + 0.5:
            out.append(
                f'<line class="grid" x1="{LEFT}" x2="{LEFT + PW}" y1="{py:.1f}" y2="{py:.1f}"/>'
                f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">'
                f"{escape(num(t))}</text>"
            )
    for r in refs:
        if log and r.value <= 0:
            continue
        py = float(y(r.value))
        out.append(
            f'<line class="ref" x1="{LEFT}" x2="{LEFT + PW}" y1="{py:.1f}" y2="{py:.1f}" '
            f'stroke="{r.color}"/><text class="reflabel" x="{LEFT + 6}" y="{py - 5:.1f}" '
            f'fill="{r.color}">{escape(r.label)}</text>'
        )
    ends: list[tuple[float, str, str]] = []
    for ln in lines:
        st, v, brk, _ = reduce(ln.series, x)
        if not st.size:
            continue
        xs, ys = np.asarray(x(st)), np.asarray(y(v))
        dash = ' stroke-dasharray="6 3"' if ln.dash else ""
        out.append(
            f'<path class="series" d="{path(xs, ys, brk)}" stroke="{ln.color}"{dash}>'
            f"<title>{escape(ln.label)}</title></path>"
        )
        if st.size <= 60:  # sparse (eval): show the logged points
            out += [
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.6" fill="{ln.color}"/>'
                for a, b in zip(xs, ys, strict=True)
            ]
        ends.append((float(ys[-1]), num(float(v[-1])), ln.color))
        if ln is lines[0]:
            out.append(
                f'<text class="vlabel" x="{xs[0] + 5:.1f}" y="{min(ys[0] + 12, TOP + h - 2):.1f}" '
                f'fill="{ln.color}">{escape(num(float(v[0])))}</text>'
            )
    last = -1e9
    for py, label, color in sorted(ends):  # end labels, pushed apart so none overlap
        py = max(py, last + 12)
        last = py
        out.append(
            f'<text class="vlabel" x="{LEFT + PW + 5}" y="{py + 4:.1f}" fill="{color}">'
            f"{escape(label)}</text>"
        )
    out.append("</g>")
    return "".join(out)
