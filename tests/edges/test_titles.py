"""Titles say what happened in plain words, never a rule id, a kind or an option's value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import traindoc
from traindoc.rules.registry import load_all

CORPUS = Path(__file__).parents[1] / "corpus"
RUNS = ["grad-explosion", "lightning-divergence", "healthy-finetune-cosine", "mlflow-nonfinite"]


@pytest.mark.parametrize("name", RUNS)
def test_titles_have_no_internal_names(name: str) -> None:
    ids = set(load_all())
    internal = ids | {"loss-rise", "full-finetune", "unknown regime", "state-missing"}
    titles = [f.title for f in traindoc.diagnose(CORPUS / name).findings]
    assert titles
    for t in titles:
        words = set(re.findall(r"[a-z]+(?:-[a-z]+)+", t)) | {
            w for w in internal if " " in w and w in t
        }
        assert not words & internal, t
