"""The public JSON report (../shared/RULES.md): one object, nothing else on stdout."""

from __future__ import annotations

import json
import math
from typing import Any

from traindoc import __version__
from traindoc.engine import Diagnosis


def to_dict(d: Diagnosis) -> dict[str, Any]:
    return {
        "traindoc_version": __version__,
        "inputs": [{"path": i.path, "kind": i.kind} for i in d.run.inputs],
        "run": d.run.summary(),
        "verdict": d.verdict,
        "findings": [f.to_dict() for f in d.findings],
        "notes": [str(n) for n in d.run.notes],
        "skipped_rules": [{"rule": s.rule, "reason": s.reason} for s in d.skipped],
        "internal_errors": list(d.errors),
    }


def render(d: Diagnosis) -> str:
    return json.dumps(_finite(to_dict(d)), indent=2, allow_nan=False)


def _finite(obj: Any) -> Any:
    """Strict JSON has no NaN: non-finite evidence becomes the strings "nan"/"inf"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if obj != obj else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj
