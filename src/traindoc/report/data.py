"""Renders a dataset audit: the summary block for the terminal and the JSON object."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from traindoc.model.data import DataSummary
from traindoc.model.diagnosis import Diagnosis


def to_dict(d: Diagnosis, summary: DataSummary) -> dict[str, Any]:
    from traindoc import __version__
    from traindoc.report.json_report import finite

    return finite(
        {
            "traindoc_version": __version__,
            "data": summary.to_dict(),
            "verdict": d.verdict,
            "findings": [f.to_dict() for f in d.findings],
            "errors": list(d.errors),
        }
    )


def render_json(d: Diagnosis, summary: DataSummary) -> str:
    return json.dumps(to_dict(d, summary), indent=2, allow_nan=False, ensure_ascii=False)


def render_summary(s: DataSummary, console: Console) -> None:
    """The numbers every data finding refers to, in one table."""
    src = s.paths[0] if len(s.paths) == 1 else f"{len(s.paths)} files ({s.paths[0]} ...)"
    console.print(
        f"[bold]{escape(src)}[/] [dim]{', '.join(s.formats)} · {s.schema} "
        f"({escape(', '.join(s.fields))}"
        + (f" -> {escape(s.label_field)}" if s.label_field else "")
        + f") · {s.seconds:.2f} s[/]"
    )
    t = Table(box=None, header_style="bold", pad_edge=False, show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_column("share", justify="right")

    def row(name: str, count: int, base: int | None = None) -> None:
        base = s.rows if base is None else base
        share = f"{100 * count / base:.2f}%" if base else ""
        t.add_row(name, f"{count:,}", share, style="bold red" if count and name != "rows" else None)

    t.add_row("rows", f"{s.rows:,}", "")
    row("empty", s.empty)
    row("exact duplicates", s.duplicates)
    row(f"near duplicates (J>={s.threshold:g})", s.near_duplicates)
    row("label conflicts", s.conflicts)
    if s.eval_rows:
        row(f"eval rows leaked (of {s.eval_rows:,})", s.leaked, s.eval_rows)
    if s.max_seq_len:
        row(f"over max_seq_len {s.max_seq_len} (~chars/4)", s.over_max_seq_len)
    t.add_row("representative samples", f"{s.unique:,}", "")
    console.print(t)
    if s.labels:
        top = list(s.labels.items())[:8]
        more = f" (+{len(s.labels) - 8} more)" if len(s.labels) > 8 else ""
        console.print("  labels: " + ", ".join(f"{escape(k)}={v:,}" for k, v in top) + more)
    if s.length:
        ln = s.length
        console.print(
            f"  length (words): median {ln['p50']:.0f}, p95 {ln['p95']:.0f}, max {ln['max']:.0f}"
            f" · code {100 * s.code_share:.1f}% · "
            + ", ".join(f"{k} {100 * v:.0f}%" for k, v in list(s.scripts.items())[:4])
        )
    for note in s.notes[:10]:
        console.print(f"  [dim]note: {escape(note)}[/]")
