"""An eval loop's own tqdm bar between epoch-numbered train bars (a segmentation trainer's
"Train Epoch 9: 100%|...| 30/30 [..., Loss=0.15, Dice=0.67, LR=1.00e-04]", then every few
epochs "Validate: 100%|...| 8/8 [..., Val Loss=0.16, Val Dice=0.61]"): the eval bar counts
the eval loader's 8 batches, not the run, so each eval sits at the train step before it,
in one run. Read as an epoch count of its own (1, 2, ...), every eval sent the steps back
and started a new run.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers.console import read_all

BAR = "\u2588" * 10


def _train(e: int, loss: float) -> str:
    return (
        f"Train Epoch {e}: 100%|{BAR}| 30/30 [00:04<00:00,  7.23it/s, "
        f"Loss={loss:.4f}, Dice=0.500, IoU=0.400, LR=1.00e-04]"
    )


def _val(loss: float) -> str:
    return (
        f"Validate: 100%|{BAR}| 8/8 [00:00<00:00, 19.12it/s, "
        f"Val Loss={loss:.4f}, Val Dice=0.600, Val IoU=0.500]"
    )


def _log(path: Path, epochs: int, every: int) -> Path:
    lines = []
    for e in range(epochs):
        lines.append(_train(e, 0.5 - 0.01 * e))
        if e % every == 0:
            lines.append(_val(0.6 - 0.01 * e))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_eval_bars_sit_at_the_train_step_before_them(tmp_path: Path) -> None:
    runs = read_all(_log(tmp_path / "train.log", epochs=12, every=4))
    assert len(runs) == 1
    loss, ev = runs[0].series["loss"], runs[0].series["eval_loss"]
    assert list(loss.steps) == [30 * (e + 1) for e in range(12)]
    assert list(ev.steps) == [30, 150, 270]  # epochs 0, 4, 8: after their train bar
    assert [round(float(v), 4) for v in ev.values] == [0.6, 0.56, 0.52]


def test_eval_bars_alone_still_count_epochs(tmp_path: Path) -> None:
    """Near miss: with no train line numbering the run, finished bars are its only
    counter (a Keras-style log of one finished bar per epoch): one point each, in order."""
    path = tmp_path / "val.log"
    path.write_text("\n".join(_val(0.6 - 0.01 * k) for k in range(5)) + "\n", encoding="utf-8")
    runs = read_all(path)
    assert len(runs) == 1
    ev = runs[0].series["eval_loss"]
    assert list(ev.steps) == [1, 2, 3, 4, 5]
