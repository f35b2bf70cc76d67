"""The table that ends a multi-run diagnosis: one row per run, in the order diagnosed.

Rows are plain dicts (the JSON `summary` entries); the terminal and markdown
renderers only lay them out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from traindoc.model import Severity
from traindoc.model.diagnosis import Diagnosis

_STYLE = {
    "broken": "bold red",
    "suspect": "yellow",
    "healthy": "green",
    "inconclusive": "white",
    "unreadable": "magenta",
    "no metrics": "dim",
}


def row(name: str, d: Diagnosis | None, error: str | None = None) -> dict[str, Any]:
    """One summary entry: the run, its verdict, and the root causes at warning or above.

    Besides the report verdicts a row can say "unreadable" (with the error) or
    "no metrics" (nothing logged yet, nothing found in its config).
    """
    if d is None:
        return {
            "run": name,
            "verdict": "unreadable",
            "steps": None,
            "root_causes": [],
            "error": error,
        }
    if d.empty:
        return {"run": name, "verdict": "no metrics", "steps": None, "root_causes": []}
    roots = [f.id for f in d.roots if f.severity >= Severity.WARNING]
    if not roots:  # an info-level root behind a warning: name what the warning is
        roots = [f.id for f in d.findings if f.severity >= Severity.WARNING]
    roots = list(dict.fromkeys(roots))
    return {"run": name, "verdict": d.verdict, "steps": d.run.last_step, "root_causes": roots}


def run_name(path: Path, parent: Path) -> str:
    try:
        rel = path.resolve().relative_to(parent.resolve())
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else path.resolve().name


def render_terminal(rows: list[dict[str, Any]], console: Console) -> None:
    table = Table(title=f"{len(rows)} runs", box=None, header_style="bold", title_justify="left")
    table.add_column("run", overflow="fold")
    for col in ("verdict", "steps", "root causes"):
        table.add_column(col)
    for r in rows:
        verdict = f"[{_STYLE.get(r['verdict'], '')}]{r['verdict'].upper()}[/]"
        causes = ", ".join(r["root_causes"]) or (r.get("error") or "-")
        steps = "" if r["steps"] is None else str(r["steps"])
        table.add_row(r["run"], verdict, steps, causes)
    console.print()
    console.print(table)


def render_markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["## Summary", "", "| run | verdict | steps | root causes |", "|---|---|---|---|"]
    for r in rows:
        causes = ", ".join(f"`{c}`" for c in r["root_causes"]) or (r.get("error") or "-")
        steps = "" if r["steps"] is None else r["steps"]
        lines.append(f"| {r['run']} | {r['verdict']} | {steps} | {causes} |")
    return "\n".join(lines)
