"""Reader gaps closed on the real cases of issue 12, each with a near miss: HF dicts
with no step and every epoch 0.0, LLaMA-Factory printing each step twice, MS-G3D's
`(BS 32: ...)`, mmdet 2.x's epoch-relative iterations, rasbt's final test accuracy
and LlamaFactory's total_tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log

# Llama-3-Chinese-8B (ymcui/Chinese-LLaMA-Alpaca-3#64): no step, epoch 0.0 on every
# line, tqdm padding kept; the numbers' spelling gives the lines different shapes.
HF_ZERO_EPOCH = (
    "{'loss': 1.968, 'grad_norm': nan, 'learning_rate': 7.116424708226588e-09, 'epoch': 0.0}"
    "      \n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 7.116424708226588e-08, 'epoch': 0.0}"
    "      \n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1.4232849416453175e-07, 'epoch': 0.0}"
    "      \n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 2.134927412467976e-07, 'epoch': 0.0}"
    "      \n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 2.846569883290635e-07, 'epoch': 0.0}"
    "      \n"
)


def test_hf_dicts_at_one_printed_epoch_are_one_point_each(tmp_path: Path) -> None:
    run = one_log(tmp_path, HF_ZERO_EPOCH)
    loss, lr = run.get("loss"), run.get("lr")
    assert loss is not None and lr is not None
    assert loss.steps.tolist() == [1, 2, 3, 4, 5]
    assert loss.values.tolist() == [1.968, 0.0, 0.0, 0.0, 0.0]
    assert lr.values[0] == pytest.approx(7.116424708226588e-09)
    assert lr.values[-1] == pytest.approx(2.846569883290635e-07)
    assert len(run.get("grad_norm")) == 5


def test_hf_dicts_with_whole_distinct_epochs_are_still_numbered_by_them(tmp_path: Path) -> None:
    """The near miss: one dict per epoch (1.0, 2.0, 3.0) is numbered by its epoch."""
    body = "".join(
        f"{{'loss': {v}, 'learning_rate': 1e-05, 'epoch': {e}.0}}\n"
        for e, v in ((1, 2.5), (2, 2.0), (3, 1.5))
    )
    loss = one_log(tmp_path, body).get("loss")
    assert loss is not None and loss.steps.tolist() == [1, 2, 3]
    assert loss.values.tolist() == [2.5, 2.0, 1.5]


# LLaMA-Factory (llmtuner) on Llama-2-7B: its callback's line, then HF's dict, per step.
LLMTUNER = (
    "03/12/2024 11:24:33 - INFO - llmtuner.extras.callbacks - {'loss': 0.0000, "
    "'learning_rate': 4.9999e-02, 'epoch': 0.01}\n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 0.04999871292419044, 'epoch': 0.01}\n"
    "03/12/2024 11:24:42 - INFO - llmtuner.extras.callbacks - {'loss': 0.0000, "
    "'learning_rate': 4.9995e-02, 'epoch': 0.02}\n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 0.04999485182928687, 'epoch': 0.02}\n"
    "03/12/2024 11:24:50 - INFO - llmtuner.extras.callbacks - {'loss': 0.0000, "
    "'learning_rate': 4.9988e-02, 'epoch': 0.03}\n"
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 0.04998841711285104, 'epoch': 0.03}\n"
    "03/12/2024 11:24:58 - INFO - llmtuner.extras.callbacks - {'loss': 0.0000, "
    "'learning_rate': 4.9979e-02, 'epoch': 0.04}\n"
)


def test_llamafactory_prints_of_one_step_are_one_record(tmp_path: Path) -> None:
    run = one_log(tmp_path, LLMTUNER)
    loss, lr, gn = run.get("loss"), run.get("lr"), run.get("grad_norm")
    assert loss is not None and lr is not None and gn is not None
    assert loss.steps.tolist() == [1, 2, 3, 4]
    assert gn.steps.tolist() == [1, 2, 3]
    # HF's dict (printed second) wins where the two differ; the callback's alone at 4
    assert lr.values.tolist() == pytest.approx(
        [0.04999871292419044, 0.04999485182928687, 0.04998841711285104, 0.049979]
    )


def test_llamafactory_current_steps_lines_and_hf_dicts_share_their_step(tmp_path: Path) -> None:
    body = "".join(
        f"{{'current_steps': {s}, 'total_steps': 30, 'loss': {v:.4f}, "
        f"'learning_rate': {lr:.4e}, 'epoch': {s / 30:.2f}, 'percentage': {s / 0.3:.2f}, "
        f"'elapsed_time': '0:00:{s:02d}', 'remaining_time': '0:01:00'}}\n"
        f"{{'loss': {v}, 'grad_norm': 1.5, 'learning_rate': {lr}, 'epoch': {s / 30:.2f}}}\n"
        for s, v, lr in ((10, 2.4512, 1e-4), (20, 2.1009, 9e-5), (30, 1.8765, 8e-5))
    )
    run = one_log(tmp_path, body)
    loss, gn = run.get("loss"), run.get("grad_norm")
    assert loss is not None and loss.steps.tolist() == [10, 20, 30]
    assert gn is not None and gn.steps.tolist() == [10, 20, 30]


def test_two_shapes_at_one_epoch_with_other_values_are_two_records(tmp_path: Path) -> None:
    """The near miss: a train dict, then a line of other columns whose shared loss is not
    the same number, at one printed epoch: two records, not one step printed twice."""
    body = (
        "{'loss': 2.5, 'learning_rate': 1e-05, 'epoch': 0.5}\n"
        "{'loss': 2.1, 'grad_norm': 0.9, 'learning_rate': 1e-05, 'epoch': 0.5}\n"
        "{'loss': 1.9, 'learning_rate': 1e-05, 'epoch': 1.0}\n"
    )
    loss = one_log(tmp_path, body).get("loss")
    assert loss is not None and loss.steps.tolist() == [1, 2, 3]
    assert loss.values.tolist() == [2.5, 2.1, 1.9]


MSG3D = (
    "[ Sun Oct 20 10:01:04 2019 ] Training epoch: 19\n"
    "[ Sun Oct 20 10:11:46 2019 ] \tMean training loss: 1.6621 (BS 32: 3.3243).\n"
    "[ Sun Oct 20 10:11:47 2019 ] Training epoch: 20\n"
    "[ Sun Oct 20 11:22:55 2019 ] \tMean training loss: 1.6578 (BS 32: 3.3157).\n"
)


def test_msg3d_batch_size_annotation_is_no_series(tmp_path: Path) -> None:
    run = one_log(tmp_path, MSG3D)
    assert "bs" not in run.series
    loss = run.get("loss")
    assert loss is not None and loss.values.tolist() == [1.6621, 1.6578]


def test_a_batch_size_word_is_still_no_metric_but_bsz_loss_stays(tmp_path: Path) -> None:
    """The near miss: the loss beside a `bs:` field is read; only bs is dropped."""
    body = "".join(f"step {s} | loss: {2.0 - 0.1 * s:.2f} | bs: 32\n" for s in range(1, 5))
    run = one_log(tmp_path, body)
    assert "bs" not in run.series
    assert run.get("loss").steps.tolist() == [1, 2, 3, 4]


def _mmdet(epoch: int, it: int, loss: float) -> str:
    return (
        f"2020-10-13 22:30:37,829 - mmdet - INFO - Epoch [{epoch}][{it}/4015]\t"
        f"lr: 2.000e-02, eta: 3:39:39, time: 0.547, data_time: 0.007, memory: 3862, "
        f"loss_rpn_cls: 0.0298, loss: {loss:.4f}, grad_norm: 2.1\n"
    )


def test_mmdet2_iterations_count_within_their_epoch(tmp_path: Path) -> None:
    body = (
        _mmdet(5, 300, 0.68)
        + _mmdet(5, 350, 0.72)
        + _mmdet(5, 400, 0.61)
        + "[... excerpt gap ...]\n"
        + _mmdet(8, 3950, 0.58)
        + _mmdet(8, 4000, 0.57)
    )
    loss = one_log(tmp_path, body).get("loss")
    assert loss is not None
    inner = [(4, 300), (4, 350), (4, 400), (7, 3950), (7, 4000)]  # (epochs before, iter)
    assert loss.steps.tolist() == [e * 4015 + i for e, i in inner]


def test_a_counter_over_the_run_at_an_even_pace_is_still_the_step(tmp_path: Path) -> None:
    """The near miss: the counter beside the epoch climbs at an even pace over the
    epochs (20 per epoch, a total of 60): it counts the run, not each epoch."""
    body = "".join(
        f"Epoch [{e}][{s}/60]\tlr: 1.000e-02, loss: {1.0 - s / 100:.4f}\n"
        for e in (1, 2, 3)
        for s in range((e - 1) * 20 + 5, e * 20 + 1, 5)
    )
    loss = one_log(tmp_path, body).get("loss")
    assert loss is not None
    assert loss.steps.tolist() == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]


RASBT = (
    "The results are as follows.\n"
    "```\n"
    "# Epoch: 001/010 | Train: 10.000% | Loss: 2.520%\n"
    "# Time elapsed: 2.24 min\n"
    "# Epoch: 010/010 | Train: 10.000% | Loss: 2.303%\n"
    "# Time elapsed: 22.42 min\n"
    "# Total Training Time: 22.42 min\n"
    "# Test accuracy: 10.00%\n"
    "```\n"
)


def test_rasbt_final_test_accuracy_is_an_eval_point_at_the_last_epoch(tmp_path: Path) -> None:
    run = one_log(tmp_path, RASBT)
    acc = run.get("eval_acc")
    assert acc is not None and acc.steps.tolist() == [10] and acc.values.tolist() == [10.0]
    assert run.get("train_acc").steps.tolist() == [1, 10]


def test_a_commented_test_accuracy_setting_is_no_eval_point(tmp_path: Path) -> None:
    """The near miss: `# test accuracy threshold: 90%` in a script is a comment, and a
    test accuracy printed with no epoch line before it has no epoch to sit at."""
    body = "# Test accuracy threshold: 90%\n" + "".join(
        f"step {s} | loss: {2.0 - 0.1 * s:.2f}\n" for s in range(1, 4)
    )
    run = one_log(tmp_path, body)
    assert "eval_acc" not in run.series
    assert run.get("loss").steps.tolist() == [1, 2, 3]


def test_llamafactory_total_tokens_is_bookkeeping(tmp_path: Path) -> None:
    body = "".join(
        f'{{"current_steps": {s}, "total_steps": 2000, "loss": {2.0 - s / 1000}, '
        f'"learning_rate": 0.0001, "epoch": {s / 2000}, "percentage": {s / 20}, '
        f'"elapsed_time": "0:18:39", "remaining_time": "5:54:28", "throughput": "0.00", '
        f'"total_tokens": 0}}\n'
        for s in (100, 200, 300)
    )
    run = one_log(tmp_path, body)
    assert "total_tokens" not in run.series
    assert run.get("loss").steps.tolist() == [100, 200, 300]


def test_llamafactory_jsonl_total_tokens_is_bookkeeping(tmp_path: Path) -> None:
    from traindoc.readers import llamafactory

    p = tmp_path / "trainer_log.jsonl"
    p.write_text(
        "".join(
            f'{{"current_steps": {s}, "total_steps": 30, "loss": {2.0 - s / 100}, '
            f'"lr": 0.0001, "epoch": {s / 30}, "percentage": {s / 0.3}, '
            f'"elapsed_time": "0:00:10", "remaining_time": "0:01:00", "total_tokens": {s * 512}}}\n'
            for s in (10, 20, 30)
        )
    )
    run = llamafactory.read(p)
    assert "total_tokens" not in run.series
    assert run.get("loss").steps.tolist() == [10, 20, 30]
