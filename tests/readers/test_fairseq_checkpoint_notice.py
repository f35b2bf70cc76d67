"""fairseq's checkpoint_utils notice "saved checkpoint ... (epoch 1 @ 85 updates, score
100.393)" repeats the valid line's score: understood, not a line naming a metric that was
missed (text._BEST_SAVED). Real excerpt under assets/trainers/ with its `.source.txt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import values
from traindoc.readers import load_run

ASSETS = Path(__file__).parent / "assets" / "trainers"


# -- fairseq's checkpoint notice repeats the valid score: understood, not a missed metric ---
def test_fairseq_saved_checkpoint_lines_are_understood() -> None:
    run = load_run(ASSETS / "fairseq_hydra_checkpoint_lines.log")
    (inp,) = [i for i in run.inputs if i.series is not None]
    assert not inp.lines_not_understood, inp.first_not_understood
    assert values(run, "eval_loss") == pytest.approx([729.494, 647.256])
    assert run.get("score") is None  # the checkpoint's score is no series of its own
