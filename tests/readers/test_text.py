"""The format-agnostic text reader: line grammars, number spellings, paste forms.

Each line below is the layout a real trainer prints (the comment names it);
the reader must find its step and metrics without knowing the trainer.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import one_log as _one
from tests.readers.helpers import read_log as _read
from traindoc.readers import ReadError, load_runs

# (line repeated for steps, the step it gives, metrics it must give) per layout
LINES = [
    # nanoGPT / lit-gpt style with a leading counter
    ("120 | loss 3.5625 | lr 6.0e-04 | 512.3ms", 120, {"loss": 3.5625, "lr": 6e-4}),
    # litgpt: micro-batch iter and optimizer step on one line: the step wins
    ("iter 1200 step 150: loss 2.3456, iter time: 980.12ms", 150, {"loss": 2.3456}),
    # custom loops: epoch / batch fractions and multi-word keys
    (
        "Epoch 0/3 | Batch 200/9000 | Train Loss 2.31 | Learning Rate 1e-05",
        200,
        {"loss": 2.31, "lr": 1e-5},
    ),
    # minimind: Epoch:[e/E](s/T)
    (
        "Epoch:[1/1](100/44160), loss: 7.4568, logits_loss: 7.4568, aux_loss: 0.0000, lr: 0.00049999",
        100,
        {"loss": 7.4568, "lr": 0.00049999, "aux_loss": 0.0},
    ),
    # llm.c old style and modded-nanogpt: tight k:v
    ("s:120 trl:3.21 tel:3.30", 120, {"loss": 3.21, "eval_loss": 3.30}),
    ("step:120/5000 val_loss:3.2804 train_time:11022ms", 120, {"eval_loss": 3.2804}),
    # llm.c main.log print
    (
        "step    1/18865 | train loss 11.010454 | norm 15.4383 (+nanz)| lr 8.39e-07 | 2534.34 ms",
        1,
        {"loss": 11.010454, "grad_norm": 15.4383, "lr": 8.39e-07},
    ),
    # mlx_lm
    (
        "Iter 25: Train loss 8.108, Learning Rate 7.000e-05, It/sec 0.984, Tokens/sec 384.079",
        25,
        {"loss": 8.108, "lr": 7e-5},
    ),
    # ml-agents (issue #1814): "Std of Reward" is the spread of the episodes' returns
    # behind the mean, its own series, not a second reward
    (
        "INFO:mlagents.trainers: PPOTest-0: NewLearner: Step: 19000. Mean Reward: -57.270. "
        "Std of Reward: 0.000. Training.",
        19000,
        {"reward": -57.27, "episode_reward_std": 0.0},
    ),
    # ml-agents >= 0.16: a "Time Elapsed" field between the step and the reward
    (
        "[INFO] CubeAgentRays. Step: 10000. Time Elapsed: 111.441 s. Mean Reward: -14.656. "
        "Std of Reward: 9.723. Training.",
        10000,
        {"reward": -14.656, "episode_reward_std": 9.723},
    ),
    # DeepRL-Grounding (issue #7): "Best Reward" is the running best beside the reward
    (
        "Time 08h 36m 42s, Avg Reward 0.064, Avg Accuracy 0.22, Avg Ep length 5.26, "
        "Best Reward 0.184",
        1,
        {"reward": 0.064, "best_reward": 0.184},
    ),
    # CleanRL (rl-blox PR #53): the return of each finished episode is the reward
    (
        "global_step=8199, episodic_return=-1052.5259566705017",
        8199,
        {"reward": -1052.5259566705017},
    ),
    # tf2rl's on-policy trainer: an episode's "Return" is the reward
    (
        "19:56:21.327 [INFO] (on_policy_trainer.py:77) Total Epi:   112 Steps:   98207 "
        "Episode Steps:   762 Return: -21.0000 FPS: 141.92",
        1,
        {"reward": -21.0},
    ),
    # mlx_lm GRPO: the grouped (within-prompt-group) std is the reward_std
    (
        "Iter 80: Train loss 0.000, Total rewards mean 0.250, Total rewards std 0.433, "
        "Grouped rewards mean 0.250, Grouped rewards std 0.125, KL 0.001, "
        "Learning Rate 1.000e-05, It/sec 0.026",
        80,
        {"loss": 0.0, "reward": 0.25, "reward_std": 0.125, "lr": 1e-5},
    ),
    # detectron2 console
    (
        "[11/01 20:14:15 d2.utils.events]: eta: 5:41:49  iter: 379  total_loss: 1.707  "
        "loss_cls: 1.184  lr: 0.003796  max_mem: 3782M",
        379,
        {"loss": 1.707, "loss_cls": 1.184, "lr": 0.003796},
    ),
    # mmengine
    (
        "2023/06/05 20:10:13 - mmengine - INFO - Epoch(train)   [1][ 50/500]  lr: 4.0e-04  "
        "eta: 4:59:11  time: 9.978710  loss: 0.421912  loss_kpt: 0.421912",
        50,
        {"loss": 0.421912, "lr": 4e-4},
    ),
    # fairseq train_inner: num_updates is the step, gnorm the grad norm
    (
        "2021-01-01 12:00:00 | INFO | train_inner | epoch 001:    100 / 1000 loss=7.5, "
        "nll_loss=6.9, num_updates=100, lr=0.0005, gnorm=1.2, loss_scale=8",
        100,
        {"loss": 7.5, "grad_norm": 1.2, "lr": 0.0005, "loss_scale": 8},
    ),
    # Megatron-LM: padded total, "(ms)" unit, E notation
    (
        " iteration       71/     100 | elapsed time per iteration (ms): 5361.6 | "
        "learning rate: 1.420000E-05 | lm loss: 1.818812E+00 | loss scale: 1.0 | grad norm: 1.300 |",
        71,
        {"loss": 1.818812, "lr": 1.42e-05, "grad_norm": 1.3, "loss_scale": 1.0},
    ),
    # torchtitan: thousands separators and percentages
    (
        "[titan] 2025-03-12 11:10:21,511 - root - INFO - step: 22  loss:  6.2250  "
        "memory:  1.41GiB(1.79%)  tps: 193,831  mfu: 1.86%",
        22,
        {"loss": 6.225, "throughput": 193831, "mfu": 1.86},
    ),
    # HF Trainer v4 dict (bare nan) and ms-swift v3 JSON with a "1/438" step
    (
        "{'loss': 0.2051, 'grad_norm': nan, 'learning_rate': 9.77e-06, 'epoch': 0.53, 'step': 7}",
        7,
        {"loss": 0.2051, "grad_norm": math.nan, "lr": 9.77e-06},
    ),
    (
        '{"loss": 20.53, "grad_norm": 52.2, "learning_rate": 1e-04, "global_step/max_steps": "1/438"}',
        1,
        {"loss": 20.53, "grad_norm": 52.2},
    ),
    # per-group LR list (DeepSpeed): the first group
    ("step=35, skipped=0, lr=[2.17e-06, 3.0e-06], loss=2.5", 35, {"lr": 2.17e-06, "loss": 2.5}),
    # a step in words: "250 iterations -- validation loss 2.11"
    ("250 iterations -- validation loss 2.11", 250, {"eval_loss": 2.11}),
]


@pytest.mark.parametrize("line,step,metrics", LINES, ids=[x[0][:40] for x in LINES])
def test_line_layouts(tmp_path: Path, line: str, step: int, metrics: dict) -> None:
    run = _one(tmp_path, line + "\n")
    assert not any(n.startswith("reward_") and n[7:].isdigit() for n in run.series), run.series
    for name, value in metrics.items():
        s = run.get(name)
        assert s is not None, f"{name} not read from {line!r}: {sorted(run.series)}"
        assert s.steps.tolist() == [step]
        if math.isnan(value):
            assert math.isnan(s.values[0])
        else:
            assert s.values[0] == pytest.approx(value)


@pytest.mark.parametrize(
    "raw,value",
    [
        ("2.275809E+00", 2.275809),
        ("1,234", 1234.0),
        ("nan", math.nan),
        ("NaN", math.nan),
        ("inf", math.inf),
        ("-inf", -math.inf),
        ("-Infinity", -math.inf),
        ("7.000e-05", 7e-5),
        ("10.8125", 10.8125),
        (".5", 0.5),
    ],
)
def test_number_spellings(tmp_path: Path, raw: str, value: float) -> None:
    run = _one(tmp_path, f"step 1 | loss {raw} | lr 0.1\n")
    got = run.get("loss").values[0]
    assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value)


def test_tables_with_a_header_row(tmp_path: Path) -> None:
    md = "| Step | Training Loss | Validation Loss |\n|---|---|---|\n| 100 | 2.3 | 2.5 |\n| 200 | No log | 2.4 |\n"
    run = _one(tmp_path, md)
    assert run.get("loss").steps.tolist() == [100] and run.get("eval_loss").values.tolist() == [
        2.5,
        2.4,
    ]
    tsv = "Step\tTraining Loss\tValidation Loss\n10\t2.30\t2.41\n20\t2.10\t2.22\n"
    assert _one(tmp_path, tsv).get("eval_loss").steps.tolist() == [10, 20]
    spaced = "Step Training Loss Validation Loss\n10 2.30 2.41\n20 2.10 2.22\n"  # a pasted notebook
    assert _one(tmp_path, spaced).get("loss").values.tolist() == [2.3, 2.1]
    aligned = "      Epoch    GPU_mem       box       obj       cls\n      1/99     2.64G      nan       nan       nan\n"
    assert math.isnan(_one(tmp_path, aligned).get("box_loss").values[0])  # ultralytics names


def test_keras_epoch_lines_and_progress_bars(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch {e}/3\n1875/1875 [==============================] - 5s 3ms/step - loss: {1 / e:.4f}"
        f" - accuracy: 0.5 - val_loss: {1.1 / e:.4f}\n"
        for e in (1, 2, 3)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1875, 3750, 5625]
    assert run.get("eval_loss").values[-1] == pytest.approx(1.1 / 3, abs=1e-4)
    assert run.get("accuracy") is not None  # a task metric, never a loss


def test_hf_dicts_take_the_train_bar_printed_after_them(tmp_path: Path) -> None:
    body = (
        " 10%|#  | 8/80 [00:02<00:20,  3.5it/s]\r\x1b[32m 20%|## | 16/80 [00:04<00:18]\x1b[0m\r"
        "{'loss': 0.21, 'learning_rate': 1e-05, 'epoch': 0.5}\n 25%|## | 20/80 [00:05]\n"
        "  0%|  | 0/4 [00:00<?, ?it/s]\r100%|####| 4/4 [00:00]\r{'eval_loss': 0.3, 'epoch': 0.6}\n"
        " 25%|## | 20/80 [00:05]\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [20] and run.get("eval_loss").steps.tolist() == [20]
    assert run.inputs[0].steps_from.startswith("the progress bar printed after each line")


def test_a_paste_as_users_paste_it(tmp_path: Path) -> None:
    """Prose, a fence, quote markers, bullets, CRLF, a gap, a dict wrapped over lines."""
    body = (
        "I'm training llama and the loss will not go down, here is my log:\r\n"
        "```\r\n"
        "> {'loss': 2.31, 'grad_norm': 0.8,\r\n"
        ">  'learning_rate': 2e-05, 'epoch': 0.1}\r\n"
        "> {'loss': 2.30, 'grad_norm': 0.8, 'learning_rate': 2e-05, 'epoch': 0.2}\r\n"
        "[... excerpt gap ...]\r\n"
        "- {'loss': 2.31, 'grad_norm': 0.8, 'learning_rate': 2e-05, 'epoch': 0.9}\r\n"
        "```\r\n"
        "Any idea? The loss stays around 2.3 the whole time.\r\n"
    )
    run = _one(tmp_path, body, "issue.md")
    assert run.get("loss").values.tolist() == [2.31, 2.30, 2.31]
    assert run.get("lr").values.tolist() == [2e-05] * 3
    inp = run.inputs[0]
    assert inp.steps_from.startswith("the order of the lines")  # no step printed: said so
    assert inp.lines_not_understood == 1 and "stays around 2.3" in inp.first_not_understood


def test_two_fragments_stay_two_runs(tmp_path: Path) -> None:
    body = (
        "with bf16:\n"
        + "".join(f"iter {s}: loss {5 - s / 10:.2f}\n" for s in range(1, 6))
        + "then I tried fp16 and got:\n"
        + "".join(f"iter {s}: loss nan\n" for s in range(1, 4))
    )
    a, b = _read(tmp_path, body)
    assert a.get("loss").steps.tolist() == [1, 2, 3, 4, 5]
    assert all(math.isnan(v) for v in b.get("loss").values)
    assert "2 runs in one file" in " ".join(n.message for n in a.notes)


def test_a_resume_part_way_is_the_same_run(tmp_path: Path) -> None:
    body = "".join(f"step {s} | loss {3 - s / 100:.3f}\n" for s in range(1, 101))
    body += "".join(f"step {s} | loss {2.2 - s / 1000:.3f}\n" for s in range(80, 121))
    (run,) = _read(tmp_path, body)
    assert run.fact("resume_steps") == (80,)
    assert run.get("loss").steps[-1] == 120 and run.get("loss").values[79] == pytest.approx(2.12)


def test_per_epoch_step_counters_become_global(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch {e}, Step {s}, Loss: {1 + s / 10:.4f}\n" for e in (1, 2) for s in range(4)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]


def test_rank_prefixes_program_source_and_wrapped_continuations(tmp_path: Path) -> None:
    body = (
        "def train(lr=3e-4, steps=100):\n"  # source printed before the log: not a log line
        "    loss = F.cross_entropy(logits, y)\n"
        "[rank1]:step: 1  loss: 9.9\n[rank0]:step: 1  loss: 2.5\n"
        "[rank0]:step: 2  loss: 2.4\n[rank1]:step: 2  loss: 9.9\n"
        "round 0: train-error:0.998988    test-rec@1:0.00102      tes\\\nt-rec@5:0.00504\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.5, 2.4]
    assert run.inputs[0].lines_not_understood == 0
    assert run.get("test-rec@5").values.tolist() == [0.00504]  # the \\ line rejoined


def test_olmo_blocks_and_wandb_summaries(tmp_path: Path) -> None:
    body = (
        "2024-08-06 09:59:26.181 host:0  olmo.train:908  INFO    [step=1/739328,epoch=0]\n"
        "    optim/total_grad_norm=231.7\n    train/CrossEntropyLoss=12.18\n"
        "2024-08-06 10:00:05.520 host:0  olmo.train:908  INFO    [step=2/739328,epoch=0]\n"
        "    optim/total_grad_norm=0.0002\n    train/CrossEntropyLoss=1.787e-06\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2] and run.fact("max_steps") == 739328
    wb = "wandb: Run history:\nwandb:  loss ▁▁▂\nwandb: \nwandb: Run summary:\nwandb:  loss nan\nwandb:    lr 0.0\nwandb: \n"
    run = _one(tmp_path, wb)
    assert math.isnan(run.get("loss").values[0]) and run.get("lr").values[0] == 0.0


def test_wandb_summary_keeps_unknown_metrics_not_bookkeeping(tmp_path: Path) -> None:
    wb = (
        "wandb: Run summary:\nwandb:    critic/advantages/max 0\nwandb:    critic/advantages/min 0\n"
        "wandb:    critic/score/mean 0\nwandb:    _runtime 3605.2\nwandb:    _timestamp 1720000000\n"
        "wandb: \n"
    )
    run = _one(tmp_path, wb)
    assert run.get("critic/advantages/max").values.tolist() == [0.0]
    assert run.get("reward").values.tolist() == [0.0]  # critic/score/mean
    assert run.get("_runtime") is None and run.get("runtime") is None


def test_config_lines_are_facts_not_points(tmp_path: Path) -> None:
    body = (
        "learning_rate: 7e-5\nlr_scheduler_type: cosine\nper_device_train_batch_size: 4\n"
        "{'per_device_train_batch_size': 4, 'gradient_accumulation_steps': 8, 'learning_rate': 2e-4}\n"
        "step 1 | loss 2.0\nstep 2 | loss 1.9\n"
    )
    run = _one(tmp_path, body)
    assert run.get("lr") is None and run.get("loss").steps.tolist() == [1, 2]
    assert run.fact("learning_rate") == pytest.approx(7e-5) and run.fact("lr_scheduler") == "cosine"
    assert run.fact("grad_accum") == 8 and run.fact("per_device_batch") == 4


def test_placeholder_losses_are_not_losses(tmp_path: Path) -> None:
    body = "".join(f"[rank0]:[titan] step: {s}  loss: -1.0000  tps: 8\n" for s in range(1, 6))
    run = _one(tmp_path, body)
    assert run.get("loss") is None and any("placeholder" in n.message for n in run.notes)


def test_llmc_lr_rounding_is_a_fact(tmp_path: Path) -> None:
    body = "".join(
        f"step {s:4d}/100 | train loss {3 - s / 50:.6f} | lr 0.000{s % 10}00\n"
        for s in range(1, 11)
    )
    assert _one(tmp_path, body).fact("lr_print_decimals") == 6


def test_a_malformed_line_never_stops_a_read(tmp_path: Path) -> None:
    body = (
        b"step 1 | loss 2.0\n\xff\xfe\x00garbage\x01\nstep 2 | loss 1.9\n{'loss': 2.3, 'grad_no\n"
        + b"x" * 200_000
        + b"\nstep 3 | loss 1.8\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    "body", [b"", b"\n\n  \n", b"Loading model...\nDone.\n", bytes(range(256)) * 4]
)
def test_nothing_readable_names_the_file_and_what_was_looked_for(
    tmp_path: Path, body: bytes
) -> None:
    with pytest.raises(ReadError) as exc:
        _read(tmp_path, body)
    msg = str(exc.value)
    assert "train.log" in msg and "\n" not in msg and "key/value" in msg


def test_stdin(tmp_path: Path) -> None:
    body = "iter 0 || Loss: 3.26 || timer: 0.08 sec.\niter 10 || Loss: 14.7 || timer: 0.09 sec.\n"
    p = subprocess.run(
        [sys.executable, "-m", "traindoc", "diagnose", "-", "--format", "json"],
        input=body,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode in (0, 1), p.stderr
    assert '"loss": 2' in p.stdout and '"path": "-"' in p.stdout


def test_what_was_read_is_said(tmp_path: Path) -> None:
    p = tmp_path / "run.log"
    p.write_text(
        "hello\nstep 1 | loss 2.0 | lr 0.1\nthe loss is 2.0 here\nstep 2 | loss 1.9 | lr 0.1\n"
    )
    (run,) = load_runs(p)
    (inp,) = run.inputs
    assert inp.series == {"loss": 2, "lr": 2} and inp.lines == 4
    assert inp.lines_not_understood == 1 and inp.first_not_understood.startswith("line 3:")
    assert inp.to_dict()["steps_from"].startswith("the step printed on each line")


def test_composer_blocks(tmp_path: Path) -> None:
    """composer / llm-foundry print a `[batch=N/T]:` line, then one metric per line."""
    block = "[batch={b}/100]:\n\t Train time/batch: {b}\n\t Train loss/train/total: {l}\n\t Train lr-DecoupledAdamW/group0: 0.0001\n"
    body = (
        block.format(b=1, l=7.17)
        + block.format(b=2, l=6.9)
        + "[eval batch=5/5]:\n\t Eval metrics/eval/LanguageCrossEntropy: 6.95\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2] and run.get("loss").values.tolist() == [
        7.17,
        6.9,
    ]
    assert run.get("lr").values.tolist() == [1e-4, 1e-4] and run.fact("max_steps") == 100
    assert run.get("eval_loss").steps.tolist() == [2]  # at the train step before it


def test_wandb_history_export_csv(tmp_path: Path) -> None:
    p = tmp_path / "wandb_export_2024-01-01.csv"
    p.write_text(
        "Step,run-a - train/loss,run-a - train/loss__MIN,run-a - train/loss__MAX,run-a - eval/loss\n"
        "1,2.5,2.4,2.6,\n2,2.3,2.2,2.4,2.4\n3,2.1,2.0,2.2,\n"
    )
    (run,) = load_runs(p)
    assert run.get("loss").values.tolist() == [2.5, 2.3, 2.1]  # not the window min/max
    assert run.get("eval_loss").steps.tolist() == [2]
    assert any("W&B history export" in n.message for n in run.notes)


def test_launch_command_flags_are_config(tmp_path: Path) -> None:
    """`--flag value` lines pasted above a log (and inline in prose) are its config."""
    log = tmp_path / "issue.txt"
    log.write_text(
        "deepspeed fine-tune.py \\\n"
        "    --num_train_epochs 4 \\\n"
        "    --learning_rate 1e-5 \\\n"
        "    --lr_scheduler_type cosine \\\n"
        "    --bf16 True\n"
        "参数设置：--warmup_ratio 0.05 ，--gradient_accumulation_steps 8\n"
        + "".join(
            f"{{'loss': {0.9 - i / 100:.4f}, 'learning_rate': 1e-05, 'epoch': {2.9 + i / 100:.2f}}}\n"
            for i in range(6)
        )
    )
    (run,) = load_runs(log)
    facts = {k: f.value for k, f in run.facts.items()}
    assert facts["lr_scheduler"] == "cosine" and facts["num_train_epochs"] == 4
    assert facts["learning_rate"] == 1e-5 and facts["precision"] == "bf16"
    assert facts["warmup_ratio"] == 0.05 and facts["grad_accum"] == 8
    assert run.get("epoch").values.tolist() == [2.9, 2.91, 2.92, 2.93, 2.94, 2.95]
    assert len(run.get("loss")) == 6


@pytest.mark.parametrize(
    "command",
    [
        # bare store_true flags: last on the command, before a continuation, before a flag
        "fairseq-train data-bin --arch transformer --lr 0.0005 --fp16\n",
        "python train.py \\\n    --plot_loss \\\n    --fp16 \\\n    --lora_rank 32\n",
        "python run.py --do_train --fp16 --model_name_or_path gpt2\n",
    ],
)
def test_a_bare_precision_flag_on_the_command_is_the_runs_precision(
    tmp_path: Path, command: str
) -> None:
    log = tmp_path / "issue.txt"
    log.write_text(
        command
        + "".join(f"{{'loss': {2.0 - i / 10:.4f}, 'epoch': {i / 10:.2f}}}\n" for i in range(6))
    )
    (run,) = load_runs(log)
    assert run.fact("precision") == "fp16"


def test_a_flag_after_a_bare_flag_is_read_not_taken_as_its_value(tmp_path: Path) -> None:
    """`--do_train --learning_rate 2e-5`: do_train is bare, learning_rate keeps its value."""
    log = tmp_path / "issue.txt"
    log.write_text(
        "python run.py --do_train --learning_rate 2e-5 --lr_scheduler_type cosine\n"
        + "".join(f"{{'loss': {2.0 - i / 10:.4f}, 'epoch': {i / 10:.2f}}}\n" for i in range(6))
    )
    (run,) = load_runs(log)
    assert run.fact("learning_rate") == 2e-5 and run.fact("lr_scheduler") == "cosine"
    assert run.fact("precision") is None  # no precision flag, none made up


def test_a_windows_path_flag_value_is_read_whole(tmp_path: Path) -> None:
    """`--model_name_or_path C:\\...\\Llama-2-13b-chat-hf`: the path's backslashes are no
    line continuation; the model it names gives the vocabulary (Llama 2: 32000)."""
    log = tmp_path / "issue.txt"
    log.write_text(
        "python src/train_bash.py\n"
        "--stage pt\n"
        "--finetuning_type lora\n"
        "--model_name_or_path C:\\LLaMA-Factory\\checkpoints\\Llama-2-13b-chat-hf\n"
        "--learning_rate 5e-05\n"
        + "".join(f"{{'loss': {2.0 - i / 10:.4f}, 'epoch': {i / 10:.2f}}}\n" for i in range(6))
    )
    (run,) = load_runs(log)
    assert run.fact("base_model") == "C:\\LLaMA-Factory\\checkpoints\\Llama-2-13b-chat-hf"
    assert run.fact("learning_rate") == 5e-5 and run.vocab_size == 32000


def test_fp16_in_prose_or_a_value_is_no_bare_flag(tmp_path: Path) -> None:
    log = tmp_path / "issue.txt"
    log.write_text(
        "I tried --fp16-opt-level O2 and --fp16_backend amp\n"
        + "".join(f"{{'loss': {2.0 - i / 10:.4f}, 'epoch': {i / 10:.2f}}}\n" for i in range(6))
    )
    (run,) = load_runs(log)
    assert run.fact("precision") is None


def test_a_batch_stated_in_prose_is_a_fact(tmp_path: Path) -> None:
    log = tmp_path / "issue.txt"
    log.write_text(
        "hi, when I was doing pre-training I set the batch to 1, and the loss fluctuated\n"
        + "".join(
            f"Num of training step: {s}, steps loss: {4 + (s % 3) / 2:.4f}\n" for s in range(1, 9)
        )
    )
    (run,) = load_runs(log)
    assert run.fact("per_device_batch") == 1
    assert "issue.txt:1" in run.facts["per_device_batch"].source
    log.write_text("the batch was large\n" + "step 1 loss 2.0\nstep 2 loss 1.9\n")
    (run,) = load_runs(log)
    assert run.fact("per_device_batch") is None


def _finalized(tmp_path: Path, body: str):
    """The run as diagnose sees it: read, then the derived facts and losses added."""
    from traindoc.pipeline import load_all

    path = tmp_path / "train.log"
    path.write_text(body)
    (run,) = load_all(path)
    return run


def test_a_gan_log_sums_no_generator_and_discriminator_loss(tmp_path: Path) -> None:
    # PyTorch's DCGAN example prints both players' losses; the generator's rises as the
    # discriminator improves, so their sum is no learning curve to judge
    body = "".join(
        f"[{ep}/5][{b}/1583]\tLoss_D: {d:.4f}\tLoss_G: {g:.4f}\tD(x): 0.7000\tD(G(z)): 0.2 / 0.2\n"
        for ep, b, d, g in ((0, 0, 1.83, 4.62), (0, 50, 0.41, 6.11), (0, 100, 0.35, 7.02))
    )
    run = _finalized(tmp_path, body)
    assert run.get("loss") is None  # no sum of the two opponents
    assert run.get("loss_d") is not None and run.get("loss_g") is not None
    assert run.fact("task") == "gan"


def test_detector_loss_parts_are_still_summed(tmp_path: Path) -> None:
    body = "".join(
        f"iter: {i}  loss_cls: {c}  loss_box_reg: {b}\n"
        for i, c, b in ((20, 0.7, 0.5), (40, 0.6, 0.45))
    )
    run = _finalized(tmp_path, body)
    assert run.get("loss") is not None and run.fact("task") != "gan"


def test_a_markdown_table_with_train_and_validate_halves(tmp_path: Path) -> None:
    # apex's ImageNet example as pasted: a group row over a header whose names repeat
    body = (
        "| train |        |        |        |      | validate |        |        |          |\n"
        "| ----- | ------ | ------ | ------ | ---- | -------- | ------ | ------ | -------- |\n"
        "| epoch | Top1   | Top5   | Loss   |      | epoch    | Top1   | Top5   | Loss     |\n"
        "| 0     | 3.166  | 9.401  | 6.0748 |      | 0        | 3.054  | 9.308  | 12.1711  |\n"
        "| 1     | 15.428 | 34.406 | 4.4438 |      | 1        | 18.206 | 39.778 | 4.1692   |\n"
    )
    run = _finalized(tmp_path, body)
    assert run.get("loss").values.tolist() == [6.0748, 4.4438]
    assert run.get("eval_loss").values.tolist() == [12.1711, 4.1692]
    assert not any(name.startswith("val_epoch") for name in run.series)


def test_a_markdown_header_with_unique_names_ignores_a_group_row(tmp_path: Path) -> None:
    body = "| run A |      |\n| step | loss |\n| ---- | ---- |\n| 10   | 2.5  |\n| 20   | 2.1  |\n"
    run = _finalized(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.5, 2.1]


def test_a_txt_log_whose_first_metric_line_comes_after_a_long_preamble(tmp_path: Path) -> None:
    # YOLOX's train_log.txt after several failed launches: 400 KB of INFO lines before
    # the first metric line, past the 64 KB the detector sniffs
    pre = "".join(
        f"2024-01-01 10:00:00 | INFO | yolox.core.launch:{i}: loading module {i} "
        "with a long description of the configuration value\n"
        for i in range(4000)
    )
    body = "".join(
        f"2024-01-01 11:00:00 | INFO | yolox.core.trainer:257 - epoch: 1/300, iter: {s}/500, "
        f"total_loss: {15 - s / 20:.1f}, iou_loss: 3.1, lr: 1.25e-05\n"
        for s in range(10, 110, 10)
    )
    path = tmp_path / "train_log.txt"
    path.write_text(pre + body)
    (run,) = load_runs(path)
    assert len(run.get("loss")) == 10


def test_a_txt_log_whose_head_is_only_tqdm_loading_bars(tmp_path: Path) -> None:
    # a TRL script's console: weight-loading and dataset-map bars (carriage returns, no
    # INFO, no timestamp) fill the first 64 KB before the first log dict
    pre = "".join(
        f"\rLoading weights:  {i // 3}%|          | {i}/300 [00:00<00:07, 32.71it/s, "
        f"Materializing param=model.layers.{i}.mlp.down_proj.weight]"
        for i in range(1, 301)
    )
    body = "".join(
        f"{{'loss': '{2.5 - s / 100:.4f}', 'grad_norm': '0.1396', 'learning_rate': "
        f"'1.0e-04', 'epoch': '{s / 100:.2f}'}}\n"
        for s in range(10, 110, 10)
    )
    path = tmp_path / "train_log.txt"
    path.write_text("Loading tokenizer...\n" + pre * 2 + "\n" + body)
    assert len(pre) > 32 << 10
    (run,) = load_runs(path)
    assert len(run.get("loss")) == 10


def test_a_txt_file_of_prose_is_still_no_log(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(
        "".join(f"line {i} of a story with no numbers worth reading\n" for i in range(5000))
    )
    with pytest.raises(ReadError):
        load_runs(path)


def test_bare_step_value_lines_are_the_loss_when_nothing_is_named(tmp_path: Path) -> None:
    """A custom loop's `print(step, loss.item())` pasted with its NaN: the loss, with a note."""
    log = tmp_path / "issue.txt"
    log.write_text(
        "I got the following NAN loss on the training:\n\n```\n...\n"
        "76930 2.6496577\n76940 2.59109\n76950 2.596339\n76960 2.735384\n76970 2.6265104\n"
        "76980 nan\n76990 nan\nSaving the model\n77000 nan\n```\n"
    )
    (run,) = load_runs(log)
    loss = run.get("loss")
    assert loss.steps.tolist() == [76930, 76940, 76950, 76960, 76970, 76980, 76990, 77000]
    assert loss.values[0] == 2.6496577 and np.isnan(loss.values[-3:]).all()
    assert any("bare '<step> <value>'" in n.message for n in run.notes)


