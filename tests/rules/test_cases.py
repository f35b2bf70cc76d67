"""One parametrised runner for every rule's case file (tests/rules/cases/<id>.yaml)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.rules.registry import load_all

CASES = Path(__file__).parent / "cases"


def _load() -> list:
    out = []
    for path in sorted(CASES.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for case in doc["cases"]:
            out.append(pytest.param(doc["rule"], case, id=f"{doc['rule']}::{case['name']}"))
    return out


@pytest.mark.parametrize(("rule_id", "case"), _load())
def test_rule_case(rule_id: str, case: dict) -> None:
    specs = load_all()
    spec = specs[rule_id]
    run = build_run(case)
    # a cause rule's case may run the symptom rules it reads as well (`with_reads: true`)
    read = [specs[r] for r in spec.reads] if case.get("with_reads") else []
    d = diagnose(run, [spec, *read])
    assert not d.errors, d.errors  # a crashing rule is a failure, not a pass
    found = [f for f in d.findings if f.rule == rule_id]
    if case["expect"] == "pass":
        assert not found, f"unexpected: {found[0].title if found else ''}"
        if case.get("judged"):  # a pass the rule reached, not a silence over too little data
            assert not [s for s in d.not_judged if s.rule == rule_id], d.not_judged
        return
    if case["expect"] == "not_judged":  # too little to judge: said so, with the reason
        assert not found, f"unexpected: {found[0].title if found else ''}"
        why = [s.reason for s in d.not_judged if s.rule == rule_id]
        assert why, f"{rule_id} neither flagged nor said why it could not judge"
        assert case.get("reason", "") in why[0], why[0]
        return
    assert found, f"{rule_id} did not flag case {case['name']!r}"
    f = found[0]
    if "severity" in case:
        assert str(f.severity) == case["severity"]
    if "step" in case:
        tol = case.get("step_tol", 0.1)
        assert f.step is not None
        assert abs(f.step - case["step"]) <= max(tol * case["step"], 2), f.step
    for key, want in (case.get("evidence") or {}).items():
        assert key in f.evidence, f"evidence lacks {key}: {sorted(f.evidence)}"
        got = f.evidence[key]
        if isinstance(want, (int, float)) and isinstance(got, (int, float)):
            assert math.isclose(got, want, rel_tol=0.02, abs_tol=1e-9), (key, got, want)
        else:
            assert got == want, (key, got, want)


def test_every_rule_has_flag_and_pass_cases() -> None:
    covered: dict[str, set[str]] = {}
    for path in CASES.glob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        covered.setdefault(doc["rule"], set()).update(c["expect"] for c in doc["cases"])
    for rule_id in load_all():
        assert covered.get(rule_id, set()) >= {"flag", "pass"}, f"{rule_id} lacks flag/pass cases"


def _curve_rules() -> set[str]:
    """Rules that read a metric series (not only facts, events, checkpoints or data)."""
    out = set()
    for spec in load_all().values():
        needs = [a for n in (*spec.requires, *spec.uses) for a in n.split("|")]
        if any(not n.startswith(("fact:", "event:")) for n in needs):
            out.add(spec.id)
    return out


def test_every_curve_rule_is_tried_on_short_and_long_logs() -> None:
    """A short paste (<= 20 points) and a long run (>= 100k points) per curve rule, in its
    case file or in test_resample's 300 / 3k / 100k cases."""
    from tests.rules.test_resample import CASES as RESAMPLED

    short: set[str] = set()
    long_: set[str] = {c[0] for c in RESAMPLED}
    for path in CASES.glob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        for case in doc["cases"]:
            if "series" not in case:
                continue
            n = max((len(s) for s in build_run(case).series.values()), default=0)
            if n <= 20:
                short.add(doc["rule"])
            if n >= 100_000:
                long_.add(doc["rule"])
    curve = _curve_rules()
    assert not curve - short, f"no short case: {sorted(curve - short)}"
    assert not curve - long_, f"no long case: {sorted(curve - long_)}"
