"""Cause rules judge from the symptom findings (RuleSpec.reads), in the engine's second pass."""

from __future__ import annotations

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.model import Severity
from traindoc.rules.registry import load_all

# A pretrained model (2.1) wrecked by one interval at LR 5e-3: only divergence's two-point
# path can see it, lr-too-high's own curve summary needs more points.
CASE = {
    "facts": {"vocab_size": 32000},
    "series": {
        "loss": {"segments": [{"values": [2.1, 11.9]}]},
        "lr": {"segments": [{"values": [5e-3, 5e-3]}]},
    },
}


def _lr_finding(*rules: str):
    specs = load_all()
    d = diagnose(build_run(CASE), [specs[r] for r in rules])
    return next(f for f in d.findings if f.rule == "lr-too-high")


def test_lr_too_high_reads_the_divergence_found() -> None:
    f = _lr_finding("lr-too-high", "divergence")
    assert f.severity == Severity.ERROR
    assert "diverging" in f.evidence["instability"]
    # ... and it runs after divergence whatever the order the rules are given in
    assert _lr_finding("divergence", "lr-too-high").severity == Severity.ERROR


def test_without_the_symptom_rule_the_lr_alone_is_info() -> None:
    f = _lr_finding("lr-too-high")
    assert f.severity == Severity.INFO
    assert f.evidence["instability"] == "none"


def test_every_rule_read_is_a_registered_symptom_rule() -> None:
    specs = load_all()
    for spec in specs.values():
        for r in spec.reads:
            assert r in specs, f"{spec.id} reads unknown rule {r}"
            assert not specs[r].reads, f"{spec.id} reads {r}, itself a cause rule"
