"""A console capture that kept few of a run's epoch headings (W&B's output.log of a Faster
R-CNN trainer: its "Training Parameters" table, then per epoch a tqdm bar over 1541
batches of which only some redraws survive, an eval bar over 1000 images and "Mean
Average Precision = x%", and one "Epoch 13/20" line in 20 epochs). The table's
"Epochs            : 20" is how many epochs the run plans, not a heading; under one heading
the bar that finished and counts from 1 again (or shows 100% again after the eval bar) is
the next epoch: one run, the k-th epoch's bar at (k - 1) x 1541 + n. Read as epoch 20's
(then epoch 13's) bars, every epoch sat on the same 1541 steps: 11 runs.

The lines are the case's own (tests/real/healthy_faster_rcnn_resnet50_voc_person_lr1e-3_
20ep_map_24_to_58_wandb_output_log), cut after epoch 17's finished bar.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers.console import read_all

CASE = (
    Path(__file__).resolve().parents[1]
    / "real"
    / "healthy_faster_rcnn_resnet50_voc_person_lr1e-3_20ep_map_24_to_58_wandb_output_log"
    / "run-20240105_152835-ff14wg7c"
    / "files"
    / "output.log"
)
N = 1541  # batches per epoch


def _lines(epochs: int) -> list[bytes]:
    """The capture's lines (blank ones too), verbatim, up to the given epoch's 100% bar."""
    out: list[bytes] = []
    done = 0
    for ln in CASE.read_bytes().split(b"\n"):
        out.append(ln)
        if b"| 1541/1541 [" in ln:
            done += 1
            if done == epochs:
                return out
    raise AssertionError("the log has fewer epochs")


def _write(path: Path, *sessions: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(ln for s in sessions for ln in s) + b"\n")
    return path


def _finished(run) -> list[int]:
    """The steps of the records on a finished bar (1541/1541): each an epoch's end."""
    loss = run.series["loss"]
    return sorted({int(s) for s in loss.steps if int(s) % N == 0})


def test_one_run_of_epochs_when_headings_are_lost(tmp_path: Path) -> None:
    lines = _lines(17)
    assert sum(b"Epoch 13/20" in ln for ln in lines) == 1  # the one heading kept
    assert any(b"Epochs            : 20" in ln for ln in lines)
    runs = read_all(_write(tmp_path / "output.log", lines))
    assert len(runs) == 1
    run = runs[0]
    assert _finished(run) == [N * k for k in range(1, 18)]
    loss = run.series["loss"]
    assert int(loss.steps[-1]) == 17 * N
    assert float(loss.values[-1]) == 0.33  # epoch 17's total_loss=0.33 at its 100% bar
    # epoch 3's bar kept at "1/1541 [..., total_loss=0.45]": 2 x 1541 + 1
    at = list(loss.steps).index(2 * N + 1)
    assert float(loss.values[at]) == 0.45
    assert run.facts["num_train_epochs"].value == 20


def test_script_started_again_is_a_second_run(tmp_path: Path) -> None:
    # near miss: the same script restarted in one file, its parameters table printed
    # again: the second session's bars count from epoch 1 again, a run of its own
    first, second = _lines(17), _lines(15)
    runs = read_all(_write(tmp_path / "output.log", first, second))
    assert len(runs) == 2
    assert _finished(runs[0]) == [N * k for k in range(1, 18)]
    assert _finished(runs[1]) == [N * k for k in range(1, 16)]
