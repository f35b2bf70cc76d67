"""A self-contained HTML report: the four signals on one step axis, findings beside them.

One file, no network: the SVG is written here, the few lines of JavaScript
(hover readouts, log toggles, finding highlight) and the CSS are inlined, and
a Content-Security-Policy that allows only those two blocks (by hash) forbids
any fetch at view time. Every string that comes from a run (names, titles,
evidence, log lines) goes through html.escape; data for the script is JSON
with <, > and & escaped, read by the script as text and written only with
textContent. Renders, never diagnoses.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import numpy as np

from traindoc import __version__
from traindoc.engine import Diagnosis
from traindoc.model import Finding, Run, Series, Severity
from traindoc.model.checkpoint import CheckpointSummary
from traindoc.report import _svg
from traindoc.report._live import live_line
from traindoc.report._svg import Line, Mark, Ref, XScale, num
from traindoc.report.markdown import CONFIG_FACTS

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


def render(d: Diagnosis) -> str:
    """The diagnose report: one run, its findings marked on every panel."""
    run = d.run
    spans = [f for f in d.findings if f.step is not None]
    x = _xscale([run], [float(f.step) for f in spans] + [float(f.end_step or 0) for f in spans])
    num_of = {f.rule: i for i, f in enumerate(d.findings, 1)}
    marks = [
        Mark(f"f{num_of[f.rule]}", float(f.step), _end(f), SEV_COLOR[f.severity])  # type: ignore[arg-type]
        for f in spans
    ]
    plots, data = _panels([run], x, marks, single=True)
    lanes = _lanes(d.findings, x)
    side = _findings_html(d, num_of)
    below = _checkpoints_html(run, d.findings) + _data_html(d) + _facts_html(run) + _misc_html(d)
    badge = f'<span class="verdict v-{escape(d.verdict)}">{escape(d.verdict.upper())}</span>'
    steps = f" · {run.last_step} steps" if run.last_step is not None else ""
    head = f"<h1>{badge} {escape(run.name)}<small>{escape(steps)}</small></h1>" + _keyfacts(run)
    return _page(f"traindoc: {run.name}", head, lanes + plots, side, below, data)


def render_compare(runs: Sequence[Run], comparisons: Sequence[Any]) -> str:
    """Runs overlaid (the first is the reference) and where each parts from it."""
    parts = [(i, c, p) for i, c in enumerate(comparisons, 1) for p in c.partings if p.step]
    x = _xscale(runs, [float(p.step) for _, _, p in parts])
    marks = [
        Mark(f"p{i}", float(p.step), None, RUN_COLORS[i % len(RUN_COLORS)], "parting")
        for i, _, p in parts
    ]
    plots, data = _panels(runs, x, marks, single=False)
    legend = "".join(
        f'<span class="key">{_swatch(_run_color(i))}{escape(r.name)}</span>'
        for i, r in enumerate(runs)
    )
    head = f"<h1>Comparing {len(runs)} runs</h1><div class='facts'>{legend}</div>"
    rows = []
    for i, c in enumerate(comparisons, 1):
        first = c.first
        verdict = (
            f"parts at step <b>{first.step}</b> ({escape(first.signal)})"
            if first
            else "does not part from it"
        )
        rows.append(
            f'<div class="card parting-card" data-f="p{i}"><h3>{escape(c.other)} vs '
            f"{escape(c.reference)}: {verdict}</h3><table class='kv'>"
            + "".join(
                f"<tr><th>{escape(p.signal)}</th><td>"
                + (f"step {p.step}: " if p.step is not None else "")
                + f"{escape(p.reason)}</td></tr>"
                for p in c.partings
            )
            + "</table></div>"
        )
    side = "<h2>Where they part</h2>" + "".join(rows)
    return _page("traindoc: compare", head, plots, side, "", data)


def _end(f: Finding) -> float | None:
    return float(f.end_step) if f.end_step is not None else None


def _xscale(runs: Sequence[Run], extra: list[float]) -> XScale:
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


def _panels(
    runs: Sequence[Run], x: XScale, marks: list[Mark], *, single: bool
) -> tuple[str, dict[str, Any]]:
    html, data = [], {"x0": x.x0, "x1": x.x1, "w": _svg.W, "l": _svg.LEFT, "pw": _svg.PW}
    data["panels"] = {}
    for pi, (name, title, h) in enumerate(PANELS):
        lines: list[Line] = []
        refs: list[Ref] = []
        unit = ""
        for ri, run in enumerate(runs):
            color = (lambda sig: COLOR[sig]) if single else (lambda _s, ri=ri: _run_color(ri))
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
            f'<span class="key">{_swatch(ln.color, ln.dash)}{escape(ln.label)}</span>'
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


def _swatch(color: str, dash: bool = False) -> str:
    d = ' stroke-dasharray="4 2"' if dash else ""
    return (
        f'<svg class="sw" viewBox="0 0 18 6"><line x1="0" y1="3" x2="18" y2="3" '
        f'stroke="{color}" stroke-width="3"{d}/></svg>'
    )


def _run_color(i: int) -> str:
    return RUN_COLORS[i % len(RUN_COLORS)]


def _span(lines: Sequence[Line], refs: Sequence[Ref]) -> float:
    v = np.concatenate([ln.series.finite().values for ln in lines] + [[r.value for r in refs]])
    v = v[v > 0]
    return float(v.max() / v.min()) if v.size else 1.0


def _lanes(findings: Sequence[Finding], x: XScale) -> str:
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
            f'<g class="finding-mark f{i}" data-f="f{i}" data-rule="{escape(f.rule)}">'
            f"<title>{escape(f'{i}. {f.title} [{f.rule}]')}</title>{bar}"
            f'<text class="lane-text" x="{tx:.1f}" y="{y + 12}" text-anchor="{anchor}">'
            f"{escape(short)}</text></g>"
        )
    out.append("</svg>")
    return '<div class="panel lanes-wrap"><div class="ph"><span class="pt">Findings</span>' + (
        '<span class="na">onset to end, root causes first; hover one to shade it below</span>'
        f"</div>{''.join(out)}</div>"
    )


def _findings_html(d: Diagnosis, num_of: Mapping[str, int]) -> str:
    if not d.findings:
        return '<h2>Findings</h2><p class="ok">No problems found.</p>'
    roots = [f for f in d.findings if not f.caused_by]
    effects = [f for f in d.findings if f.caused_by]
    out = ["<h2>Root causes</h2>" if effects else "<h2>Findings</h2>"]
    out += [_card(f, num_of) for f in roots]
    if effects:
        out.append("<h2>Consequences</h2>")
        out += [_card(f, num_of) for f in effects]
    return "".join(out)


def _card(f: Finding, num_of: Mapping[str, int]) -> str:
    i = num_of[f.rule]
    where = ""
    if f.step is not None:
        where = f"step {f.step}" if f.end_step in (None, f.step) else f"steps {f.step}–{f.end_step}"
    causes = ", ".join(f"#{num_of[c]} {c}" if c in num_of else c for c in f.caused_by)
    meta = " · ".join(x for x in (where, f"caused by {causes}" if causes else "") if x)
    ev = "".join(
        f"<tr><th>{escape(str(k))}</th><td>{escape(_value(v))}</td></tr>"
        for k, v in f.evidence.items()
    )
    return (
        f'<div class="card sev-{f.severity}" data-f="f{i}" data-rule="{escape(f.rule)}">'
        f'<h3><span class="n">{i}</span><span class="sev">{escape(str(f.severity).upper())}'
        f"</span> {escape(f.title)}</h3>"
        f'<div class="meta">{escape(f.rule)}{" · " + escape(meta) if meta else ""}</div>'
        + (f'<p class="live">{escape(live)}</p>' if (live := live_line(f)) else "")
        + (f"<p><b>Why.</b> {escape(f.explanation)}</p>" if f.explanation else "")
        + (f'<p class="do"><b>Do.</b> {escape(f.prescription)}</p>' if f.prescription else "")
        + (
            f'<details><summary>evidence</summary><table class="kv">{ev}</table></details>'
            if ev
            else ""
        )
        + "</div>"
    )


def _value(v: Any) -> str:
    if isinstance(v, float | np.floating):
        return num(float(v))
    if isinstance(v, list | tuple):
        items = [_value(x) for x in v[:8]]
        return ", ".join(items) + (f" … (+{len(v) - 8})" if len(v) > 8 else "")
    if isinstance(v, Mapping):
        return ", ".join(f"{k}: {_value(x)}" for k, x in v.items())
    return str(v)


def _flagged(findings: Sequence[Finding]) -> set[tuple[Any, str]]:
    out = set()
    for f in findings:
        names = f.evidence.get("tensors") or f.evidence.get("tensor") or []
        names = [names] if isinstance(names, str) else [n for n in names if isinstance(n, str)]
        out |= {(f.evidence.get("checkpoint"), n) for n in names}
    return out


def _checkpoints_html(run: Run, findings: Sequence[Finding]) -> str:
    cks = [c for c in run.checkpoints if isinstance(c, CheckpointSummary)]
    if not cks:
        return ""
    flagged = _flagged(findings)
    out = ["<section><h2>Checkpoints</h2>"]
    for c in cks:
        bad_names = {t.name for t in c.tensors if (c.name, t.name) in flagged or t.nonfinite}
        best = f" · labelled best by {c.labelled_best}" if c.labelled_best else ""
        step = f" · step {c.step}" if c.step is not None else ""
        out.append(
            f"<h3>{escape(c.name)} <small>{escape(c.format)}{escape(step)} · "
            f"{len(c.tensors)} tensors · {c.nbytes / 1e6:.1f} MB{escape(best)}</small></h3>"
        )
        roles: dict[str, list] = {}
        for t in c.tensors:
            roles.setdefault(t.role, []).append(t)
        rows = []
        for role, ts in roles.items():
            read = [t for t in ts if t.read and math.isfinite(t.std)]
            top = max(read, key=lambda t: t.std, default=None)
            med = float(np.median([t.std for t in read])) if read else math.nan
            bad = any(t.name in bad_names for t in ts)
            rows.append(
                f"<tr{' class=bad' if bad else ''}><td>{escape(role)}</td><td>{len(ts)}</td>"
                f"<td>{_n(med)}</td><td>{_n(top.std) if top else ''}</td>"
                f"<td class=name>{escape(top.name) if top else ''}</td>"
                f"<td>{sum(t.nonfinite for t in ts) or ''}</td></tr>"
            )
        out.append(
            "<table class='grid'><tr><th>role</th><th>tensors</th><th>median std</th>"
            f"<th>max std</th><th>largest</th><th>non-finite</th></tr>{''.join(rows)}</table>"
        )
        groups = "".join(
            f"<tr{' class=bad' if any(n in bad_names for n in g.tensors) else ''}>"
            f"<td>{escape(g.role)}</td><td>{'' if g.layer is None else g.layer}</td>"
            f"<td>{len(g.tensors)}</td><td>{_n(g.rms)}</td><td>{_n(g.max_std)}</td>"
            f"<td>{g.nonfinite or ''}</td></tr>"
            for g in c.groups()
        )
        out.append(
            "<details><summary>per role and layer</summary><table class='grid'><tr><th>role</th>"
            "<th>layer</th><th>tensors</th><th>rms</th><th>max std</th><th>non-finite</th></tr>"
            f"{groups}</table></details>"
        )
        out += [f'<p class="note">{escape(n)}</p>' for n in c.notes]
    out.append("</section>")
    return "".join(out)


def _n(x: float) -> str:
    return "" if x is None or not math.isfinite(x) else escape(num(x))


def _data_html(d: Diagnosis) -> str:
    """The data audit's summary, when a data check filled one (a flat mapping)."""
    audit = d.extra.get("data_audit") or _audit_facts(d.run.data)
    if not isinstance(audit, Mapping) or not audit:
        return ""
    rows = "".join(
        f"<tr><th>{escape(str(k))}</th><td>{escape(_value(v))}</td></tr>" for k, v in audit.items()
    )
    return f"<section><h2>Data audit</h2><table class='kv'>{rows}</table></section>"


