"""Every real faulty run is flagged; every real healthy run comes out healthy."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.corpus import cases, score

ROOT = Path(__file__).parent / "corpus"
CASES = cases(ROOT) + cases(Path(__file__).parents[1] / "examples")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(case: Path) -> None:
    r = score(case)
    assert r.error is None, r.error
    assert not r.missed, f"expected {r.missed} not found (found {r.found + r.info})"
    assert not r.false_alarms, f"healthy run flagged: {r.false_alarms}"


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 10
