"""The one place a terminal Console is made, so output fits where it goes.

On a terminal: its width and colours. Piped or in CI: full lines (a title is
never broken mid-word into a log that someone greps) and no escape codes.
`--width N` forces a width anywhere; `--no-color` or the NO_COLOR environment
variable (https://no-color.org) turn styling off even on a terminal.
"""

from __future__ import annotations

import os
from typing import IO

from rich.console import Console

# Wide enough that no line of a report wraps, small enough that nothing padded to the
# width (rich pads only expanded tables and rules, which the reports do not use) hurts.
UNWRAPPED = 10_000


def make_console(
    *, width: int | None = None, color: bool | None = None, file: IO[str] | None = None
) -> Console:
    """A Console for a report; `color=None` decides from NO_COLOR and the terminal."""
    probe = Console(file=file)
    if width is None and not probe.is_terminal:
        width = UNWRAPPED
    plain = color is False or (color is None and os.environ.get("NO_COLOR", "") != "")
    return Console(
        file=file,
        width=width,
        highlight=False,
        color_system=None if plain else "auto",
        no_color=plain,
        soft_wrap=False,
    )


def colored(console: Console) -> bool:
    """Whether the reader sees colours (a legend that names one would mislead otherwise)."""
    return console.color_system is not None and not console.no_color
