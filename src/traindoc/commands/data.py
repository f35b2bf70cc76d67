"""`traindoc data PATH`: audit a dataset, run the data rules, render the audit."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from traindoc.api import audit_data
from traindoc.commands import write_html
from traindoc.outcome import InputError, write_text
from traindoc.report.render import Output, render
from traindoc.settings import Settings


def data(
    path: Path,
    settings: Settings,
    out: Output,
    *,
    fmt: str = "terminal",
    eval_path: Path | None = None,
    text_field: str | None = None,
    label_field: str | None = None,
    export: Path | None = None,
    threshold: float = 0.6,
    max_seq_len: int | None = None,
    distributed: bool = False,
    workers: int = 2,
    html: Path | None = None,
) -> int:
    """The exit status: 1 when a finding reaches fail-on, else 0; InputError for bad input.

    `export` receives the row indices of the duplicates, conflicts and leaked
    eval rows (JSON), for the user to drop; the report says where it went.
    """
    d = audit_data(
        path,
        eval_path,
        text_field=text_field,
        label_field=label_field,
        threshold=threshold,
        max_seq_len=max_seq_len,
        distributed=distributed,
        workers=workers,
        settings=settings,
    )
    if export is not None:
        if (error := write_text(export, json.dumps(d.extra["export"]) + "\n")) is not None:
            raise InputError(error)
        d = replace(d, extra={**d.extra, "export_path": str(export)})
    render(d, fmt, out)
    if html is not None:
        write_html(d, html)
    return d.exit_status()
