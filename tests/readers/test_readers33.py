"""Lines traindoc did not read before (readers33): hand-written RL loops' episode returns,
Kaldi nnet3's objective lines, and TensorFlow's bare check_numerics
error. Each on lines as the tool prints them, with a near miss it must leave alone."""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import load_log, one_log, values

# -- hand-written RL loops -------------------------------------------------------------------


def test_total_rewards_in_episode_sentence_is_the_reward(tmp_path: Path) -> None:
    body = "".join(f"Total rewards in episode {i + 1} is {20.0 + 10 * i:.1f}\n" for i in range(6))
    run = one_log(tmp_path, body)
    assert values(run, "reward") == [20.0, 30.0, 40.0, 50.0, 60.0, 70.0]
    assert [int(s) for s in run.get("reward").steps] == [1, 2, 3, 4, 5, 6]


def test_episode_return_messages_after_a_logger_prefix_and_tutorial_style(tmp_path: Path) -> None:
    logged = "".join(
        f"2023-03-20 10:00:0{i},123 - agent - DEBUG - end_of_round: Total rewards in episode "
        f"{i}: {3 * i}\n"
        for i in range(6)
    )
    assert values(one_log(tmp_path, logged), "reward") == [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]
    tut = "".join(f"Run episode{i} with rewards {10.0 + i}\n" for i in range(6))
    run = one_log(tmp_path, tut)
    assert values(run, "reward")[-1] == 15.0
    assert [int(s) for s in run.get("reward").steps] == [0, 1, 2, 3, 4, 5]


def test_near_miss_episode_sentence_inside_prose_is_no_record(tmp_path: Path) -> None:
    body = "The total reward in episode 3 is 200 when it works, but training diverges.\n"
    body += "".join(f"step {i} loss: {1.0 - 0.1 * i:.2f}\n" for i in range(6))
    assert one_log(tmp_path, body).get("reward") is None


def test_score_with_its_running_average_reads_the_average(tmp_path: Path) -> None:
    body = "".join(
        f"Episode {i + 1} ... score: {12.0 if i % 2 else 8.0:.1f} ... Avg: {10.0 + 0.1 * i:.1f}\n"
        for i in range(8)
    )
    run = load_log(tmp_path, body)
    assert values(run, "reward")[-1] == 10.7


def test_keras_style_episode_of_total_with_score_is_the_reward(tmp_path: Path) -> None:
    body = "".join(
        f"episode: {i + 1}/500, score: {10 + 3 * i}, e: {0.99**i:.2}\n" for i in range(8)
    )
    run = load_log(tmp_path, body)
    assert values(run, "reward")[:3] == [10.0, 13.0, 16.0]


# -- Kaldi nnet3 ------------------------------------------------------------------------------

_PHASE = (
    "LOG (nnet3-train[5.5.0~1-8dcb]:PrintStatsForThisPhase():nnet-training.cc:280) Average "
    "objective function for 'output' for minibatches {a}-{b} is {v} over 12800 frames.\n"
)
_TOTAL = (
    "LOG (nnet3-train[5.5.0~1-8dcb]:PrintTotalStats():nnet-training.cc:348) Overall average "
    "objective function for 'output' is {v} over 435200 frames.\n"
)


def test_kaldi_phases_are_the_negated_objective_counted_over_iterations(tmp_path: Path) -> None:
    body = ""
    for it in range(2):
        for p in range(3):
            body += _PHASE.format(a=10 * p, b=10 * p + 9, v=f"{-3.0 + 0.2 * p + it:.4f}")
        body += _TOTAL.format(v=f"{-2.8 + it:.4f}")
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [10, 20, 30, 40, 50, 60]
    assert values(run, "loss")[0] == 3.0
    assert values(run, "loss")[3] == 2.0


