"""`traindoc ckpt PATH`: a checkpoint's tensors (and the update since --against)."""

from __future__ import annotations

from pathlib import Path

from traindoc.api import ckpt as check
from traindoc.report.render import Output, render
from traindoc.settings import Settings


def ckpt(
    path: Path,
    settings: Settings,
    out: Output,
    *,
    fmt: str = "terminal",
    against: Path | None = None,
    workers: int | None = None,
) -> int:
    """The exit status: 1 when a finding reaches fail-on, else 0."""
    d = check(path, against=against, workers=workers, settings=settings)
    render(d, fmt, out)
    return d.exit_status()
