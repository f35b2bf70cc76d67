"""How a command ends: its exit status (../shared/RULES.md) and the HTML side file.

Shared by diagnose, ckpt, preflight and data so the contract lives in one place:
0 when no finding reaches --fail-on, 1 when one does, 2 for unusable input.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from traindoc.model import Finding, Severity

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2


class InputError(Exception):
    """Unusable input or settings: the CLI's exit 2, the Python API's exception.

    The message names the file (and the line, where known); a settings error
    lists every problem, one per line.
    """


def exit_status(findings: Iterable[Finding], fail_on: str) -> int:
    """EXIT_FOUND when a finding reaches `fail_on` (error | warning | info), never for "never"."""
    if fail_on == "never":
        return EXIT_OK
    level = Severity.parse(fail_on)
    return EXIT_FOUND if any(f.severity >= level for f in findings) else EXIT_OK


def write_text(path: Path, text: str) -> str | None:
    """Write a report file; the one-line error when it cannot be written, else None."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        return f"{path}: cannot write the report: {exc.strerror or exc}"
    return None
