"""The value the Python API returns: a diagnosis of every run at a path, and its renderings.

`runs` holds one per-run diagnosis (traindoc.model.diagnosis.Diagnosis) for a single run
and several for a folder, as the JSON report's `runs` do; the methods give
exactly what the CLI prints for each format, and `_repr_html_` is what a
notebook shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from traindoc.model import Finding
from traindoc.model.diagnosis import Diagnosis as RunDiagnosis
from traindoc.model.diagnosis import Unreadable
from traindoc.outcome import EXIT_BAD_INPUT, exit_status
from traindoc.settings import Settings

_RANK = {"healthy": 0, "inconclusive": 1, "suspect": 2, "unreadable": 3, "broken": 4}


@dataclass(frozen=True, repr=False)
class Diagnosis:
    """What traindoc found at a path: one entry in `runs` per run, as in the JSON report.

    `command` is the command whose report this is (diagnose, ckpt, data, preflight):
    it picks the JSON shape, so `to_json()` is what that command prints.
    """

    runs: tuple[RunDiagnosis, ...]
    unreadable: tuple[Unreadable, ...] = ()
    settings: Settings = field(default_factory=Settings)
    command: str = "diagnose"
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """The worst verdict over the runs ("unreadable" ranks below "broken")."""
        verdicts = [r.verdict for r in self.runs] + ["unreadable"] * len(self.unreadable)
        return max(verdicts, key=_RANK.__getitem__, default="healthy")

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every run's findings, root causes first within each run."""
        return tuple(f for r in self.runs for f in r.findings)

    def exit_status(self, fail_on: str | None = None) -> int:
        """The CLI's exit status: 2 a run unreadable, 1 a finding at `fail_on`, else 0.

        `fail_on` defaults to the settings' (`fail-on`, else "error").
        """
        if self.unreadable:
            return EXIT_BAD_INPUT
        level = fail_on or self.settings.fail_on
        return max((exit_status(r.findings, level) for r in self.runs), default=0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report as a dict (strict JSON: non-finite numbers as strings)."""
        from traindoc.report.render import to_dict

        return to_dict(self)

    def to_json(self) -> str:
        """The JSON report: what `traindoc <command> --format json` prints."""
        return self._text("json")

    def to_markdown(self) -> str:
        """The Markdown report (to paste into an issue): `--format markdown`."""
        return self._text("markdown")

    def to_github(self) -> str:
        """GitHub Actions annotations, one `::error file=...::...` line per finding."""
        return self._text("github")

    def to_sarif(self) -> str:
        """A SARIF 2.1.0 log (GitHub code scanning, other CI viewers)."""
        return self._text("sarif")

    def to_html(self) -> str:
        """The self-contained HTML page of the first run (the CLI's `--html`)."""
        return self._text("html")

    def _text(self, fmt: str) -> str:
        from traindoc.report.render import to_text

        return to_text(self, fmt)

    def summary(self) -> list[dict[str, Any]]:
        """The multi-run table's rows (empty for a single run)."""
        from traindoc.report import summary

        if len(self.runs) + len(self.unreadable) <= 1:
            return []
        rows = [summary.row(r.run.name, r) for r in self.runs]
        return rows + [summary.row(u.name, None, u.error) for u in self.unreadable]

    def _repr_html_(self) -> str:
        """Jupyter shows this: each run's HTML report in a sandboxed frame.

        The report is a whole page with its own CSS, script and Content-Security-Policy;
        inside an iframe's escaped `srcdoc` none of them touches the notebook's page.
        """
        from html import escape

        from traindoc.report.html import render

        parts = []
        if self.summary():
            rows = "".join(
                f"<tr><td>{escape(str(r['run']))}</td><td>{escape(r['verdict'])}</td>"
                f"<td>{escape(', '.join(r['root_causes']) or str(r.get('error') or '-'))}</td></tr>"
                for r in self.summary()
            )
            parts.append(
                "<table><thead><tr><th>run</th><th>verdict</th><th>root causes</th></tr>"
                f"</thead><tbody>{rows}</tbody></table>"
            )
        for r in self.runs:
            parts.append(
                f'<iframe title="traindoc: {escape(r.run.name)}" sandbox="allow-scripts" '
                'style="width:100%;height:720px;border:1px solid #dde1e6" '
                f'srcdoc="{escape(render(r), quote=True)}"></iframe>'
            )
        return "".join(parts)

    def __repr__(self) -> str:
        names = ", ".join(r.run.name for r in self.runs[:3]) + (
            ", ..." if len(self.runs) > 3 else ""
        )
        n = len(self.findings)
        return f"<traindoc.Diagnosis {self.verdict}: {names} ({n} finding{'s' * (n != 1)})>"
