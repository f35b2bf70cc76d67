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
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from traindoc import __version__
from traindoc.model import Run
from traindoc.model.diagnosis import Diagnosis
from traindoc.report import _html_cards as cards
from traindoc.report import _html_panels as charts
from traindoc.report._html_assets import CSS, SCRIPT
from traindoc.report._svg import Mark

if TYPE_CHECKING:
    from traindoc.compare import RunComparison
    from traindoc.report.render import Report


def report(r: Report) -> str:
    """The HTML page of a command's result: its first run (diagnose, data, preflight)."""
    from traindoc.outcome import InputError

    if not r.runs:
        raise InputError("no run could be read: " + "; ".join(u.error for u in r.unreadable))
    return render(r.runs[0])


def comparison(c: RunComparison) -> str:
    """`traindoc compare --html`."""
    return render_compare(c.runs, c.comparisons, c.config)


def render(d: Diagnosis) -> str:
    """The diagnose report: one run, its findings marked on every panel."""
    run = d.run
    spans = [f for f in d.findings if f.step is not None]
    x = charts.xscale(
        [run], [float(f.step) for f in spans] + [float(f.end_step or 0) for f in spans]
    )
    num_of = {f.id: i for i, f in enumerate(d.findings, 1)}
    marks = [
        Mark(f"f{num_of[f.id]}", float(f.step), charts.mark_end(f), charts.SEV_COLOR[f.severity])  # type: ignore[arg-type]
        for f in spans
    ]
    plots, data = charts.panels([run], x, marks, single=True)
    lanes = charts.lanes(d.findings, x)
    side = cards.findings_html(d, num_of)
    below = (
        cards.checkpoints_html(run, d.findings)
        + cards.data_html(d)
        + cards.facts_html(run)
        + cards.misc_html(d)
    )
    badge = f'<span class="verdict v-{escape(d.verdict)}">{escape(d.verdict.upper())}</span>'
    steps = f" · {run.last_step} steps" if run.last_step is not None else ""
    head = f"<h1>{badge} {escape(run.name)}<small>{escape(steps)}</small></h1>" + cards.keyfacts(
        run
    )
    return _page(f"traindoc: {run.name}", head, lanes + plots, side, below, data)


def render_compare(
    runs: Sequence[Run], comparisons: Sequence[Any], config: Sequence[Any] = ()
) -> str:
    """The config diff, the runs overlaid on shared axes (one panel per signal, every
    run in it, one step range) and where each parts from the first."""
    parts = [(i, c, p) for i, c in enumerate(comparisons, 1) for p in c.partings if p.step]
    x = charts.xscale(runs, [float(p.step) for _, _, p in parts])
    marks = [
        Mark(f"p{i}", float(p.step), None, charts.RUN_COLORS[i % len(charts.RUN_COLORS)], "parting")
        for i, _, p in parts
    ]
    plots, data = charts.panels(runs, x, marks, single=False)
    legend = "".join(
        f'<span class="key">{charts.swatch(charts.run_color(i))}{escape(r.name)}</span>'
        for i, r in enumerate(runs)
    )
    head = f"<h1>Comparing {len(runs)} runs</h1><div class='facts'>{legend}</div>"
    if config:
        cols = "".join(f"<th>{escape(r.name)}</th>" for r in runs)
        body = "".join(
            f"<tr{' class=differs' if c.differs else ''}><th>{escape(c.key)}</th>"
            + "".join(f"<td>{escape('—' if v is None else str(v))}</td>" for v in c.values)
            + "</tr>"
            for c in config
        )
        head += (
            f"<h2>Config</h2><table class='kv config-diff'><tr><th></th>{cols}</tr>{body}</table>"
        )
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