@pytest.mark.parametrize(
    "body",
    [
        "10 2.5\n20 2.4\n30 2.3\n40 2.2\n",  # 4 lines: too few to call a curve
        "10 2.5\n20 2.4\n30 2.3\n20 2.2\n50 2.1\n",  # the first column does not rise
        "1 0.5\n1 0.6\n1 0.7\n1 0.8\n1 0.9\n",  # nor here: a count, not a step
    ],
)
def test_too_few_or_unordered_bare_pairs_are_no_log(tmp_path: Path, body: str) -> None:
    log = tmp_path / "issue.txt"
    log.write_text(body)
    with pytest.raises(ReadError):
        load_runs(log)


def test_bare_pairs_are_not_read_where_metrics_are_named(tmp_path: Path) -> None:
    """A log with named metric lines is read by its names: number pairs in it are not a loss."""
    log = tmp_path / "train.log"
    log.write_text(
        "".join(f"step {s}: loss {3 - s / 10:.3f}\n" for s in range(1, 7))
        + "".join(f"{k} {0.1 * k:.2f}\n" for k in range(1, 8))
    )
    (run,) = load_runs(log)
    assert run.get("loss").values.tolist() == [2.9, 2.8, 2.7, 2.6, 2.5, 2.4]
    assert not any("bare" in n.message for n in run.notes)
