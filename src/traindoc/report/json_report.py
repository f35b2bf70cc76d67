"""The public JSON reports (../shared/RULES.md): one object, nothing else on stdout.

`diagnose`, schema 2: `{"schema_version": 2, "traindoc_version", "runs": [...]}`
for one run and for many alike (a folder of runs, or a paste holding two); a
multi-run report adds the `summary` table. `ckpt`, `data`, `preflight` and
`compare` each have their own object, built here too, so every JSON document
traindoc writes is assembled in this one module. Every number is finite JSON:
NaN and Infinity are written as the strings "NaN", "Infinity", "-Infinity".
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from traindoc import __version__
from traindoc.model.diagnosis import Diagnosis

if TYPE_CHECKING:
    from traindoc.compare import RunComparison
    from traindoc.report.render import Report

SCHEMA_VERSION = 2


def to_dict(d: Diagnosis) -> dict[str, Any]:
    """One run's entry in `runs`."""
    return {
        "inputs": [i.to_dict() for i in d.run.inputs],
        "run": d.run.summary(),
        "verdict": d.verdict,
        "findings": [f.to_dict() for f in d.findings],
        "not_judged": [{"rule": s.rule, "reason": s.reason} for s in d.not_judged],
        "notes": [str(n) for n in d.run.notes],
        "internal_errors": list(d.errors),
    }


def document(
    runs: Sequence[dict[str, Any]], summary: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "traindoc_version": __version__,
        "runs": list(runs),
    }
    if summary is not None:
        out["summary"] = summary
    return out


def render(d: Diagnosis) -> str:
    return dumps(document([to_dict(d)]))


def diagnosis(r: Report) -> dict[str, Any]:
    """`traindoc diagnose --format json`: every run, the unreadable ones, the summary."""
    reports: list[dict[str, Any]] = [to_dict(d) for d in r.runs]
    reports += [
        {"run": {"name": u.name}, "verdict": "unreadable", "error": u.error} for u in r.unreadable
    ]
    return document(reports, r.summary() or None)


def checkpoints(r: Report) -> dict[str, Any]:
    """`traindoc ckpt --format json`: the checkpoints' statistics, findings, the update."""
    d, cmp = r.runs[0], r.extra.get("comparison")
    return {
        "checkpoints": [c.to_dict() for c in d.run.checkpoints],
        "verdict": d.verdict,
        "findings": [f.to_dict() for f in d.findings],
        "against": cmp.to_dict() if cmp else None,
    }


def data(r: Report) -> dict[str, Any]:
    """`traindoc data --format json`: the audit's summary, verdict and findings."""
    d = r.runs[0]
    return {
        "traindoc_version": __version__,
        "data": d.run.data.to_dict() if d.run.data is not None else None,
        "verdict": d.verdict,
        "findings": [f.to_dict() for f in d.findings],
        "errors": list(d.errors),
    }


def preflight(r: Report) -> dict[str, Any]:
    """`traindoc preflight --format json`: the report's keys plus `preflight` (the
    measurements: first-batch loss, memory estimate), whatever types they hold as text."""
    d = r.runs[0]
    out = to_dict(d)
    out["preflight"] = dict(d.extra)
    return json.loads(json.dumps(finite(out), default=str))


def comparison(c: RunComparison) -> dict[str, Any]:
    """`traindoc compare --format json`: the runs, the config diff, where each parts."""
    doc = {
        "runs": [r.name for r in c.runs],
        "config": [row.to_dict() for row in c.config],
        "comparisons": [x.to_dict() for x in c.comparisons],
    }
    return json.loads(json.dumps(finite(doc), default=str))


def dumps(obj: Any) -> str:
    """Strict JSON text of a report object (NaN/Infinity as strings)."""
    return json.dumps(finite(obj), indent=2, allow_nan=False, ensure_ascii=False, default=str)


def finite(obj: Any) -> Any:
    """Strict JSON has no NaN: non-finite numbers become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj
