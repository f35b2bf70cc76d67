"""Where in the user's files a finding points: the file, and the line when it is known.

CI annotations (`--format github`, `--format sarif`) are shown on a file, so
each finding needs one. Readers record the line of a console event (an NCCL
timeout, a resume skip) and a checkpoint's path, and rules copy those into
the evidence; anything else points at the run's main metrics file, without a
line, because a metric point's line is not kept.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from traindoc.model import Finding, Run


def where(f: Finding, run: Run) -> tuple[str | None, int | None]:
    """(file, line) for a finding of `run`; None for what is not known (a preflight
    from flags alone read no file)."""
    ev = f.evidence
    line = ev.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        for e in run.events:
            if e.line == line and e.path:
                return e.path, line
        log = next((i.path for i in run.inputs if i.kind == "text-log"), None)
        if log is not None:
            return log, line
    for key in ("path", "file"):
        if isinstance(ev.get(key), str) and ev[key]:
            return ev[key], None
    return main_file(run), None


def main_file(run: Run) -> str | None:
    """The file the run's metrics came from (the one with the most points), else the first
    file read, the audited data file or the checkpoint; None when nothing was read."""
    with_series = [i for i in run.inputs if i.series]
    if with_series:
        return max(with_series, key=lambda i: sum(i.series.values())).path  # type: ignore[union-attr]
    if run.inputs:
        return run.inputs[0].path
    paths = getattr(run.data, "paths", None)  # a dataset audit: the (first) data file
    if paths:
        return str(paths[0])
    if run.checkpoints:
        return str(run.checkpoints[0].path)
    return None


def uri(path: str) -> str:
    """A SARIF artifact URI: relative paths stay relative (to the checkout), with / and
    percent-encoding where a URI needs it (a space); absolute ones become file: URIs."""
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix(), safe="/:@!$&'()*+,;=~")
