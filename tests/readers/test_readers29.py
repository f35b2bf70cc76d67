"""readers29: PyTorch scalar tensor prints read as the loss; a step counter beside an
epoch counter counted within the epoch (its total is one epoch's)."""

from __future__ import annotations

import math

import pytest

from tests.readers.helpers import one_log, values

# -- 1. `print(loss)`: a scalar tensor with a grad_fn --------------------------------------


def test_bare_grad_tensor_after_step_is_the_loss(tmp_path):
    body = "".join(
        f"step {i}: tensor({2.3026 - 0.1 * i:.4f}, grad_fn=<NllLossBackward0>)\n" for i in range(6)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([2.3026 - 0.1 * i for i in range(6)])
    assert list(run.get("loss").steps) == list(range(6))


def test_nan_and_inf_inside_tensor_become_nonfinite_points(tmp_path):
    body = (
        "".join(
            f"tensor({2.3 - 0.1 * i:.4f}, device='cuda:0', grad_fn=<NllLossBackward0>)\n"
            for i in range(4)
        )
        + "tensor(nan, device='cuda:0', grad_fn=<DivBackward0>)\n"
        + "tensor(inf, grad_fn=<AddBackward0>)\n"
    )
    got = values(one_log(tmp_path, body), "loss")
    assert got[:4] == pytest.approx([2.3, 2.2, 2.1, 2.0])
    assert math.isnan(got[4]) and got[5] == math.inf


def test_named_grad_tensor_is_the_named_value(tmp_path):
    body = "".join(
        f"epoch {e} loss: tensor({0.6931 - 0.05 * e:.4f}, device='cuda:0', "
        "grad_fn=<MeanBackward0>)\n"
        for e in range(5)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == pytest.approx([0.6931 - 0.05 * e for e in range(5)])


def test_named_terms_keep_their_names(tmp_path):
    body = "".join(
        f"iter {i} loss_cls: tensor({1.0 - 0.1 * i:.4f}, device='cuda:0', "
        f"grad_fn=<MeanBackward0>) loss_box: tensor({0.5 - 0.01 * i:.4f}, device='cuda:0', "
        "grad_fn=<SumBackward0>)\n"
        for i in range(4)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss_cls") == pytest.approx([1.0 - 0.1 * i for i in range(4)])
    assert run.get("loss_box") is not None


def test_near_miss_tensor_without_grad_fn_is_no_loss(tmp_path):
    # printed tensors with no grad_fn and no name: data, labels, counts, not a loss
    body = "tensor([0.1, 0.2])\ntensor(3)\ntensor(3)\ntensor(0.5000)\nstep 4 acc: 0.5\n"
    run = one_log(tmp_path, body)
    assert run.get("loss") is None


def test_near_miss_two_unnamed_grad_tensors_are_not_guessed(tmp_path):
    from traindoc.readers.logs import lines

    text = b"tensor(1.2, grad_fn=<A>) tensor(0.3, grad_fn=<B>)"
    assert lines.grad_tensor_loss(text) == text


# -- 2. a step counter beside an epoch counter -------------------------------------------


def _paddleclas(epochs, steps=(10, 20, 30), total=312):
    return "".join(
        f"[2023/03/10 15:23:33] ppcls INFO: epoch:{e}   train step:{i}/{total}  lr: 0.160000, "
        f"loss: {10.0 - 0.01 * (e * 3 + i // 10):.4f} top1:  0.0137 top5:  0.0527 "
        "batch_cost: 2.12634 s, reader_cost: 1.18384 s, ips: 240.78891 samples/sec.\n"
        for e in epochs
        for i in steps
    )


def test_paddleclas_step_counts_within_the_epoch(tmp_path):
    run = one_log(tmp_path, _paddleclas([1, 2, 3]))
    assert list(run.get("loss").steps) == [10, 20, 30, 322, 332, 342, 634, 644, 654]
    # steps per epoch are printed, the epochs' total is not: the plan is unknown
    assert run.fact("max_steps") is None


def test_one_epoch_of_paddleclas_lines_plans_nothing(tmp_path):
    # the counter beside one unchanging epoch may count the epoch or the run: unknown
    run = one_log(tmp_path, _paddleclas([5]))
    assert run.fact("max_steps") is None
    assert list(run.get("loss").steps) == [10, 20, 30]


def test_epoch_total_beside_step_total_plans_epochs_x_steps(tmp_path):
    body = "".join(
        f"Epoch [{e}/100] Step [{i}/312] loss: {2.0 - 0.01 * (e * 3 + i // 10):.4f}\n"
        for e in (1, 2, 3)
        for i in (10, 20, 30)
    )
    run = one_log(tmp_path, body)
    assert run.fact("max_steps") == 31200
    assert list(run.get("loss").steps)[3] == 322


def test_bracketed_epoch_iter_counts_within_the_epoch(tmp_path):
    body = "".join(
        f"[epoch {e}][iter {i}/500] loss: {2.0 - 0.01 * (e * 3 + i // 10):.4f}\n"
        for e in (1, 2, 3)
        for i in (40, 80)
    )
    run = one_log(tmp_path, body)
    assert list(run.get("loss").steps) == [40, 80, 540, 580, 1040, 1080]
    assert run.fact("max_steps") is None


def test_near_miss_counter_running_on_across_epochs_is_the_runs(tmp_path):
    # YOLOv3-TF2's "epoch:49 step: 0/19": the step keeps climbing over the epoch change
    body = "".join(
        f"epoch:{49 + (i >= 2)} step:{i:5d}/19, lr:0.000052, giou_loss:   2.64, "
        f"total_loss:  {13.83 - 0.1 * i:.2f}\n"
        for i in range(6)
    )
    run = one_log(tmp_path, body)
    assert list(run.get("loss").steps) == list(range(6))
    assert run.fact("max_steps") == 19
