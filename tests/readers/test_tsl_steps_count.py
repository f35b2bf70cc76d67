"""The Time-Series-Library family's "Epoch: 50, Steps: 3 | Train Loss: ..." line: Steps is
len(train_loader), the batches of one epoch, not the run's step (steps._within_epochs)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log

ASSETS = Path(__file__).parent / "assets" / "trainers"


def _at(run, name: str) -> list[tuple[int, float]]:
    s = run.get(name)
    assert s is not None, f"{name} not in {sorted(run.series)}"
    return list(zip(s.steps.tolist(), s.values.tolist(), strict=True))


# -- Time-Series-Library: "Steps" is the epoch's batches, not the run's step -----------------
# tests/real/nan_inf_timesnet_long_term_vali_loss_nan_epoch50_maintainer_check_norm_issue315
# (https://github.com/thuml/Time-Series-Library/issues/315), line 1, verbatim
_TSL = "Epoch: 50, Steps: 3 | Train Loss: 1.3646304 Vali Loss: nan Test Loss: 1.4440242\n"


def test_one_tsl_epoch_line_sits_at_its_epoch_times_the_steps_per_epoch(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TSL)
    assert _at(run, "loss") == [(150, 1.3646304)]  # the 50th epoch of 3 batches ends at 150
    assert _at(run, "epoch") == [(150, 50.0)]


def test_two_tsl_epoch_lines_are_two_points(tmp_path: Path) -> None:
    body = (
        "Epoch: 1, Steps: 9 | Train Loss: 0.51 Vali Loss: 0.62 Test Loss: 0.63\n"
        "Epoch: 2, Steps: 9 | Train Loss: 0.41 Vali Loss: 0.52 Test Loss: 0.53\n"
    )
    run = one_log(tmp_path, body)
    assert _at(run, "loss") == [(9, 0.51), (18, 0.41)]
    assert _at(run, "eval_loss") == [(9, 0.62), (18, 0.52)]


def test_near_miss_a_singular_step_beside_the_epoch_is_the_step(tmp_path: Path) -> None:
    run = one_log(tmp_path, "Epoch: 5, step: 300 | Train Loss: 0.4 Vali Loss: 0.5\n")
    assert _at(run, "loss") == [(300, 0.4)]
