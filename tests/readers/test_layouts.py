"""Layouts the text reader misread on real cases (tests/real), read by logs/layouts.py:
an extensionless `log` file of comma name,value pairs (AgeEstimation), darknet's iteration
line, vertical epoch blocks (pytorch-template, a printed pandas Series) and
Stable-Baselines3's logger table. Each with a case the reader must read, one it must
not, and a near miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log as _one
from tests.readers.helpers import read_log as _read
from traindoc.readers import ReadError
from traindoc.readers.detect import console_named, detect_dir, is_console
from traindoc.readers.discover import discover_runs


# -- 1. comma pairs, in a file named `log` ------------------------------------------------
def _age_log(epochs: int = 3, per: int = 4) -> str:
    out = []
    for e in range(epochs):
        out += [f"[{e}, {i:5d}] loss,{4.5 - e - i / 10:.3f},,,,," for i in range(per)]
        out.append(f"epoch,{e}, loss,{3.7 + e / 10:.3f}, mae,{13.4 - e:.6f},,")
        out.append(f"epoch,{e}, mae_test,{15.0 - e:.6f},,,,")
    out.append("best_loss_epoch,0, best_val_loss,3.7, best_mae_epoch,2, best_val_mae,11.4")
    return "\n".join(out) + "\n"


def test_comma_pairs_batches_are_train_epochs_are_eval(tmp_path: Path) -> None:
    run = _one(tmp_path, _age_log(), "log")
    loss = run.get("loss")
    assert loss.steps.tolist() == list(range(12))  # (epoch, i) with 4 batches an epoch
    assert loss.values[5] == pytest.approx(3.4)
    ev = run.get("eval_loss")
    assert ev.values.tolist() == pytest.approx([3.7, 3.8, 3.9])
    assert ev.steps.tolist() == [3, 7, 11]  # after each epoch's last batch
    assert run.get("eval_mae").values.tolist() == pytest.approx([13.4, 12.4, 11.4])
    assert not {"best_val_loss", "best_loss_epoch"} & set(run.series)  # a summary, no record


def test_pytorch_tutorial_epoch_batch_prefix_with_colon_pairs(tmp_path: Path) -> None:
    # print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}')
    body = "".join(
        f"[{e}, {b:5d}] loss: {v}\n"
        for e, b, v in ((1, 2000, 2.303), (1, 4000, 2.21), (2, 2000, 1.9), (2, 4000, 1.8))
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([2.303, 2.21, 1.9, 1.8])
    assert run.get("loss").steps.tolist() == [2000, 4000, 6001, 8001]  # 4001 batches per epoch
    assert not run.fact("steps_ordinal")


def test_comma_pairs_without_batch_lines_are_train(tmp_path: Path) -> None:
    body = "".join(f"epoch,{e}, loss,{2.0 - e / 10:.2f},,\n" for e in range(4))
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([2.0, 1.9, 1.8, 1.7])
    assert "eval_loss" not in run.series


def test_a_csv_table_is_not_comma_pairs(tmp_path: Path) -> None:
    # near miss: a CSV header and its rows stay a table; pairs with a word value are none
    body = "epoch,loss,acc\n0,2.0,0.1\n1,1.5,0.2\nepoch,3, optimizer,adam,,\n"
    run = _one(tmp_path, body, "notes.txt")
    assert run.get("loss").steps.tolist() == [0, 1]
    assert run.get("loss").values.tolist() == pytest.approx([2.0, 1.5])
    assert "eval_loss" not in run.series


def test_an_extensionless_log_is_discovered_when_it_reads_as_a_log(tmp_path: Path) -> None:
    (tmp_path / "log").write_text(_age_log(), encoding="utf-8")
    (tmp_path / "train_log").write_bytes(b"\x00\x01\x02ELF" * 500)  # a binary: never read
    (tmp_path / "LICENSE").write_text(_age_log(), encoding="utf-8")  # not a log's name
    assert console_named(tmp_path / "log") and console_named(tmp_path / "training_log")
    assert not console_named(tmp_path / "LICENSE") and not console_named(tmp_path / "catalog")
    assert not is_console(tmp_path / "train_log")
    assert discover_runs(tmp_path) == [tmp_path / "log"]
    assert [s.path for s in detect_dir(tmp_path)] == [tmp_path / "log"]


def test_an_extensionless_log_of_prose_is_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "log").write_text("fixed the data loader\nbumped the version\n")
    assert not is_console(tmp_path / "log")
    assert discover_runs(tmp_path) == []


# -- 2. darknet ---------------------------------------------------------------------------
_REGION = (
    "Region 94 Avg IOU: -nan, Class: -nan, Obj: -nan, No Obj: 0.000001, .5R: -nan, "
    ".75R: -nan,  count: 0\n"
)


def test_darknet_iteration_line(tmp_path: Path) -> None:
    body = (
        _REGION
        + "998: 0.100000, 0.200000 avg, 0.009960 rate, 4.797707 seconds, 63872 images\n"
        + "Loaded: 0.000041 seconds\n"
        + _REGION
        + "999: 0.000000, 0.150000 avg, 0.001000 rate, 3.2 seconds, 63936 images\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [998, 999]
    assert run.get("loss").values.tolist() == pytest.approx([0.1, 0.0])
    assert run.get("avg_loss").values.tolist() == pytest.approx([0.2, 0.15])
    assert run.get("lr").values.tolist() == pytest.approx([0.00996, 0.001])
    assert not {"region", "count", "avg_iou", "obj"} & set(run.series)


def test_darknet_indented_iteration_line_alexeyab(tmp_path: Path) -> None:
    # AlexeyAB's fork: printf("\n %d: %f, %f avg loss, %f rate, %lf seconds, %d images, ...")
    body = (
        "\n 1: 720.436157, 720.436157 avg loss, 0.000000 rate, 3.429000 seconds, 64 images, "
        "-1.000000 hours left\n"
        "\n 2: 719.812012, 720.373779 avg loss, 0.000000 rate, 3.306000 seconds, 128 images, "
        "18.240154 hours left\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2]
    assert run.get("avg_loss").values.tolist() == pytest.approx([720.436157, 720.373779])
    # "%f": the rate's 6 decimals are its resolution (0.000000 in the burn-in is no LR of 0)
    assert run.fact("lr_print_decimals") == 6


def test_darknet_classifier_line_carries_the_epoch(tmp_path: Path) -> None:
    # pjreddie's classifier.c: "%ld, %.3f: %f, %f avg, %f rate, %lf seconds, %ld images"
    body = (
        "40245, 4.021: 6.907692, 6.910023 avg, 0.081346 rate, 0.385639 seconds, 5151360 images\n"
        "40246, 4.021: 6.911774, 6.910198 avg, 0.081345 rate, 0.384818 seconds, 5151488 images\n"
        "40247, 4.022: 6.910047, 6.910182 avg, 0.081345 rate, 0.383268 seconds, 5151616 images\n"
    )
    run = _one(tmp_path, body)
    loss = run.get("loss")
    assert loss.steps.tolist() == [40245, 40246, 40247]
    assert loss.values.tolist() == pytest.approx([6.907692, 6.911774, 6.910047])
    assert run.get("avg_loss").values.tolist() == pytest.approx([6.910023, 6.910198, 6.910182])
    assert run.get("lr").values.tolist() == pytest.approx([0.081346, 0.081345, 0.081345])


def test_a_numbered_pair_without_darknet_fields_is_not_a_classifier_line(tmp_path: Path) -> None:
    # near miss: "N, E: a, b avg" without the rate/seconds/images fields
    run = _one(tmp_path, "12, 1.5: 0.5, 0.4 avg\nstep 3 loss 1.0\nstep 4 loss 0.9\n")
    assert run.get("loss").steps.tolist() == [3, 4]
    assert "avg_loss" not in run.series


def test_darknet_region_lines_alone_are_no_run(tmp_path: Path) -> None:
    with pytest.raises(ReadError):
        _read(tmp_path, _REGION * 3)


def test_a_numbered_list_is_not_a_darknet_line(tmp_path: Path) -> None:
    # near miss: "N: a, b avg" without the rate/seconds/images fields
    run = _one(tmp_path, "12: 0.5, 0.4 avg\nstep 3 loss 1.0\nstep 4 loss 0.9\n")
    assert run.get("loss").steps.tolist() == [3, 4]
    assert "avg_loss" not in run.series


# -- 3. vertical epoch blocks -------------------------------------------------------------
def _template_block(epoch: int, loss: float, val: float) -> str:
    return (
        f"    epoch          : {epoch}\n"
        f"    loss           : {loss}\n"
        f"    accuracy       : 0.42\n"
        f"    val_loss       : {val}\n"
        f"    val_accuracy   : 0.38\n"
    )


def test_pytorch_template_block_is_one_record(tmp_path: Path) -> None:
    body = "".join(_template_block(e, 1.5 - e / 10, 1.6 - e / 20) for e in (1, 2, 3))
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3]
    assert run.get("loss").values.tolist() == pytest.approx([1.4, 1.3, 1.2])
    assert run.get("eval_loss").values.tolist() == pytest.approx([1.55, 1.5, 1.45])
    assert run.get("accuracy").steps.tolist() == [1, 2, 3]
    assert run.get("val_accuracy").steps.tolist() == [1, 2, 3]


def test_pandas_series_block_is_one_record(tmp_path: Path) -> None:
    body = "".join(
        f"TRAIN EPOCH  {e}:\nloss             {1.39 - e / 100:.6f}\ncrl              0.1\n"
        f"accuracy         0.25\ndtype: float64\n\nVal epoch {e} has acc 0.249 and loss 1.386\n"
        for e in range(3)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [0, 1, 2]
    assert run.get("loss").values.tolist() == pytest.approx([1.39, 1.38, 1.37])
    assert run.get("crl").steps.tolist() == [0, 1, 2]
    assert run.get("eval_loss").steps.tolist() == [0, 1, 2]


def test_a_yaml_config_is_not_an_epoch_block(tmp_path: Path) -> None:
    # near miss: YAML's "  epoch: 5" has no space before the colon; it stays config
    body = "trainer:\n  epoch: 5\n  loss: 2.0\n  lr: 0.001\nstep 1 loss 3.0\nstep 2 loss 2.5\n"
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2]
    assert run.get("loss").values.tolist() == pytest.approx([3.0, 2.5])


# -- 4. Stable-Baselines3 logger tables ---------------------------------------------------
def _sb3(it: int, reward: float | None = None) -> str:
    rollout = (
        f"| rollout/                |             |\n|    ep_rew_mean          | {reward:<11} |\n"
        if reward is not None
        else ""
    )
    return (
        "-----------------------------------------\n"
        + rollout
        + "| time/                   |             |\n"
        f"|    fps                  | 773         |\n"
        f"|    iterations           | {it:<11} |\n"
        f"|    total_timesteps      | {it * 2048:<11} |\n"
        "| train/                  |             |\n"
        f"|    approx_kl            | 0.016806401 |\n"
        f"|    entropy_loss         | -1.38       |\n"
        f"|    learning_rate        | 0.0003      |\n"
        f"|    loss                 | {0.1 / it:<11.4f} |\n"
        f"|    n_updates            | {it * 10:<11} |\n"
        "-----------------------------------------\n"
    )


def test_sb3_table_is_one_record_at_its_timesteps(tmp_path: Path) -> None:
    body = "Using cpu device\n" + "".join(_sb3(i, 0.1 * i) for i in (1, 2, 3))
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [2048, 4096, 6144]
    assert run.get("reward").values.tolist() == pytest.approx([0.1, 0.2, 0.3])
    assert run.get("lr").values[0] == pytest.approx(3e-4)
    # PPO's approx KL (old vs updated policy), not a GRPO `kl` (policy vs reference)
    assert run.get("approx_kl").values[0] == pytest.approx(0.016806401)
    assert "kl" not in run.series
    assert run.get("entropy").values[0] == pytest.approx(-1.38)
    assert not {"fps", "n_updates", "iterations", "total_timesteps"} & set(run.series)


def test_a_callback_print_before_each_table_is_numbered_by_it(tmp_path: Path) -> None:
    body = "".join(
        f"Output {i}: Average over 100 episodes - Reward: {0.02 * i}\n" + _sb3(i) for i in (1, 2, 3)
    )
    run = _one(tmp_path, body)
    assert "output" not in run.series  # the print counter is no metric
    assert run.get("reward").steps.tolist() == [2048, 4096, 6144]
    assert run.get("reward").values.tolist() == pytest.approx([0.02, 0.04, 0.06])
    assert "logger table printed after" in run.inputs[0].steps_from


def test_a_markdown_table_is_not_an_sb3_table(tmp_path: Path) -> None:
    # near miss: a Markdown results table (its first row is a header, not a "name/" section)
    body = "| step | loss |\n|---|---|\n| 1 | 2.0 |\n| 2 | 1.5 |\n"
    run = _one(tmp_path, body, "README.md")
    assert run.get("loss").steps.tolist() == [1, 2]
    assert "kl" not in run.series


def _her(epoch: int, rate: float) -> str:
    # OpenAI baselines' own logger: the boxed table without "name/" sections
    return (
        "-----------------------------------\n"
        f"| epoch              | {epoch:<10} |\n"
        "| stats_g/mean       | 0.0        |\n"
        f"| test/episode       | {20.0 * (epoch + 1):<10} |\n"
        "| test/mean_Q        | -0.8976488 |\n"
        f"| test/success_rate  | {rate:<10} |\n"
        f"| train/episode      | {20.0 * (epoch + 1):<10} |\n"
        "| train/success_rate | 0.0        |\n"
        "-----------------------------------\n"
        f"New best success rate: {rate}. Saving policy to /tmp/policy_best.pkl ...\n"
    )


def test_a_baselines_table_without_sections_is_one_record_at_its_epoch(tmp_path: Path) -> None:
    body = "Training...\n" + "".join(_her(i, 0.05 * i) for i in (0, 1, 2))
    run = _one(tmp_path, body)
    assert run.get("test/success_rate").steps.tolist() == [0, 1, 2]
    assert run.get("test/success_rate").values.tolist() == pytest.approx([0.0, 0.05, 0.1])
    assert "train/success_rate" in run.series
    assert not {"epoch", "test/episode", "train/episode"} & set(run.series)


def test_boxed_rows_without_the_line_of_dashes_are_not_a_baselines_table(tmp_path: Path) -> None:
    # near miss: a two-column settings table in a log (no line of dashes opens it)
    body = "step 1 loss 2.0\n| train_batch_size | 8 |\n| learning_rate | 5e-05 |\nstep 2 loss 1.5\n"
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == pytest.approx([2.0, 1.5])
    assert "train_batch_size" not in run.series


# -- Caffe net outputs pasted without their glog prefixes ----------------------------------

CAFFE_BARE = """Iteration 18000, Testing net (#0)
Test net output #0: accuracy/top-1 = 0.24
Test net output #1: accuracy/top-5 = 0.486
Test net output #2: loss = 3.30735 (* 1 = 3.30735 loss)
Iteration 19000, Testing net (#0)
Test net output #0: accuracy/top-1 = 0.008
Test net output #1: accuracy/top-5 = 0.037
Test net output #2: loss = 87.3366 (* 1 = 87.3366 loss)
"""


def test_caffe_test_outputs_without_glog_prefixes_are_evals_at_their_iteration(
    tmp_path: Path,
) -> None:
    run = _one(tmp_path, CAFFE_BARE)
    ev = run.series["eval_loss"]
    assert ev.steps.tolist() == [18000, 19000]
    assert ev.values.tolist() == [3.30735, 87.3366]
    assert run.series["eval_accuracy/top-1"].values.tolist() == [0.24, 0.008]
    assert "loss" not in run.series  # a test net output is not the train loss


def test_a_prose_line_that_starts_with_iteration_is_not_a_caffe_record(tmp_path: Path) -> None:
    body = "Iteration speed is fine\nstep 1 loss 2.5\nstep 2 loss 2.4\nstep 3 loss 2.3\n"
    run = _one(tmp_path, body)
    assert run.series["loss"].values.tolist() == [2.5, 2.4, 2.3]
    assert "eval_loss" not in run.series


def test_tianshou_bar_and_test_lines(tmp_path: Path) -> None:
    """tianshou's trainer (issue #667, verbatim, its carriage returns lost so the test
    line is glued to the next epoch's bar): the bar is numbered by env_step, and the
    test line gives the eval return, its spread over the test episodes, and the epoch
    of the best test return so far (#0: the untrained policy)."""
    body = (
        "Epoch #1: 2001it [00:36, 54.27it/s, env_step=2000, len=1001, loss/actor=11.228, "
        "loss/critic1=0.062, loss/critic2=0.064, n/ep=0, n/st=1, rew=-943.40]"
        "                          \n"
        "Epoch #2:   0%|          | 1/2000 [00:00<00:37, 53.87it/s, env_step=2001, len=1001, "
        "loss/actor=11.233, loss/critic1=0.061, loss/critic2=0.064, n/ep=0, n/st=1, "
        "rew=-943.40]Epoch #1: test_reward: -943.400000 ± 0.000000, best_reward: "
        "-943.400000 ± 0.000000 in #0\n"
        "Epoch #2: 2001it [00:38, 52.39it/s, env_step=4000, len=2000, loss/actor=19.322, "
        "loss/critic1=0.155, loss/critic2=0.158, n/ep=0, n/st=1, rew=-1884.80]"
        "                          \n"
        "Epoch #2: test_reward: -943.400000 ± 0.000000, best_reward: -943.400000 ± 0.000000 in #0\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss/actor").steps.tolist() == [2000, 2001, 4000]
    ev = run.get("eval_reward")
    assert ev is not None and ev.values.tolist() == [-943.4, -943.4]
    assert run.get("eval_episode_reward_std").values.tolist() == [0.0, 0.0]
    assert run.get("eval_best_reward_epoch").values.tolist() == [0.0, 0.0]
    # the bar's rew is the reward where it is a new reading: its repeat beside n/ep=0
    # (no episode ended) is dropped, the -1884.80 an episode ended during epoch #2 kept
    r = run.get("reward")
    assert r is not None and run.is_rl
    assert r.steps.tolist() == [2000, 4000] and r.values.tolist() == [-943.4, -1884.8]


def test_tianshou_rew_is_the_reward_where_episodes_ended(tmp_path: Path) -> None:
    """tianshou's bar postfix (trainer/base.py: env_step, len, losses, n/ep, n/st, rew
    = f"{self.last_rew:.2f}", tqdm sorting the keys): rew is a new mean return where the
    collect finished episodes (n/ep > 0); 0.00 before the first episode ended and a
    repeat beside n/ep=0 are no readings."""
    bars = [
        (1000, 0, 0, "0.00"),
        (2000, 12, 5, "22.40"),
        (3000, 30, 0, "22.40"),
        (4000, 41, 3, "22.40"),
        (5000, 55, 2, "58.50"),
    ]
    body = "".join(
        f"Epoch #{i + 1}: {s + 1}it [00:02, 420.42it/s, env_step={s}, len={ln}, "
        f"loss=0.691, n/ep={ep}, n/st=10, rew={rew}]\n"
        for i, (s, ln, ep, rew) in enumerate(bars)
    )
    r = _one(tmp_path, body).get("reward")
    assert r is not None
    assert r.steps.tolist() == [2000, 4000, 5000]
    assert r.values.tolist() == [22.4, 22.4, 58.5]
