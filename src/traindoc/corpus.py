"""Scoring traindoc against a corpus of labelled runs (`make eval` and its test).

Each case directory holds a run plus `expected.json`:
`{"expect": ["rule-id", ...], "healthy": bool, "story": "..."}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from traindoc.engine import diagnose
from traindoc.model import Severity
from traindoc.pipeline import load
from traindoc.readers import ReadError


@dataclass(frozen=True)
class CaseResult:
    name: str
    expected: tuple[str, ...]
    healthy: bool
    found: tuple[str, ...]  # warning and error findings
    info: tuple[str, ...]
    error: str | None = None

    @property
    def missed(self) -> tuple[str, ...]:
        seen = set(self.found) | set(self.info)
        return tuple(r for r in self.expected if r not in seen)

    @property
    def false_alarms(self) -> tuple[str, ...]:
        return self.found if self.healthy else ()

    @property
    def ok(self) -> bool:
        return self.error is None and not self.missed and not self.false_alarms


def cases(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/expected.json"))


def score(case: Path) -> CaseResult:
    exp = json.loads((case / "expected.json").read_text())
    expected, healthy = tuple(exp.get("expect", ())), bool(exp.get("healthy", False))
    try:
        d = diagnose(load(case))
    except ReadError as exc:
        return CaseResult(case.name, expected, healthy, (), (), str(exc))
    found = tuple(f.rule for f in d.findings if f.severity >= Severity.WARNING)
    info = tuple(f.rule for f in d.findings if f.severity == Severity.INFO)
    return CaseResult(case.name, expected, healthy, found, info)
