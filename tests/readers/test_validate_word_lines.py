"""'Validate' names an evaluation as 'validation' and 'valid' do (collect23): a Swin-style
trainer whose validate() logs "INFO Validate: \\tTime ... \\tLoss cur (avg)\\tAcc@1 ..." once
per epoch prints the eval loss there; read as a train line, its loss overwrote the train
loss of the same epoch and the run's train curve was the validation's.

Built on the real lines (nicetea17/CIFAR10-Classifier-AlexNet-and-Resnet18, wandb
run-20251020_231001-9z6cd5yn files/output.log, two epochs, colour codes kept), with a near
miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values

_HEAD = "\x1b[32m[2025-10-20 23:10:{s} alexnet]\x1b[0m\x1b[33m(main.py {n})\x1b[0m: INFO "


def _line(s: str, n: int, text: str) -> str:
    return _HEAD.format(s=s, n=n) + text


_LOG = "\n".join(
    [
        _line("01", 107, "Start training"),
        _line(
            "08",
            190,
            "Train: [0/50]\tlr 0.000300\ttime 0.0224 (0.0341)\tloss 1.9983 (2.2496)"
            "\tAcc@1 23.750 (14.692)\tMem 285MB",
        ),
        _line("08", 199, "EPOCH 0 training takes 0:00:06"),
        _line("08", 113, " * Train Acc 14.692 Train Loss 2.250"),
        _line(
            "10",
            232,
            "Validate: \tTime 0.010 (0.037)\tLoss 1.8965 (1.8543)\tAcc@1 37.500 (25.630)\tMem 285MB",
        ),
        _line("10", 118, " * Val Acc 25.630 Val Loss 1.854"),
        _line(
            "15",
            190,
            "Train: [1/50]\tlr 0.000300\ttime 0.0128 (0.0253)\tloss 1.5820 (1.7600)"
            "\tAcc@1 40.000 (31.006)\tMem 285MB",
        ),
        _line("15", 199, "EPOCH 1 training takes 0:00:05"),
        _line("15", 113, " * Train Acc 31.006 Train Loss 1.760"),
        _line(
            "17",
            232,
            "Validate: \tTime 0.009 (0.036)\tLoss 1.6302 (1.5230)\tAcc@1 50.000 (40.490)\tMem 285MB",
        ),
        _line("17", 118, " * Val Acc 40.490 Val Loss 1.523"),
        "",
    ]
)


def test_a_validate_line_is_an_eval_line(tmp_path: Path) -> None:
    # before: "loss" was [1.8965, 1.6302], the Validate lines' values over the train lines'
    run = one_log(tmp_path, _LOG, name="output.log")
    assert values(run, "loss") == [1.9983, 1.582]
    assert values(run, "eval_loss") == [1.8965, 1.6302]


def test_a_validate_setting_is_no_eval_line(tmp_path: Path) -> None:
    # near miss: a train line that only names a setting with the word keeps its loss
    body = "\n".join(
        [
            "epoch 1 loss 2.10 validate_every 5",
            "epoch 2 loss 1.80 validate_every 5",
            "",
        ]
    )
    run = one_log(tmp_path, body, name="train.log")
    assert values(run, "loss") == [2.1, 1.8]
