"""The HTML report's text: finding cards, checkpoint and data tables, facts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import numpy as np

from traindoc.model import Finding, Run
from traindoc.model.checkpoint import CheckpointSummary
from traindoc.model.diagnosis import Diagnosis
from traindoc.report._live import live_line
from traindoc.report._svg import num
from traindoc.report.line import steps_text
from traindoc.report.markdown import CONFIG_FACTS


def findings_html(d: Diagnosis, num_of: Mapping[str, int]) -> str:
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
    i = num_of[f.id]
    where = steps_text(f)
    causes = ", ".join(f"#{num_of[c]} {c}" if c in num_of else c for c in f.caused_by)
    meta = " · ".join(x for x in (where, f"caused by {causes}" if causes else "") if x)
    ev = "".join(
        f"<tr><th>{escape(str(k))}</th><td>{escape(_value(v))}</td></tr>"
        for k, v in f.evidence.items()
    )
    return (
        f'<div class="card sev-{f.severity}" data-f="f{i}" data-rule="{escape(f.rule)}" '
        f'data-id="{escape(f.id)}">'
        f'<h3><span class="n">{i}</span><span class="sev">{escape(str(f.severity).upper())}'
        f"</span> {escape(f.title)}</h3>"
        f'<div class="meta">{escape(f.id)}{" · " + escape(meta) if meta else ""}</div>'
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


def checkpoints_html(run: Run, findings: Sequence[Finding]) -> str:
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


def data_html(d: Diagnosis) -> str:
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


def keyfacts(run: Run) -> str:
    keys = ("regime", "vocab_size", "learning_rate", "lr_scheduler", "effective_batch")
    keys += ("precision", "max_grad_norm")
    items = [
        f"<span><b>{escape(k)}</b> {escape(_value(run.fact(k)))}</span>"
        for k in keys
        if run.fact(k) is not None
    ]
    return f'<div class="facts">{"".join(items)}</div>' if items else ""


def facts_html(run: Run) -> str:
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


def misc_html(d: Diagnosis) -> str:
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