def _audit_facts(s: Any) -> dict[str, Any]:
    """The headline numbers of a DataSummary (Run.data), for the data table."""
    if s is None:
        return {}
    rows = max(getattr(s, "rows", 0), 1)
    out: dict[str, Any] = {"files": ", ".join(s.paths), "schema": s.schema, "rows": s.rows}
    for key in ("empty", "duplicates", "near_duplicates", "conflicts"):
        n = getattr(s, key)
        out[key.replace("_", " ")] = f"{n} ({n / rows:.1%})"
    if s.eval_rows:
        out["eval rows leaked from train"] = f"{s.leaked} of {s.eval_rows}"
    if s.labels:
        out["labels"] = ", ".join(f"{k}={v}" for k, v in s.labels.items())
    out["code share"] = f"{s.code_share:.1%}"
    return out


def _keyfacts(run: Run) -> str:
    keys = ("regime", "vocab_size", "learning_rate", "lr_scheduler", "effective_batch")
    keys += ("precision", "max_grad_norm")
    items = [
        f"<span><b>{escape(k)}</b> {escape(_value(run.fact(k)))}</span>"
        for k in keys
        if run.fact(k) is not None
    ]
    return f'<div class="facts">{"".join(items)}</div>' if items else ""


def _facts_html(run: Run) -> str:
    rows = [
        f"<tr><th>{escape(k)}</th><td>{escape(_value(run.fact(k)))}</td>"
        f"<td class='src'>{escape(run.facts[k].source)}</td></tr>"
        for k in CONFIG_FACTS
        if run.fact(k) is not None
    ]
    versions = run.fact("versions") or {}
    if isinstance(versions, Mapping) and versions:
        text = ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))
        rows.append(f"<tr><th>versions</th><td colspan=2>{escape(text)}</td></tr>")
    if not rows:
        return ""
    return f"<section><h2>Config</h2><table class='kv'>{''.join(rows)}</table></section>"


