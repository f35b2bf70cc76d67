"""`--format sarif`: a SARIF 2.1.0 log, for GitHub code scanning and other CI viewers.

One SARIF run (one traindoc invocation) whose driver lists every registered
rule, and one result per finding with its rule, level, message and the file
(and line, when known) it points at. traindoc's own data (step range, the
evidence, which run of a folder) rides in each result's `properties`.
Validated against the official schema in tests (tests/assets/sarif/).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from traindoc import __version__
from traindoc.model import Severity
from traindoc.model.diagnosis import Diagnosis
from traindoc.report.json_report import dumps
from traindoc.report.line import finding_line
from traindoc.report.location import uri, where
from traindoc.rules.api import RuleSpec

if TYPE_CHECKING:
    from traindoc.report.render import Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Where each rule's page is in the traindoc repository (docs/rules/<id>.md, made from
# the same docstring as `help`). SARIF's helpUri must be an absolute URI, and there is
# no published site yet: set DOCS_URL to one and every rule gets its helpUri.
DOCS = "docs/rules/"
DOCS_URL: str | None = None
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def to_dict(
    diagnoses: Sequence[Diagnosis],
    unreadable: Sequence[tuple[str, str]] = (),
    specs: Iterable[RuleSpec] | None = None,
) -> dict[str, Any]:
    """The log; `specs` (default: every registered rule) fill tool.driver.rules."""
    from traindoc.rules.registry import load_all

    rules = [_rule(s) for s in (specs if specs is not None else load_all().values())]
    index = {r["id"]: i for i, r in enumerate(rules)}
    for d in diagnoses:  # a finding of an unlisted rule (a live one) still gets its entry
        for f in d.findings:
            if f.rule not in index:
                index[f.rule] = len(rules)
                rules.append({"id": f.rule, "shortDescription": {"text": f.rule}})
    results = [_result(f, d, index) for d in diagnoses for f in d.findings]
    invocation: dict[str, Any] = {"executionSuccessful": not unreadable}
    if unreadable:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "error",
                "message": {"text": error},
                "locations": [_location(path, None)],
            }
            for path, error in unreadable
        ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "traindoc",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "results": results,
            }
        ],
    }


def render(
    diagnoses: Sequence[Diagnosis],
    unreadable: Sequence[tuple[str, str]] = (),
    specs: Iterable[RuleSpec] | None = None,
) -> str:
    return dumps(to_dict(diagnoses, unreadable, specs))


def report(r: Report) -> str:
    """`--format sarif` for any command's result."""
    return render(r.runs, [(u.path, u.error) for u in r.unreadable])


def _rule(s: RuleSpec) -> dict[str, Any]:
    page = s.doc.strip() or s.id
    out: dict[str, Any] = {
        "id": s.id,
        "name": "".join(w.capitalize() for w in s.id.split("-")),
        "shortDescription": {"text": s.summary or s.id},
        "help": {"text": page, "markdown": page},  # what code-scanning viewers show
        "defaultConfiguration": {"level": LEVEL[s.severity]},
        "properties": {"family": s.family, "docs": f"{DOCS}{s.id}.md"},
    }
    if DOCS_URL:
        out["helpUri"] = f"{DOCS_URL.rstrip('/')}/{s.id}.md"
    return out


def _result(f: Any, d: Diagnosis, index: dict[str, int]) -> dict[str, Any]:
    file, line = where(f, d.run)
    text = finding_line(f) + (f" Do: {f.prescription}" if f.prescription else "")
    return {
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": LEVEL[f.severity],
        "message": {"text": text},
        "locations": [_location(file, line)] if file is not None else [],
        "properties": {
            "id": f.id,
            "run": d.run.name,
            "verdict": d.verdict,
            "step": f.step,
            "end_step": f.end_step,
            "caused_by": list(f.caused_by),
            "evidence": dict(f.evidence),
        },
    }


def _location(file: str, line: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri(file)}}
    if line is not None and line >= 1:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}
