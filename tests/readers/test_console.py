"""Console logs: real captured stdout of tiny trainings (assets/console, made by
scripts/make_console_fixtures.py) and, for stacks we cannot run here, the real
lines quoted in FORMATS.md section 6 with the issue each comes from."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import ASSETS, load_checked
from traindoc.engine import diagnose
from traindoc.model.signals import kind
from traindoc.readers import ReadError, console, load_runs
from traindoc.readers.detect import detect_dir, detect_file
from traindoc.readers.logs import lines
from traindoc.rules.registry import load_all

CON = ASSETS / "console"


def _write(tmp_path: Path, text: str | bytes, name: str = "train.log") -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


# ------------------------------------------------------------------ real HF Trainer 5.24


def test_hf_v5_quoted_dicts_with_tqdm_steps() -> None:
    run = load_checked(CON / "hf-v5-healthy.log")
    loss = run.get("loss")
    assert loss is not None and len(loss) == 30
    assert loss.steps[:3].tolist() == [2, 4, 6] and int(loss.steps[-1]) == 60
    assert loss.values[0] == pytest.approx(5.342)  # quoted '.4g' string
    ev = run.get("eval_loss")
    assert ev is not None and ev.steps.tolist() == [10, 20, 30, 40, 50, 60]
    assert run.get("lr") is not None and run.get("grad_norm") is not None
    assert run.fact("trainer") == "hf"
    assert "train_runtime" not in run.series  # the summary dict is not a curve point
    assert run.inputs[0].steps_from.startswith("the progress bar printed after each line")


def test_hf_v5_without_tqdm_steps_from_epochs(tmp_path: Path) -> None:
    """disable_tqdm / stdout-only capture: the same dicts, steps from epoch x steps/epoch."""
    raw = (CON / "hf-v5-healthy.log").read_bytes()
    lines = [seg for line in raw.split(b"\n") for seg in line.split(b"\r") if b"it/s]" not in seg]
    run = console.read(_write(tmp_path, b"\n".join(lines)))
    assert run.get("loss").steps[:3].tolist() == [2, 4, 6]
    assert run.get("eval_loss").steps.tolist() == [10, 20, 30, 40, 50, 60]
    assert "steps per epoch" in run.inputs[0].steps_from


def test_hf_v5_only_dicts_keep_order(tmp_path: Path) -> None:
    text = "\n".join(
        [
            "{'loss': '10.49', 'grad_norm': '0.7158', 'learning_rate': '0.0005', 'epoch': '0.25'}",
            "{'eval_loss': '10.49', 'eval_runtime': '0.2914', 'epoch': '0.25'}",
            "{'loss': '10.2', 'grad_norm': '0.7', 'learning_rate': '0.0004', 'epoch': '0.5'}",
        ]
    )
    run = console.read(_write(tmp_path, text))
    assert run.get("loss").steps.tolist() == [1, 2]
    assert run.get("eval_loss").steps.tolist() == [1]
    assert any("order" in n.message for n in run.notes)


def test_hf_v4_raw_floats_bare_nan_and_glued_to_a_bar(tmp_path: Path) -> None:
    # AnswerDotAI/ModernBERT#233 (bare nan); huggingface/transformers#14531 (pre-4.38,
    # dict glued to the end of a progress bar).
    text = (
        " 10%|█         | 8/80 [00:02<00:20,  3.5it/s]{'loss': 6.2645, 'learning_rate': 0.001, "
        "'epoch': 0.02}\n"
        " 10%|█         | 8/80 [00:02<00:20,  3.5it/s]\r"
        "\x1b[32m 20%|██        | 16/80 [00:04<00:18,  3.5it/s]\x1b[0m\r"
        "{'loss': 0.2051, 'grad_norm': nan, 'learning_rate': 9.774074342405685e-06, 'epoch': 0.53}\n"
        " 20%|██        | 16/80 [00:04<00:18,  3.5it/s]\n"
    )
    run = console.read(_write(tmp_path, text))
    gn = run.get("grad_norm")
    assert gn is not None and math.isnan(gn.values[0])
    assert run.get("loss").values.tolist() == [6.2645, 0.2051]
    assert run.get("loss").steps.tolist() == [8, 16]
    assert run.get("lr").values[1] == pytest.approx(9.774074342405685e-06)


def test_hf_resume_events_and_fact() -> None:
    run = load_checked(CON / "hf-v5-resume.log")
    kinds = [e.kind for e in run.events]
    assert kinds == ["resume", "resume-skip-batches"]
    skip = run.events[1]
    assert skip.value == 10 and skip.step == 10 and skip.line is not None
    assert "Fast-forwarding the dataloader" in skip.text
    assert run.fact("resume_steps") == (10,)
    assert "console: hf-v5-resume.log:" in run.facts["resume_steps"].source
    assert int(run.get("loss").steps[-1]) == 20


# ------------------------------------------------------------------ real loops


def test_nanogpt_nan_loss() -> None:
    run = load_checked(CON / "nanogpt-nan.log")
    loss = run.get("loss")
    assert loss.steps[:3].tolist() == [0, 5, 10]
    assert np.isfinite(loss.values[0]) and np.isnan(loss.values).any()
    assert run.get("eval_loss").steps.tolist() == [0, 50, 100, 150, 200]
    assert run.get("mfu").values[0] == -100.0
    assert run.fact("trainer") == "nanogpt"


def test_peft_trainable_params_zero() -> None:
    run = load_checked(CON / "peft-frozen.log")
    assert run.fact("trainable_params") == 0
    assert "print_trainable_parameters" not in run.facts["trainable_params"].source
    assert run.facts["trainable_params"].source.startswith("console: peft-frozen.log:")
    assert [e.kind for e in run.events] == ["trainable-params"]
    healthy = load_checked(CON / "peft-healthy.log")
    assert healthy.fact("trainable_params") > 0


# ------------------------------------------------------------------ quoted real lines (FORMATS.md 6)

MEGATRON = (  # NVIDIA/Megatron-LM#756
    " [2024-04-06 03:02:12] iteration       71/     100 | consumed samples:         9088 | "
    "elapsed time per iteration (ms): 5361.6 | throughput per GPU (TFLOP/s/GPU): 243.6 | "
    "learning rate: 1.420000E-05 | global batch size:   128 | lm loss: 1.818812E+00 | "
    "load_balancing_loss: 1.013377E+00 | loss scale: 1.0 | grad norm: 1.300 | num zeros: 0.0 | "
    "number of skipped iterations:   0 | number of nan iterations:   0 |"
)
DEEPSPEED = (  # deepspeedai/DeepSpeed#3742, #5779
    "[2023-07-25 21:03:17,269] [INFO] [timer.py:215:stop] epoch=0/micro_step=34/global_step=34, "
    "RunningAvgSamplesPerSec=7.864669709950182, CurrSamplesPerSec=8.00912418308922, "
    "MemAllocated=59.65GB, MaxMemAllocated=63.31GB\n"
    "[2023-07-25 21:03:21,037] [INFO] [logging.py:96:log_dist] [Rank 0] step=35, skipped=0, "
    "lr=[2.1731931451279077e-06, 2.1731931451279077e-06], mom=[[0.9, 0.95], [0.9, 0.95]]\n"
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
)
TORCHTUNE = (  # meta-pytorch/torchtune PR#1358
    "Step 1 | loss:2.085338592529297 lr:2e-05 tokens_per_second_per_gpu:57.828881833956174 \n"
)
TITAN = (  # pytorch/torchtitan PR#950
    "[rank0]:[titan] 2025-03-12 11:10:21,511 - root - INFO - step: 22  loss:  6.2250  "
    "memory:  1.41GiB(1.79%)  tps: 193,831  tflops: 18.36  mfu: 1.86%\n"
)


def test_megatron_line(tmp_path: Path) -> None:
    run = console.read(_write(tmp_path, MEGATRON + "\n"))
    assert run.get("loss").values[0] == pytest.approx(1.818812)
    assert run.get("loss").steps.tolist() == [71]
    assert run.get("lr").values[0] == pytest.approx(1.42e-05)
    assert run.get("grad_norm").values[0] == pytest.approx(1.3)
    assert run.get("loss_scale").values[0] == 1.0
    assert run.get("loss").times is not None  # the [2024-04-06 03:02:12] stamp
    assert run.get("elapsed_time_per_iteration").values[0] == pytest.approx(5361.6)  # "(ms)"


def test_deepspeed_lines_and_overflow_event(tmp_path: Path) -> None:
    run = console.read(_write(tmp_path, DEEPSPEED))
    assert run.get("lr").steps.tolist() == [35]
    assert run.get("lr").values[0] == pytest.approx(2.1731931451279077e-06)
    assert run.get("throughput").steps.tolist() == [34]
    assert run.get("skipped_steps").values.tolist() == [0.0]
    (ev,) = run.events
    assert ev.kind == "fp16-overflow" and ev.value == 32768 and ev.step == 35 and ev.line == 3
    assert run.fact("precision") == "fp16"
    assert run.facts["precision"].source.startswith("console: train.log:3")
    assert run.get("loss_scale").values.tolist() == [32768.0]


def test_torchtune_and_torchtitan(tmp_path: Path) -> None:
    run = console.read(_write(tmp_path, TORCHTUNE))
    assert run.get("loss").values[0] == pytest.approx(2.085338592529297)
    assert run.get("lr").values[0] == 2e-05
    assert run.get("throughput").values[0] == pytest.approx(57.828881833956174)
    run = console.read(_write(tmp_path, TITAN, "titan.log"))
    assert run.get("loss").steps.tolist() == [22] and run.get("loss").values[0] == 6.225
    assert run.get("throughput").values[0] == 193831  # "tps: 193,831"
    assert run.get("mfu").values[0] == 1.86


def test_rank_prefixes_keep_lowest_rank(tmp_path: Path) -> None:
    lines = []
    for step in (1, 2, 3):
        for rank, loss in ((0, 5.0 - step * 0.1), (1, 99.0)):
            lines.append(
                f"[rank{rank}]:[titan] 2025-03-12 11:10:2{step},511 - root - INFO - "
                f"step: {step}  loss:  {loss:.4f}  memory:  1.41GiB(1.79%)  tps: 1,000"
            )
    lines.append(
        "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600021 milliseconds"
    )
    run = console.read(_write(tmp_path, "\n".join(lines)))
    assert run.get("loss").values.tolist() == pytest.approx([4.9, 4.8, 4.7])
    assert [e.kind for e in run.events] == ["nccl-timeout"]  # events come from every rank
    assert any("metrics read from rank 0" in n.message for n in run.notes)


def test_evidence_lines(tmp_path: Path) -> None:
    text = (
        "iter 100: loss 2.5000, time 10.00ms\n"
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1024.0\n"
        "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n"
        "  Continuing training from global step 300\n"
        "  Will skip the first 1 epochs then the first 4000 batches in the first epoch.\n"
        "trainable params: 0 || all params: 124,439,808 || trainable%: 0.0000\n"
    )
    run = console.read(_write(tmp_path, text))
    by = {e.kind: e for e in run.events}
    assert by["fp16-overflow"].value == 1024.0 and by["fp16-overflow"].step == 100
    assert "loss-scale-minimum" in by
    assert by["resume-skip-batches"].value == 4000 and by["resume-skip-batches"].step == 300
    assert run.fact("resume_steps") == (300,)
    assert run.fact("trainable_params") == 0
    assert run.fact("n_params") == 124_439_808
    assert run.fact("regime") is None  # nothing trains: no adapter either
    assert run.fact("precision") == "fp16"


@pytest.mark.parametrize(
    ("line", "scale"),
    [
        # fairseq >= 0.9 (fairseq/trainer.py), as printed in a stored log
        (
            "2021-03-08 12:33:12 | INFO | fairseq.trainer | NOTE: gradient overflow detected, "
            "ignoring gradient, setting loss scale to: 2.0",
            2.0,
        ),
        ("[2023-05-01 10:00:00] INFO Found overflow. Skip step", None),  # Colossal-AI
        # Paddle's AmpScaler prints the new scale as the old one times its decr_ratio
        ("Found inf or nan, current scale is: 32768.0, decrease to: 32768.0*0.5", 16384.0),
    ],
)
def test_skipped_step_messages_of_other_trainers(tmp_path: Path, line: str, scale) -> None:
    text = f"iter 100: loss 2.5000, time 10.00ms\n{line}\niter 200: loss 2.4000, time 10.00ms\n"
    run = console.read(_write(tmp_path, text))
    (ev,) = [e for e in run.events if e.kind == "fp16-overflow"]
    assert ev.value == scale and ev.line == 2
    assert run.get("loss").values.tolist() == [2.5, 2.4]  # the message is no metric record


@pytest.mark.parametrize(
    "line",
    [
        "WARNING: non-finite loss, ending training  tensor([nan, nan, nan, nan], device='cuda:0')",
        "ValueError: The loss returned in `training_step` is nan.",
        "ValueError: The loss returned in `training_step` is tensor(nan, device='cuda:0').",
        # TensorFlow's NanTensorHook (OpenNMT-tf, tensor2tensor, TF Object Detection API)
        "ERROR:tensorflow:Model diverged with loss = NaN.",
        '    raise RuntimeError("Model diverged with loss = NaN.")RuntimeError: Model diverged '
        "with loss = NaN.",
        # detectron2's check of the predictions
        "FloatingPointError: Predicted boxes or scores contain Inf/NaN. Training has diverged.",
    ],
)
def test_nonfinite_loss_messages_add_a_nan_loss(tmp_path: Path, line: str) -> None:
    text = f"iter 100: loss 2.5000, time 10.00ms\n{line}\n"
    run = console.read(_write(tmp_path, text))
    assert [e.kind for e in run.events] == ["nonfinite-loss"]
    loss = run.get("loss")
    assert loss.values[0] == 2.5 and np.isnan(loss.values[-1]) and loss.steps[-1] == 101


@pytest.mark.parametrize(
    "line",
    [
        "            print('WARNING: non-finite loss, ending training ', loss_items)",
        "            raise ValueError(f'The loss returned in `training_step` is {loss}.')",
        '        failure_message = "Model diverged with loss = NaN."',
        '    raise FloatingPointError("Predicted boxes or scores contain Inf/NaN. Training has '
        'diverged.")',
    ],
)
def test_nonfinite_loss_code_quoted_in_a_paste_is_no_event(tmp_path: Path, line: str) -> None:
    run = console.read(_write(tmp_path, f"iter 100: loss 2.5000, time 10.00ms\n{line}\n"))
    assert not run.events and run.get("loss").values.tolist() == [2.5]


def test_skipped_step_message_quoted_in_pasted_code_is_no_event(tmp_path: Path) -> None:
    text = (
        "iter 100: loss 2.5000, time 10.00ms\n"
        "    print('Found inf or nan, current scale is: {}, decrease to: {}*{}'.format(a, a, r))\n"
    )
    run = console.read(_write(tmp_path, text))
    assert not [e for e in run.events if e.kind == "fp16-overflow"]


@pytest.mark.parametrize(
    ("trainable", "regime"),
    [
        ("4,194,304", "lora"),  # LoRA r=8 on a 6.7B model: 0.06%
        ("600,000,000", "lora"),  # 8.9%: still an adapter's share
        ("700,000,000", None),  # 10.4%: a partly frozen full fine-tune, not an adapter
        ("6,742,609,920", None),  # everything trains: a full fine-tune's print
    ],
)
def test_peft_print_names_the_adapter_regime(tmp_path: Path, trainable: str, regime) -> None:
    text = (
        f"trainable params: {trainable} || all params: 6,742,609,920 || trainable%: 0.06\n"
        "{'loss': 1.8, 'learning_rate': 0.0002, 'epoch': 0.1}\n"
        "{'loss': 1.6, 'learning_rate': 0.0002, 'epoch': 0.2}\n"
    )
    run = console.read(_write(tmp_path, text))
    assert run.fact("n_params") == 6_742_609_920
    assert run.fact("regime") == regime


def test_user_pattern(tmp_path: Path) -> None:
    text = "ep 0 it 10 | L=3.25 | gn=1.5\nnoise\nep 0 it 20 | L=nan | gn=inf\n"
    rx = r"it (?P<step>\d+) \| L=(?P<loss>\S+) \| gn=(?P<grad_norm>\S+)"
    run = console.read(_write(tmp_path, text), pattern=rx)
    assert run.get("loss").steps.tolist() == [10, 20]
    assert math.isnan(run.get("loss").values[1]) and math.isinf(run.get("grad_norm").values[1])
    run = console.read(_write(tmp_path, text), pattern=r"L=(?P<loss>[\d.]+)")
    assert run.get("loss").steps.tolist() == [1]  # no step group: ordinals, with a note
    with pytest.raises(ReadError, match="named groups"):
        console.read(_write(tmp_path, text), pattern=r"L=(\S+)")
    with pytest.raises(ReadError, match="not a valid regex"):
        console.read(_write(tmp_path, text), pattern=r"L=(?P<loss>")


# ------------------------------------------------------------------ detection, bad input


def test_detection(tmp_path: Path) -> None:
    _write(tmp_path, (CON / "nanogpt-nan.log").read_bytes(), "stdout.txt")
    assert [s.kind for s in detect_dir(tmp_path)] == ["console"]
    assert detect_file(tmp_path / "stdout.txt").kind == "console"
    other = _write(tmp_path, MEGATRON, "job.o1234")
    assert detect_file(other).kind == "console"  # sniffed by content, not the name
    assert detect_file(_write(tmp_path, "hello\n", "notes.md")) is None


@pytest.mark.parametrize(
    "variant",
    ["empty", "blank", "no_metrics", "binary"],
)
def test_unusable(tmp_path: Path, variant: str) -> None:
    data = {
        "empty": b"",
        "blank": b"\n\n  \n",
        "no_metrics": b"Loading model...\nDone.\n",
        "binary": bytes(range(256)) * 4,
    }[variant]
    with pytest.raises(ReadError) as exc:
        console.read(_write(tmp_path, data))
    assert "train.log" in str(exc.value) and "\n" not in str(exc.value)


def test_truncated_and_corrupt_keep_what_is_there(tmp_path: Path) -> None:
    raw = (CON / "hf-v5-healthy.log").read_bytes()
    cut = raw[: raw.index(b"'loss': '4.391'") + 12]  # truncated mid-dict
    run = console.read(_write(tmp_path, cut))
    assert len(run.get("loss")) == 7
    bad = raw.replace(b"'loss': '4.391'", b"'loss': 'x\xff\xfe'")  # corrupt value, bad UTF-8
    run = console.read(_write(tmp_path, bad))
    assert len(run.get("loss")) == 29 and len(run.get("grad_norm")) == 30


# ------------------------------------------------------------------ console events in the rules


def _rules(run, *ids):
    specs = [load_all()[i] for i in ids]
    return diagnose(run, specs).findings


def test_overflow_lines_drive_fp16_instability(tmp_path: Path) -> None:
    lines = [f"iter {i}: loss {3.0 - i * 1e-4:.4f}, time 10.00ms" for i in range(0, 1000, 10)]
    for k in range(40):  # DeepSpeed#5779's line, repeated through the run
        lines.insert(
            3 + 2 * k,
            "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss "
            f"scale: {2 ** (16 - min(k, 15))}, reducing to {2 ** (15 - min(k, 15))}",
        )
    run = console.read(_write(tmp_path, "\n".join(lines)))
    found = _rules(run, "fp16-instability")
    assert found and "overflow-messages" in found[0].evidence["symptoms"]


def test_resume_skip_explains_the_silence(tmp_path: Path) -> None:
    stamp = lambda s: f"2024-05-01 10:{s // 60:02d}:{s % 60:02d}"  # noqa: E731
    lines = [f"[{stamp(i)}] iter {i}: loss {3.0 - i / 100:.4f}, time 1000.00ms" for i in range(40)]
    lines += [
        f"[{stamp(40)}]   Continuing training from global step 39",
        f"[{stamp(40)}]   Will skip the first 0 epochs then the first 4000 batches in the first epoch.",
    ]
    lines += [
        f"[{stamp(i + 1800)}] iter {i}: loss {3.0 - i / 100:.4f}, time 1000.00ms"
        for i in range(40, 50)
    ]
    run = console.read(_write(tmp_path, "\n".join(lines)))
    skip = _rules(run, "resume-data-skip", "stalled-training")
    by = {f.rule: f for f in skip}
    assert by["resume-data-skip"].evidence["skipped_batches"] == 4000
    assert by["resume-data-skip"].evidence["gap_s"] == pytest.approx(1800, abs=1)
    if "stalled-training" in by:
        assert by["stalled-training"].caused_by == (by["resume-data-skip"].id,)


MEGATRON_VALID = (  # bigscience-workshop/bigscience tr8-104B chronicles.md
    " iteration     7000/  159576 | consumed samples:       260912 | elapsed time per iteration "
    "(ms): 18706.1 | learning rate: 6.000E-05 | global batch size:    96 | lm loss: 6.444662E+00 "
    "| loss scale: 4096.0 | grad norm: 95283.270 | num zeros: 0.0 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    "-------------------------------------------------------------------------------------------\n"
    " validation loss at iteration 7000 | lm loss value: 7.174200E+00 | lm loss PPL: "
    "1.305315E+03 |\n"
    "-------------------------------------------------------------------------------------------\n"
)


def test_megatron_validation_loss_is_the_value_and_ppl_a_metric(tmp_path: Path) -> None:
    (run,) = load_runs(_write(tmp_path, MEGATRON_VALID))
    assert run.get("eval_loss").values.tolist() == [pytest.approx(7.1742)]
    ppl = next(name for name in run.series if "ppl" in name)
    assert kind(ppl) == "task"  # exp(loss): a perplexity, never summed into a loss


# Keras' TerminateOnNaN prints "Batch N: Invalid loss, terminating training" on the progress
# bar's own line (real lines: pierluigiferrari/ssd_keras#384, manishsoni1908/Mobilenet-ssd-keras#21).
@pytest.mark.parametrize(
    ("text", "steps", "losses"),
    [
        (
            "Epoch 1/10\n\nEpoch 00001: LearningRateScheduler setting learning rate to 0.001.\n"
            "   6/1000 [..............................] - ETA: 9:26:20 - loss: nan    "
            "Batch 5: Invalid loss, terminating training\n",
            [6],
            [math.nan],
        ),
        (
            "Epoch 1/10\n"
            "  3/234 [..............................] - ETA: 33:37:24 - loss: 44.4110"
            "Batch 3: Invalid loss, terminating training\n"
            "  4/234 [..............................] - ETA: 25:09:00 - loss: inf \n",
            [3, 4],
            [44.411, math.inf],
        ),
    ],
)
def test_keras_terminate_on_nan_message_leaves_the_bar(
    tmp_path: Path, text: str, steps: list[int], losses: list[float]
) -> None:
    run = console.read(_write(tmp_path, text))
    loss = run.series["loss"]
    assert loss.steps.tolist() == steps
    np.testing.assert_allclose(loss.values, losses)
    assert not any("Invalid" in k or "terminating" in k for k in run.series)


# Loss-scaler skip messages without DeepSpeed's "Rank N": apex.fp16_utils' FP16_Optimizer
# (cybertronai/transformer-xl#2) and DeepSpeed's unfused optimizer.
@pytest.mark.parametrize(
    ("line", "value"),
    [
        (
            "OVERFLOW! Skipping step. Attempted loss scale: 2097152.0, reducing to 1048576.0",
            1048576.0,
        ),
        ("OVERFLOW! Skipping step. Attempted loss scale: 4294967296", None),
        (
            "[2023-10-31 08:58:26,908] [INFO] [unfused_optimizer.py:207:step] [deepspeed] fp16 "
            "dynamic loss scale overflow! Skipping step. Attempted loss scale: 8192.0, reducing to 4096.0",
            4096.0,
        ),
    ],
)
def test_fp16_optimizer_overflow_lines_are_events(
    tmp_path: Path, line: str, value: float | None
) -> None:
    run = console.read(_write(tmp_path, "iter 100: loss 2.5000, time 10.00ms\n" + line + "\n"))
    over = [e for e in run.events if e.kind == "fp16-overflow"]
    assert len(over) == 1 and over[0].value == value
    assert run.fact("precision") == "fp16"
    assert not any("attempted" in k for k in run.series)  # a skip message, not a record


def test_confusion_matrix_one_column_is_an_event(tmp_path: Path) -> None:
    text = (
        "Train Epoch: 1 [0/316 (0%)] Loss: 1.60\n"
        "Confusion Matrix:\n [[ 0 12  0]\n [ 0 30  0]\n [ 0  8  0]]\n"
        "Train Epoch: 2 [0/316 (0%)] Loss: 1.10\n"
        "Confusion Matrix:\n [[10  2  0]\n [ 1 27  2]\n [ 0  1  7]]\n"
    )
    run = console.read(_write(tmp_path, text))
    got = [(e.kind, e.value) for e in run.events]
    assert got == [("one-class-predictions", pytest.approx(0.6)), ("confusion-matrix", None)]


def test_markdown_bold_line_is_read(tmp_path: Path) -> None:
    """A pasted line the user set in bold is read; a `**` inside a message is left alone."""
    text = (
        "I0507 19:42:05.711138 11638 solver.cpp:189] Iteration 7980, loss = 2.07975\n"
        "I0507 19:42:10.959509 11638 solver.cpp:266] Iteration 8000, Testing net (#0)\n"
        "I0507 19:43:35.754755 11638 solver.cpp:315]     **Test net output #0: accuracy = 0.12484**\n"
        "I0507 19:43:35.850280 11638 solver.cpp:189] Iteration 8000, loss = 2.07875\n"
    )
    run = console.read(_write(tmp_path, text))
    acc = run.get("eval_accuracy")
    assert acc is not None and list(acc.values) == [0.12484]
    assert lines.drop_bold(b"  **loss = 2.5**") == b"  loss = 2.5"
    assert lines.drop_bold(b"scale = 2**16") == b"scale = 2**16"  # not emphasis
    assert lines.drop_bold(b"x **2 and 3**") == b"x 2 and 3"
    banner = b"INFO:tensorflow:***** Eval results *****"
    assert lines.drop_bold(banner) == banner


def test_fastai_table_with_a_clock_column(tmp_path: Path) -> None:
    # fastai's fit table: the last column is the epoch's wall time "00:10", no value
    text = (
        "epoch     train_loss  valid_loss  accuracy  time    \n"
        "0         0.912345    0.801234    0.612000  00:10     \n"
        "1         0.701234    0.688123    0.701000  01:02:03  \n"
    )
    run = console.read(_write(tmp_path, text))
    assert run.get("loss").values.tolist() == [0.912345, 0.701234]
    assert run.get("eval_loss").values.tolist() == [0.801234, 0.688123]
    # Learner.metrics are computed on the validation set (tests/readers/test_readers6.py)
    assert run.get("eval_accuracy").values.tolist() == [0.612, 0.701]
    assert "time" not in run.series


def test_a_nan_stop_in_a_log_without_metric_lines_is_one_nan_loss_at_no_known_step(
    tmp_path: Path,
) -> None:
    """TensorFlow's NaN stop on every rank, no loss line pasted: the loss went NaN, when
    is not logged (one point, its step an ordinal, so no rule reads it as step 1)."""
    text = (
        "Skipping time record for  2505  due to checkpoint-saving/warmup overhead\n"
        "ERROR:tensorflow:Model diverged with loss = NaN.\n"
        "E0526 15:34:12.011717 140569525946176 basic_session_run_hooks.py:760] Model diverged "
        "with loss = NaN.\n"
        "ERROR:tensorflow:Model diverged with loss = NaN.\n"
    )
    run = console.read(_write(tmp_path, text))
    loss = run.get("loss")
    assert loss.steps.tolist() == [1] and np.isnan(loss.values[0])
    assert run.fact("steps_ordinal") is True


def test_paddle_amp_halvings_make_a_falling_loss_scale(tmp_path: Path) -> None:
    # PaddleOCR#6848 (verbatim lines): the scale each overflow cut to is read as a series
    text = (
        "Found inf or nan, current scale is: 0.001953125, decrease to: 0.001953125*0.5\n"
        "[2022/07/11 09:17:31] ppocr INFO: epoch: [2/1200], global_step: 100, lr: 0.001000, "
        "loss: 5.235338, loss_shrink_maps: 3.709980\n"
        "Found inf or nan, current scale is: 0.000244140625, decrease to: 0.000244140625*0.5\n"
        "Found inf or nan, current scale is: 0.0001220703125, decrease to: 0.0001220703125*0.5\n"
        "[2022/07/11 09:17:35] ppocr INFO: epoch: [2/1200], global_step: 110, lr: 0.001000, "
        "loss: 5.082040, loss_shrink_maps: 3.560674\n"
    )
    run = console.read(_write(tmp_path, text))
    assert run.fact("precision") == "fp16"
    scale = run.get("loss_scale")
    assert scale is not None and float(scale.values[-1]) == 0.0001220703125 * 0.5
