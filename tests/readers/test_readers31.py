"""tqdm epoch bars (readers31): GluonCV's train.py describes each epoch's bar with its
metrics, "Epoch 3, training loss 0.227: 100%|██████████| 709/709 [...]" and then "Epoch 3,
validation pixAcc: 0.870, mIoU: 0.582: 100%|██████████| 179/179 [...]" (dmlc/web-data
gluoncv/logs/segmentation/fcn_resnet50_voc.log). The train bar's total alternates by a
batch under a distributed sampler (709, 710). Before, the 710 bars were read as a second
loader's pass of epoch 0 (the one "Starting Epoch: 0" line above them) and every finished
bar as a counter numbering the stepless records: 55 runs of one point.

Each fix has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import read_log, values

_FULL = "\u2588" * 10


def _gluoncv(epochs: int = 6, heading: bool = True, totals: tuple[int, ...] = (709, 710, 710)):
    out = []
    if heading:
        out += ["  0%|          | 0/709 [00:00<?, ?it/s]", "Starting Epoch: 0", "Total Epoches: 50"]
    for e in range(epochs):
        t = totals[e % len(totals)]
        out.append(
            f"Epoch {e}, training loss {0.31 - 0.02 * e:.3f}: 100%|{_FULL}| {t}/{t} "
            "[05:03<00:00,  2.34it/s]"
        )
        out.append(
            f"Epoch {e}, validation pixAcc: {0.841 + 0.005 * e:.3f}, mIoU: {0.489 + 0.01 * e:.3f}: "
            f"100%|{_FULL}| 179/179 [01:43<00:00,  1.73it/s]"
        )
    return "\n".join(out) + "\n"


def _steps(run, name: str) -> list[int]:
    return [int(s) for s in run.get(name).steps]


def test_gluoncv_epoch_bars_with_alternating_totals_are_one_run(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _gluoncv())
    assert values(run, "loss") == [0.31, 0.29, 0.27, 0.25, 0.23, 0.21]
    # one point an epoch, (epoch + 1) x that epoch's batches
    assert _steps(run, "loss") == [709, 1420, 2130, 2836, 3550, 4260]
    # the validation pass counts its own batches: it sits at its epoch's train line
    assert _steps(run, "eval_miou") == _steps(run, "loss")
    assert values(run, "eval_miou") == [0.489, 0.499, 0.509, 0.519, 0.529, 0.539]
    assert "eval_training_loss" not in run.series and "eval_loss" not in run.series


def test_gluoncv_epoch_bars_without_a_heading(tmp_path: Path) -> None:
    (run,) = read_log(tmp_path, _gluoncv(heading=False))
    assert _steps(run, "loss") == [709, 1420, 2130, 2836, 3550, 4260]
    assert _steps(run, "eval_miou") == _steps(run, "loss")


def test_gluoncv_epoch_bars_of_one_total(tmp_path: Path) -> None:
    # near miss: a single-GPU run, every train bar 709: read as it was
    (run,) = read_log(tmp_path, _gluoncv(totals=(709,)))
    assert _steps(run, "loss") == [709, 1418, 2127, 2836, 3545, 4254]
    assert _steps(run, "eval_miou") == _steps(run, "loss")


def test_climbing_bar_still_numbers_the_dicts_before_it(tmp_path: Path) -> None:
    # near miss: HF's dicts numbered by the bar drawn after them, which climbs (and ends
    # finished): not an epoch's bar
    lines = ["  0%|          | 0/40 [00:00<?, ?it/s]"]
    for k in range(1, 5):
        lines.append(f"{{'loss': {2.0 - 0.1 * k:.1f}, 'learning_rate': 5e-05, 'epoch': {k / 4}}}")
        bar = _FULL[: k * 10 // 4].ljust(10)
        lines.append(f" {k * 25}%|{bar}| {k * 10}/40 [00:0{k}<00:00,  2.00it/s]")
    (run,) = read_log(tmp_path, "\n".join(lines) + "\n")
    assert _steps(run, "loss") == [10, 20, 30, 40]
