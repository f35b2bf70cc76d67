"""`traindoc ckpt --format markdown`: the checkpoint tables and the findings, to paste.

The same rows as the terminal (checkpoints.py); the checkpoints a finding or
a non-finite value marks are in bold, as the terminal draws them in red.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from traindoc.report.checkpoints import (
    GROUP_COLUMNS,
    OVERVIEW_COLUMNS,
    UPDATE_COLUMNS,
    Row,
    flagged,
    group_rows,
    heading,
    overview_rows,
    update_notes,
    update_rows,
)
from traindoc.report.markdown import cell, findings

if TYPE_CHECKING:
    from traindoc.report.render import Report


def table(columns: Sequence[str], rows: Sequence[Row]) -> list[str]:
    """A Markdown table; a marked row's cells in bold."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for cells, marked in rows:
        shown = [cell(c) for c in cells]
        if marked:
            shown = [f"**{c}**" if c else c for c in shown]
        out.append("| " + " | ".join(shown) + " |")
    return out


def render(r: Report) -> str:
    d, cmp = r.runs[0], r.extra.get("comparison")
    cks, marked = d.run.checkpoints, flagged(d)
    out = [f"### traindoc ckpt: `{cell(d.run.name)}` is **{d.verdict}**", ""]
    shown = cks
    if len(cks) > 1:
        rows = overview_rows(cks, marked)
        out += [*table(OVERVIEW_COLUMNS, rows), ""]
        shown = tuple(c for c, (_, bad) in zip(cks, rows, strict=True) if bad)
    for c in shown:
        out += [f"#### `{cell(c.name)}` ({cell(heading(c))})", ""]
        out += [*table(GROUP_COLUMNS, group_rows(c, marked)), ""]
        out += [f"- note: {cell(n)}" for n in c.notes] + ([""] if c.notes else [])
    if cmp is not None:
        out += [f"#### Update from `{cell(cmp.b.name)}` to `{cell(cmp.a.name)}`", ""]
        out += [*table(UPDATE_COLUMNS, update_rows(cmp)), ""]
        notes = update_notes(cmp)
        out += [f"- {label}: {cell(text)}" for label, text in notes] + ([""] if notes else [])
    out += findings(d)
    return "\n".join(out).rstrip("\n")
