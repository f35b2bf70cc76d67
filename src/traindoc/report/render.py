"""The one place a command's result meets a format: `render(result, fmt, out)`.

Every command (traindoc.commands) hands its result here with the format the
user asked for; RENDERERS says, per kind of result, which formats exist and
which function writes each. A format a kind does not list is not offered by
its command, so `--format markdown` can never quietly print terminal text.

Renderers are named by "module:function" and imported on first use, so a
command pays only for the format it writes (the HTML page's SVG code is never
loaded for `--format json`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any, Protocol

from traindoc.outcome import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from traindoc.model.diagnosis import Diagnosis


class Report(Protocol):
    """What traindoc.result.Diagnosis offers renderers (report/ sits below result.py)."""

    @property
    def command(self) -> str: ...
    @property
    def runs(self) -> Sequence[Diagnosis]: ...
    @property
    def unreadable(self) -> Sequence[Any]: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    def summary(self) -> list[dict[str, Any]]: ...


# Back to the line's start, then erase it: a status line is rewritten in place.
_CLEAR = "\r\x1b[K"


class Output:
    """Where a report goes: a rich Console for the terminal views, the same stream for
    text formats, stderr for the lines that are not the report.

    A status line (`traindoc watch`'s heartbeat) is rewritten in place on a terminal
    and cleared before anything else is written, so it never splits a line; piped,
    it is an ordinary line.
    """

    def __init__(
        self, console: Console | None = None, *, quiet: bool = False, err: IO[str] | None = None
    ) -> None:
        if console is None:
            from traindoc.report.console import make_console

            console = make_console()
        self.console, self.quiet, self._err = console, quiet, err
        self._status = False  # a status line is on screen, not ended

    @property
    def err(self) -> IO[str]:
        return self._err if self._err is not None else sys.stderr

    @property
    def tty(self) -> bool:
        """A real terminal: not rich's is_terminal, which FORCE_COLOR turns on in a CI
        log, where an escape code to rewrite a line would only be noise."""
        isatty = getattr(self.console.file, "isatty", None)
        return bool(isatty and isatty())

    def write(self, text: str) -> None:
        """A text format's body, as it is (no markup), flushed; nothing for an empty one."""
        if text:
            self.clear_status()
            self.console.file.write(text + "\n")
            self.console.file.flush()

    def status(self, text: str) -> None:
        """A line the next one replaces on a terminal; piped, a line like any other."""
        if not self.tty:
            self.write(text)
            return
        self.console.file.write(_CLEAR + text)
        self.console.file.flush()
        self._status = True

    def clear_status(self) -> None:
        """Erase the status line, if one is shown, before something else is written."""
        if self._status:
            self.console.file.write(_CLEAR)
            self._status = False

    def end_status(self) -> None:
        """End the status line, if one is shown: it stays on screen, and the shell's
        prompt starts on a line of its own."""
        if self._status:
            self.console.file.write("\n")
            self.console.file.flush()
            self._status = False

    def warn(self, message: str) -> None:
        """One `traindoc: ...` line on stderr: the report stands, but something was left out."""
        self.clear_status()
        self.err.write(f"traindoc: {message}\n")
        self.err.flush()


class Renderer(Protocol):
    """Writes one kind of result in one format to an Output."""

    def __call__(self, result: Any, out: Output, /) -> None: ...


@dataclass(frozen=True)
class _Named:
    """A renderer named "module:function", imported when first called.

    `shape` says what the function gives: "view" writes to the Output itself (terminal),
    "text" returns the text, "document" returns the dict that json_report.dumps writes.
    """

    target: str
    shape: str

    def function(self) -> Callable[..., Any]:
        module, name = self.target.split(":")
        return getattr(import_module(module), name)

    def text(self, result: Any) -> str:
        if self.shape == "view":
            buf = io.StringIO()
            from traindoc.report.console import make_console

            self(result, Output(make_console(file=buf, color=False)))
            return buf.getvalue().rstrip("\n")
        value = self.function()(result)
        if self.shape == "document":
            from traindoc.report.json_report import dumps

            return dumps(value)
        return value

    def __call__(self, result: Any, out: Output, /) -> None:
        if self.shape == "view":
            self.function()(result, out)
        else:
            out.write(self.text(result))


def _view(target: str) -> _Named:
    return _Named(target, "view")


def _text(target: str) -> _Named:
    return _Named(target, "text")


def _json(target: str) -> _Named:
    return _Named(target, "document")


_GITHUB = _text("traindoc.report.github:report")
_SARIF = _text("traindoc.report.sarif:report")

# kind of result -> format -> its renderer. `kind` is the result's `command`.
RENDERERS: dict[str, dict[str, _Named]] = {
    "diagnose": {
        "terminal": _view("traindoc.report.views:diagnosis"),
        "json": _json("traindoc.report.json_report:diagnosis"),
        "markdown": _text("traindoc.report.markdown:report"),
        "github": _GITHUB,
        "sarif": _SARIF,
        "html": _text("traindoc.report.html:report"),
    },
    "ckpt": {
        "terminal": _view("traindoc.report.views:checkpoints"),
        "json": _json("traindoc.report.json_report:checkpoints"),
        "markdown": _text("traindoc.report.checkpoints_markdown:render"),
        "github": _GITHUB,
        "sarif": _SARIF,
    },
    "data": {
        "terminal": _view("traindoc.report.views:data"),
        "json": _json("traindoc.report.json_report:data"),
        "markdown": _text("traindoc.report.data_markdown:render"),
        "github": _GITHUB,
        "sarif": _SARIF,
        "html": _text("traindoc.report.html:report"),
    },
    "preflight": {
        "terminal": _view("traindoc.report.views:preflight"),
        "json": _json("traindoc.report.json_report:preflight"),
        "markdown": _text("traindoc.report.markdown:report"),
        "github": _GITHUB,
        "sarif": _SARIF,
        "html": _text("traindoc.report.html:report"),
    },
    "compare": {
        "terminal": _view("traindoc.report.compare_terminal:view"),
        "json": _json("traindoc.report.json_report:comparison"),
        "markdown": _text("traindoc.report.compare_markdown:render"),
        "html": _text("traindoc.report.html:comparison"),
    },
    "watch": {"terminal": _view("traindoc.report.watch:render")},
}


def formats(kind: str) -> tuple[str, ...]:
    """The formats a kind of result is written in (its command offers exactly these)."""
    return tuple(RENDERERS[kind])


def _renderer(result: Any, fmt: str, kind: str | None) -> _Named:
    kind = kind or result.command
    found = RENDERERS[kind].get(fmt)
    if found is None:
        raise InputError(f"{kind} writes {', '.join(formats(kind))}, not {fmt}")
    return found


def render(result: Any, fmt: str, out: Output, *, kind: str | None = None) -> None:
    """Write `result` in `fmt` to `out`; InputError for a format its kind does not have.

    `kind` defaults to `result.command` (a Diagnosis, a compare result); `traindoc
    watch` names it for the live updates it renders.
    """
    _renderer(result, fmt, kind)(result, out)


def to_text(result: Any, fmt: str) -> str:
    """What `render` writes, as a string (Diagnosis.to_json, the --html file)."""
    return _renderer(result, fmt, None).text(result)


def to_dict(result: Any) -> dict[str, Any]:
    """The JSON document of `result` as a dict (strict: non-finite numbers as strings)."""
    from traindoc.report.json_report import finite

    named = _renderer(result, "json", None)
    return finite(named.function()(result))
