"""Reader fixes found on real cases (issue 12, readers8): a TensorBoard loss logged at two
granularities, mainrun's JSON events, spaCy training tables, MXNet's epoch lines, fp16
loss-scale messages, and Keras 1's epoch line after early stopping.

Each fix has a real case it must read, and a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import tensorboard as tb
from traindoc.readers._tbevents import encode_scalar, encode_version
from traindoc.readers._tfrecord import frame

REAL = Path(__file__).resolve().parents[1] / "real"
T0 = 1.7e9

# -- 1. a TensorBoard loss per iteration and per epoch: the finer one is the loss ----------


def _events(tmp_path: Path, points: dict[str, list[tuple[int, float]]]) -> Path:
    events = [encode_version(T0)]
    for tag, pts in points.items():
        events += [encode_scalar(tag, v, s, T0 + s) for s, v in pts]
    f = tmp_path / "events.out.tfevents.1.host"
    f.write_bytes(b"".join(frame(e) for e in events))
    return f


def test_lbsgd_iteration_loss_is_the_loss_and_lr_is_read() -> None:
    case = (
        REAL / "healthy_lbsgd_resnet18_cifar100_b1024_step_decay_x10_at_150_225_acc_74p4_tfevents"
    )
    run = tb.read(case / "s3" / "s3_b1024")
    loss = run.get("loss")
    assert len(loss) == 14700 and loss.source.endswith("Train/Loss per Iteration")
    assert round(float(loss.values[0]), 4) == 4.7391  # the iteration value, not a sum
    assert len(run.get("train/average loss per epoch")) == 300
    lr = run.get("lr")
    assert len(lr) == 300 and round(float(lr.values[-1]), 6) == 0.004


def test_per_epoch_loss_alone_is_the_loss_and_real_parts_still_sum(tmp_path: Path) -> None:
    epoch = _events(tmp_path, {"Train/Average Loss per Epoch": [(1, 2.0), (2, 1.5)]})
    run = tb.read(epoch)
    assert run.get("loss").values.tolist() == [2.0, 1.5]
    parts = tmp_path / "parts"
    parts.mkdir()
    pts = {
        "train/box_loss": [(1, 1.0), (2, 0.5)],
        "train/cls_loss": [(1, 2.0), (2, 1.0)],
        "Train/Time per Iteration": [(1, 0.3), (2, 0.3)],
    }
    run = tb.read(_events(parts, pts))
    assert "loss" not in run.series  # tensorboard keeps the parts; derived.py sums them
    assert "train/time per iteration" in run.series
