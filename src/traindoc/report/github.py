"""`--format github`: one GitHub Actions workflow command per finding.

`::error file=F,line=N,title=ID::MESSAGE` (ID: the finding's id) (warning, notice for the other
levels) makes the finding show on the file in the run's summary and, for a
file in the pull request, on the diff. Escaping follows the runner's rules
(actions/toolkit `command.ts`): in the message % CR LF; in a property also
`:` and `,`, which would otherwise end it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from traindoc.model import Finding, Severity
from traindoc.model.diagnosis import Diagnosis
from traindoc.report.line import finding_line
from traindoc.report.location import where

if TYPE_CHECKING:
    from traindoc.report.render import Report

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    shown = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{level}{' ' + shown if shown else ''}::{escape_data(message)}"


def message(f: Finding, run_name: str | None = None) -> str:
    """The title, the steps, what to do; the run's name when several are reported."""
    text = finding_line(f, run_name)
    if f.caused_by:
        text += f"\ncaused by {', '.join(f.caused_by)}"
    if f.prescription:
        text += f"\ndo: {f.prescription}"
    return text


def render(diagnoses: Sequence[Diagnosis], unreadable: Sequence[tuple[str, str]] = ()) -> str:
    """Every finding of every run, then one error per file that could not be read."""
    many = len(diagnoses) + len(unreadable) > 1
    out = []
    for d in diagnoses:
        for f in d.findings:
            file, line = where(f, d.run)
            out.append(
                command(
                    LEVEL[f.severity],
                    message(f, d.run.name if many else None),
                    file=file,
                    line=line,
                    title=f.id,
                )
            )
    for path, error in unreadable:
        out.append(command("error", error, file=path, title="unreadable"))
    return "\n".join(out)


def report(r: Report) -> str:
    """`--format github` for any command's result."""
    return render(r.runs, [(u.path, u.error) for u in r.unreadable])
