"""`traindoc rules` (one line per rule) and `traindoc explain` (one rule's page)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.table import Table

from traindoc.rules.api import RuleSpec

if TYPE_CHECKING:
    from traindoc.report.render import Output


def table(specs: Iterable[RuleSpec], out: Output) -> None:
    t = Table(box=None, header_style="bold")
    for col in ("rule", "family", "severity", "what it flags"):
        t.add_column(col)
    for spec in specs:
        t.add_row(spec.id, spec.family, str(spec.severity), spec.summary)
    out.console.print(t)


def page(spec: RuleSpec) -> str:
    """The docstring the rule's docs page is made from, and its thresholds."""
    lines = [f"{spec.id}  ({spec.family}, {spec.severity})", "", spec.doc]
    if spec.params is not None:
        lines.append("Thresholds:")
        lines += [f"  {name} = {value}" for name, value in vars(spec.params).items()]
    return "\n".join(lines)
