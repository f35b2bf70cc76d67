"""OpenMMLab configs dumped at the head of a log: the step schedule and the epochs it runs
(readers/logs/settings.mm_schedule). A real case it must read, near misses it must leave."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log
from traindoc.readers.logs.settings import mm_schedule

REAL = Path(__file__).resolve().parents[1] / "real"
_LINES = "".join(
    f"2022-07-28 17:5{e}:00,000 - mmcls - INFO - Epoch [{e}][100/239]\tlr: 1.000e-03, "
    f"eta: 0:30:58, time: 0.052, data_time: 0.021, memory: 68, loss: {0.1 - e / 100:.4f}\n"
    for e in range(1, 6)
)


def test_mmcls_step_schedule_and_runner_epochs(tmp_path: Path) -> None:
    body = (
        "lr_config = dict(policy='step', gamma=0.9, step=200)\n"
        "runner = dict(type='EpochBasedRunner', max_epochs=200)\n" + _LINES
    )
    facts = one_log(tmp_path, body).facts
    assert facts["lr_first_decay_epoch"].value == 200
    assert facts["num_train_epochs"].value == 200


@pytest.mark.parametrize(
    ("line", "want"),
    [
        (b"lr_config = dict(policy='step', step=[8, 11])", {"lr_first_decay_epoch": 8}),
        (b"total_epochs = 12", {"num_train_epochs": 12}),
        (
            b"param_scheduler = [dict(type='LinearLR', start_factor=0.001, by_epoch=False, "
            b"begin=0, end=500), dict(type='MultiStepLR', begin=0, end=12, by_epoch=True, "
            b"milestones=[8, 11], gamma=0.1)]",
            {"lr_first_decay_epoch": 8},
        ),
        (b"train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=12)", {"num_train_epochs": 12}),
        # near misses: iterations, not epochs; another policy; not a literal
        (b"lr_config = dict(policy='step', by_epoch=False, step=[60000, 80000])", {}),
        (b"runner = dict(type='IterBasedRunner', max_iters=80000)", {}),
        (b"lr_config = dict(policy='CosineAnnealing', min_lr=0, by_epoch=False)", {}),
        (b"lr_config = dict(policy='step', step=steps)", {}),
        (b"param_scheduler = dict(type='MultiStepLR', begin=3, milestones=[8, 11])", {}),
        (b"optimizer = dict(type='SGD', lr=0.02, momentum=0.9)", {}),
    ],
)
def test_mm_schedule_lines(line: bytes, want: dict) -> None:
    assert mm_schedule(line) == want


def test_real_mmcls_issue_reads_the_step_that_never_comes() -> None:
    from traindoc.pipeline import load_all

    case = REAL / "bad_lr_schedule_mmcls_step_policy_step200_equals_max_epochs_lr_const_1e3_issue"
    (run,) = load_all(case)
    assert run.fact("lr_first_decay_epoch") == 200
    assert run.fact("num_train_epochs") == 200
