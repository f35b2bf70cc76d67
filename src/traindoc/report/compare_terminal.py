"""`traindoc compare` in the terminal: each run's loss at a glance, and where it parts."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from traindoc.compare import Comparison
from traindoc.model import Run
from traindoc.report.sparkline import sparkline


def render(runs: Sequence[Run], comparisons: Sequence[Comparison], console: Console) -> None:
    width = max(len(r.name) for r in runs)
    for r in runs:
        line = Text(f"  {r.name:<{width}}  ", style="bold")
        loss = r.get("loss")
        if loss is not None:
            cells, on_floor = sparkline(loss, 40, r.floor)
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
