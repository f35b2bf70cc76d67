"""A Markdown table without its outer pipes: a Trainer notebook table pasted into an issue.

GitHub renders "Step | Training Loss | Validation Loss" over "-- | -- | --" as a table,
so a pasted notebook progress table often has no leading or trailing pipe. Its rows are
cut on the pipes like any Markdown row, so "No log" is a cell with no value, not a gap
that shifts the numbers into the wrong columns.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_runs

TABLE = """\
Step | Training Loss | Validation Loss | Accuracy | F1
-- | -- | -- | -- | --
150 | No log | 0.695841 | 0.503277 | 0.410575
300 | No log | 0.696622 | 0.488860 | 0.298561
450 | 0.6912 | 0.694300 | 0.499345 | 0.356902
"""


def _run(tmp_path: Path, text: str):
    p = tmp_path / "paste.txt"
    p.write_text(text)
    (run,) = load_runs(p)
    return run


def test_rows_are_cut_on_the_pipes_under_a_bare_header(tmp_path: Path) -> None:
    run = _run(tmp_path, TABLE)
    ev = run.get("eval_loss")
    assert ev is not None
    assert ev.steps.tolist() == [150, 300, 450]
    assert ev.values.tolist() == [0.695841, 0.696622, 0.6943]
    loss = run.get("loss")
    assert loss is not None  # the one logged value; "No log" is none
    assert loss.steps.tolist() == [450] and loss.values.tolist() == [0.6912]


def test_a_sentence_with_a_pipe_is_no_table(tmp_path: Path) -> None:
    # a header needs a pipe between every pair of names: a note with one pipe and a
    # loss line after it stays a loss line
    run = _run(tmp_path, "loss | note\nstep 1 loss 2.5\nstep 2 loss 2.1\nstep 3 loss 1.9\n")
    loss = run.get("loss")
    assert loss is not None and loss.values.tolist() == [2.5, 2.1, 1.9]
