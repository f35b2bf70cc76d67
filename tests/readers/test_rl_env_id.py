"""The RL environment id (Gym / ALE) and the reward spread, read from logs as printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.measure.rl_envs import find_env_id, find_env_in_name, level_of, top_lr
from traindoc.readers import load_run

SB3_TABLE = """\
Using cuda device
Namespace(algo='ppo', env='BreakoutNoFrameskip-v4', tensorboard_log='', n_timesteps=-1)
----------------------------------
| rollout/            |          |
|    ep_len_mean      | 187      |
|    ep_rew_mean      | 1.5      |
|    exploration_rate | 0.05     |
| time/               |          |
|    episodes         | 4        |
|    fps              | 1010     |
|    time_elapsed     | 0        |
|    total_timesteps  | 2400000  |
----------------------------------
"""

A2C_LINE = (
    "Updates 10030, num timesteps 802480, FPS 1828, mean/median reward -20.4/-20.0, "
    "min/max reward -21.0/-19.0, entropy 1.77331, value loss 0.02498, policy loss 0.03232\n"
)

VERL = (
    "step:1 - actor/pg_loss:0.0 - actor/grad_norm:0.0 - critic/score/mean:0.0 - "
    "critic/score/max:0.0 - critic/score/min:0.0 - critic/advantages/max:0.0 - "
    "critic/advantages/min:0.0 - response_length/clip_ratio:0.1\n"
)

TRL_GRPO = (
    "{'loss': 0.0, 'grad_norm': 0.0, 'learning_rate': 1e-06, 'completions/clipped_ratio': 0.0, "
    "'rewards/accuracy_reward/mean': 0.0, 'rewards/accuracy_reward/std': 0.0, 'reward': 0.0, "
    "'reward_std': 0.0, 'frac_reward_zero_std': 1.0, 'kl': 0.0, 'epoch': 0.01}\n"
)


@pytest.mark.parametrize(
    ("text", "env"),
    [
        ("Namespace(env_name='PongNoFrameskip-v4', lr=0.0007)", "PongNoFrameskip-v4"),
        ("env_id: ALE/Breakout-v5", "ALE/Breakout-v5"),
        ("Creating environment SpaceInvadersDeterministic-v4 ...", "SpaceInvadersDeterministic-v4"),
        ("logs/ppo/CartPole-v1_3/0.monitor.csv", "CartPole-v1"),
        ("runs/LunarLander-v2__dqn__1__1690000000", "LunarLander-v2"),
        ("microsoft/deberta-v3-base, DeBERTa-v3", None),  # a model, not an environment
        ("MyGridWorld-v0", None),  # no known random level
        ("python train.py --algo sac --env Walker2d-v4", "Walker2d-v4"),
        ("Logging to /tmp/td3_Hopper-v3_seed0", "Hopper-v3"),
        ("HalfCheetahBulletEnv-v0", None),  # PyBullet's cheetah scores on its own scale
        ("--env BeamRiderNoFrameskip-v4 --algo dqn", "BeamRiderNoFrameskip-v4"),
        ("env: ALE/DemonAttack-v5", "ALE/DemonAttack-v5"),
        ("Gopher-v4", None),  # left out: its name is also a language model's
    ],
)
def test_env_id_as_printed(text: str, env: str | None) -> None:
    assert find_env_id(text) == env


def test_continuous_variants_have_no_level() -> None:
    assert find_env_id("LunarLanderContinuous-v2") == "LunarLanderContinuous-v2"
    assert level_of("LunarLanderContinuous-v2") is None
    lvl = level_of("PongNoFrameskip-v4")
    assert lvl is not None and lvl.random == pytest.approx(-20.7)


def test_sb3_console_table_env_id_and_env_steps(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    p.write_text(SB3_TABLE)
    run = load_run(p)
    assert run.fact("env_id") == "BreakoutNoFrameskip-v4"
    assert list(run.series["reward"].steps) == [2400000]
    assert "ep_len_mean" in run.series


def test_env_id_from_the_rlzoo_log_dir(tmp_path: Path) -> None:
    d = tmp_path / "logs" / "a2c" / "PongNoFrameskip-v4_1"
    d.mkdir(parents=True)
    (d / "log.txt").write_text(A2C_LINE)
    run = load_run(d / "log.txt")
    assert run.fact("env_id") == "PongNoFrameskip-v4"
    assert run.series["num_timesteps"].values[-1] == 802480
    assert run.series["reward"].values[-1] == pytest.approx(-20.4)


def test_sb3_monitor_header_env_id(tmp_path: Path) -> None:
    p = tmp_path / "0.monitor.csv"
    rows = "".join(f"{20 + i % 5}.0,{20 + i % 5},{i * 0.1:.1f}\n" for i in range(30))
    p.write_text('#{"t_start": 1690000000.0, "env_id": "CartPole-v1"}\nr,l,t\n' + rows)
    run = load_run(p)
    assert run.fact("env_id") == "CartPole-v1"


def test_no_env_id_on_a_language_model_log(tmp_path: Path) -> None:
    p = tmp_path / "train.log"
    p.write_text("model: deberta-v3-base\n" + "".join(f"step {i} loss 2.{i}\n" for i in range(5)))
    assert load_run(p).fact("env_id") is None


def test_verl_console_score_pair_and_advantages(tmp_path: Path) -> None:
    p = tmp_path / "verl.log"
    p.write_text(VERL)
    run = load_run(p)
    for name in ("critic/score/max", "critic/score/min", "critic/advantages/max", "grad_norm"):
        assert name in run.series, name
    assert run.get("reward") is not None  # critic/score/mean


def test_trl_grpo_reward_std_and_zero_std_fraction(tmp_path: Path) -> None:
    p = tmp_path / "grpo.log"
    p.write_text(TRL_GRPO)
    run = load_run(p)
    assert run.series["reward_std"].values[-1] == 0.0
    assert run.series["frac_reward_zero_std"].values[-1] == 1.0
    assert run.series["grad_norm"].values[-1] == 0.0


def test_env_id_from_a_run_config_beside_the_log(tmp_path: Path) -> None:
    (tmp_path / "args.json").write_text('{"env_id": "CartPole-v1", "learning_rate": 0.00025}')
    (tmp_path / "train.log").write_text(
        "".join(f"global_step={i * 500}, episodic_return={20 + i % 3}\n" for i in range(1, 6))
    )
    assert load_run(tmp_path / "train.log").fact("env_id") == "CartPole-v1"


@pytest.mark.parametrize(
    ("path", "env"),
    [
        ("results/gym/bipedalwalker_hardcore.md", "BipedalWalkerHardcore"),
        ("pong_a2c.log", "Pong"),
        ("SpaceInvaders-dqn.txt", "SpaceInvaders"),
        ("logs/space_invaders_run2.txt", "SpaceInvaders"),
        ("lunar_lander_continuous.csv", "LunarLanderContinuous"),
        ("walker2d_sac_seed0.csv", "Walker2d"),
        ("shopper_reviews.log", None),  # a word that contains a game is no game
        ("pong/log_excerpt.txt", None),  # a folder's name is not the file's
        ("train.log", None),
        ("hopper_hop_sac.csv", None),  # DeepMind Control's hopper, scored 0-1000
        ("cartpole_swingup.log", None),
        ("road_runner_ppo.csv", "RoadRunner"),
        ("crazy_climber-a2c.log", "CrazyClimber"),
        ("gopher_rlhf.log", None),  # DeepMind's Gopher, a language model
    ],
)
def test_env_from_a_file_name(path: str, env: str | None) -> None:
    assert find_env_in_name(path) == env


def test_file_name_levels() -> None:
    hard = level_of("BipedalWalkerHardcore")
    assert hard is not None and hard.random == pytest.approx(-110.0)
    assert level_of("BipedalWalkerHardcore-v3") == hard
    assert level_of("LunarLanderContinuous") is None  # another scale
    pong = level_of("Pong")
    assert pong is not None and pong.random == pytest.approx(-20.7)
    beam = level_of("BeamRiderNoFrameskip-v4")  # the DQN Nature table's random / human
    assert beam is not None and (beam.random, beam.competent) == (363.9, 5775.0)


def test_top_lr_by_env_family() -> None:
    assert top_lr("BreakoutNoFrameskip-v4") == pytest.approx(7e-4)  # A2C's RMSprop on Atari
    assert top_lr("MountainCar-v0") == pytest.approx(4e-3)  # rl-zoo's DQN
    assert top_lr("Walker2d-v4") == pytest.approx(1e-3)  # TD3
    assert top_lr("MyGridWorld-v0") is None


def test_rl_log_named_after_its_env(tmp_path: Path) -> None:
    p = tmp_path / "bipedalwalker_hardcore.md"
    p.write_text(
        "Episode:   100   Avg: -118.904   BestAvg:     -inf   |  Steps:     9135\n"
        "Episode:   200   Avg: -102.387   BestAvg: -102.381   |  Steps:    16006\n"
    )
    run = load_run(p)
    assert run.fact("env_id") == "BipedalWalkerHardcore"
    assert "the file's name" in run.facts["env_id"].source


def test_a_non_rl_log_takes_no_env_from_its_name(tmp_path: Path) -> None:
    p = tmp_path / "pong_classifier.log"
    p.write_text("epoch 1 loss 0.9\nepoch 2 loss 0.7\nepoch 3 loss 0.5\n")
    assert load_run(p).fact("env_id") is None


def test_fall_penalty_hint_on_both_walkers() -> None:
    for env in ("BipedalWalker-v3", "BipedalWalkerHardcore"):
        lvl = level_of(env)
        assert lvl is not None and "-100 for a fall" in lvl.hint
    pong = level_of("Pong")
    assert pong is not None and pong.hint == ""
