"""`traindoc data`: audit a dataset, run the data rules, render, return the exit code.

The CLI layer registers this function; it reads no argv and only prints the
report (stdout) and unusable-input reasons (stderr, exit 2).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from traindoc.model import Run
from traindoc.outcome import EXIT_BAD_INPUT, InputError, exit_status, write_text

if TYPE_CHECKING:
    from traindoc.model.diagnosis import Diagnosis
    from traindoc.settings import Settings

FORMATS = ("terminal", "json", "markdown", "github", "sarif")


def audit_run(
    path: str | Path,
    eval_path: str | Path | None = None,
    text_field: str | None = None,
    label_field: str | None = None,
    *,
    threshold: float = 0.6,
    max_seq_len: int | None = None,
    distributed: bool = False,
    workers: int = 2,
    settings: Settings | None = None,
) -> tuple[Diagnosis, Any]:
    """Audit PATH (and EVAL_PATH) and run the data rules: (diagnosis, audit result).

    Raises InputError for unusable input (the CLI's exit 2).
    """
    from traindoc.data.audit import Options, audit
    from traindoc.data.readers import DataError, discover, splits

    if not 0.0 < threshold <= 1.0:
        raise InputError(f"--threshold must be in (0, 1], got {threshold}")
    opts = Options(text_field, label_field, threshold, max_seq_len=max_seq_len)
    try:
        p = Path(path)
        # A DatasetDict: audit train, and its validation/test split as eval unless given.
        if eval_path is None and p.is_dir() and (p / "dataset_dict.json").is_file():
            names = splits(p)
            held = [s for s in names[1:] if s in ("validation", "valid", "eval", "test", "dev")]
            if held:
                eval_path = p / held[0]
            path = p / names[0]
        if distributed:
            from traindoc.data.distributed import audit_distributed

            result = audit_distributed(path, eval_path, opts, n_workers=workers)
        else:
            result = audit(discover(path), discover(eval_path) if eval_path else None, opts)
    except DataError as exc:
        raise InputError(str(exc)) from None
    except ImportError as exc:
        raise InputError(
            f"{exc}; install traindoc[data] (or traindoc[distributed] for --distributed)"
        ) from None
    from traindoc.engine import diagnose
    from traindoc.rules.registry import load_all

    specs = [r for r in load_all().values() if r.family == "data"]
    if settings is not None:
        specs = settings.apply(specs)
    return diagnose(Run(name=str(path), data=result.summary), specs), result


def data_command(
    path: str | Path,
    eval_path: str | Path | None = None,
    text_field: str | None = None,
    label_field: str | None = None,
    export: str | Path | None = None,
    format: str = "terminal",
    fail_on: str = "error",
    distributed: bool = False,
    *,
    threshold: float = 0.6,
    max_seq_len: int | None = None,
    workers: int = 2,
    html: str | Path | None = None,
    settings: Settings | None = None,
    console: Any = None,
    quiet: bool = False,
) -> int:
    """Audit PATH (and EVAL_PATH); 0 clean, 1 a finding at `fail_on` or above, 2 bad input."""
    fmt = getattr(format, "value", format)
    fail = getattr(fail_on, "value", fail_on)
    if fmt not in FORMATS:
        return _bad(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fail not in ("error", "warning", "info", "never"):
        return _bad(f"unknown --fail-on {fail!r}; valid: error, warning, info, never")
    try:
        d, result = audit_run(
            path,
            eval_path,
            text_field,
            label_field,
            threshold=threshold,
            max_seq_len=max_seq_len,
            distributed=distributed,
            workers=workers,
            settings=settings,
        )
    except InputError as exc:
        return _bad(str(exc))
    s = result.summary
    if export is not None:
        Path(export).write_text(json.dumps(result.export) + "\n")
    if fmt == "json":
        from traindoc.report.data import render_json

        print(render_json(d, s))
    elif fmt == "markdown":
        from traindoc.report.markdown import render as render_md

        print(render_md(d))
    elif fmt == "github":
        from traindoc.report.github import render as render_github

        print(render_github([d]))
    elif fmt == "sarif":
        from traindoc.report.sarif import render as render_sarif

        print(render_sarif([d]))
    else:
        from traindoc.report.console import make_console
        from traindoc.report.data import render_summary
        from traindoc.report.terminal import render_findings

        console = console or make_console()
        if quiet:
            from traindoc.report.terminal import verdict_line

            console.print(verdict_line(d))
            return exit_status(d.findings, fail)
        render_summary(s, console)
        render_findings(d, console)
        if export is not None:
            console.print(f"  [dim]rows to drop written to {export}[/]")
    if html is not None:
        from traindoc.report.html import render as render_html

        if (error := write_text(html, render_html(d))) is not None:
            return _bad(error)
    return exit_status(d.findings, fail)


def _bad(message: str) -> int:
    print(f"traindoc: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT
