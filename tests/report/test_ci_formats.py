"""`--format github` (workflow commands) and `--format sarif` (SARIF 2.1.0, schema-checked)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest

from tests.test_cli import SEED_A, needs_examples, traindoc
from traindoc.engine import Diagnosis
from traindoc.model import Event, Finding, Input, Run, Severity
from traindoc.report import github, sarif
from traindoc.report.location import where

SCHEMA = json.loads((Path(__file__).parent / "assets" / "sarif-schema-2.1.0.json").read_text())
CORPUS = Path(__file__).parents[1] / "corpus"
# ::level key=value,key=value::message, with nothing unescaped that would end a part
COMMAND = re.compile(
    r"^::(error|warning|notice)( [a-z]+=[^,:\r\n]*(,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*$"
)


FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uri")
def _absolute(value: object) -> bool:  # jsonschema checks it only with an extra installed
    return not isinstance(value, str) or bool(urlsplit(value).scheme)


@FORMATS.checks("uri-reference")
def _reference(value: object) -> bool:
    return not isinstance(value, str) or (" " not in value and "\\" not in value)


def validate(doc: dict) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).validate(doc)


def _log_run() -> Diagnosis:
    """A console-log run with an event at line 42 and a finding pointing at it."""
    run = Run(
        name="nightly",
        inputs=(Input("logs/train,1.log", "text-log", series={"loss": 10}),),
        events=(
            Event("nccl-timeout", "Watchdog caught collective timeout", "logs/train,1.log", 42),
        ),
    )
    findings = (
        Finding(
            "stalled-training",
            "resume",
            Severity.ERROR,
            "A rank hung: 100% of the step: done\nnext",
            step=7,
            evidence={"line": 42},
            prescription="Check rank 3; 50% of the time it is the data",
        ),
        Finding("loss-spike", "loss", Severity.INFO, "1 spike", step=3, end_step=5),
    )
    return Diagnosis(run, findings)


def test_github_escapes_what_would_end_a_command() -> None:
    assert github.escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert github.escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    lines = github.render([_log_run()]).splitlines()
    assert len(lines) == 2 and all(COMMAND.match(x) for x in lines), lines
    assert lines[0] == (
        "::error file=logs/train%2C1.log,line=42,title=stalled-training::"
        "A rank hung: 100%25 of the step: done%0Anext%0Ado: Check rank 3; 50%25 of the time it is the data"
    )
    # info is a notice; no line is known for a metric point, so none is claimed
    assert lines[1] == "::notice file=logs/train%2C1.log,title=loss-spike::1 spike (steps 3–5)"


def test_location_prefers_the_events_file_then_the_checkpoint_then_the_metrics() -> None:
    d = _log_run()
    assert where(d.findings[0], d.run) == ("logs/train,1.log", 42)
    ck = Finding("zero-weights", "ckpt", Severity.ERROR, "zero", evidence={"path": "out/ck-9"})
    assert where(ck, d.run) == ("out/ck-9", None)
    assert where(d.findings[1], d.run) == ("logs/train,1.log", None)
    assert where(d.findings[1], Run(name="bare")) == (None, None)  # no file read: none claimed


@needs_examples
def test_cli_github_format_one_annotation_per_finding(tmp_path: Path) -> None:
    p = traindoc("diagnose", str(SEED_A), "--format", "github")
    assert p.returncode == 1, p.stderr
    lines = p.stdout.splitlines()
    report = json.loads(traindoc("diagnose", str(SEED_A), "-f", "json").stdout)["runs"][0]
    assert len(lines) == len(report["findings"]) and all(COMMAND.match(x) for x in lines)
    first = lines[0]
    assert first.startswith(
        f"::error file={SEED_A / 'trainer_state.json'},title=absurd-initial-loss::"
    )


def test_sarif_log_is_valid_against_the_official_schema() -> None:
    doc = sarif.to_dict([_log_run()])
    validate(doc)
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "uniform-plateau" in ids and len(ids) == len(set(ids))
    hung, spike = run["results"]
    assert hung["ruleId"] == "stalled-training" and hung["level"] == "error"
    assert ids[hung["ruleIndex"]] == "stalled-training"
    loc = hung["locations"][0]["physicalLocation"]
    assert loc == {"artifactLocation": {"uri": "logs/train,1.log"}, "region": {"startLine": 42}}
    assert spike["level"] == "note" and "region" not in spike["locations"][0]["physicalLocation"]
    assert spike["properties"]["end_step"] == 5
    rule = run["tool"]["driver"]["rules"][ids.index("stalled-training")]
    assert rule["properties"]["docs"] == "docs/rules/stalled-training.md"
    assert rule["help"]["markdown"].startswith("Steps stopped advancing")
    assert rule["defaultConfiguration"]["level"] == "error" and "helpUri" not in rule


def test_sarif_help_uri_once_the_docs_have_an_address(monkeypatch) -> None:
    monkeypatch.setattr(sarif, "DOCS_URL", "https://example.org/traindoc/rules/")
    doc = sarif.to_dict([_log_run()])
    validate(doc)
    (rule,) = [r for r in doc["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "divergence"]
    assert rule["helpUri"] == "https://example.org/traindoc/rules/divergence.md"
    monkeypatch.setattr(sarif, "DOCS_URL", None)
    doc["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/rules/x.md"
    with pytest.raises(jsonschema.ValidationError):  # helpUri must be absolute
        validate(doc)


def test_sarif_uris_are_uri_references() -> None:
    from traindoc.report.location import uri

    assert uri("my runs/train 1.log") == "my%20runs/train%201.log"
    assert uri("/abs/a b.log") == "file:///abs/a%20b.log"
    assert uri("logs/train,1.log") == "logs/train,1.log"


def test_sarif_validator_is_not_a_rubber_stamp() -> None:
    doc = sarif.to_dict([_log_run()])
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)


def test_cli_sarif_for_a_folder_with_an_unreadable_run(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    for case in ("mlflow-nonfinite", "jsonl-healthy"):
        shutil.copytree(CORPUS / case, root / case, ignore=shutil.ignore_patterns("expected.json"))
    (root / "bad").mkdir()
    (root / "bad" / "trainer_state.json").write_text('{"log_history": [')
    p = traindoc("diagnose", str(root), "--format", "sarif")
    assert p.returncode == 2, p.stderr
    doc = json.loads(p.stdout)
    validate(doc)
    (run,) = doc["runs"]
    assert run["invocations"][0]["executionSuccessful"] is False
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad")
    assert "nonfinite-loss" in {r["ruleId"] for r in run["results"]}
    assert {r["properties"]["run"].split("/")[0] for r in run["results"]} <= {
        "mlflow-nonfinite",
        "jsonl-healthy",
    }
    gh = traindoc("diagnose", str(root), "--format", "github").stdout.splitlines()
    assert all(COMMAND.match(x) for x in gh) and gh[-1].startswith("::error file=")
    assert "title=unreadable" in gh[-1]


def test_data_and_preflight_take_the_ci_formats(tmp_path: Path) -> None:
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps({"text": f"s {i % 5}"}) + "\n" for i in range(50)))
    p = traindoc("data", str(data), "--format", "sarif")
    doc = json.loads(p.stdout)
    validate(doc)
    dup = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "duplicate-samples"]
    assert dup[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(
        "/train.jsonl"
    )
    p = traindoc("preflight", "--learning-rate", "1e-6", "--regime", "pretraining", "-f", "github")
    assert p.returncode == 0, p.stderr  # without a curve, a warning: below --fail-on error
    assert p.stdout.startswith("::warning title=lr-too-low::Peak LR 1.00e-06"), p.stdout
