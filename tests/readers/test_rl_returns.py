"""RL returns under the names hand-written training loops print them: Udacity DRLND's
"Episode N<TAB>Average Score: X" (an episode's score is its return), tf2rl's "Return:",
the keras.io DQN example's "running reward". Near misses: a score beside a loss, or with
no episode count, stays a task metric."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import ReadError, load_run, load_runs


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def test_drlnd_average_score_per_episode_is_the_reward(tmp_path: Path) -> None:
    lines = [f"Episode {100 * (i + 1)}\tAverage Score: {0.5 + 0.4 * i:.2f}" for i in range(12)]
    run = load_run(_write(tmp_path, "drlnd.txt", lines))
    r = run.get("reward")
    assert r is not None and len(r) == 12
    assert abs(float(r.values[-1]) - 4.9) < 1e-9
    assert run.fact("task") == "rl"


def test_drlnd_prefers_the_average_over_the_last_episodes_score(tmp_path: Path) -> None:
    lines = [
        f"Episode {i + 1}\tAverage Score: {0.1 * i:.2f}\tScore: {3.0 if i % 2 else 0.0:.2f}"
        for i in range(10)
    ]
    r = load_run(_write(tmp_path, "drlnd2.txt", lines)).get("reward")
    assert r is not None and abs(float(r.values[-1]) - 0.9) < 1e-9


def test_bare_avg_after_the_episode_count_is_the_reward(tmp_path: Path) -> None:
    """angela's results: "Episode: N  Avg: X  BestAvg: B  σ: S  |  Steps: T  Secs: ..."."""
    lines = [
        f"Episode: {100 * (i + 1):5d}   Avg: {-120.0 + 2.5 * i:8.3f}   BestAvg: {-100.0:8.3f}"
        f"   \u03c3: {12.0 + i:7.3f}  |  Steps: {9000 * (i + 1):8d}   Secs: {40 * (i + 1):6d}"
        f"      |  \u237a: 0.5000  Buffer: {min(9000 * (i + 1), 100000):6d}"
        for i in range(14)
    ]
    run = load_run(_write(tmp_path, "angela.md", lines))
    r = run.get("reward")
    assert r is not None and len(r) == 14  # every line, the Buffer column's width aside
    assert abs(float(r.values[-1]) - (-120.0 + 2.5 * 13)) < 1e-9
    assert run.fact("task") == "rl"


def test_near_miss_bare_avg_without_an_episode_count_is_no_record(tmp_path: Path) -> None:
    lines = [f"Batch: {i + 1}   Avg: {0.5 + 0.01 * i:.3f}   Best: 0.600" for i in range(8)]
    p = _write(tmp_path, "avg.log", lines)
    try:
        run = load_run(p)
    except ReadError:
        return
    assert run.get("reward") is None


def test_near_miss_score_beside_a_loss_is_no_reward(tmp_path: Path) -> None:
    lines = [
        f"Epoch {i + 1} loss: {2.0 - 0.1 * i:.3f} score: {0.5 + 0.02 * i:.3f}" for i in range(8)
    ]
    run = load_run(_write(tmp_path, "cls.txt", lines))
    assert run.get("reward") is None


def test_near_miss_score_without_an_episode_count_is_no_reward(tmp_path: Path) -> None:
    lines = [f"step {10 * (i + 1)} average score: {0.5 + 0.02 * i:.3f}" for i in range(8)]
    assert load_run(_write(tmp_path, "steps.txt", lines)).get("reward") is None


def test_keras_dqn_running_reward_is_the_reward(tmp_path: Path) -> None:
    lines = [
        f"running reward: {0.3 + 0.01 * i:.2f} at episode {300 * i}, frame count {10000 * (i + 1)}"
        for i in range(6)
    ]
    r = load_run(_write(tmp_path, "keras.txt", lines)).get("reward")
    assert r is not None and len(r) == 6


def _dopamine_lines(prefix: bool) -> list[str]:
    head = "I1204 10:00:00.000000 140212 run_experiment.py:{}] " if prefix else ""
    out = []
    for i in range(6):
        out += [
            head.format(603) + f"Starting iteration {i}",
            head.format(507) + f"Average undiscounted return per training episode: {-20.5 + i:.2f}",
            head.format(509) + "Average training steps per second: 411.28",
            head.format(538) + f"Average undiscounted return per evaluation episode: {-20 + i:.2f}",
        ]
    return out


def test_dopamine_runner_returns_per_iteration(tmp_path: Path) -> None:
    # dopamine/discrete_domains/run_experiment.py's absl log, one iteration per block
    for prefix in (True, False):  # as logged, and pasted with the absl prefixes cut off
        run = load_run(_write(tmp_path, f"dopamine_{prefix}.txt", _dopamine_lines(prefix)))
        r, ev = run.get("reward"), run.get("eval_reward")
        assert r is not None and list(r.steps) == [0, 1, 2, 3, 4, 5]
        assert abs(float(r.values[-1]) - (-15.5)) < 1e-9
        assert ev is not None and len(ev) == 6


