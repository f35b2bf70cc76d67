"""The Stable-Baselines3 / OpenAI baselines Monitor file (monitor.csv, one row per episode)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_checked

HEAD = '#{"t_start": 1708701891.7, "env_id": "CartPole-v1"}\nr,l,t\n'


def _monitor(tmp_path: Path, rows: list[tuple[float, int]], name: str = "monitor.csv") -> Path:
    t, body = 0.0, []
    for r, n in rows:
        t += n * 0.01
        body.append(f"{r},{n},{t:.3f}\n")
    p = tmp_path / name
    p.write_text(HEAD + "".join(body))
    return p


def test_each_episode_is_a_return_at_the_env_step_it_ends(tmp_path: Path) -> None:
    _monitor(tmp_path, [(9.0, 9), (12.0, 12), (30.0, 30)])
    run = load_checked(tmp_path)
    assert run.get("reward").steps.tolist() == [9, 21, 51]
    assert run.get("reward").values.tolist() == pytest.approx([9.0, 12.0, 30.0])
    assert run.inputs[0].kind == "sb3-monitor"


def test_thousands_of_episodes_are_read_as_window_means(tmp_path: Path) -> None:
    rows = [(float(i % 10), 10) for i in range(5000)]
    p = _monitor(tmp_path, rows, "0.monitor.csv")
    run = load_checked(p)
    reward = run.get("reward")
    assert len(reward) == 500  # 10 episodes a window
    assert reward.values.tolist() == pytest.approx([4.5] * 500)
    assert reward.steps[-1] == 50_000


def test_a_csv_without_the_monitor_comment_line_is_not_a_monitor_file(tmp_path: Path) -> None:
    # near miss: a plain r,l,t table is some other CSV (read, if at all, by the CSV reader)
    from traindoc.readers.sb3_monitor import is_monitor_csv

    p = tmp_path / "monitor.csv"
    p.write_text("r,l,t\n1.0,10,0.1\n")
    assert not is_monitor_csv(p)
    assert is_monitor_csv(_monitor(tmp_path, [(1.0, 10)], "1.monitor.csv"))
