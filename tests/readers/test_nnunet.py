"""nnU-Net's epoch blocks: an `epoch:  N` heading, then timestamped `train loss :`,
`validation loss:`, `Average global foreground Dice: [...]` and `lr:` lines, each a point
at that epoch (the Dice list read as its mean). A real paste it must read, and near misses
it must leave to the generic reader.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.readers import load_run

REAL = Path(__file__).resolve().parents[1] / "real"
_NNUNET = REAL / "no_learning_nnunet_global_foreground_dice_0_epochs_99_100_momentum_warning"


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


def test_nnunet_epoch_block_values_are_points_at_their_epoch() -> None:
    run = load_run(_NNUNET / "log_excerpt.txt")
    for name in ("loss", "eval_loss", "eval_dice", "lr", "epoch"):
        assert _steps(run, name) == [99.0, 100.0], name
    assert values(run, "loss") == [-0.3417, -0.3656]
    assert values(run, "eval_loss") == [-0.3713, -0.3831]
    assert values(run, "eval_dice") == [0.0, 0.0]
    assert values(run, "lr") == [0.009095, 0.009086]


def test_nnunet_dice_list_is_read_as_its_mean(tmp_path: Path) -> None:
    body = "".join(
        f"2022-06-20 07:56:48.872122: \nepoch:  {e} \n"
        f"2022-06-20 07:57:38.016679: train loss : 0.{40 - e} \n"
        f"2022-06-20 07:57:41.970286: validation loss: 0.{30 - e} \n"
        f"2022-06-20 07:57:41.971284: Average global foreground Dice: [0.8, 0.{e}, 0.0] \n"
        for e in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "eval_dice") == [1.0, 2.0, 3.0, 4.0]
    assert abs(values(run, "eval_dice")[1] - (0.8 + 0.2) / 3) < 1e-12
    assert values(run, "loss") == [0.39, 0.38, 0.37, 0.36]


def test_train_loss_lines_without_an_epoch_heading_are_left_to_the_generic_reader(
    tmp_path: Path,
) -> None:
    body = "".join(f"step {s} train loss : 1.{s}\n" for s in range(1, 6))
    run = one_log(tmp_path, body)
    assert "eval_dice" not in run.series
    assert len(run.get("loss")) == 5