def test_near_miss_dopamine_steps_per_second_is_no_reward(tmp_path: Path) -> None:
    # the runner's throughput line between the two returns is not a return
    run = load_run(_write(tmp_path, "dopamine_tp.txt", _dopamine_lines(True)))
    r = run.get("reward")
    assert r is not None and float(r.values.max()) < 0


def test_sb3_eval_callback_lines_are_numbered_by_their_timesteps(tmp_path: Path) -> None:
    # SB3's EvalCallback (verbose=1): one line per evaluation, then the episode length
    lines = []
    for i in range(6):
        lines += [
            f"Eval num_timesteps={(i + 1) * 10000}, episode_reward={-200.0 + i:.2f} +/- 1.50",
            "Episode length: 200.00 +/- 0.00",
        ]
    r = load_run(_write(tmp_path, "eval_cb.txt", lines)).get("reward")
    assert r is not None and list(r.steps) == [10000 * (i + 1) for i in range(6)]
    assert list(r.values) == [-200.0 + i for i in range(6)]


def test_near_miss_eval_lines_beside_sb3_tables_keep_the_training_return(tmp_path: Path) -> None:
    lines = []
    for i in range(8):
        ts = (i + 1) * 2048
        lines += [
            "-----------------------------------------",
            "| rollout/                |             |",
            "|    ep_len_mean          | 200         |",
            f"|    ep_rew_mean          | {-200 + i:<11} |",
            "| time/                   |             |",
            f"|    total_timesteps      | {ts:<11} |",
            "-----------------------------------------",
        ]
        if i % 2:
            lines.append(f"Eval num_timesteps={ts}, episode_reward={-150 + i:.2f} +/- 0.00")
    run = load_run(_write(tmp_path, "mix.txt", lines))
    r = run.get("reward")
    assert r is not None and len(r) == 8 and float(r.values.max()) < -190


def test_baselines_deepq_table_with_phrase_keys(tmp_path: Path) -> None:
    # OpenAI baselines deepq's logger.record_tabular (rl-baselines-zoo issue #49's paste)
    lines = []
    for i in range(5):
        lines += [
            "--------------------------------------",
            "| % time spent exploring  | 1        |",
            f"| episodes                | {56300 + 100 * i:<8} |",
            f"| mean 100 episode reward | {8.9 - 0.1 * i:<8.1f} |",
            f"| steps                   | {9940866 + 26000 * i:<8} |",
            "--------------------------------------",
        ]
    run = load_run(_write(tmp_path, "deepq.txt", lines))
    r = run.get("reward")
    assert r is not None and list(r.steps) == [9940866 + 26000 * i for i in range(5)]
    assert abs(float(r.values[0]) - 8.9) < 1e-9
    assert not any("exploring" in n for n in run.series)  # the epsilon schedule, no metric


def test_near_miss_phrase_rows_without_the_dashes_are_no_table(tmp_path: Path) -> None:
    lines = ["| mean 100 episode reward | 8.9 |", "| steps | 100 |"] * 3 + ["loss: 1.0"] * 3
    run = load_run(_write(tmp_path, "md.txt", lines))
    assert run.get("reward") is None


def test_steps_after_an_episode_counter_are_its_length_not_the_step(tmp_path: Path) -> None:
    """A hand-written loop's "[Episode N] steps: S reward: R": S is that episode's length,
    up and down with the play (a CartPole return equals it), so the episode is the count
    and the run is one curve, not cut wherever an episode was shorter than the last."""
    lens = [23, 15, 40, 12, 60, 31]
    lines = [f"[Episode {i + 1}] steps: {s} reward: {float(s)}" for i, s in enumerate(lens)]
    runs = load_runs(_write(tmp_path, "episodes.txt", lines))
    assert len(runs) == 1
    r = runs[0].get("reward")
    assert r is not None
    assert r.steps.tolist() == [1, 2, 3, 4, 5, 6]
    assert r.values.tolist() == [float(s) for s in lens]


def test_near_miss_bare_steps_without_an_episode_counter_stay_the_step(tmp_path: Path) -> None:
    lines = [f"steps: {10 * (i + 1)} loss: {2.0 - 0.1 * i:.3f}" for i in range(6)]
    loss = load_run(_write(tmp_path, "steps.txt", lines)).get("loss")
    assert loss is not None and loss.steps.tolist() == [10, 20, 30, 40, 50, 60]


def _keras_rl_interval(i: int, ep_reward: float) -> list[str]:
    # keras-rl's TrainIntervalLogger (verbose=1): a Keras Progbar over the interval's
    # steps with the mean per-step 'reward', then 'N episodes - episode_reward: mean
    # [min, max] - <metric>: ...'
    return [
        f"Interval {i + 1} ({10000 * i} steps performed)",
        f"10000/10000 [==============================] - 60s - reward: {-7.0 - 0.1 * i:.4f}",
        f"50 episodes - episode_reward: {ep_reward:.3f} [-1726.207, -826.488] - loss: 5.522 "
        f"- mean_absolute_error: 0.455 - mean_q: -31.851",
        "",
    ]


