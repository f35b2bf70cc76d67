"""The Python API: the CLI's diagnosis as values, the same JSON, a notebook's inline report."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import traindoc
from tests.test_cli import SEED_A, needs_examples
from tests.test_cli import traindoc as cli
from traindoc.engine import Diagnosis as RunDiagnosis
from traindoc.model import Finding, Run, Severity

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "tests" / "corpus"
CKPT = ROOT / "tests" / "ckpt" / "assets"


@needs_examples
def test_diagnose_returns_the_cli_report_as_values() -> None:
    d = traindoc.diagnose(SEED_A)
    assert isinstance(d, traindoc.Diagnosis) and len(d.runs) == 1
    assert d.verdict == "broken" and d.exit_status() == 1
    assert d.findings[0].rule == "absurd-initial-loss"  # root causes first
    assert {"no-learning", "lr-too-low"} <= {f.rule for f in d.findings}
    assert repr(d) == f"<traindoc.Diagnosis broken: seed-a ({len(d.findings)} findings)>"
    # to_json() is what `traindoc diagnose --format json` prints
    doc = json.loads(d.to_json())
    assert doc["schema_version"] == 2 and len(doc["runs"]) == 1
    assert doc == json.loads(cli("diagnose", str(SEED_A), "-f", "json").stdout)
    md = d.to_markdown()
    assert md.startswith("### traindoc: `seed-a` is **broken**") and "`lr-too-low`" in md


@needs_examples
def test_keyword_overrides_select_ignore_and_thresholds() -> None:
    assert [f.rule for f in traindoc.diagnose(SEED_A, select=["rate"]).findings] == ["lr-too-low"]
    rules = {f.rule for f in traindoc.diagnose(SEED_A, ignore=["lr-too-low", "grads"]).findings}
    assert "lr-too-low" not in rules and "clipping-saturated" not in rules
    assert "no-learning" in rules
    # seed A's LR 1e-6 is only "too low" while the pre-training threshold is above it
    raised = traindoc.diagnose(SEED_A, rules={"lr-too-low": {"flag_at": {"pretraining": 1e-7}}})
    assert "lr-too-low" not in {f.rule for f in raised.findings}
    lora = traindoc.diagnose(SEED_A, regime="lora", vocab_size=32000)
    facts = lora.runs[0].run.facts
    assert facts["regime"].value == "lora" and facts["regime"].source == "regime="
    assert facts["vocab_size"].value == 32000
    assert traindoc.diagnose(SEED_A, fail_on="never").exit_status() == 0


def test_bad_input_and_bad_settings_raise_instead_of_exiting(tmp_path: Path) -> None:
    with pytest.raises(traindoc.InputError, match="no such file"):
        traindoc.diagnose(tmp_path / "nope")
    with pytest.raises(traindoc.SettingsError) as err:
        traindoc.diagnose(tmp_path, select=["lr-to-low"], rules={"lr-too-low": {"flagat": 1}})
    assert len(err.value.errors) == 2
    assert "did you mean 'lr-too-low'" in err.value.errors[0]
    assert "valid: flag_at, expected" in err.value.errors[1]
    assert isinstance(err.value, traindoc.InputError)  # one exception type to catch


def test_a_folder_and_a_single_run_share_one_shape(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    for case in ("jsonl-healthy", "mlflow-nonfinite"):
        shutil.copytree(CORPUS / case, root / case, ignore=shutil.ignore_patterns("expected.json"))
    (root / "broken").mkdir()
    (root / "broken" / "trainer_state.json").write_text('{"log_history": [')
    d = traindoc.diagnose(root)
    assert len(d.runs) == 2 and [u.name for u in d.unreadable] == ["broken"]
    assert d.verdict == "broken" and d.exit_status() == 2  # an unreadable run wins the exit
    doc = json.loads(d.to_json())
    assert doc["schema_version"] == 2 and len(doc["runs"]) == len(doc["summary"]) == 3
    assert doc == json.loads(cli("diagnose", str(root), "-f", "json").stdout)
    one = json.loads(traindoc.diagnose(root / "jsonl-healthy").to_json())
    assert set(one) == {"schema_version", "traindoc_version", "runs"}
    assert set(one["runs"][0]) == set(doc["runs"][0])  # the same per-run keys
    assert "## Summary" in d.to_markdown()


def _one(name: str, title: str) -> traindoc.Diagnosis:
    f = Finding("loss-spike", "loss", Severity.WARNING, title, step=3)
    return traindoc.Diagnosis((RunDiagnosis(Run(name=name), (f,)),))


def test_notebook_repr_is_the_html_report_in_a_sandboxed_frame() -> None:
    html = _one("<b>run</b>", "spike <script>alert(1)</script>")._repr_html_()
    assert html.count("<iframe") == 1 and 'sandbox="allow-scripts"' in html
    # the whole page (its script, CSS and CSP) is inside srcdoc, escaped: nothing of it,
    # and nothing from the run, reaches the notebook's own page as markup
    assert "<script" not in html and "<meta" not in html and "<b>run</b>" not in html
    # escaped twice: once by the page (text), once more for the srcdoc attribute
    assert "&amp;lt;script&amp;gt;alert(1)" in html
    assert 'title="traindoc: &lt;b&gt;run&lt;/b&gt;"' in html


def test_notebook_repr_of_a_folder_has_the_summary_then_each_run() -> None:
    a, b = _one("a", "spike"), _one("b", "other")
    d = replace(a, runs=a.runs + b.runs)
    html = d._repr_html_()
    assert html.startswith("<table>") and html.count("<iframe") == 2
    assert "<td>suspect</td>" in html and "<td>loss-spike</td>" in html


def test_ckpt_audit_data_and_preflight() -> None:
    import traindoc.ckpt.stats  # the subpackage imported: traindoc.ckpt still calls

    d = traindoc.ckpt(CKPT / "seed-a")
    exploded = [f for f in d.findings if f.rule == "exploded-weights"]
    assert exploded and exploded[0].evidence["tensor"] == "lm_head.weight"
    doc = json.loads(d.to_json())  # `traindoc ckpt --format json`
    assert {c["name"] for c in doc["checkpoints"]} == {"best", "checkpoint-30"}
    printed = json.loads(cli("ckpt", str(CKPT / "seed-a"), "-f", "json").stdout)
    for c in (*doc["checkpoints"], *printed["checkpoints"]):
        c.pop("seconds")  # how long the read took
    assert doc == printed
    with pytest.raises(traindoc.InputError):
        traindoc.ckpt(CKPT / "nope")

    p = traindoc.preflight(learning_rate=1e-6, regime="pretraining")
    assert "lr-too-low" in {f.rule for f in p.findings}
    assert "preflight" in json.loads(p.to_json())
    with pytest.raises(traindoc.InputError, match="unknown regime"):
        traindoc.preflight(regime="x")


def test_audit_data(tmp_path: Path) -> None:
    data = tmp_path / "train.jsonl"
    rows = [{"text": f"sample {i % 40}", "label": i % 2} for i in range(200)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    d = traindoc.audit_data(data)
    assert d.runs[0].run.data.rows == 200
    assert "duplicate-samples" in {f.rule for f in d.findings}
    assert json.loads(d.to_json())["data"]["rows"] == 200
    assert "duplicate-samples" not in {
        f.rule for f in traindoc.audit_data(data, ignore=["duplicate-samples"]).findings
    }
    with pytest.raises(traindoc.InputError):
        traindoc.audit_data(tmp_path / "missing.jsonl")


def test_diagnosis_types_are_model_data_still_named_where_they_were() -> None:
    """Renderers take them from model/; engine and result keep the old names for users."""
    import traindoc.engine as engine
    import traindoc.result as result
    from traindoc.model import diagnosis

    assert engine.Diagnosis is diagnosis.Diagnosis and engine.Skipped is diagnosis.Skipped
    assert result.Unreadable is diagnosis.Unreadable
    assert RunDiagnosis is diagnosis.Diagnosis
