"""`traindoc preflight`: check the start, the rate, the resume and the memory before a run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traindoc.api import preflight as check_setup
from traindoc.commands import write_html
from traindoc.report.render import Output, render
from traindoc.settings import Settings


def preflight(
    settings: Settings,
    out: Output,
    *,
    model: Path | None = None,
    config: Path | None = None,
    data: Path | None = None,
    gpu: str | None = None,
    gpu_mem: str | None = None,
    resume: Path | None = None,
    fmt: str = "terminal",
    html: Path | None = None,
    **flags: Any,
) -> int:
    """The exit status: 1 when a finding reaches fail-on, else 0; InputError (a UsageError)
    for unusable input. `flags` are the setup's values for when there is no config
    (learning_rate, per_device_batch, ...: traindoc.preflight.setup.FLAGS)."""
    d = check_setup(
        model, config, data, gpu=gpu, gpu_mem=gpu_mem, resume=resume, settings=settings, **flags
    )
    render(d, fmt, out)
    if html is not None:
        write_html(d, html)
    return d.exit_status()
