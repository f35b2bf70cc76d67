"""RL progress lines: a return named with the window it averages over in brackets ("Mean
reward (100 ep): 22.6", "Reward moyen (100 ep): 22.6") is read as the return, not as the
window's count; Grokking Deep RL's (gdrl) minute lines are read at their env steps."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def test_window_in_brackets_is_not_the_value(tmp_path: Path) -> None:
    vals = [22.6, 20.3, 17.0, 14.9, 14.1]
    lines = [
        f"Episode {50 * (i + 1):3d}/400 | Mean reward (100 ep): {v}" for i, v in enumerate(vals)
    ]
    r = load_run(_write(tmp_path, "a2c.txt", lines)).get("reward")
    assert r is not None and [float(x) for x in r.values] == vals


def test_last_n_window_and_a_french_mean(tmp_path: Path) -> None:
    vals = [22.6, 20.3, 17.0, 14.9]
    last = [f"Episode {50 * (i + 1)}/400 | Avg reward (last 100): {v}" for i, v in enumerate(vals)]
    fr = [f"Episode {50 * (i + 1):3d}/400 | Reward moyen (100 ep): {v}" for i, v in enumerate(vals)]
    for name, lines in (("last.txt", last), ("fr.txt", fr)):
        r = load_run(_write(tmp_path, name, lines)).get("reward")
        assert r is not None and [float(x) for x in r.values] == vals, name


def test_near_miss_a_number_in_brackets_without_window_words_is_kept(tmp_path: Path) -> None:
    # "(4/8)" and "(valid)" keep their own readings: only "(count window-word)" is a window
    lines = [f"Epoch {i + 1} Average Loss (valid) {1.0 - 0.1 * i:.2f}" for i in range(5)]
    r = load_run(_write(tmp_path, "valid.txt", lines)).get("eval_loss")
    assert r is not None and len(r) == 5


def test_gdrl_lines_give_return_spread_and_eval_at_env_steps(tmp_path: Path) -> None:
    lines = [
        "el 00:00:36, ep 1427, ts 013537, ar 10 001.0±000.0, 100 001.0±000.0, ex 100 0.0±0.0, ev 009.5±000.7",
        "el 00:01:06, ep 3335, ts 031432, ar 10 001.0±000.0, 100 001.0±000.0, ex 100 0.0±0.0, ev 009.5±000.6",
        "el 00:01:37, ep 5295, ts 049762, ar 10 021.0±003.0, 100 015.5±004.1, ex 100 0.3±0.1, ev 025.3±002.8",
    ]
    run = load_run(_write(tmp_path, "gdrl.txt", lines))
    r, std, ev = run.get("reward"), run.get("episode_reward_std"), run.get("eval_reward")
    assert r is not None and [float(x) for x in r.values] == [1.0, 1.0, 15.5]
    assert [int(s) for s in r.steps] == [13537, 31432, 49762]
    assert std is not None and float(std.values[-1]) == 4.1
    assert ev is not None and float(ev.values[-1]) == 25.3
