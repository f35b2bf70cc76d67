"""Renders a dataset audit's numbers: the rows below feed the terminal and the Markdown.

(The audit's JSON object is built with the other reports' in json_report.py.)
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from traindoc.model.data import DataSummary

# what, how many, the share ("" where none applies), and whether it counts a problem
Count = tuple[str, int, str, bool]


def source(s: DataSummary) -> tuple[str, str]:
    """The file (or how many), then its format, schema, fields and the audit's time."""
    src = s.paths[0] if len(s.paths) == 1 else f"{len(s.paths)} files ({s.paths[0]} ...)"
    fields = ", ".join(s.fields) + (f" -> {s.label_field}" if s.label_field else "")
    return src, f"{', '.join(s.formats)} · {s.schema} ({fields}) · {s.seconds:.2f} s"


def counts(s: DataSummary) -> list[Count]:
    """The numbers every data finding refers to, in the order the table shows them."""

    def row(name: str, count: int, base: int | None = None) -> Count:
        base = s.rows if base is None else base
        return (name, count, f"{100 * count / base:.2f}%" if base else "", True)

    out = [("rows", s.rows, "", False), row("empty", s.empty)]
    out += [row("exact duplicates", s.duplicates)]
    out += [row(f"near duplicates (J>={s.threshold:g})", s.near_duplicates)]
    out += [row("label conflicts", s.conflicts)]
    if s.eval_rows:
        out.append(row(f"eval rows leaked (of {s.eval_rows:,})", s.leaked, s.eval_rows))
    if s.max_seq_len:
        out.append(row(f"over max_seq_len {s.max_seq_len} (~chars/4)", s.over_max_seq_len))
    return [*out, ("representative samples", s.unique, "", False)]


def details(s: DataSummary) -> list[str]:
    """The label counts and the length profile, one line each where known."""
    out = []
    if s.labels:
        top = list(s.labels.items())[:8]
        more = f" (+{len(s.labels) - 8} more)" if len(s.labels) > 8 else ""
        out.append("labels: " + ", ".join(f"{k}={v:,}" for k, v in top) + more)
    if s.length:
        ln = s.length
        out.append(
            f"length (words): median {ln['p50']:.0f}, p95 {ln['p95']:.0f}, max {ln['max']:.0f}"
            f" · code {100 * s.code_share:.1f}% · "
            + ", ".join(f"{k} {100 * v:.0f}%" for k, v in list(s.scripts.items())[:4])
        )
    return out


def render_summary(s: DataSummary, console: Console) -> None:
    """The numbers every data finding refers to, in one table; counts above zero in red."""
    src, what = source(s)
    console.print(f"[bold]{escape(src)}[/] [dim]{escape(what)}[/]")
    t = Table(box=None, header_style="bold", pad_edge=False, show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_column("share", justify="right")
    for name, count, share, problem in counts(s):
        t.add_row(name, f"{count:,}", share, style="bold red" if problem and count else None)
    console.print(t)
    for line in details(s):
        console.print(f"  {escape(line)}")
    for note in s.notes[:10]:
        console.print(f"  [dim]note: {escape(note)}[/]")
