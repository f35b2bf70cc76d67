"""The HTML report's plots: aligned SVG panels on one step axis, and the findings lanes."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

from traindoc.model import Finding, Run, Series, Severity
from traindoc.report import _svg
from traindoc.report._svg import Line, Mark, Ref, XScale, num

SEV_COLOR = {Severity.ERROR: "#d62728", Severity.WARNING: "#d18b00", Severity.INFO: "#1f8fc8"}
COLOR = {"loss": "#1f5fa8", "eval_loss": "#e8730c", "grad_norm": "#2a9d3c", "lr": "#7b4bb7"}
COLOR["throughput"] = "#8c564b"
# No red among run colours: red is the floor and the error severity.
RUN_COLORS = ("#1f5fa8", "#e8730c", "#2a9d3c", "#7b4bb7", "#17a2b8", "#8c564b", "#555555")
# (panel, title, plot height in px of the 940-wide viewBox)
PANELS = (
    ("loss", "Loss: train and eval", 230),
    ("grad_norm", "Gradient norm (pre-clip)", 130),
    ("lr", "Learning rate", 110),
    ("throughput", "Throughput", 100),
)


def mark_end(f: Finding) -> float | None:
    return float(f.end_step) if f.end_step is not None else None


def xscale(runs: Sequence[Run], extra: list[float]) -> XScale:
    steps = [float(s.steps[i]) for r in runs for s in r.series.values() if len(s) for i in (0, -1)]
    steps += [e for e in extra if e]
    return XScale(min(steps), max(steps)) if steps else XScale(0.0, 1.0)


def _throughput(run: Run) -> tuple[Series | None, str]:
    s = run.get("throughput")
    if s is not None:
        return s, "throughput"
    loss = run.get("loss")
    if loss is None or loss.times is None or len(loss) < 3:
        return None, ""
    dt, ds = np.diff(loss.times), np.diff(loss.steps)
    ok = dt > 0
    rate = Series.from_arrays("throughput", loss.steps[1:][ok], ds[ok] / dt[ok])
    return rate, "steps/s (from log times)"


def panels(
    runs: Sequence[Run], x: XScale, marks: list[Mark], *, single: bool
) -> tuple[str, dict[str, Any]]:
    html, data = [], {"x0": x.x0, "x1": x.x1, "w": _svg.W, "l": _svg.LEFT, "pw": _svg.PW}
    data["panels"] = {}
    for pi, (name, title, h) in enumerate(PANELS):
        lines: list[Line] = []
        refs: list[Ref] = []
        unit = ""
        for ri, run in enumerate(runs):
            color = (lambda sig: COLOR[sig]) if single else (lambda _s, ri=ri: run_color(ri))
            who = "" if single else f"{run.name}: "
            if name == "throughput":
                s, unit = _throughput(run)
                if s is not None:
                    lines.append(Line(f"{who}{unit}", s, color("throughput")))
                continue
            s = run.get(name)
            if s is not None:
                lines.append(
                    Line(f"{who}{'train loss' if name == 'loss' else name}", s, color(name))
                )
            if name == "loss":
                ev = run.get("eval_loss")
                if ev is not None:
                    lines.append(Line(f"{who}eval loss", ev, color("eval_loss"), dash=True))
                if run.floor and all(abs(r.value - run.floor) > 1e-9 for r in refs):
                    label = f"uniform floor ln(V) = {run.floor:.4g} (V = {run.vocab_size:,})"
                    refs.append(Ref(run.floor, label, "#d62728"))
            if name == "grad_norm":
                c = run.fact("max_grad_norm")
                if c and all(abs(r.value - c) > 1e-12 for r in refs):
                    refs.append(Ref(float(c), f"max_grad_norm = {num(float(c))}", "#555"))
        is_last = pi == len(PANELS) - 1
        if not lines:
            html.append(
                f'<div class="panel empty" data-panel="{name}"><div class="ph">'
                f'<span class="pt">{escape(title)}</span><span class="na">not logged</span>'
                "</div></div>"
            )
            continue
        svg = _svg.panel(name, lines, refs, marks, x, h, x_labels=True)
        can_log = _svg.loggable(lines, refs)
        # Log by default only where the spread hides the shape: grad norms and
        # losses spanning decades. LR schedules read best linear.
        log_default = can_log and name in ("loss", "grad_norm") and _span(lines, refs) > 30
        legend = "".join(
            f'<span class="key">{swatch(ln.color, ln.dash)}{escape(ln.label)}</span>'
            for ln in lines
        )
        toggle = (
            f'<label class="logt"><input type="checkbox" data-p="{name}"'
            f"{' checked' if log_default else ''}{'' if can_log else ' disabled'}> log</label>"
        )
        html.append(
            f'<div class="panel{" logscale" if log_default else ""}" data-panel="{name}">'
            f'<div class="ph"><span class="pt">{escape(title)}</span>{legend}'
            f'<span class="readout"></span>{toggle}</div>{svg}'
            + ('<div class="xlabel">step</div>' if is_last else "")
            + "</div>"
        )
        data["panels"][name] = [
            {"label": ln.label, **_svg.hover_columns(ln.series, x)} for ln in lines
        ]
    return "".join(html), data


def swatch(color: str, dash: bool = False) -> str:
    d = ' stroke-dasharray="4 2"' if dash else ""
    return (
        f'<svg class="sw" viewBox="0 0 18 6"><line x1="0" y1="3" x2="18" y2="3" '
        f'stroke="{color}" stroke-width="3"{d}/></svg>'
    )


def run_color(i: int) -> str:
    return RUN_COLORS[i % len(RUN_COLORS)]


def _span(lines: Sequence[Line], refs: Sequence[Ref]) -> float:
    v = np.concatenate([ln.series.finite().values for ln in lines] + [[r.value for r in refs]])
    v = v[v > 0]
    return float(v.max() / v.min()) if v.size else 1.0


def lanes(findings: Sequence[Finding], x: XScale) -> str:
    """One lane per finding above the panels: its span shaded, its number and title."""
    rows = [(i, f) for i, f in enumerate(findings, 1)]
    if not rows:
        return ""
    lh = 20
    h = lh * len(rows) + 6
    out = [f'<svg class="lanes" viewBox="0 0 {_svg.W} {h}" role="img" aria-label="findings">']
    for k, (i, f) in enumerate(rows):
        y = 3 + k * lh
        color = SEV_COLOR[f.severity]
        label = f"{i}  {f.title}"
        if f.step is None:
            a, b, anchor, tx = _svg.LEFT, _svg.LEFT, "start", _svg.LEFT + 4
            label += "  (not tied to a step)"
        else:
            a = float(x(f.step))
            b = float(x(f.end_step if f.end_step is not None else f.step))
            right = a > _svg.LEFT + 0.6 * _svg.PW
            anchor, tx = ("end", a - 6) if right else ("start", a + 6)
        room = int(((tx - _svg.LEFT) if anchor == "end" else (_svg.W - 4 - tx)) / 7.0)
        short = label if len(label) <= room else label[: max(room - 1, 8)] + "…"
        bar = (
            f'<rect class="lane-bar" x="{a:.1f}" y="{y}" width="{max(b - a, 3):.1f}" '
            f'height="{lh - 4}" fill="{color}"/><rect x="{a:.1f}" y="{y}" width="3" '
            f'height="{lh - 4}" fill="{color}"/>'
            if f.step is not None
            else ""
        )
        out.append(
            f'<g class="finding-mark f{i}" data-f="f{i}" data-rule="{escape(f.rule)}" '
            f'data-id="{escape(f.id)}"><title>{escape(f"{i}. {f.title} [{f.id}]")}</title>{bar}'
            f'<text class="lane-text" x="{tx:.1f}" y="{y + 12}" text-anchor="{anchor}">'
            f"{escape(short)}</text></g>"
        )
    out.append("</svg>")
    return '<div class="panel lanes-wrap"><div class="ph"><span class="pt">Findings</span>' + (
        '<span class="na">onset to end, root causes first; hover one to shade it below</span>'
        f"</div>{''.join(out)}</div>"
    )
