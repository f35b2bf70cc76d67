"""Lightning CSVLogger: sparse rows, *_step vs *_epoch, header rewrites, hparams."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.readers.helpers import load_checked
from traindoc.model.signals import METRIC_KINDS, kind

# The layout FORMATS.md 3 shows (lightning 2.6.6), over two epochs.
CSV = """epoch,lr_epoch,lr_step,step,train_loss_epoch,train_loss_step,val_loss
0,,0.01,1,,2.81,
0,,0.01,3,,2.10,
0,,,3,,,1.90
0,0.0099,,3,2.4,,
1,,0.009,5,,nan,
1,,0.009,7,,1.50,
1,,,7,,,1.60
1,0.009,,7,1.6,,
"""


def _version(root: Path, n: int, csv: str = CSV, hparams: str | None = None) -> Path:
    d = root / "lightning_logs" / f"version_{n}"
    d.mkdir(parents=True)
    (d / "metrics.csv").write_text(csv)
    if hparams is not None:
        (d / "hparams.yaml").write_text(hparams)
    return d


def test_step_columns_feed_train_signals_epoch_columns_eval(tmp_path: Path) -> None:
    _version(
        tmp_path,
        0,
        hparams="lr: 0.01\nbatch_size: 16\nprecision: bf16-mixed\nmodel:\n  vocab_size: 256\n",
    )
    run = load_checked(tmp_path)
    loss, lr, ev = run.get("loss"), run.get("lr"), run.get("eval_loss")
    assert loss is not None and lr is not None and ev is not None
    assert loss.steps.tolist() == [1, 3, 5, 7] and np.isnan(loss.values[2])
    assert loss.source == "lightning: train_loss_step"
    assert lr.values.tolist() == [0.01, 0.01, 0.009, 0.009]
    assert ev.steps.tolist() == [3, 7] and ev.values.tolist() == [1.9, 1.6]
    assert "train_loss_epoch" in run.series and "lr_epoch" in run.series
    assert run.fact("learning_rate") == 0.01 and run.fact("per_device_batch") == 16
    assert run.fact("precision") == "bf16" and run.fact("vocab_size") == 256
    assert run.fact("trainer") == "lightning" and not run.notes


def test_latest_version_is_read_and_others_noted(tmp_path: Path) -> None:
    _version(tmp_path, 0)
    _version(tmp_path, 2, CSV.replace("2.81", "9.99"))
    run = load_checked(tmp_path)
    loss = run.get("loss")
    assert loss is not None and loss.values[0] == 9.99
    assert any("version_0" in n.message for n in run.notes)


def test_header_rewritten_mid_file_and_bad_rows(tmp_path: Path) -> None:
    csv = "epoch,step,train_loss\n0,1,2.0\n0,2,abc\n0,3\nepoch,grad_norm,step,train_loss\n0,0.5,4,1.5\n"
    d = _version(tmp_path, 0, csv, hparams="lr: [unclosed\n")
    run = load_checked(d / "metrics.csv")
    loss, gn = run.get("loss"), run.get("grad_norm")
    assert loss is not None and loss.steps.tolist() == [1, 4]
    assert gn is not None and gn.steps.tolist() == [4]
    msgs = [str(n) for n in run.notes]
    assert any("metrics.csv:4: skipped 1 row with the wrong number of cells" in m for m in msgs)
    assert any("non-numeric 'train_loss'" in m and "line 3" in m for m in msgs)
    assert any("hparams.yaml" in m and "not read" in m for m in msgs)


def test_hparams_with_python_objects_keep_their_other_keys(tmp_path: Path) -> None:
    """Lightning dumps a class-weight tensor as a python/object tag (a real
    telangana crop-classifier hparams.yaml, abridged): the file is read around it,
    and nothing is constructed (the os.system tag would create a file if called)."""
    marker = tmp_path / "called"
    hp = (
        "class_weights: !!python/object/apply:torch._utils._rebuild_tensor_v2\n"
        "- !!python/object/apply:torch.storage._load_from_bytes\n"
        "  - !!binary |\n"
        "    gAKKCmz8nEb5IGqoUBku\n"
        "- 0\n"
        "- !!python/tuple\n"
        "  - 4\n"
        "- !!python/object/apply:collections.OrderedDict\n"
        "  - []\n"
        f"hook: !!python/object/apply:os.system ['touch {marker}']\n"
        "learning_rate: 0.001\n"
        "num_classes: 4\n"
    )
    d = _version(tmp_path, 0, CSV, hparams=hp)
    run = load_checked(d / "metrics.csv")
    assert run.fact("num_classes") == 4
    assert not marker.exists()
    assert not any("hparams.yaml" in str(n) and "not read" in str(n) for n in run.notes)


def test_metrics_csv_directly_in_the_dir(tmp_path: Path) -> None:
    (tmp_path / "metrics.csv").write_text(CSV)
    run = load_checked(tmp_path)
    assert run.get("loss") is not None


def test_val_loss_per_epoch_wins_over_a_final_test_loss(tmp_path: Path) -> None:
    """`trainer.test()` appends one test_loss row: the eval curve is still val_loss."""
    csv = CSV.rstrip("\n").replace("val_loss", "val_loss,test_loss") + "\n"
    rows = csv.splitlines()
    rows = [rows[0]] + [r + "," for r in rows[1:]] + ["1,,,7,,,,2.2"]
    _version(tmp_path, 0, "\n".join(rows) + "\n")
    run = load_checked(tmp_path)
    ev = run.get("eval_loss")
    assert ev is not None and ev.values.tolist() == [1.9, 1.6]
    assert run.get("test_loss") is not None and run.get("test_loss").values.tolist() == [2.2]


def test_the_epoch_column_is_the_epoch_signal_not_a_metric(tmp_path: Path) -> None:
    # the corpus collector asked: metrics.csv's `epoch` column gives the `epoch` series,
    # the signal rules set steps against (overfitting, epoch-staircase), one point a step
    _version(tmp_path, 0)
    run = load_checked(tmp_path)
    ep = run.get("epoch")
    assert ep is not None and ep.steps.tolist() == [1, 3, 5, 7]
    assert ep.values.tolist() == [0, 0, 1, 1]
    assert kind("epoch") == "epoch" and "epoch" not in METRIC_KINDS
    from_epoch = [k for k, s in run.series.items() if s.source == "lightning: epoch"]
    assert from_epoch == ["epoch"]  # read once, under its signal's name


def test_baselines_progress_csv_return_is_the_reward(tmp_path: Path) -> None:
    """OpenAI baselines' CSV logger (progress.csv): DDPG's 100-episode mean return
    (rollout/return_history) and PPO2's eprewmean are the reward, so the run reads as
    RL and its actor loss (-Q, falling below 0 as Q grows) is not read as a curve."""
    p = tmp_path / "progress.csv"
    p.write_text(
        "rollout/return_history,total/epochs,train/loss_actor,train/loss_critic\n"
        "-1225.1,1,131.75,288.0\n3293.0,2,-1753.0,5449.9\n5558.1,3,-2150.5,5634.2\n"
    )
    run = load_checked(p)
    reward = run.get("reward")
    assert reward is not None and reward.values.tolist() == [-1225.1, 3293.0, 5558.1]
    assert run.is_rl
    assert load_checked(tmp_path).get("reward") is not None  # the directory finds it
    q = tmp_path / "ppo2"
    q.mkdir()
    (q / "progress.csv").write_text("eprewmean,policy_loss,serial_timesteps\n1.5,0.01,2048\n")
    assert load_checked(q / "progress.csv").get("reward") is not None


def test_spinning_up_progress_txt_return_is_the_reward(tmp_path: Path) -> None:
    """OpenAI Spinning Up's EpochLogger (progress.txt, tab-separated): AverageEpRet is
    the reward and StdEpRet the spread of the episodes' returns, so the run reads as RL
    and LossPi + LossV (a surrogate and a value loss) is not read as a learning curve;
    TotalEnvInteracts is the step where a reader takes a step column."""
    body = (
        "Epoch\tAverageEpRet\tStdEpRet\tEpLen\tTotalEnvInteracts\tLossPi\tLossV\tKL\n"
        "0\t-78.7\t19.3\t150.0\t10000\t1.4e-07\t21.48\t0.0044\n"
        "1\t-77.2\t18.0\t150.0\t20000\t3.7e-08\t15.80\t0.0079\n"
        "2\t-66.7\t16.1\t150.0\t30000\t-3.7e-08\t5.80\t0.0069\n"
    )
    p = tmp_path / "progress.txt"
    p.write_text(body)
    run = load_checked(p)
    assert run.get("reward").values.tolist() == [-78.7, -77.2, -66.7]
    assert run.get("episode_reward_std").values.tolist() == [19.3, 18.0, 16.1]
    assert run.is_rl
    q = tmp_path / "csv"
    q.mkdir()
    (q / "progress.csv").write_text(body.replace("\t", ","))
    assert load_checked(q / "progress.csv").get("reward").steps.tolist() == [10000, 20000, 30000]


def test_an_rl_csv_under_its_own_name_is_found_in_its_directory(tmp_path: Path) -> None:
    """CS285's log.csv (Train_AverageReturn, Train_StdReturn, 'Actor Loss') and an
    offline-RL eval.csv (eval/success_rate, step): found by their header when the
    directory holds no log of a known name; a data CSV with no RL column is not."""
    (tmp_path / "log.csv").write_text(
        "Eval_AverageReturn,Train_AverageReturn,Train_StdReturn,Actor Loss,step\n"
        "-758.7,-656.0,86.1,-109.9,0\n-701.2,-640.5,80.0,-95.1,1\n"
    )
    run = load_checked(tmp_path)
    assert run.get("reward").values.tolist() == [-656.0, -640.5]
    assert run.get("episode_reward_std") is not None and run.is_rl
    ev = tmp_path / "eval"
    ev.mkdir()
    (ev / "eval.csv").write_text("eval/success_rate,step\n0.0,0\n0.0,100000\n")
    assert load_checked(ev).get("eval/success_rate").steps.tolist() == [0, 100000]
    from traindoc.readers.detect import detect_dir

    data = tmp_path / "data"
    data.mkdir()
    (data / "prices.csv").write_text("date,close\n2020-01-01,3.5\n")
    assert not detect_dir(data, depth=0)


def test_a_progress_csv_of_no_metrics_is_not_a_run(tmp_path: Path) -> None:
    """progress.csv is a common name (a to-do tracker): only a header that names a
    metric makes it a training log."""
    from traindoc.readers.detect import detect_dir

    (tmp_path / "progress.csv").write_text("task,done\nwrite docs,yes\n")
    assert not any(s.path.name == "progress.csv" for s in detect_dir(tmp_path))


def test_rl_progress_csv_is_numbered_by_its_env_steps(tmp_path: Path) -> None:
    """An RL progress.csv has no step column: its rows are numbered by the environment
    steps so far (SB3's time/total_timesteps, baselines DDPG's total/steps), the x axis
    of every RL curve; the counter is the step, not a metric. The first two rows of the
    committed SB3 drone-hover log (verbatim header, trimmed rows)."""
    p = tmp_path / "progress.csv"
    p.write_text(
        "time/total_timesteps,rollout/ep_rew_mean,time/fps,rollout/ep_len_mean\n"
        "2048,19.20528098,161,13.25\n"
        "4096,21.5,160,14.0\n"
    )
    run = load_checked(p)
    reward = run.get("reward")
    assert reward is not None and reward.steps.tolist() == [2048, 4096]
    assert "time/total_timesteps" not in run.series
    q = tmp_path / "ddpg"
    q.mkdir()
    (q / "progress.csv").write_text(
        "rollout/return_history,total/steps,total/epochs\n-2081.4,2000,1\n-2200.7,4000,2\n"
    )
    assert load_checked(q / "progress.csv").get("reward").steps.tolist() == [2000, 4000]
    # a step column of its own wins: the counter stays a series
    r = tmp_path / "own"
    r.mkdir()
    (r / "progress.csv").write_text("step,total_timesteps,eprewmean\n1,2048,1.0\n2,4096,2.0\n")
    assert load_checked(r / "progress.csv").get("reward").steps.tolist() == [1, 2]


# A custom tracker's metrics.csv (CS336 assignment runs: step, train_loss, val_loss,
# learning_rate columns) with the loop's config.json beside it and no hparams.yaml.
TRACKER = """step,wallclock_time,train_loss,val_loss,learning_rate
0,1.0,9.2357,,0.0
0,1.2,,9.2735,
50,3.0,7.91,,1.2e-06
100,5.0,6.80,,2.3e-06
"""


def test_config_json_beside_a_metrics_csv_gives_its_facts(tmp_path: Path) -> None:
    d = tmp_path / "batch_1"
    d.mkdir()
    (d / "metrics.csv").write_text(TRACKER)
    (d / "config.json").write_text(
        '{"batch_size": 1, "learning_rate": 0.0003, "warmup_iters": 12800, "vocab_size": 10000}'
    )
    run = load_checked(d / "metrics.csv")
    assert run.fact("per_device_batch") == 1 and run.fact("learning_rate") == 3e-4
    assert run.fact("vocab_size") == 10000
    assert any(i.path.endswith("config.json") for i in run.inputs)


def test_hparams_yaml_wins_over_a_config_json(tmp_path: Path) -> None:
    d = _version(tmp_path, 0, hparams="lr: 0.01\nbatch_size: 16\n")
    (d / "config.json").write_text('{"batch_size": 1}')
    run = load_checked(tmp_path)
    assert run.fact("per_device_batch") == 16
    assert not any(i.path.endswith("config.json") for i in run.inputs)
