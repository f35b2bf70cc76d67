"""A finding is data: rules fill it, reports choose how to show it."""

from __future__ import annotations

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

    def with_causes(self, causes: tuple[str, ...]) -> Finding:
        return replace(self, caused_by=causes)

    def to_dict(self) -> dict[str, Any]:
        return {
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