def _misc_html(d: Diagnosis) -> str:
    out = []
    if d.errors:
        out.append(
            "<section><h2>Internal errors</h2>"
            + "".join(f'<p class="err">{escape(e)}</p>' for e in d.errors)
            + "</section>"
        )
    notes = "".join(f"<li>{escape(str(n))}</li>" for n in d.run.notes)
    if notes:
        out.append(f"<section><h2>Reader notes</h2><ul class='notes'>{notes}</ul></section>")
    skipped = "".join(
        f"<tr><th>{escape(s.rule)}</th><td>{escape(s.reason)}</td></tr>" for s in d.skipped
    )
    inputs = "".join(
        f"<li>{escape(i.path)} <small>{escape(i.kind)}</small></li>" for i in d.run.inputs
    )
    out.append(
        f"<section><details><summary>Inputs and skipped rules ({len(d.skipped)})</summary>"
        f"<ul class='notes'>{inputs}</ul><table class='kv'>{skipped}</table></details></section>"
    )
    return "".join(out)


def _json_for_script(data: Any) -> str:
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _page(title: str, head: str, plots: str, side: str, below: str, data: Any) -> str:
    css = CSS
    csp = (
        f"default-src 'none'; style-src {_sha(css)}; script-src {_sha(SCRIPT)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{css}</style></head><body>"
        f'<header>{head}</header><div id="js-error" class="err" hidden></div>'
        f'<main><div class="plots">{plots}</div><aside>{side}</aside>'
        f'<div class="below">{below}</div></main>'
        f"<footer>traindoc {escape(__version__)} · self-contained report, nothing is fetched"
        "</footer>"
        f'<script type="application/json" id="td-data">{_json_for_script(data)}</script>'
        f"<script>{SCRIPT}</script></body></html>"
    )


CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{padding:14px 22px 8px;background:#fff;border-bottom:1px solid #dde1e6}
h1{font-size:22px;margin:0 0 6px}h1 small{font-weight:400;color:#667;font-size:15px;margin-left:6px}
h2{font-size:16px;margin:14px 0 8px}h3{font-size:14px;margin:0 0 4px}
.verdict{color:#fff;padding:2px 10px;border-radius:4px;font-size:15px;vertical-align:2px}
.v-broken{background:#c62828}.v-suspect{background:#d18b00}.v-healthy{background:#2e7d32}
.facts{display:flex;flex-wrap:wrap;gap:4px 16px;color:#445;font-size:13px}
main{display:grid;grid-template-columns:minmax(0,940px) minmax(300px,1fr);grid-template-rows:auto 1fr;
grid-template-areas:'plots side' 'below side';gap:0 18px;padding:14px 22px;align-items:start}
.plots{grid-area:plots}aside{grid-area:side}.below{grid-area:below}
@media (max-width:1100px){main{grid-template-columns:1fr;grid-template-areas:'plots' 'side' 'below'}}
.panel{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin-bottom:8px;padding:4px 6px 2px}
.panel.empty{padding:6px}.na{color:#889;font-size:12px;margin-left:8px}
.ph{display:flex;align-items:center;gap:12px;font-size:13px;min-height:22px}
.pt{font-weight:600}.readout{margin-left:auto;color:#333;font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden}
.key{display:inline-flex;align-items:center;gap:4px;color:#444}svg.sw{display:inline-block;width:18px;height:6px}
.panel.logscale g.lin,.panel:not(.logscale) g.log{display:none}
.logt{color:#555;cursor:pointer;white-space:nowrap}
svg{display:block;width:100%;height:auto;overflow:visible}
.bg{fill:#fcfcfd;stroke:#d5d9de}.grid{stroke:#eceef1;stroke-width:1}
.tick{font-size:11px;fill:#667}.xlabel{text-align:center;color:#667;font-size:12px}
.series{fill:none;stroke-width:1.7;stroke-linejoin:round}
.ref{stroke-width:1.6;stroke-dasharray:7 4}.reflabel{font-size:12px;font-weight:600}
.vlabel{font-size:11.5px;font-weight:600}
.nonfinite{fill:#d62728}
.band{opacity:0}.band.on{opacity:.14}.onset{stroke-width:1;stroke-dasharray:2 3;opacity:.55}
.parting{stroke-width:1.6;stroke-dasharray:5 3}.parting.on{stroke-width:3.5}
.xhair{stroke:#333;stroke-width:.8;opacity:0;pointer-events:none}
.lane-bar{opacity:.22}.lane-text{font-size:12px;fill:#1b1f24;font-weight:600}
.finding-mark{cursor:default}.finding-mark.on .lane-bar{opacity:.45}
aside h2:first-child{margin-top:0}
aside .card{background:#fff;border:1px solid #dde1e6;border-left:5px solid #999;border-radius:6px;padding:8px 10px;margin-bottom:8px}
.card.sev-error{border-left-color:#d62728}.card.sev-warning{border-left-color:#d18b00}.card.sev-info{border-left-color:#1f8fc8}
.card.on{box-shadow:0 0 0 2px #9ab}
.card .n{display:inline-block;min-width:18px;text-align:center;background:#333;color:#fff;border-radius:9px;font-size:12px;margin-right:6px}
.card .sev{font-size:11px;color:#666;margin-right:4px}.card p{margin:4px 0}.meta{color:#667;font-size:12px}
.do{color:#1b5e20}
.live{color:#8a5a00}
table{border-collapse:collapse;font-size:12.5px}.kv th{text-align:left;padding:1px 10px 1px 0;color:#445;font-weight:500;vertical-align:top}
.kv td{padding:1px 0;word-break:break-word}.kv td.src{color:#889;padding-left:14px}
table.grid td,table.grid th{border-bottom:1px solid #eceef1;padding:2px 10px;text-align:right}
table.grid td:first-child,table.grid th:first-child,table.grid td.name{text-align:left}
tr.bad td{background:#fde7e7;color:#b71c1c;font-weight:600}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:0 0 10px;padding:4px 14px 10px;overflow-x:auto}
.err{color:#b71c1c;background:#fde7e7;padding:8px 22px}.note,.notes{color:#556;font-size:12.5px}
.ok{color:#2e7d32}footer{color:#889;font-size:12px;padding:6px 22px 20px}
"""

SCRIPT = """
(function(){
var err=document.getElementById('js-error');
function fail(e){err.hidden=false;err.textContent='report script error: '+e;document.body.dataset.ok='0';}
window.addEventListener('error',function(e){fail(e.message);});
try{
var D=JSON.parse(document.getElementById('td-data').textContent);
function fmt(v){var a=Math.abs(v);if(v!==0&&(a<1e-3||a>=1e5))return v.toExponential(2);return String(+v.toPrecision(4));}
function near(xs,s){var lo=0,hi=xs.length-1;if(hi<0)return -1;while(lo<hi){var m=(lo+hi)>>1;if(xs[m]<s)lo=m+1;else hi=m;}
if(lo>0&&Math.abs(xs[lo-1]-s)<=Math.abs(xs[lo]-s))lo--;return lo;}
var panels=[].slice.call(document.querySelectorAll('.panel[data-panel]'));
function show(step){var vx=D.l+(step-D.x0)/(D.x1-D.x0)*D.pw;
panels.forEach(function(p){var h=p.querySelector('.xhair');if(h){h.setAttribute('x1',vx);h.setAttribute('x2',vx);h.style.opacity=step===null?0:1;}
var r=p.querySelector('.readout'),S=D.panels[p.dataset.panel];if(!r||!S)return;
if(step===null){r.textContent='';return;}
var parts=[];S.forEach(function(s){var i=near(s.x,step);if(i<0)return;var t=s.label+' '+fmt(s.v[i]);
if(s.lo[i]!==s.hi[i])t+=' ['+fmt(s.lo[i])+'..'+fmt(s.hi[i])+']';parts.push(t);});
r.textContent='step '+Math.round(step)+' \\u00b7 '+parts.join(' \\u00b7 ');});}
panels.forEach(function(p){var svg=p.querySelector('svg.plot');if(!svg)return;
svg.addEventListener('mousemove',function(e){var b=svg.getBoundingClientRect();var vx=(e.clientX-b.left)/b.width*D.w;
var s=D.x0+(vx-D.l)/D.pw*(D.x1-D.x0);show(Math.max(D.x0,Math.min(D.x1,s)));});
svg.addEventListener('mouseleave',function(){show(null);});});
[].forEach.call(document.querySelectorAll('.logt input'),function(c){c.addEventListener('change',function(){
var p=c.closest('.panel');p.classList.toggle('logscale',c.checked);});});
function hl(k,on){[].forEach.call(document.querySelectorAll('.'+k+',[data-f="'+k+'"]'),function(e){e.classList.toggle('on',on);});}
[].forEach.call(document.querySelectorAll('[data-f]'),function(e){var k=e.dataset.f;
e.addEventListener('mouseenter',function(){hl(k,true);});e.addEventListener('mouseleave',function(){hl(k,false);});});
document.body.dataset.ok='1';
if(location.hash==='#selftest'){show((D.x0+D.x1)/2);var r=document.querySelector('.readout');
document.body.dataset.readout=r?r.textContent:'';var c=document.querySelector('.logt input:not([disabled])');
if(c)c.click();document.body.dataset.selftest=c&&c.closest('.panel').classList.contains('logscale')===c.checked?'1':'0';}
}catch(e){fail(e);}
})();
"""
