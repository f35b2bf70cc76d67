"""rsl_rl's PPO iteration block (legged_gym, Isaac Lab, HOVER): a centred `Learning
iteration N/M` head over right-aligned `Name: value` rows, one block per iteration.

The lines are verbatim from: isaac-sim/IsaacLab issue #5084 (the Isaac Lab runner's
`Mean value loss` / `Total steps` variant), NVlabs/HOVER issue #45 (rsl_rl 1.x's `Value
function loss` / `Surrogate loss`), and two committed training notes found in the code
index (rsl_rl 2.x's `Mean value_function loss` with `Episode_Reward/...` rows, a HIMLoco
run at iterations 1907 and 1945)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import ASSETS as _ASSETS
from tests.readers.helpers import one_log, values

ASSETS = _ASSETS / "trainers"

ISAACLAB_5084 = (ASSETS / "rsl_rl_isaaclab_5084.log").read_text()

HOVER_45 = (ASSETS / "rsl_rl_hover_45.log").read_text()


HEAD_PAD = " " * 22  # the head is centred in 80 columns: its trailing spaces


def _block(it: int, vf: str, surr: str, rew: str, terms: str, total: str) -> str:
    return f"""\
################################################################################
                     Learning iteration {it}/20000{HEAD_PAD}

                       Computation: 44920 steps/s (collection: 2.042s, learning 0.147s)
             Mean action noise std: 0.62
          Mean value_function loss: {vf}
               Mean surrogate loss: {surr}
              Mean estimation loss: 0.0367
                    Mean swap loss: 0.1019
                       Mean reward: {rew}
               Mean episode length: 1000.00
       Episode_Reward/lin_vel_z_l2: -0.0530
{terms}         Curriculum/terrain_levels: 0.6760
Metrics/base_velocity/error_vel_xy: 0.6693
      Episode_Termination/time_out: 1.0000
--------------------------------------------------------------------------------
                   Total timesteps: {total}
                    Iteration time: 2.19s
                      Time elapsed: 00:04:01
                               ETA: 11:13:21
"""


def test_isaaclab_block_reads_its_losses_and_reward_at_the_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, ISAACLAB_5084)
    # the rows before the first head belong to an iteration the paste does not number
    assert run.get("value_loss").steps.tolist() == [1]
    assert values(run, "value_loss") == [19.6685]
    assert values(run, "policy_loss") == [-0.0076]
    assert values(run, "reward") == [-4.08]
    assert values(run, "episode_length") == [22.67]
    assert values(run, "entropy") == [1.3166]
    assert run.is_rl
    for timing in ("throughput", "collection_time", "learning_time", "mean_reward"):
        assert run.get(timing) is None


def test_rsl_rl_1x_block_numbers_by_the_iteration_not_the_block_count(tmp_path: Path) -> None:
    second = HOVER_45.replace("156025", "156026").replace("4006.23", "4106.23")
    run = one_log(tmp_path, HOVER_45 + second)
    assert run.get("reward").steps.tolist() == [156025, 156026]
    assert values(run, "reward") == [4006.23, 4106.23]
    # the critic's loss is read, not dropped beside the surrogate
    assert values(run, "value_loss") == [736518.8656, 736518.8656]
    assert values(run, "policy_loss") == [-0.0096, -0.0096]


def test_per_term_rows_and_counters_are_not_series(tmp_path: Path) -> None:
    body = _block(1907, "0.1451", "-0.0055", "79.81", "", "10616832") + _block(
        1945, "0.1400", "-0.0072", "78.05", "", "4521984"
    )
    run = one_log(tmp_path, body)
    assert run.get("reward").steps.tolist() == [1907, 1945]
    assert values(run, "value_loss") == [0.1451, 0.14]
    assert values(run, "estimation_loss") == pytest.approx([0.0367, 0.0367])
    names = set(run.series)
    assert not any("episode_reward" in n or "termination" in n or "curriculum" in n for n in names)
    assert "total_timesteps" not in names and "timesteps" not in names


def test_a_nan_surrogate_is_read_as_a_nonfinite_component(tmp_path: Path) -> None:
    body = _block(381, "0.0086", "-0.0041", "12.5", "", "100") + _block(
        382, "nan", "nan", "12.1", "", "200"
    )
    run = one_log(tmp_path, body)
    vf = values(run, "value_loss")
    assert vf[0] == 0.0086 and vf[1] != vf[1]


def test_the_block_ends_at_its_eta_row(tmp_path: Path) -> None:
    body = _block(5, "0.1451", "-0.0055", "79.81", "", "100") + "Epoch 3: loss: 0.52\n"
    run = one_log(tmp_path, body)
    assert values(run, "reward") == [79.81]
    assert values(run, "loss")[-1] == 0.52  # the print after the block is read as its own
