"""Tables for `traindoc ckpt`: per role and layer, and the update between two.

The rows are built once here (`*_rows`: cells, and whether the row is flagged);
the terminal draws them below and checkpoints_markdown.py lays them out as
Markdown, so both say the same numbers.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from traindoc.measure.stats import fmt
from traindoc.model.checkpoint import CheckpointSummary

if TYPE_CHECKING:
    from rich.console import Console

    from traindoc.model.diagnosis import Diagnosis

Flagged = set[tuple[str | None, str]]  # (checkpoint name, tensor name) named by a finding
Row = tuple[list[str], bool]  # the cells, and whether a finding or a non-finite value marks it

GROUP_COLUMNS = ("role", "layer", "tensors", "rms", "max std", "non-finite")
OVERVIEW_COLUMNS = ("checkpoint", "step", "format", "tensors", "MB", "largest std", "non-finite")
UPDATE_COLUMNS = ("role", "layer", "tensors", "relative update", "frozen")


def flagged(d: Diagnosis) -> Flagged:
    """The tensors the findings name, by checkpoint (drawn in red)."""
    out: Flagged = set()
    for f in d.findings:
        names = f.evidence.get("tensors") or f.evidence.get("tensor") or []
        names = [names] if isinstance(names, str) else [n for n in names if isinstance(n, str)]
        out |= {(f.evidence.get("checkpoint"), n) for n in names}
    return out


def heading(c: CheckpointSummary) -> str:
    """Name, format, tensors, size, read speed, and which checkpoint the trainer called best."""
    size = f"{c.nbytes / 1e6:.1f} MB" if c.nbytes else ""
    speed = f", {c.nbytes / 1e9 / c.seconds:.2f} GB/s" if c.seconds > 0 and c.nbytes else ""
    extra = f" · {c.labelled_best} says best" if c.labelled_best else ""
    return f"{c.format} · {len(c.tensors)} tensors · {size}{speed}{extra}"


def group_rows(c: CheckpointSummary, marked: Flagged) -> list[Row]:
    """One checkpoint's role groups with their scale."""
    return [
        (
            [
                g.role,
                "" if g.layer is None else str(g.layer),
                str(len(g.tensors)),
                _num(g.rms),
                _num(g.max_std),
                str(g.nonfinite) if g.nonfinite else "",
            ],
            any((c.name, t) in marked for t in g.tensors) or g.nonfinite > 0,
        )
        for g in c.groups()
    ]


def overview_rows(cks: tuple[CheckpointSummary, ...], marked: Flagged) -> list[Row]:
    """One row per checkpoint: its largest tensor std and its non-finite count."""
    rows = []
    for c in cks:
        top = max(
            (t for t in c.tensors if t.read and t.std == t.std), key=lambda t: t.std, default=None
        )
        cells = [
            c.name,
            "" if c.step is None else str(c.step),
            c.format,
            str(len(c.tensors)),
            f"{c.nbytes / 1e6:.1f}",
            f"{top.name} {_num(top.std)}" if top else "",
            str(sum(t.nonfinite for t in c.tensors)) or "",
        ]
        rows.append((cells, any((c.name, t.name) in marked or t.nonfinite for t in c.tensors)))
    return rows


def update_rows(cmp: Any) -> list[Row]:
    """The relative update per role group; a group with every tensor frozen is marked."""
    return [
        (
            [
                g.role,
                "" if g.layer is None else str(g.layer),
                str(g.tensors),
                _num(g.rel_update),
                str(g.frozen) if g.frozen else "",
            ],
            g.frozen == g.tensors,
        )
        for g in cmp.groups()
    ]


def update_notes(cmp: Any) -> list[tuple[str, str]]:
    """(label, text) lines under the update table: the frozen tensors, the exploded ones."""
    out = []
    if cmp.frozen:
        names = ", ".join(t.name for t in cmp.frozen[:8])
        more = f" and {len(cmp.frozen) - 8} more" if len(cmp.frozen) > 8 else ""
        out.append(("identical in both", names + more))
    for t in cmp.exploded:
        growth = f"rms {_num(t.rms_a)} -> {_num(t.rms_b)} ({_num(t.growth)}x)"
        out.append(("exploded in between", f"{t.name} {growth}"))
    return out


def _table(columns: tuple[str, ...], rows: list[Row], style: str, left: tuple[str, ...]) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in columns:
        table.add_column(col, justify="left" if col in left else "right")
    for cells, marked in rows:
        table.add_row(*map(escape, cells), style=style if marked else None)
    return table


def render_summary(c: CheckpointSummary, marked: Flagged, console: Console) -> None:
    """One checkpoint: role groups with their scale; groups holding flagged tensors in red."""
    console.print(f"[bold]{escape(c.name)}[/] [dim]{escape(heading(c))}[/]")
    console.print(_table(GROUP_COLUMNS, group_rows(c, marked), "bold red", ("role",)))
    for note in c.notes:
        console.print(f"  [dim]note: {escape(note)}[/]")


def render_all(cks: tuple[CheckpointSummary, ...], marked: Flagged, console: Console) -> None:
    """One checkpoint: its full table. Several: an overview, then tables of the suspect ones."""
    if len(cks) == 1:
        render_summary(cks[0], marked, console)
        return
    rows = overview_rows(cks, marked)
    console.print(_table(OVERVIEW_COLUMNS, rows, "bold red", ("checkpoint", "format")))
    for c, (_, bad) in zip(cks, rows, strict=True):
        if bad:
            console.print()
            render_summary(c, marked, console)


def render_comparison(cmp: Any, console: Console) -> None:
    console.print(f"\n[bold]Update from {escape(cmp.b.name)} to {escape(cmp.a.name)}[/]")
    console.print(_table(UPDATE_COLUMNS, update_rows(cmp), "yellow", ("role",)))
    for label, text in update_notes(cmp):
        colour = "yellow" if label.startswith("identical") else "red"
        console.print(f"  [{colour}]{label}:[/] {escape(text)}")


def _num(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt(x, 3)
