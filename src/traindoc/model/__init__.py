"""The normalised run every reader produces and every rule reads. No I/O here."""

from traindoc.model.finding import Finding, Severity
from traindoc.model.run import Event, Fact, Input, Note, Run, Series
from traindoc.model.signals import REGIMES, Signal

__all__ = [
    "REGIMES",
    "Event",
    "Fact",
    "Finding",
    "Input",
    "Note",
    "Run",
    "Series",
    "Severity",
    "Signal",
]
