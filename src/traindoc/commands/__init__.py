"""One module per command: a thin pipe from arguments to an exit status.

arguments -> the Python API (readers, engine) -> `report.render(result, fmt, out)`
-> exit status. A command never prints: what it shows goes through the Output
the CLI hands it, and unusable input is an InputError, which cli.py turns into
the one `traindoc: ...` line and exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traindoc.outcome import InputError, write_text
from traindoc.report.render import to_text


def write_html(result: Any, path: Path) -> None:
    """The `--html PATH` side file; InputError when it cannot be written."""
    if (error := write_text(path, to_text(result, "html"))) is not None:
        raise InputError(error)
