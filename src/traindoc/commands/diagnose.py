"""`traindoc diagnose PATH`: one run, or a folder of runs, diagnosed and rendered."""

from __future__ import annotations

from pathlib import Path

from traindoc.api import diagnose as diagnose_path
from traindoc.commands import write_html
from traindoc.report.render import Output, render
from traindoc.settings import Settings


def diagnose(
    path: Path,
    settings: Settings,
    out: Output,
    *,
    fmt: str = "terminal",
    checkpoints: bool = True,
    pattern: str | None = None,
    html: Path | None = None,
) -> int:
    """The exit status: 2 when a run of a folder is unreadable, 1 a finding at fail-on.

    A folder's unreadable runs do not stop the others' reports; stderr names the
    first (and how many more).
    """
    d = diagnose_path(path, checkpoints=checkpoints, pattern=pattern, settings=settings)
    n = len(d.runs) + len(d.unreadable)
    if html is not None and n > 1:
        out.warn(f"--html takes one run; {path} holds {n}")
    render(d, fmt, out)
    if d.unreadable and n > 1:
        more = f" (and {len(d.unreadable) - 1} more unreadable)" if len(d.unreadable) > 1 else ""
        out.warn(f"{d.unreadable[0].error}{more}")
    if html is not None and n == 1:
        write_html(d, html)
    return d.exit_status()
