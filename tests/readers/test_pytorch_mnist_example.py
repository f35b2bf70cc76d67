"""PyTorch's examples/mnist/main.py console output: the train line's bracket holds the
samples seen and the dataset's size (not a batch counter), the test line a count of right
answers over the test set and its share in percent. Lines as its print statements write
them:

    print('Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'.format(epoch,
          batch_idx * len(data), len(train_loader.dataset),
          100. * batch_idx / len(train_loader), loss.item()))
    print('\\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\\n'.format(
          test_loss, correct, len(test_loader.dataset), 100. * correct / len(...)))
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log, values

_BATCHES = 938  # 60000 samples in batches of 64
_EVERY = 100  # log_interval, in batches


def _epoch(epoch: int, correct: int, pct: str = "{:.0f}") -> str:
    out = ""
    for b in range(0, _BATCHES, _EVERY):
        loss = 2.3 / (1 + epoch * 10 + b / _EVERY)
        out += f"Train Epoch: {epoch} [{b * 64}/{60000} ({100.0 * b / _BATCHES:.0f}%)]\tLoss: {loss:.6f}\n"
    share = pct.format(100.0 * correct / 10000)
    out += f"\nTest set: Average loss: {0.2 / epoch:.4f}, Accuracy: {correct}/10000 ({share}%)\n\n"
    return out


def test_samples_seen_make_a_step_axis_rising_within_and_across_epochs(tmp_path: Path) -> None:
    run = one_log(tmp_path, _epoch(1, 9780) + _epoch(2, 9891) + _epoch(3, 9902))
    steps = run.get("loss").steps
    assert len(steps) == 30
    assert bool(np.all(np.diff(steps) > 0))  # never back at a new epoch
    # epoch 2's first line comes after epoch 1's last (57600 samples in)
    assert int(steps[10]) > int(steps[9]) >= 57600
    # each test line sits at its epoch's last train line, not at step 0 or a new run
    ev = run.get("eval_loss")
    assert [int(s) for s in ev.steps] == [int(steps[9]), int(steps[19]), int(steps[29])]
    assert values(run, "eval_loss") == [0.2, 0.1, 0.0667]


def test_accuracy_is_the_share_in_brackets_not_the_count(tmp_path: Path) -> None:
    run = one_log(tmp_path, _epoch(1, 9780) + _epoch(2, 9891))
    assert values(run, "eval_accuracy") == [98.0, 99.0]  # "(99%)", never 9891
    two = one_log(tmp_path, _epoch(1, 9780, "{:.2f}") + _epoch(2, 9891, "{:.2f}"))
    assert values(two, "eval_accuracy") == [97.8, 98.91]  # forks print "(98.91%)"


def test_near_miss_a_step_counter_with_its_share_done_stays_the_step(tmp_path: Path) -> None:
    body = "".join(f"Step: {s}/500 ({s / 5:.0f}%), loss: {2.0 - s / 500:.3f}\n" for s in (100, 200))
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [100, 200]
    assert values(run, "loss") == [1.8, 1.6]


def test_a_count_printed_without_its_share_is_no_accuracy(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch {e}, Test set: Average loss: {0.2 / e:.4f}, Accuracy: {9780 + e}/10000\n"
        for e in (1, 2, 3)
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [0.2, 0.1, 0.0667]
    assert run.get("eval_accuracy") is None  # 9781 right answers is no share
    assert any("not read as an accuracy" in n.message for n in run.notes)
