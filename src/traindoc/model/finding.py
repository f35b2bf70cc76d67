"""A finding is data: rules fill it, reports choose how to show it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.upper()]
        except KeyError:
            valid = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown severity {text!r}; valid: {valid}") from None


@dataclass(frozen=True)
class Finding:
    """One thing a rule found in a run, with its evidence.

    `id` names the finding within its run: `caused_by` lists ids, reports mark and
    number findings by id, live records merge by id. It is the rule id, except for a
    rule that emits one finding per checkpoint, per resume, ...: its spec says which
    evidence tells them apart (RuleSpec.qualifier, "{checkpoint}"), and every finding of
    that rule is `rule@value` (`exploded-weights@checkpoint-200`, `resume-loss-jump@1500`,
    `throughput-drop@rank-3`), even when the run has just one, so an id does not change
    as a run grows. The engine
    makes ids unique within a run: findings that still share one get `@<step>`, then
    `#2`, `#3` in the order the rule emitted them. Left empty, the id is the rule id
    (what JSON written before ids existed loads as).
    """

    rule: str
    family: str
    severity: Severity
    title: str
    step: int | None = None
    end_step: int | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    explanation: str = ""
    prescription: str = ""
    caused_by: tuple[str, ...] = ()
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", self.rule)

    def with_causes(self, causes: tuple[str, ...]) -> Finding:
        return replace(self, caused_by=causes)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Finding:
        """The inverse of to_dict; ValueError when a required field is missing or wrong."""
        try:
            rule, family, title = (str(d[k]) for k in ("rule", "family", "title"))
            severity = Severity.parse(str(d["severity"]))
        except KeyError as exc:
            raise ValueError(f"finding without {exc.args[0]!r}") from None
        evidence = d.get("evidence") or {}
        if not isinstance(evidence, Mapping):
            raise ValueError("finding evidence is not an object")
        return cls(
            rule,
            family,
            severity,
            title,
            _step(d.get("step")),
            _step(d.get("end_step")),
            dict(evidence),
            str(d.get("explanation") or ""),
            str(d.get("prescription") or ""),
            tuple(str(c) for c in d.get("caused_by") or ()),
            str(d.get("id") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "family": self.family,
            "severity": str(self.severity),
            "title": self.title,
            "step": self.step,
            "end_step": self.end_step,
            "evidence": dict(self.evidence),
            "explanation": self.explanation,
            "prescription": self.prescription,
            "caused_by": list(self.caused_by),
        }


def qualified(rule: str, value: Any) -> str:
    """`rule@value`, the value made safe for lists of ids ("a, b") and for HTML attributes."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = re.sub(r"[^\w.\-/]+", "-", str(value)).strip("-")
    return f"{rule}@{text}" if text else rule


def _step(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
        raise ValueError(f"step {v!r} is not a number")
    return int(v)
