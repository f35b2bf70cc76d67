"""The terminal view of each command's whole result (report/render.py picks one).

terminal.py draws one run's diagnosis; these put it together with what each
command adds around it: the unreadable runs and the summary table of a folder,
the checkpoint tables, the dataset's counts, preflight's measurements. With
`--quiet` each gives only the verdict line of every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from traindoc.report.terminal import render as render_run
from traindoc.report.terminal import render_findings, verdict_line

if TYPE_CHECKING:
    from traindoc.report.render import Output, Report


def diagnosis(r: Report, out: Output) -> None:
    """Each run's report, then (for a folder) the unreadable ones and the summary table."""
    console = out.console
    if out.quiet:
        for d in r.runs:
            console.print(verdict_line(d))
        for u in r.unreadable:
            console.print(f"[bold magenta] UNREADABLE [/]  {escape(u.name)}: {escape(u.error)}")
        return
    from traindoc.report import summary

    for d in r.runs:
        render_run(d, console)
    rows = r.summary()
    if rows:
        for u in r.unreadable:
            console.print(f"[magenta]UNREADABLE[/] {escape(u.name)}: {escape(u.error)}")
        summary.render_terminal(rows, console)


def checkpoints(r: Report, out: Output) -> None:
    """The checkpoints' tables (flagged tensors in red), the update, then the findings."""
    from traindoc.report.checkpoints import flagged, render_all, render_comparison

    d, cmp = r.runs[0], r.extra.get("comparison")
    if out.quiet:
        out.console.print(verdict_line(d))
        return
    render_all(d.run.checkpoints, flagged(d), out.console)
    if cmp is not None:
        render_comparison(cmp, out.console)
    render_findings(d, out.console)


def data(r: Report, out: Output) -> None:
    """The dataset's counts, then the findings; where the row indices went, if asked."""
    from traindoc.report.data import render_summary

    d = r.runs[0]
    if out.quiet:
        out.console.print(verdict_line(d))
        return
    if d.run.data is not None:
        render_summary(d.run.data, out.console)
    render_findings(d, out.console)
    if r.extra.get("export_path"):
        out.console.print(
            f"  [dim]rows to drop written to {escape(str(r.extra['export_path']))}[/]"
        )


def preflight(r: Report, out: Output) -> None:
    """The setup's report (no metrics are expected before a run), then what was measured."""
    d, console = r.runs[0], out.console
    if out.quiet:
        console.print(verdict_line(d, metrics_expected=False))
        return
    render_run(d, console, metrics_expected=False)
    fb, mem = d.extra.get("first_batch"), d.extra.get("memory")
    if fb:
        console.print(
            f"\n  first-batch loss {fb['loss']:.4g} vs ln(V) = {fb['floor']:.4g} "
            f"({fb['ratio']:.2f}x; {len(fb['batches'])} batches of {fb['tokens']}, "
            f"{fb['seconds']:.1f} s)",
            style="dim",
        )
    if mem:
        e = mem["estimate"]
        parts = ", ".join(f"{k} {v:.2f}" for k, v in e.items() if k != "total")
        console.print(f"  peak memory ~{e['total']:.2f} GiB ({parts}); {mem['setup']}", style="dim")
