"""A diagnosis is data: what the engine concluded about one run, for reports to show.

It lives in the model, beside Finding, so a renderer reads a diagnosis without
importing the engine that made it (layers point one way: report -> model).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from traindoc.model.finding import Finding, Severity
from traindoc.model.run import Run

VERDICTS = {Severity.ERROR: "broken", Severity.WARNING: "suspect"}
INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Skipped:
    """A rule that did not judge this run, and why (a `skipped` or `not_judged` entry)."""

    rule: str
    reason: str


@dataclass(frozen=True)
class Diagnosis:
    run: Run
    findings: tuple[Finding, ...]
    skipped: tuple[Skipped, ...] = ()  # rules whose signals are absent: not relevant here
    errors: tuple[str, ...] = ()  # internal rule errors: reported, never fatal
    extra: dict = field(default_factory=dict)
    # rules that are relevant but could not judge (too few points...), and why
    not_judged: tuple[Skipped, ...] = ()
    core_not_judged: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """broken / suspect by the worst finding; inconclusive when nothing reaches warning
        but a core rule could not judge (a paste of three lines is never healthy)."""
        worst = max((f.severity for f in self.findings), default=None)
        if worst is not None and worst >= Severity.WARNING:
            return VERDICTS[worst]
        return INCONCLUSIVE if self.core_not_judged else "healthy"

    @property
    def empty(self) -> bool:
        """Nothing to judge yet: no metric series, checkpoint, data audit or finding."""
        r = self.run
        return not (self.findings or r.series or r.checkpoints or r.data is not None)

    @property
    def roots(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if not f.caused_by)

    def finding(self, id: str) -> Finding | None:
        """The finding with this id (what `caused_by` names), None when absent."""
        return next((f for f in self.findings if f.id == id), None)

    def first_anomaly_step(self) -> int | None:
        steps = [f.step for f in self.findings if f.step is not None and f.severity > Severity.INFO]
        return min(steps) if steps else None


@dataclass(frozen=True)
class Unreadable:
    """A run of a folder that could not be read (the others are still diagnosed)."""

    name: str
    path: str
    error: str
