"""PyTorch's ReduceLROnPlateau(verbose=True) message names the scheduler (healthy35).

Only that scheduler prints "Epoch N: reducing learning rate of group 0 to X.": its cuts
follow the monitored metric, so the LR falling to ~0 early in the plan is the metric
stalling, not a horizon set too short (schedule-not-applied reads `lr_scheduler`).
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_runs

_BODY = "epoch 1 - loss 2.0\nepoch 2 - loss 1.9\n"


def _run(tmp_path: Path, message: str):
    p = tmp_path / "train.log"
    p.write_text(_BODY + message + "epoch 3 - loss 1.8\n")
    (run,) = load_runs(p)
    return run


def test_the_plateau_message_names_reduce_lr_on_plateau(tmp_path: Path) -> None:
    # schnetpack's PaiNN log prints it verbatim: "Epoch 00087: reducing learning rate of group 0 to 5.0000e-04."
    run = _run(tmp_path, "Epoch 00087: reducing learning rate of group 0 to 5.0000e-04.\n")
    assert run.fact("lr_scheduler") == "ReduceLROnPlateau"


def test_a_sentence_about_reducing_the_rate_names_no_scheduler(tmp_path: Path) -> None:
    said = "So at epoch 29 I tried reducing the learning rate of group 0 to 1e-4 by hand.\n"
    assert _run(tmp_path, said).fact("lr_scheduler") is None
