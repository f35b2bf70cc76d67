"""`traindoc compare` in the terminal: what differs in the config, the runs' loss on one
shared axis, and where each parts from the first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from traindoc.compare import Comparison, ConfigRow, RunComparison
from traindoc.measure.stats import fmt
from traindoc.model import Run
from traindoc.report.sparkline import shared_sparklines

if TYPE_CHECKING:
    from traindoc.report.render import Output


def value_text(v: object) -> str:
    """A setting's value in a table cell (— where a run does not record it)."""
    if v is None:
        return "—"
    if isinstance(v, float):
        return fmt(v)
    if isinstance(v, (tuple, list)):
        return ", ".join(map(str, v))
    return str(v)


def config_table(runs: Sequence[Run], rows: Sequence[ConfigRow]) -> Table | None:
    """The settings that differ, in bold and first; then those all runs share, dim."""
    if not rows:
        return None
    t = Table(title="Config", title_justify="left", show_edge=False, pad_edge=False)
    t.add_column("setting")
    for r in runs:
        t.add_column(r.name)
    for row in rows:
        style = "bold" if row.differs else "dim"
        t.add_row(row.key, *[value_text(v) for v in row.values], style=style)
    return t


def view(c: RunComparison, out: Output) -> None:
    render(c.runs, c.comparisons, out.console, c.config)


def render(
    runs: Sequence[Run],
    comparisons: Sequence[Comparison],
    console: Console,
    config: Sequence[ConfigRow] = (),
) -> None:
    table = config_table(runs, config)
    if table is not None:
        if not any(r.differs for r in config):
            console.print(Text("Same config in every run (as far as recorded).", style="dim"))
        console.print(table)
        console.print()
    width = max(len(r.name) for r in runs)
    losses = [r.get("loss") for r in runs]
    lines, axis = shared_sparklines(losses, 40, [r.floor for r in runs])
    if axis is not None:
        lo, hi, x0, x1 = axis
        console.print(
            Text(
                f"  loss on one axis for all runs: {fmt(lo)} .. {fmt(hi)}, "
                f"steps {x0:.0f} .. {x1:.0f}",
                style="dim",
            )
        )
    for r, (cells, on_floor) in zip(runs, lines, strict=True):
        line = Text(f"  {r.name:<{width}}  ", style="bold")
        for c, f in zip(cells, on_floor, strict=True):
            line.append(c, style="red" if f else "blue")
        line.append(f"  {r.last_step or 0} steps", style="dim")
        console.print(line)
    for c in comparisons:
        first = c.first
        head = Text(f"\n{c.other} vs {c.reference}: ", style="bold")
        if first is None:
            head.append("does not part from it", style="green")
        else:
            head.append(f"parts at step {first.step} ({first.signal})", style="yellow")
        console.print(head)
        for p in c.partings:
            where = f"step {p.step}: " if p.step is not None else ""
            console.print(Text(f"    {p.signal:<10} {where}{p.reason}", style="dim"))
