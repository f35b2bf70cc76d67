"""A log whose lines print no step (their order is the step) but print an epoch: a
second run appended to the file is cut where the epoch goes back to its start, as a
printed step going back would be; an epoch that steps back part-way stays one run."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_runs


def _dicts(epochs: list[float], losses: list[float]) -> list[str]:
    return [
        f"{{'loss': {x:.4f}, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch': {e:.2f}}}"
        for e, x in zip(epochs, losses, strict=True)
    ]


def _write(tmp_path: Path, lines: list[str]) -> list:
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    return load_runs(p)


def test_appended_run_whose_epoch_starts_over_is_a_new_run(tmp_path: Path) -> None:
    ep = [round(0.1 * (i + 1), 2) for i in range(30)]
    loss = [round(2.5 * 0.9**i + 0.4, 4) for i in range(30)]
    banner = ["***** Running training *****", "  Num Epochs = 3"]
    runs = _write(tmp_path, banner + _dicts(ep, loss) + banner + _dicts(ep, loss))
    assert len(runs) == 2
    assert [len(r.get("loss")) for r in runs] == [30, 30]


def test_epoch_stepping_back_part_way_stays_one_run(tmp_path: Path) -> None:
    ep = [round(0.1 * (i + 1), 2) for i in range(30)] + [round(2.0 + 0.1 * i, 2) for i in range(10)]
    loss = [round(2.5 * 0.9**i + 0.4, 4) for i in range(30)] + [0.45] * 10
    runs = _write(tmp_path, _dicts(ep, loss))
    assert len(runs) == 1
    assert len(runs[0].get("loss")) == 40
