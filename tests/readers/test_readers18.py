"""Reader fixes found on logs of trainers the corpus had few of (readers18): Chainer's
LogReport `log` (one indented JSON array of records) and its `main/` / `validation/main/`
key prefixes, ml-agents' "Std of Reward" beside its "Mean Reward", an RL logger's
progress.csv stepped by its environment steps rather than its row number, and a
space-aligned table whose rows leave cells blank (Chainer's PrintReport between evaluations).

Each fix is built on the real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, read_log, values
from traindoc.readers import lightning_csv
from traindoc.readers.detect import detect_file


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. Chainer's LogReport file: one indented JSON array of records ---------------------

# crcrpar/chainer-VAE result/log @ fa310bf (first two records, verbatim)
_CHAINER_LOG = "\n".join(
    [
        "[",
        "    {",
        '        "main/loss": 148.2299977238973, ',
        '        "iteration": 600, ',
        '        "epoch": 1, ',
        '        "validation/main/loss": 125.68832977294922',
        "    }, ",
        "    {",
        '        "main/loss": 123.16410636901855, ',
        '        "iteration": 1200, ',
        '        "epoch": 2, ',
        '        "validation/main/loss": 119.16097625732422',
        "    }",
        "]",
    ]
)


def test_chainer_logreport_array_is_read_a_record_at_a_time(tmp_path: Path) -> None:
    # before: no line held a whole record, and the file was "not a recognised training log"
    run = one_log(tmp_path, _CHAINER_LOG, name="log")
    assert _steps(run, "loss") == [600.0, 1200.0]
    assert values(run, "loss") == [148.2299977238973, 123.16410636901855]
    assert values(run, "eval_loss") == [125.68832977294922, 119.16097625732422]


def test_chainer_logreport_file_is_detected_by_its_content(tmp_path: Path) -> None:
    p = tmp_path / "log"
    p.write_text(_CHAINER_LOG)
    src = detect_file(p)
    assert src is not None and src.kind == "console"


def test_a_json_array_of_settings_is_no_log(tmp_path: Path) -> None:
    # near miss: an array of objects that hold no metric is not read as a training log
    p = tmp_path / "log"
    p.write_text('[\n    {\n        "name": "a",\n        "path": "/x"\n    }\n]\n')
    assert detect_file(p) is None


# Chainer 1.16 examples/mnist/train_mnist.py output quoted in a public README (PrintReport
# table, verbatim lines): the same prefixes name the table's columns
_PRINT_REPORT = (
    "epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy\n"
    "1           0.192325    0.092044              0.941333       0.9694                    \n"
    "2           0.0741603   0.0772249             0.976783       0.9752                    \n"
    "3           0.0490249   0.0818211             0.984617       0.9769                    \n"
)


def test_chainer_print_report_main_loss_is_the_loss(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PRINT_REPORT)
    assert values(run, "loss") == [0.192325, 0.0741603, 0.0490249]
    assert values(run, "eval_loss") == [0.092044, 0.0772249, 0.0818211]


def test_a_main_prefix_inside_a_name_is_kept(tmp_path: Path) -> None:
    # near miss: only a leading "main/" is Chainer's reporter prefix
    body = "".join(f"step {i} loss {v} domain/main/acc 0.5\n" for i, v in [(1, 2.0), (2, 1.5)])
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.5]


# -- 2. ml-agents: "Std of Reward" is the reward's spread, not a second reward -----------

# Unity-Technologies/ml-agents#182 (verbatim, as quoted in the issue)
_MLAGENTS = (
    "> Step: 10000. Mean Reward: -0.019164564192888086. Std of Reward: 0.0786144832296523.\n"
    "> Step: 20000. Mean Reward: -0.02087563569116967. Std of Reward: 0.08042892856530069.\n"
    "> Step: 30000. Mean Reward: -0.020126928243850463. Std of Reward: 0.08035407475490902.\n"
)


def test_mlagents_std_of_reward_is_no_second_reward(tmp_path: Path) -> None:
    # before: the std became a junk "reward_1" series beside the reward. It is the spread
    # over the summary's episodes, not GRPO's group reward_std: episode_reward_std
    run = one_log(tmp_path, _MLAGENTS)
    assert "reward_1" not in run.series and "reward_std" not in run.series
    assert values(run, "episode_reward_std")[0] == 0.0786144832296523
    assert values(run, "reward")[0] == -0.019164564192888086
    assert _steps(run, "reward") == [10000.0, 20000.0, 30000.0]


def test_a_std_without_of_is_read_as_before(tmp_path: Path) -> None:
    # near miss: "<name> of <name>" with no statistic word keeps its last word as the key
    body = "".join(f"Step: {s}. Mean Reward: {r}. Loss of Policy: {p}.\n" for s, r, p in
                   [(1, 0.1, 2.0), (2, 0.2, 1.5)])  # fmt: skip
    run = one_log(tmp_path, body)
    assert values(run, "reward") == [0.1, 0.2]
    assert "std_of_reward" not in run.series and "episode_reward_std" not in run.series


# -- 3. SB3 progress.csv: the step is time/total_timesteps, not the row ------------------

# first rows of the drone-hover case's progress.csv (SB3 PPO CSV logger, verbatim)
_SB3_CSV = (
    "time/total_timesteps,rollout/ep_rew_mean,time/fps,rollout/ep_len_mean,time/time_elapsed,"
    "time/iterations,train/n_updates,train/approx_kl,train/value_loss,train/clip_range,"
    "train/explained_variance,train/loss,train/entropy_loss,train/policy_gradient_loss,"
    "train/std,train/learning_rate,train/clip_fraction\n"
    "2048,19.20528098,161,13.25,12,1,,,,,,,,,,,\n"
    "4096,19.17480833,173,12.85,23,2,10,0.020267975,1.3784449300728738,0.2,"
    "-0.5677647590637207,0.2597962021827698,-5.659043323993683,-0.0369520307489438,"
    "0.9925880432128906,0.0003,0.139111328125\n"
)


def test_sb3_progress_csv_is_stepped_by_total_timesteps(tmp_path: Path) -> None:
    p = tmp_path / "progress.csv"
    p.write_text(_SB3_CSV)
    run = lightning_csv.read(p)
    assert _steps(run, "reward") == [2048.0, 4096.0]
    assert _steps(run, "loss") == [4096.0]


def test_a_csv_with_a_step_column_keeps_it(tmp_path: Path) -> None:
    # near miss: a "step" column still wins over a timestep count beside it
    p = tmp_path / "metrics.csv"
    p.write_text("step,total_timesteps,loss\n10,640,2.0\n20,1280,1.5\n")
    run = lightning_csv.read(p)
    assert _steps(run, "loss") == [10.0, 20.0]


# -- 4. A space-aligned table whose rows leave cells blank (Chainer PrintReport) ---------

# soskek/weight_normalization README.md (PrintReport every iteration, Evaluator at the end)
_BLANK_CELLS = (
    "iteration   main/loss   validation/main/loss  main/accuracy  validation/main/accuracy"
    "  elapsed_time\n"
    "1           5.80999                           0.08                                     0.753265\n"
    "2           16.8105                           0.09                                     0.765204\n"
    "3           16.916                            0.13                                     0.775952\n"
    "600         nan         nan                   0.05           0.098                     9.97829\n"
)


def test_blank_cells_are_placed_by_their_column(tmp_path: Path) -> None:
    # before: a row with fewer numbers than the header has names was dropped, so only the
    # last row (every cell filled) was read
    run = one_log(tmp_path, _BLANK_CELLS)
    assert _steps(run, "loss") == [1.0, 2.0, 3.0, 600.0]
    assert values(run, "loss")[:3] == [5.80999, 16.8105, 16.916]
    assert values(run, "accuracy")[:3] == [0.08, 0.09, 0.13]
    assert _steps(run, "eval_loss") == [600.0]


def test_a_number_off_every_column_start_leaves_the_row_unread(tmp_path: Path) -> None:
    # near miss: a short row whose numbers do not start under the names is not guessed at
    body = (
        "iteration   main/loss   validation/main/loss  main/accuracy\n"
        "1           5.8         0.2                   0.08\n"
        "2             4.1                           0.10\n"
        "3           3.9         0.2                   0.12\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0, 3.0]


def test_a_row_cut_short_is_left_unread(tmp_path: Path) -> None:
    # near miss: filled from the first column and stopping short, with no blank inside,
    # a row is what a paste cut mid-row leaves (its last number maybe cut mid-digits)
    body = (
        "iteration   main/loss   validation/main/loss  main/accuracy\n"
        "1           5.8         0.2                   0.08\n"
        "2           4.1         0.2\n"
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [1.0]


# -- 5. litgpt: a validation line numbered by the iteration, train lines by both ---------

# Lightning-AI/litgpt#1042 (verbatim): 8 micro-batches per optimizer step
_LITGPT = (
    "iter 4800: val loss 1.7258, val time: 3778.02 ms\n"
    "iter 4810 | step 601: loss 0.2745, iter time: 131.68 ms\n"
    "iter 4820 | step 602: loss 0.2813, iter time: 60.50 ms\n"
    "iter 4830 | step 603: loss 0.2746, iter time: 69.50 ms\n"
    "iter 4840 | step 605: loss 0.2609, iter time: 153.14 ms (optimizer.step)\n"
    "iter 4850 | step 606: loss 0.3222, iter time: 61.86 ms\n"
)


def test_litgpt_val_line_goes_on_the_step_axis(tmp_path: Path) -> None:
    # before: the val line sat at "step" 4800, past step 606, and the log split in two runs
    run = one_log(tmp_path, _LITGPT)
    assert _steps(run, "eval_loss") == [600.0]
    assert _steps(run, "loss") == [601.0, 602.0, 603.0, 605.0, 606.0]


def test_an_iteration_that_does_not_track_the_step_is_left_alone(tmp_path: Path) -> None:
    # near miss: when the two counters printed together keep no fixed ratio, the lone
    # iteration is not converted (and the run splits as before)
    body = (
        "iter 4800: val loss 1.7258, val time: 3778.02 ms\n"
        "iter 4810 | step 601: loss 0.2745, iter time: 131.68 ms\n"
        "iter 9000 | step 602: loss 0.2813, iter time: 60.50 ms\n"
        "iter 9100 | step 603: loss 0.2746, iter time: 69.50 ms\n"
    )
    runs = read_log(tmp_path, body)
    assert [
        float(s) for r in runs if "eval_loss" in r.series for s in r.get("eval_loss").steps
    ] == [4800.0]


# -- 6. An eval value a train line only carries (the last evaluation, printed every step) -

# NVIDIA-BioNeMo/bionemo-recipes#740 (NeMo / Lightning console, verbatim)
_NEMO = "".join(
    f"Training epoch 0, iteration {i}/149 | lr: 3e-05 | consumed_samples: {i + 1} | "
    f"global_batch_size: 1 | global_step: {i} | reduced_train_loss: {loss} | "
    f"train_step_timing in s: {t} | val_loss: 4.106\n"
    for i, loss, t in [
        (120, "1.233", "0.03146"),
        (121, "1.288", "0.03163"),
        (122, "1.333", "0.03215"),
        (123, "1.245", "0.03157"),
        (124, "1.375", "0.0317"),
        (125, "1.34", "0.03147"),
    ]
)


def test_a_carried_val_loss_is_one_evaluation(tmp_path: Path) -> None:
    # before: six eval points of 4.106, "eval loss flat" at steps 120-125
    run = one_log(tmp_path, _NEMO)
    assert _steps(run, "eval_loss") == [120.0]
    assert len(run.get("reduced_train_loss")) == 6


def test_an_eval_that_changes_every_line_keeps_every_point(tmp_path: Path) -> None:
    # near miss: a value that moves is a new evaluation on each line
    body = "".join(f"step {i} | loss {2 - i / 10} | val_loss {3 - i / 10}\n" for i in range(1, 5))
    run = one_log(tmp_path, body)
    assert _steps(run, "eval_loss") == [1.0, 2.0, 3.0, 4.0]


def test_a_stuck_val_loss_per_epoch_is_kept(tmp_path: Path) -> None:
    # near miss: Keras prints an evaluation on every epoch line; a stuck model repeats it
    body = "".join(
        f"Epoch {e}/4\n100/100 [==============================] - 1s - loss: {loss}"
        f" - val_loss: 2.3026\n"
        for e, loss in [(1, 2.31), (2, 2.305), (3, 2.3028), (4, 2.3027)]
    )
    run = one_log(tmp_path, body)
    assert len(run.get("eval_loss")) == 4


# -- 7. litgpt: "loss train: X, val: Y" -- the val is the validation loss ----------------

# Lightning-AI/litgpt#1110 (verbatim)
_LITGPT_TRAIN_VAL = (
    "Epoch 4 | iter 961 step 961 | loss train: 1.062, val: 1.057 | iter time: 529.46 ms (step)\n"
    "Epoch 4 | iter 962 step 962 | loss train: 0.937, val: 1.057 | iter time: 503.53 ms (step)\n"
    "Epoch 4 | iter 963 step 963 | loss train: 0.971, val: 1.057 | iter time: 522.10 ms (step)\n"
    "Epoch 4 | iter 964 step 964 | loss train: 0.902, val: 1.057 | iter time: 115.27 ms (step)\n"
    "Epoch 5 | iter 965 step 965 | loss train: 1.182, val: 1.057 | iter time: 743.31 ms (step)\n"
)


def test_litgpt_val_after_loss_train_is_the_val_loss(tmp_path: Path) -> None:
    # before: a metric named "val"; now the val loss, one evaluation carried on every line
    run = one_log(tmp_path, _LITGPT_TRAIN_VAL)
    assert "val" not in run.series
    assert values(run, "eval_loss") == [1.057]
    assert values(run, "loss") == [1.062, 0.937, 0.971, 0.902, 1.182]


def test_a_bare_val_without_loss_train_keeps_its_name(tmp_path: Path) -> None:
    # near miss: with no "loss train" heading the phrase, "val" names nothing known
    body = "".join(f"step {i} | loss: {2 - i / 10}, val: {i}\n" for i in range(1, 4))
    run = one_log(tmp_path, body)
    assert "eval_loss" not in run.series


# -- 8. torchrun --tee's "[default0]:" per-worker prefix ---------------------------------

# rwth-i6/i6_core#658 (RETURNN under torchrun --tee=3, verbatim)
_TORCHRUN = (
    b"[default3]:ep 55 train, step 1347, ce 0.355, ctc_4 1.038, ctc_10 0.790, ctc_16 0.729, "
    b"grad_norm:p2 3.388, num_seqs 26, max_size:time 306560, max_size:aug_spatial 143, "
    b"mem_usage:cuda:3 66.8GB, 0.838 sec/step, elapsed 0:16:59, exp. remaining 0:04:53, "
    b"complete 77.63%"
)


def test_torchrun_tee_prefix_is_the_local_rank() -> None:
    from traindoc.readers.logs.lines import clean

    text, rank, _ = clean(_TORCHRUN)
    assert rank == 3 and text.startswith(b"ep 55 train, step 1347")


def test_a_bracketed_word_is_no_worker_prefix() -> None:
    # near miss: "[defaults]" or a role-less "[default]:" is text, not a rank
    from traindoc.readers.logs.lines import clean

    for line in (b"[default]: ep 1 loss 2.0", b"[defaults0]: ep 1 loss 2.0"):
        text, rank, _ = clean(line)
        assert rank == -1 and text == line
