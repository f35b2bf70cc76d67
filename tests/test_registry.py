"""The rule registry honours the public contract in ../shared/RULES.md."""

from __future__ import annotations

from pathlib import Path

from traindoc.rules.docs import generate
from traindoc.rules.registry import load_all

# The rules issue 2 promises; RULES.md ids never change meaning once shipped.
PROMISED = """absurd-initial-loss uniform-plateau no-learning oscillating-plateau divergence loss-spike
nonfinite-loss degenerate-loss overfitting eval-stagnation lr-too-low lr-too-high warmup-too-long
warmup-too-short schedule-restarted grad-spike grad-explosion vanishing-gradients clipping-saturated
nonfinite-gradients fp16-instability small-effective-batch stalled-training resume-loss-jump
schedule-not-applied no-trainable-parameters epoch-staircase rl-no-signal""".split()

DOCS = Path(__file__).parents[1] / "docs" / "rules"


def test_promised_rules_exist() -> None:
    missing = set(PROMISED) - set(load_all())
    assert not missing, missing


def test_every_rule_is_documented() -> None:
    for spec in load_all().values():
        doc = spec.doc
        assert spec.id.replace("-", "").isalnum() and spec.id == spec.id.lower()
        assert len(doc) > 200, f"{spec.id}: docstring too short to be its page"
        for section in ("What it does", "Why it matters", "What to do"):
            assert section in doc, f"{spec.id}: docstring lacks '{section}'"


def test_every_rule_id_in_shared_contract() -> None:
    contract = Path(__file__).parents[2] / "shared" / "RULES.md"
    if not contract.exists():
        return
    text = contract.read_text()
    unknown = [r for r in load_all() if f"`{r}`" not in text]
    # New rules are allowed (same families), but must be kebab-case and few.
    assert all(r.islower() for r in unknown)


def test_every_rule_states_its_minimum_data_and_shows_an_example() -> None:
    from tests.rules.examples import examples

    shown = examples()
    for spec in load_all().values():
        assert spec.minimum, f"{spec.id}: no minimum= in its @rule"
        assert spec.id in shown, f"{spec.id}: no flag case in tests/rules/cases to show"


def test_docs_are_fresh() -> None:
    """docs/rules/ is generated; run `make docs` after changing a rule."""
    from tests.rules.examples import examples

    want = generate(examples())
    have = {p.name: p.read_text() for p in DOCS.glob("*.md")}
    stale = sorted(n for n in want if have.get(n) != want[n])
    extra = sorted(set(have) - set(want))
    assert not stale and not extra, f"stale: {stale}, extra: {extra}; run `make docs`"
