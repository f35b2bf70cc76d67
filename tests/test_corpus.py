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


REAL = Path(__file__).parent / "real"


def _runs(case: Path) -> list:
    import json

    from traindoc.corpus import target
    from traindoc.pipeline import load_all
    from traindoc.readers import ReadError

    files = (
        json.loads((case / "meta.json").read_text())["files"]
        if (case / "meta.json").is_file()
        else None
    )
    try:
        return load_all(target(case, files) if files else case)
    except ReadError:
        return []


@pytest.mark.parametrize(
    "case",
    [*cases(ROOT), *sorted(p.parent for p in REAL.glob("*/meta.json"))],
    ids=lambda p: p.name,
)
def test_no_rule_crashes_on_a_corpus_run(case: Path) -> None:
    """A crashing rule is caught by the engine and scored as "nothing found", which would
    hide it from `make eval`: every own and real run must diagnose without one."""
    from traindoc.engine import diagnose

    for run in _runs(case):
        d = diagnose(run)
        assert not d.errors, d.errors
