"""`traindoc compare A B ...`: where each run parts from the first, and their configs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from traindoc.commands import write_html
from traindoc.compare import RunComparison
from traindoc.outcome import InputError
from traindoc.report.render import Output, render


def compare(
    paths: Sequence[Path], out: Output, *, fmt: str = "terminal", html: Path | None = None
) -> int:
    """Always 0: a comparison has no findings to fail on; InputError for unusable runs."""
    from traindoc.pipeline import load
    from traindoc.readers import ReadError

    if len(paths) < 2:
        raise InputError("compare needs at least two runs")
    try:
        runs = [load(p, checkpoints=False) for p in paths]
    except ReadError as exc:
        raise InputError(str(exc)) from None
    result = RunComparison.of(runs)
    render(result, fmt, out)
    if html is not None:
        write_html(result, html)
    return 0