def test_keras_rl_episode_reward_is_the_reward_not_the_step_bar(tmp_path: Path) -> None:
    """The interval's episode_reward (the mean return of its episodes) is the RL curve;
    the progress bar's bare 'reward' (the mean reward per step) keeps its points apart."""
    eps = [-1479.559, -1410.411, -1374.752, -1494.492]
    lines = ["Training for 40000 steps ..."]
    for i, r in enumerate(eps):
        lines += _keras_rl_interval(i, r)
    run = load_run(_write(tmp_path, "kerasrl.txt", lines))
    r = run.get("reward")
    assert r is not None and r.values.tolist() == eps
    assert run.series["reward_alt"].values.tolist() == [-7.0, -7.1, -7.2, -7.3]


def test_near_miss_a_bare_reward_alone_stays_the_reward(tmp_path: Path) -> None:
    lines = [f"step {i + 1} reward: {0.1 * i:.2f} loss: {1.0 - 0.05 * i:.3f}" for i in range(6)]
    r = load_run(_write(tmp_path, "bare.txt", lines)).get("reward")
    assert r is not None and len(r) == 6


def _finrl_summary(episode: int, end: str, reward: str, cost: str, trades: int) -> list[str]:
    # FinRL's env_stocktrading.py at each episode's end (print_verbosity)
    return [
        f"day: 2515, episode: {episode}",
        "begin_total_asset:100000.00",
        f"end_total_asset:{end}",
        f"total_reward:{reward}",
        f"total_cost: {cost}",
        f"total_trades: {trades}",
        "Sharpe: 1.463",
        "=================================",
    ]


def test_finrl_episode_summary_is_one_record(tmp_path: Path) -> None:
    """The summary's lines are one record: total_reward is the episode's return, and the
    trades, cost and assets sit beside it (a lone "total_trades: 0" is no config)."""
    lines = _finrl_summary(99, "100094.35", "94.35", "2.84", 9)
    lines += _finrl_summary(100, "100000.00", "0.00", "0.00", 0)
    run = load_run(_write(tmp_path, "finrl.txt", lines))
    assert run.series["reward"].values.tolist() == [94.35, 0.0]
    assert run.series["total_trades"].values.tolist() == [9.0, 0.0]
    assert run.series["episode"].values.tolist() == [99.0, 100.0]
    assert run.series["end_total_asset"].values.tolist() == [100094.35, 100000.0]


def test_near_miss_a_day_line_without_its_summary_rows_adds_nothing(tmp_path: Path) -> None:
    lines = ["day: 12, episode: 3", "step 1 loss: 0.5", "step 2 loss: 0.4", "step 3 loss: 0.3"]
    run = load_run(_write(tmp_path, "day.txt", lines))
    assert "total_trades" not in run.series and "episode" not in run.series
    assert run.series["loss"].values.tolist() == [0.5, 0.4, 0.3]


def test_a2c_ppo_acktr_slash_pairs_name_each_statistic(tmp_path: Path) -> None:
    """pytorch-a2c-ppo-acktr-gail's update line (main.py): "mean/median reward A/B,
    min/max reward C/D" - each number the statistic in its place, not a value and a
    total, nor a second 'reward' column."""
    lines = [
        f"Updates {10 * i}, num timesteps {800 * i}, FPS 1828, mean/median reward "
        f"{-20.4 + i:.1f}/{-20.0 + i:.1f}, min/max reward {-21.0 + i:.1f}/{-19.0 + i:.1f}, "
        f"entropy 1.77331, value loss 0.02498, policy loss 0.03232"
        for i in range(1, 6)
    ]
    run = load_run(_write(tmp_path, "a2c.txt", lines))
    assert run.series["reward"].values.tolist() == [-19.4, -18.4, -17.4, -16.4, -15.4]
    assert run.series["median_reward"].values.tolist() == [-19.0, -18.0, -17.0, -16.0, -15.0]
    assert run.series["min_reward"].values.tolist() == [-20.0, -19.0, -18.0, -17.0, -16.0]
    assert run.series["max_reward"].values.tolist() == [-18.0, -17.0, -16.0, -15.0, -14.0]


def test_near_miss_a_value_over_its_total_keeps_one_name(tmp_path: Path) -> None:
    lines = [f"step {i}/100 loss {1.0 - 0.1 * i:.2f}" for i in range(1, 6)]
    run = load_run(_write(tmp_path, "total.txt", lines))
    assert run.series["loss"].steps.tolist() == [1, 2, 3, 4, 5]


def test_keras_rl_bracketed_ranges_are_the_min_and_max(tmp_path: Path) -> None:
    """keras-rl prints a mean with the range it was taken over, '{}: {:.3f} [{:.3f},
    {:.3f}]': the bracketed numbers are that value's min and max, not two more columns."""
    lines = ["Training for 40000 steps ..."]
    for i, r in enumerate([-1479.559, -1410.411, -1374.752, -1494.492]):
        lines += _keras_rl_interval(i, r)
    run = load_run(_write(tmp_path, "kerasrl_range.txt", lines))
    assert run.series["episode_reward_min"].values.tolist() == [-1726.207] * 4
    assert run.series["episode_reward_max"].values.tolist() == [-826.488] * 4
    assert run.get("reward") is not None
