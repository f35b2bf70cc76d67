"""Every real run in tests/corpus reads into a Run with curves, and nothing is written.

The corpus is produced by scripts/make_fixtures.py from real HF / Lightning /
plain-PyTorch trainings; these tests skip only while that directory is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_checked

ROOT = Path(__file__).parents[1] / "corpus"
CASES = sorted(p.parent for p in ROOT.glob("*/expected.json")) if ROOT.is_dir() else []


@pytest.mark.skipif(not CASES, reason="tests/corpus not generated yet")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_real_run_reads(case: Path) -> None:
    run = load_checked(case)
    assert run.get("loss") is not None or run.series, f"{case.name}: no series read"
    assert run.fact("trainer"), f"{case.name}: the reader did not say which tool wrote it"
    for note in run.notes:
        assert "malformed" not in note.message, f"{case.name}: {note}"
    if run.fact("trainer") == "hf" and (case / "config.json").is_file():
        assert run.fact("vocab_size") or run.fact("num_classes")
    if (case / "training_args.bin").is_file():
        assert run.fact("learning_rate") is not None and run.fact("effective_batch")
