"""RLlib's result of a training iteration printed as sorted YAML: Tune's verbose
`Result for <trial>:` block (rows indented two spaces) and a script's
`print(pretty_print(result))` (top-level keys unindented). One block is one record at
its `training_iteration`, which sorts last; the losses are the first policy's learner
stats. Lines verbatim from ray-project/ray issue #3908 (pretty_print, two iterations of
PPO), ray PR #27093 (Tune's verbose=3 output) and ray PR #3498 (a DDPG block and the
status after it, in assets/trainers)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import ASSETS, one_log, values

PRETTY_PRINT_3908 = """\
episode_reward_max: -443.0
episode_reward_mean: -819.93
episode_reward_min: -10492.0
episodes_this_iter: 76
episodes_total: 2301
experiment_id: 3bc0c9eb2c16474686937454214ecdbb
hostname: melting-warthog-ray-head-689ddb7c79-z7gfd
info:
  default:
    cur_kl_coeff: 0.15000002086162567
    cur_lr: 4.999999873689376e-05
    entropy: 2.3990540504455566
    kl: 0.012007000856101513
    policy_loss: -0.0166153684258461
    total_loss: 132067.53125
    vf_explained_var: -0.021863602101802826
    vf_loss: 132067.53125
  grad_time_ms: 2263.601
  load_time_ms: 0.817
  num_steps_sampled: 108000
  num_steps_trained: 108000
  sample_time_ms: 490.269
  update_time_ms: 5.325
iterations_since_restore: 27
node_ip: 192.168.166.180
num_metric_batches_dropped: 0
pid: 123
policy_reward_mean: {}
time_since_restore: 95.10835838317871
time_this_iter_s: 2.785317897796631
time_total_s: 95.10835838317871
timestamp: 1548971844
timesteps_since_restore: 108000
timesteps_this_iter: 4000
timesteps_total: 108000
training_iteration: 27

custom_metrics: {}
date: 2019-01-31_21-57-27
done: false
episode_len_mean: 52.0
episode_reward_max: -454.0
episode_reward_mean: -621.65
episode_reward_min: -859.0
episodes_this_iter: 79
episodes_total: 2380
experiment_id: 3bc0c9eb2c16474686937454214ecdbb
"""

TUNE_27093 = """\
Result for PPO_CartPole-v0_120b5_00000:
  agent_timesteps_total: 4000
  counters:
    num_agent_steps_sampled: 4000
    num_agent_steps_trained: 4000
    num_env_steps_sampled: 4000
    num_env_steps_trained: 4000
  custom_metrics: {}
  date: 2022-07-27_15-41-01
  done: false
  episode_len_mean: 22.577142857142857
  episode_media: {}
  episode_reward_max: 63.0
  episode_reward_mean: 22.577142857142857
  episode_reward_min: 9.0
  episodes_this_iter: 175
  episodes_total: 175
  experiment_id: 371fee31354848debac4eb58e073f910
  hostname: Kais-MacBook-Pro.local
  info:
    learner:
      default_policy:
        custom_metrics: {}
        learner_stats:
          cur_kl_coeff: 0.20000000298023224
          cur_lr: 4.999999873689376e-05
          entropy: 0.6657050251960754
          entropy_coeff: 0.0
          kl: 0.027845896780490875
          model: {}
          policy_loss: -0.0349934846162796
          total_loss: 8.862993240356445
          vf_explained_var: 0.006949588656425476
          vf_loss: 8.89241886138916
        num_agent_steps_trained: 128.0
    num_agent_steps_sampled: 4000
    num_agent_steps_trained: 4000
    num_env_steps_sampled: 4000
    num_env_steps_trained: 4000
  iterations_since_restore: 1
  node_ip: 127.0.0.1
  num_agent_steps_sampled: 4000
  num_agent_steps_trained: 4000
  num_env_steps_sampled: 4000
"""


def test_pretty_print_blocks_are_records_at_their_training_iteration(tmp_path: Path) -> None:
    run = one_log(tmp_path, PRETTY_PRINT_3908)
    # the second result is cut before its training_iteration: the next iteration
    assert run.get("reward").steps.tolist() == [27, 28]
    assert values(run, "reward") == [-819.93, -621.65]
    assert run.get("loss").steps.tolist() == [27]  # not a record of its own at step 2
    assert values(run, "loss") == [132067.53125]
    assert values(run, "value_loss") == [132067.53125]
    assert values(run, "policy_loss") == [-0.0166153684258461]
    assert values(run, "episode_length") == [52.0]
    # max / min returns, counters and timings are no series
    for name in ("episode_reward_max", "episode_reward_min", "timesteps_total", "pid"):
        assert run.get(name) is None


def test_tune_result_block_reads_nested_learner_stats(tmp_path: Path) -> None:
    run = one_log(tmp_path, TUNE_27093)
    assert values(run, "reward") == [22.577142857142857]
    assert values(run, "loss") == [8.862993240356445]
    assert values(run, "value_loss") == [8.89241886138916]
    assert values(run, "entropy") == [0.6657050251960754]
    assert values(run, "lr") == [4.999999873689376e-05]
    assert run.is_rl


def test_tune_block_then_status_is_one_record_at_the_iteration(tmp_path: Path) -> None:
    body = (ASSETS / "trainers" / "rllib_tune_result_ddpg.log").read_text()
    run = one_log(tmp_path, body)
    assert run.get("reward").steps.tolist() == [20]
    assert values(run, "reward") == [-432.650264269334]
    assert values(run, "episode_length") == [200.0]


def test_a_line_of_pairs_that_opens_with_an_rllib_key_is_no_result_block(tmp_path: Path) -> None:
    body = "".join(
        f"episode_reward_mean: {r}, episode_len_mean: 20, loss: {loss}\n"
        for r, loss in ((5.0, 0.9), (6.0, 0.8), (7.5, 0.7))
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.9, 0.8, 0.7]


def test_a_list_under_a_key_does_not_end_the_block(tmp_path: Path) -> None:
    # pretty_print writes hist_stats' lists one "- item" per line
    body = (
        TUNE_27093.replace(
            "  info:\n",
            "  hist_stats:\n    episode_lengths:\n    - 12\n    - 31\n  info:\n",
        )
        + "  training_iteration: 1\n"
    )
    run = one_log(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1]
    assert values(run, "value_loss") == [8.89241886138916]