def test_kaldi_nan_objective_is_a_nonfinite_loss(tmp_path: Path) -> None:
    body = "".join(_PHASE.format(a=10 * p, b=10 * p + 9, v=f"{-3 + 0.1 * p:.3f}") for p in range(4))
    body += _PHASE.format(a=40, b=49, v="-nan")
    loss = values(one_log(tmp_path, body), "loss")
    assert len(loss) == 5 and math.isnan(loss[-1])


def test_kaldi_grepped_overall_lines_are_numbered_by_iteration(tmp_path: Path) -> None:
    # `grep Overall exp/nnet3/tdnn/log/train.*.log`: two jobs per iteration, the first kept;
    # the chain objective with a regularizer reads its sum
    body = ""
    for it in (10, 11, 12):
        for job in (1, 2):
            body += (
                f"exp/chain/tdnn/log/train.{it}.{job}.log:LOG (nnet3-chain-train[5.5]:"
                "PrintTotalStats():nnet-chain-training.cc:300) Overall average objective "
                f"function for 'output' is {-0.2 + 0.01 * it:.3f} + -0.010 = "
                f"{-0.21 + 0.01 * it + 0.001 * job:.3f} over 1.1e+06 frames.\n"
            )
    run = one_log(tmp_path, body)
    assert [int(s) for s in run.get("loss").steps] == [10, 11, 12]
    assert abs(values(run, "loss")[0] - 0.109) < 1e-9


def test_near_miss_kaldi_side_output_is_not_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"LOG (nnet3-chain-train[5.5]:PrintTotalStats():nnet-training.cc:348) Overall average "
        f"objective function for 'output-xent' is {-1.5 + 0.1 * i:.3f} over 1000 frames.\n"
        f"step {i} loss: {1.0 - 0.1 * i:.2f}\n"
        for i in range(5)
    )
    assert values(one_log(tmp_path, body), "loss")[0] == 1.0


# -- TensorFlow's bare check_numerics error --------------------------------------------------


def _tf_log(tail: str) -> str:
    return "".join(f"Epoch {i + 1}/10 loss: {1.0 - 0.05 * i:.4f}\n" for i in range(5)) + tail


def test_bare_tensor_had_nan_values_is_a_nonfinite_loss(tmp_path: Path) -> None:
    for tail in (
        "InvalidArgumentError: Tensor had NaN values\n",
        "InvalidArgumentError (see above for traceback): Tensor had NaN values\n"
        '\t [[Node: CheckNumerics = CheckNumerics[T=DT_FLOAT, message=""](Mean)]]\n',
        "InvalidArgumentError: 2 root error(s) found.\n  (0) Invalid argument: Tensor had NaN "
        "values\n",
    ):
        run = one_log(tmp_path, _tf_log(tail))
        assert "nonfinite-loss" in [e.kind for e in run.events], tail


def test_near_miss_tensor_had_nan_in_a_sentence_is_no_event(tmp_path: Path) -> None:
    run = one_log(tmp_path, _tf_log("I checked whether the tensor had NaN values: none.\n"))
    assert "nonfinite-loss" not in [e.kind for e in run.events]


def test_bare_episode_number_and_return_lines_with_the_posters_elision(tmp_path: Path) -> None:
    # cyoon1729/deep-Q-networks#3 as pasted: "Episode N: R", a '...' line between
    body = (
        "Episode 399: 12.0\nEpisode 400: 10.0\nEpisode 417: 11.0\n...\n"
        "Episode 997: 19.0\nEpisode 998: 11.0\nEpisode 999: 10.0\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "reward") == [12.0, 10.0, 11.0, 19.0, 11.0, 10.0]
    assert [int(s) for s in run.get("reward").steps] == [399, 400, 417, 997, 998, 999]


def test_near_miss_episode_line_with_a_named_metric_is_no_return(tmp_path: Path) -> None:
    body = "".join(f"Episode {i}: loss {1.0 / (i + 1):.3f}\n" for i in range(6))
    run = one_log(tmp_path, body)
    assert run is None or run.get("reward") is None
