"""Terminal tables for `traindoc ckpt`: per role and layer, and the update between two."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from traindoc.measure.stats import fmt
from traindoc.model.checkpoint import CheckpointSummary

Flagged = set[tuple[str | None, str]]  # (checkpoint name, tensor name) named by a finding


def render_summary(c: CheckpointSummary, flagged: Flagged, console: Console) -> None:
    """One checkpoint: role groups with their scale; groups holding flagged tensors in red."""
    size = f"{c.nbytes / 1e6:.1f} MB" if c.nbytes else ""
    speed = f", {c.nbytes / 1e9 / c.seconds:.2f} GB/s" if c.seconds > 0 and c.nbytes else ""
    extra = f" · {c.labelled_best} says best" if c.labelled_best else ""
    console.print(
        f"[bold]{escape(c.name)}[/] [dim]{escape(c.format)} · {len(c.tensors)} tensors"
        f" · {size}{speed}{extra}[/]"
    )
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("role", "layer", "tensors", "rms", "max std", "non-finite"):
        table.add_column(col, justify="left" if col == "role" else "right")
    for g in c.groups():
        bad = any((c.name, t) in flagged for t in g.tensors) or g.nonfinite > 0
        style = "bold red" if bad else None
        layer = "" if g.layer is None else str(g.layer)
        table.add_row(
            g.role,
            layer,
            str(len(g.tensors)),
            _num(g.rms),
            _num(g.max_std),
            str(g.nonfinite) if g.nonfinite else "",
            style=style,
        )
    console.print(table)
    for note in c.notes:
        console.print(f"  [dim]note: {escape(note)}[/]")


def render_all(cks: tuple[CheckpointSummary, ...], flagged: Flagged, console: Console) -> None:
    """One checkpoint: its full table. Several: an overview, then tables of the suspect ones."""
    if len(cks) == 1:
        render_summary(cks[0], flagged, console)
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("checkpoint", "step", "format", "tensors", "MB", "largest std", "non-finite"):
        table.add_column(col, justify="left" if col in ("checkpoint", "format") else "right")
    suspect = []
    for c in cks:
        bad = any((c.name, t.name) in flagged or t.nonfinite for t in c.tensors)
        top = max(
            (t for t in c.tensors if t.read and t.std == t.std), key=lambda t: t.std, default=None
        )
        table.add_row(
            escape(c.name),
            "" if c.step is None else str(c.step),
            c.format,
            str(len(c.tensors)),
            f"{c.nbytes / 1e6:.1f}",
            f"{escape(top.name)} {_num(top.std)}" if top else "",
            str(sum(t.nonfinite for t in c.tensors)) or "",
            style="bold red" if bad else None,
        )
        if bad:
            suspect.append(c)
    console.print(table)
    for c in suspect:
        console.print()
        render_summary(c, flagged, console)


def render_comparison(cmp: Any, console: Console) -> None:
    console.print(f"\n[bold]Update from {escape(cmp.b.name)} to {escape(cmp.a.name)}[/]")
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("role", "layer", "tensors", "relative update", "frozen"):
        table.add_column(col, justify="left" if col == "role" else "right")
    for g in cmp.groups():
        style = "yellow" if g.frozen == g.tensors else None
        layer = "" if g.layer is None else str(g.layer)
        table.add_row(
            g.role,
            layer,
            str(g.tensors),
            _num(g.rel_update),
            str(g.frozen) if g.frozen else "",
            style=style,
        )
    console.print(table)
    if cmp.frozen:
        names = ", ".join(t.name for t in cmp.frozen[:8])
        more = f" and {len(cmp.frozen) - 8} more" if len(cmp.frozen) > 8 else ""
        console.print(f"  [yellow]identical in both:[/] {escape(names)}{more}")
    for t in cmp.exploded:
        console.print(
            f"  [red]exploded in between:[/] {escape(t.name)} rms {_num(t.rms_a)} -> "
            f"{_num(t.rms_b)} ({_num(t.growth)}x)"
        )


def _num(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt(x, 3)
