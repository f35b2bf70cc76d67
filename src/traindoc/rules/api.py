"""The rule contract: a pure check function plus declarative metadata.

A rule reads a `Run` (never files, never raw dicts) and yields `Hit`s. The
engine stamps each hit with the rule's id, family and severity, so a rule
cannot mislabel itself, and links root causes using `explained_by`.
The check function's docstring *is* the rule's documentation page.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from traindoc.model import Finding, Run, Severity
from traindoc.model.finding import qualified
from traindoc.model.signals import kind

FAMILIES = ("loss", "rate", "grads", "numerics", "resume", "ckpt", "data", "memory")


@dataclass(frozen=True)
class Hit:
    """What a rule found. `severity=None` keeps the rule's default; a rule may lower it."""

    title: str
    step: int | None = None
    end_step: int | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    explanation: str = ""
    prescription: str = ""
    severity: Severity | None = None
    caused_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class NotJudged:
    """A rule's word that the run holds too little to judge (yielded instead of a Hit).

    `reason` says what was there and what would be needed, in words a user can act on
    ("loss has 3 points; needs 10"). The engine lists it in the report's `not_judged`;
    when a core rule cannot judge and nothing reaches warning, the run is inconclusive.
    """

    reason: str


Check = Callable[[Run, Any], Iterable[Hit | NotJudged]]


@dataclass(frozen=True)
class RuleSpec:
    id: str
    family: str
    severity: Severity
    check: Check
    params: Any = None
    # Signals (series names) that must be present, "fact:<name>" facts or
    # "event:<kind>" console events; "a|b" is satisfied by either.
    requires: tuple[str, ...] = ()
    # Signals that sharpen evidence when present but are not needed.
    uses: tuple[str, ...] = ()
    # Rule ids that, when found in the same report, explain this finding.
    explained_by: tuple[str, ...] = ()
    # A core rule's verdict is needed to call a run healthy: when it cannot judge (too
    # few points) and nothing else reaches warning, the run is inconclusive, not healthy.
    core: bool = False
    # The least data the rule judges from, in words (shown on its docs page).
    minimum: str = ""
    # Symptom rules whose findings this (cause) rule reads from `run.symptoms`: it
    # runs after them and judges from what they found, not from its own detector.
    reads: tuple[str, ...] = ()
    # For a rule that emits one finding per checkpoint / resume / ...: what tells its
    # findings apart, a format over their evidence ("{checkpoint}", "rank-{rank}"); each
    # finding's id is `<id>@<qualifier>`, or the bare id when the evidence lacks a field.
    qualifier: str = ""

    @property
    def doc(self) -> str:
        return _dedent(self.check.__doc__ or "")

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""

    def missing(self, run: Run) -> list[str]:
        """What the run lacks for this rule to run (empty when it can run)."""
        return [
            need for need in self.requires if not any(_has(run, alt) for alt in need.split("|"))
        ]

    def finding(self, hit: Hit) -> Finding:
        sev = hit.severity if hit.severity is not None else self.severity
        # A rule may lower its severity, never raise it above its default.
        sev = min(sev, self.severity)
        return Finding(
            rule=self.id,
            family=self.family,
            severity=sev,
            title=hit.title,
            step=_int(hit.step),
            end_step=_int(hit.end_step),
            evidence={k: _plain(v) for k, v in hit.evidence.items()},
            explanation=hit.explanation,
            prescription=hit.prescription,
            caused_by=tuple(hit.caused_by),
            id=self.finding_id(hit.evidence),
        )

    @property
    def qualifier_keys(self) -> tuple[str, ...]:
        """The evidence keys the qualifier reads."""
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.qualifier) if f)

    def finding_id(self, evidence: Mapping[str, Any]) -> str:
        """The rule id, qualified by the evidence that tells this finding apart."""
        values = {k: evidence.get(k) for k in self.qualifier_keys}
        if not values or None in values.values():
            return self.id
        return qualified(
            self.id, self.qualifier.format_map({k: _plain(v) for k, v in values.items()})
        )


def too_few(signal: str, n: int, needs: int) -> NotJudged:
    """The usual NotJudged: a signal with fewer points than a rule needs."""
    return NotJudged(f"{signal} has {n} point{'s' if n != 1 else ''}; needs {needs}")


def _has(run: Run, need: str) -> bool:
    if need.startswith("fact:"):
        return run.fact(need[5:]) is not None
    if need.startswith("event:"):
        return any(e.kind == need[6:] for e in run.events)
    if need.startswith("kind:"):  # any series of that kind ("kind:task": an accuracy, F1 ...)
        return any(kind(name) == need[5:] for name in run.series)
    return run.get(need) is not None


_REGISTRY: dict[str, RuleSpec] = {}


def rule(
    id: str,
    *,
    family: str,
    severity: Severity,
    params: Any = None,
    requires: tuple[str, ...] = (),
    uses: tuple[str, ...] = (),
    explained_by: tuple[str, ...] = (),
    core: bool = False,
    minimum: str = "",
    reads: tuple[str, ...] = (),
    qualifier: str = "",
) -> Callable[[Check], Check]:
    """Register a check function as rule `id`."""
    if family not in FAMILIES:
        raise ValueError(f"rule {id}: unknown family {family!r}; valid: {', '.join(FAMILIES)}")
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(qualifier) if f is not None]
    except ValueError as exc:
        raise ValueError(f"rule {id}: qualifier {qualifier!r} is not a format: {exc}") from None
    if qualifier and not fields:
        raise ValueError(f"rule {id}: qualifier {qualifier!r} names no evidence field")

    def deco(fn: Check) -> Check:
        if id in _REGISTRY and _REGISTRY[id].check is not fn:
            raise ValueError(f"rule id {id!r} registered twice")
        _REGISTRY[id] = RuleSpec(
            id,
            family,
            severity,
            fn,
            params,
            requires,
            uses,
            explained_by,
            core,
            minimum,
            reads,
            qualifier,
        )
        return fn

    return deco


def registered() -> dict[str, RuleSpec]:
    return _REGISTRY


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def _plain(v: Any) -> Any:
    """Evidence must be JSON-able: numpy scalars become Python ones, floats rounded."""
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            v = v.tolist()
    if isinstance(v, float):
        return float(f"{v:.6g}") if v == v and abs(v) != float("inf") else v
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _dedent(text: str) -> str:
    import textwrap

    first, _, rest = text.partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip() + "\n"
