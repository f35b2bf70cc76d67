"""What a live finding does to training: log it, warn about it, or stop the run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from traindoc.model import Finding, Severity

ACTIONS = ("log", "warn", "stop")

# Stopping is reserved for findings that make every further step wasted compute:
# a broken starting point (the exploded-head run spent 300 steps undoing an exploded head) and a
# non-finite loss (the weights are garbage from there on). Everything else may be
# a false positive that the user would rather read than be stopped by.
DEFAULT_STOP = ("absurd-initial-loss", "nonfinite-loss")


@dataclass(frozen=True)
class Policy:
    """Action per finding: `rules` overrides by rule id, else `by_severity`.

    A rule mapped to "stop" stops only at error severity; a lower-severity hit of
    the same rule (absurd-initial-loss at 1.3-2x ln(V): tokens added to the
    vocabulary?) takes its severity's action, so a suspicion never kills a run.
    """

    rules: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(DEFAULT_STOP, "stop"))
    by_severity: Mapping[Severity, str] = field(
        default_factory=lambda: {
            Severity.ERROR: "warn",
            Severity.WARNING: "warn",
            Severity.INFO: "log",
        }
    )

    def __post_init__(self) -> None:
        bad = [
            f"{k}={v!r}" for k, v in {**self.rules, **self.by_severity}.items() if v not in ACTIONS
        ]
        if bad:
            raise ValueError(
                f"unknown policy action(s) {', '.join(bad)}; valid: {', '.join(ACTIONS)}"
            )

    @classmethod
    def make(
        cls,
        stop: Iterable[str] = DEFAULT_STOP,
        warn: Iterable[str] = (),
        log: Iterable[str] = (),
        *,
        error: str = "warn",
        warning: str = "warn",
        info: str = "log",
        known: Iterable[str] | None = None,
    ) -> Policy:
        """Build from lists of rule ids; `known` (the registry's ids) rejects typos."""
        rules = {**dict.fromkeys(log, "log"), **dict.fromkeys(warn, "warn")}
        rules |= dict.fromkeys(stop, "stop")
        if known is not None:
            valid = set(known)
            unknown = sorted(set(rules) - valid)
            if unknown:
                raise ValueError(
                    f"unknown rule id(s) {', '.join(unknown)}; valid: {', '.join(sorted(valid))}"
                )
        sev = {Severity.ERROR: error, Severity.WARNING: warning, Severity.INFO: info}
        return cls(rules, sev)

    def action(self, finding: Finding) -> str:
        act = self.rules.get(finding.rule)
        if act == "stop" and finding.severity < Severity.ERROR:
            act = None
        return act or self.by_severity.get(finding.severity, "log")
