"""The markdown report always lists Python, torch, transformers and traindoc."""

from __future__ import annotations

from pathlib import Path

import traindoc

CORPUS = Path(__file__).parents[1] / "corpus"


def test_markdown_versions_name_the_four() -> None:
    d = traindoc.diagnose(CORPUS / "healthy-finetune-cosine")
    line = next(x for x in d.to_markdown().splitlines() if x.startswith("Versions:"))
    for name in ("Python ", "torch ", "transformers ", f"traindoc {traindoc.__version__}"):
        assert name in line
    recorded = d.runs[0].run.fact("versions") or {}
    if "transformers" in recorded:  # the run's own record wins over this machine's
        assert f"transformers {recorded['transformers']}," in line
