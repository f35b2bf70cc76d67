"""Records drawn in a tqdm bar's own postfix (Lightning's TQDMProgressBar: "Epoch 1:  40%|
| 40/100 [00:47<01:11, 0.84it/s, v_num=0, train_loss=2.75]"), written by real tqdm the
way Lightning drives it: reset(total) at a new epoch *before* set_description, so one
redraw still names the old epoch at 0/N; per batch an update, then set_postfix.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tqdm import tqdm

from traindoc.readers.console import read, read_all


def _session(f, epochs: range, per_epoch: int, version: int, batches: int, log: bool) -> None:
    """One Trainer.fit of `batches` batches over `epochs`: with `log`, the loss joins the
    postfix at every batch; without, the postfix holds only v_num (nothing was logged)."""
    bar = tqdm(total=per_epoch, desc=f"Epoch {epochs[0]}", file=f, mininterval=0)
    post: dict = {"v_num": version}
    k = epochs[0] * per_epoch
    for e in epochs:
        if e != epochs[0]:
            bar.reset(total=per_epoch)  # drawn with the old description and postfix
            bar.set_description(f"Epoch {e}")
        for _ in range(per_epoch):
            if batches == 0:
                break
            batches -= 1
            k += 1
            time.sleep(2e-4)  # a loop, not a burst: tqdm's rate stays a few thousand it/s
            bar.update(1)
            if log:
                post["train_loss"] = f"{3.0 - 1e-3 * k:.3f}"
            bar.set_postfix(post)
    bar.close()


def _console(path: Path, per_epoch: int, logged: int, skipped_epochs: int) -> Path:
    """`logged` batches logged in session 1 (it stops there); session 2 resumes at the
    next epoch and runs `skipped_epochs` epochs logging nothing (every batch skipped)."""
    with path.open("w") as f:
        first = range(0, -(-logged // per_epoch))
        _session(f, first, per_epoch, 0, logged, log=True)
        if skipped_epochs:
            nxt = first[-1] + 1
            todo = skipped_epochs * per_epoch
            _session(f, range(nxt, nxt + skipped_epochs), per_epoch, 1, todo, log=False)
    return path


@pytest.mark.parametrize(("per_epoch", "logged"), [(50, 4), (20, 60), (200, 1000)])
def test_a_bar_that_runs_on_without_its_postfix_loss_is_stranded(
    tmp_path: Path, per_epoch: int, logged: int
) -> None:
    runs = read_all(_console(tmp_path / "c.log", per_epoch, logged, skipped_epochs=3))
    assert len(runs) == 1  # the 0/N redraw of the old epoch starts no new run
    bar = runs[0].fact("progress_after_last_step")
    assert bar is not None and bar["last_step"] == logged
    assert bar["usual"] == 1 and bar["units"] >= 2 * per_epoch


def test_a_bar_that_logs_to_its_end_is_not(tmp_path: Path) -> None:
    run = read(_console(tmp_path / "c.log", per_epoch=20, logged=100, skipped_epochs=0))
    assert run.fact("progress_after_last_step") is None
    loss = run.series["loss"]
    assert list(loss.steps) == list(range(1, 101))  # one run, epoch x 20 + batch


def test_a_counter_from_zero_keeps_its_zero(tmp_path: Path) -> None:
    """ "[Batch 0/20]" counts from 0 (it never reaches 20): its 0 is a batch of its own."""
    p = tmp_path / "gan.log"
    p.write_text(
        "".join(
            f"[Epoch {e}/3] [Batch {b}/20] [D loss: {1.0 - 0.01 * (e * 20 + b):.4f}]\n"
            for e in range(3)
            for b in range(0, 20, 5)
        )
    )
    run = read(p)
    assert list(run.series["d_loss"].steps)[:5] == [  # the player's loss, named as printed
        0,
        5,
        10,
        15,
        20,
    ]
