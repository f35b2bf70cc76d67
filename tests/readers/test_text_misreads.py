"""Text-reader misreads found on real cases (tests/real), each with a case the reader
must read, one it must not, and a near miss: a rounded epoch that repeats, a record
cut off, a `\\` that is not a continuation, NUL bytes, verl's bracketed LR scale, a
GRPO console with prints on the tqdm bar's line, a carried step that would collapse."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import one_log as _one
from tests.readers.helpers import read_log as _read
from traindoc.readers.logs.lines import drop_cut_value


def _dict(loss: float, lr: float, epoch: str) -> str:
    return f"{{'loss': {loss}, 'learning_rate': {lr}, 'rewards/chosen': 0.0, 'epoch': {epoch}}}\n"


# -- 1. a rounded epoch that repeats is not a position --------------------------------------
def test_repeated_rounded_epoch_is_numbered_by_order(tmp_path: Path) -> None:
    # TRL DPO dicts, all at 'epoch': 0.0 (llms_tool#46): four logging steps, not one
    body = "".join(_dict(0.6931, 9.99e-06 - k * 1e-09, "0.0") for k in range(4))
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3, 4]
    assert run.get("lr").values[-1] == pytest.approx(9.987e-06)
    assert run.fact("steps_ordinal") is True


def test_integer_epochs_printed_once_each_stay_the_step(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch: {e}, LR: 0.0000100, Training Loss: {0.4 - e / 100:.5f}\n" for e in (1, 2, 3)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3]
    assert run.fact("steps_ordinal") is None


def test_an_integer_epoch_counter_repeating_is_not_a_rounded_float(tmp_path: Path) -> None:
    # near miss: "Epoch: [0][50]" lines repeat an integer epoch (batches inside it):
    # still one point per epoch, as before, not the order of the lines
    body = "".join(
        f"Epoch: [{e}][{b}]\tLoss {4.0 - e / 10 - b / 1000:.4f}\tLr: 0.01\n"
        for e in range(3)
        for b in (0, 50)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [0, 1, 2]


def test_two_runs_of_whole_epochs_are_still_two_runs(tmp_path: Path) -> None:
    # near miss: 1,2,3 then 1,2,3 (EEND#4: lr 1e-5, then lr 0) never repeats in a row
    one = "".join(f"- Epoch: {e}, LR: 0.0000100, Training Loss: 0.3{e}\n" for e in (1, 2, 3))
    two = "".join(f"- Epoch: {e}, LR: 0.0000000, Training Loss: 0.3{e}  \n" for e in (1, 2, 3))
    runs = _read(tmp_path, one + "\nthen with lr = 0 the loss is the same:\n" + two)
    assert [r.get("loss").steps.tolist() for r in runs] == [[1, 2, 3], [1, 2, 3]]


# -- 1b. a record cut off loses its last, possibly cut, value -------------------------------
@pytest.mark.parametrize(
    ("cut", "kept"),
    [
        (b"{'loss': 0.6931, 'learning_rate': 9.9879", b"{'loss': 0.6931,"),
        (b"{'loss': 0.69", b"{"),
        (b"{'loss': 0.6931, 'learnin", b"{'loss': 0.6931, 'learnin"),  # no number cut
        (b"{'loss': 0.6931,", b"{'loss': 0.6931,"),  # whole fields
    ],
)
def test_drop_cut_value(cut: bytes, kept: bytes) -> None:
    assert drop_cut_value(cut) == kept


def test_a_dict_cut_at_the_end_keeps_its_whole_fields_only(tmp_path: Path) -> None:
    body = "".join(_dict(0.6931, 9.99e-06, "0.0") for _ in range(4))
    body += "{'loss': 631.0259, 'learning_rate': 9.9879"  # the paste ends mid-value
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist()[-1] == 631.0259  # a whole field, kept
    assert len(run.get("loss")) == 5 and len(run.get("lr")) == 4  # the cut LR is not 9.988
    assert run.get("lr").values.max() < 1e-4


def test_a_dict_cut_by_the_next_record_keeps_its_whole_fields(tmp_path: Path) -> None:
    body = (
        "{'loss': 2.0, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
        "{'loss': 1.9, 'learning_rate': 1.5\n"  # cut: the next record starts
        "{'loss': 1.8, 'learning_rate': 2e-05, 'epoch': 0.3}\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.0, 1.9, 1.8]
    assert run.get("lr").values.tolist() == [1e-05, 2e-05]


def test_a_whole_dict_at_the_end_is_not_cut(tmp_path: Path) -> None:
    body = "".join(_dict(1.0 - k / 10, 1e-05, f"0.{k + 1}") for k in range(3))
    run = _one(tmp_path, body.rstrip("\n"))  # no newline after the last: still whole
    assert len(run.get("loss")) == 3 and len(run.get("lr")) == 3


# -- 2. a `\` that ends printed text does not swallow the metric lines ----------------------
VERL = (
    "(main_task pid=926049) step:{s} - critic/vf_loss:{v:.3f} - actor/pg_loss:-0.003"
    " - actor/grad_norm:2.170 - actor/lr(1e-4):0.010 - critic/lr(1e-4):0.100\n"
)


def _verl(steps: range) -> str:
    return "".join(VERL.format(s=s, v=2.0 - s / 100) for s in steps)


def test_a_latex_backslash_before_step_lines_joins_nothing(tmp_path: Path) -> None:
    # verl prints the model's answers; one ended in LaTeX "\times \" (verl gsm8k log)
    body = _verl(range(5)) + "(main_task pid=926049) \\[ F = 44 \\times \\\n" + _verl(range(5, 12))
    run = _one(tmp_path, body)
    assert run.get("grad_norm").steps.tolist() == list(range(12))
    assert "f" not in run.series  # the answer's "F = 44" is not a metric of step 5


def test_an_unbalanced_bracket_in_text_does_not_hold_lines(tmp_path: Path) -> None:
    body = _verl(range(3)) + "(main_task pid=926049) answer: \\[ x = 2\n" + _verl(range(3, 6))
    run = _one(tmp_path, body)
    assert run.get("grad_norm").steps.tolist() == list(range(6))


def test_a_wrapped_line_continued_with_a_backslash_is_still_joined(tmp_path: Path) -> None:
    # near miss: the rest of a wrapped line does not repeat the line's prefix
    body = "round 0: train-error:0.998988    test-rec@1:0.00102      tes\\\nt-rec@5:0.00504\n"
    run = _one(tmp_path, body)
    assert run.get("test-rec@5").values.tolist() == [0.00504]


def test_nul_bytes_of_a_crash_do_not_stop_the_reading(tmp_path: Path) -> None:
    body = (
        _verl(range(3)).encode()
        + b"(main_task pid=926049) step:3 - critic/vf_l"
        + b"\x00" * 64  # the write that never landed
        + _verl(range(0, 4)).encode()  # the restart, written after the NULs
    )
    runs = _read(tmp_path, body)
    assert [r.get("grad_norm").steps.tolist() for r in runs] == [[0, 1, 2], [0, 1, 2, 3]]


# -- 4. verl's LR in units of the bracketed scale ------------------------------------------
def test_verl_lr_in_bracketed_units(tmp_path: Path) -> None:
    run = _one(tmp_path, _verl(range(6)))
    lr = run.get("lr")
    assert len(lr) == 6 and lr.values.tolist() == [1e-06] * 6  # 0.010 x 1e-4
    assert run.series["critic/lr"].values[0] == pytest.approx(1e-05)
    assert run.fact("lr_print_decimals") == 7  # 3 decimals of 1e-4


def test_a_bracketed_number_that_is_no_power_of_ten_is_not_a_unit(tmp_path: Path) -> None:
    body = "".join(f"step:{s} - loss:{1 - s / 10:.2f} - acc(5):0.900\n" for s in range(4))
    run = _one(tmp_path, body)
    assert run.series["acc"].values.tolist() == [0.9] * 4


def test_a_rounded_lr_without_scale_states_its_decimals(tmp_path: Path) -> None:
    # near miss: rllm's verl prints "actor/lr:0.000": an LR of 0 at 3 decimals, said so
    body = "".join(f"step:{s} - actor/pg_loss:0.15 - actor/lr:0.000\n" for s in range(1, 4))
    run = _one(tmp_path, body)
    assert run.get("lr").values.tolist() == [0.0, 0.0, 0.0]
    assert run.fact("lr_print_decimals") == 3


# -- 3. a GRPO console: dicts, tqdm bars with prints on their line, debug blocks ------------
BAR = (
    "\r  0%|          | {n}/1404 [00:31<12:21:37, 31.72s/it]  Baseline Accuracy: {a:.2f}% ({k}/8)\n"
)
STATS = (
    "\n==================================================\nReward Statistics:\n  Total: 8\n"
    "  Strict: 8, Partial: 0, Invalid: 0\n  Avg final reward: 0.500\n"
    "  Baseline Accuracy: {a:.2f}% ({k}/8)\n==================================================\n\n"
)
GRPO = (
    "{{'loss': {loss}, 'grad_norm': 0.04, 'learning_rate': 4e-06, 'reward': 0.5,"
    " 'reward_std': 0.0, 'frac_reward_zero_std': 1.0, 'epoch': {ep}}}\n"
)


def _grpo(steps: int, every: int = 5) -> str:
    out = []
    for n in range(1, steps + 1):
        k = 1 + n % 7
        out.append(BAR.format(n=n, a=100 * k / 8, k=k) + STATS.format(a=100 * k / 8, k=k))
        if n % every == 0:
            out.append(GRPO.format(loss=0.004, ep=round(n / 1404, 2)))
    return "".join(out)


def test_grpo_console_reads_its_dicts_at_the_bar_and_one_run(tmp_path: Path) -> None:
    run = _one(tmp_path, _grpo(40))
    loss = run.get("loss")
    # numbered by the bar drawn after each dict (HF's convention), never by "(4/8)"
    assert loss.steps.tolist() == [6, 11, 16, 21, 26, 31, 36, 40]
    assert len(run.get("reward")) == 8
    assert run.series["baseline_accuracy"].steps.tolist() == list(range(1, 41))
    assert run.fact("max_steps") is None  # "(4/8)" is no step total


def test_an_sft_then_grpo_console_is_two_runs(tmp_path: Path) -> None:
    sft = "".join(
        f"{{'loss': {1 / k:.4f}, 'grad_norm': 0.2, 'learning_rate': 1e-4, 'epoch': {k / 20}}}\n"
        for k in range(1, 41)
    )
    sft += (
        "{'train_runtime': 28.78, 'train_samples_per_second': 6.949, "
        "'train_steps_per_second': 6.949, 'train_loss': 0.11, 'epoch': 2.0}\n"
        "Unsloth: Merging weights into 16bit: 100%|##########| 1/1 [00:05<00:00,  5.24s/it]\n"
        "\x1b[0;34m[Step 4/5]\x1b[0m GRPO training...\n"
    )
    runs = _read(tmp_path, sft + _grpo(20))
    assert len(runs) == 2
    assert runs[0].get("loss").steps.tolist() == list(range(5, 201, 5))  # summary: 100/epoch
    assert runs[1].get("loss").steps.tolist() == [6, 11, 16, 20]
    assert runs[0].fact("max_steps") is None  # the script's "[Step 4/5]" is not the run's


def test_a_share_with_its_count_is_not_a_counter(tmp_path: Path) -> None:
    body = "".join(f"step {s} | loss {2 - s / 10:.2f} | acc: 50.00% (4/8)\n" for s in range(1, 5))
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3, 4]
    assert run.series["acc"].values.tolist() == [50.0] * 4


def test_a_fraction_after_a_bar_is_still_the_bar(tmp_path: Path) -> None:
    # near miss: the bar's own "12/240" is its counter; only a "(n/N)" after a % is a count
    body = "".join(
        f" 5%|#    | {n}/240 [00:10<01:00, 10.0it/s, loss={1 / n:.3f}]\n" for n in range(1, 6)
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2, 3, 4, 5]


def test_a_dict_glued_after_a_one_off_bar_is_a_record_of_its_own(tmp_path: Path) -> None:
    body = (
        "Preparing files:   0%|          | 0/1 [00:00<?, ?it/s]{'loss': 2.03, 'learning_rate': 1e-4, 'epoch': 0.05}\n"
        "{'loss': 0.75, 'learning_rate': 1e-4, 'epoch': 0.1}\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").values.tolist() == [2.03, 0.75]
    assert run.get("loss").steps.tolist() == [1, 2]  # not step 0 of the file-saving bar


# -- 5. a carried step must not collapse two records -----------------------------------------
def test_the_last_dict_without_a_bar_after_it_is_the_next_step(tmp_path: Path) -> None:
    # Qwen-VL-Series-Finetune#10: dict, bar 1/666, dict, end of paste
    body = (
        "  0%|          | 1/666 [00:22<4:08:53, 22.46s/it]\n"
        "{'loss': 1.0446, 'grad_norm': nan, 'learning_rate': 1.49e-08, 'epoch': 0.0}\n"
        "  0%|          | 1/666 [00:24<4:08:53, 22.46s/it]\n"
        "  0%|          | 2/666 [00:40<3:41:45, 20.04s/it]\n"
        "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 2.98e-08, 'epoch': 0.01}\n"
    )
    run = _one(tmp_path, body)
    assert run.get("loss").steps.tolist() == [1, 2]
    assert math.isnan(run.get("grad_norm").values[1])


def test_an_eval_line_carries_the_train_step_before_it(tmp_path: Path) -> None:
    # near miss: a record of another shape at the carried step is where it belongs
    body = "".join(
        f"step {s} | loss {2 - s / 10:.2f}\nvalidation loss: {2.1 - s / 10:.2f} acc: 0.5\n"
        for s in (10, 20)
    )
    run = _one(tmp_path, body)
    assert run.get("eval_loss").steps.tolist() == [10, 20]


def test_loss_parts_of_two_models_are_not_summed_into_one_loss() -> None:
    """verl logs actor/pg_loss and critic/vf_loss: two models, so no derived `loss`;
    ultralytics' train/box_loss + train/cls_loss share a namespace and are summed."""
    from traindoc.model import Run, Series
    from traindoc.readers.derived import finalize

    def run(*names: str) -> Run:
        steps = np.arange(1, 6)
        series = {n: Series.from_arrays(n, steps, np.full(5, 0.5)) for n in names}
        return finalize(Run("r", series, {}, (), ()))

    assert run("actor/pg_loss", "critic/vf_loss").get("loss") is None
    got = run("train/box_loss", "train/cls_loss").get("loss")
    assert got is not None and got.values.tolist() == [1.0] * 5
