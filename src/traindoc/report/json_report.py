"""The public JSON report (../shared/RULES.md): one object, nothing else on stdout.

Schema 2: `{"schema_version": 2, "traindoc_version", "runs": [...]}` for one run
and for many alike (a folder of runs, or a paste holding two); a multi-run
report adds the `summary` table. Every number is finite JSON: NaN and
Infinity are written as the strings "NaN", "Infinity", "-Infinity".
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from traindoc import __version__
from traindoc.model.diagnosis import Diagnosis

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


def dumps(obj: Any) -> str:
    """Strict JSON text of a report object (NaN/Infinity as strings)."""
    return json.dumps(finite(obj), indent=2, allow_nan=False, ensure_ascii=False)


def finite(obj: Any) -> Any:
    """Strict JSON has no NaN: non-finite numbers become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj
