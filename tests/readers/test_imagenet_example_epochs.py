"""The PyTorch ImageNet example's console (and its many forks'): `Epoch: [E][i/N]` batch
lines under an epoch heading, `Test: [i/N]` blocks and the ` * Prec@1 x Prec@5 y` summary.
Lines as the WS-DAN fork prints them (tests/real/healthy_ws_dan_sac_...: a real log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, read_log, values

EPOCH = (
    "Start epoch {e} ==========,lr=0.001000\n"
    "Epoch: [{e}][0/250]\tTime 3.923 (3.923)\tData 0.411 (0.411)\tLoss {a} ({a})\n"
    "Epoch: [{e}][10/250]\tTime 1.154 (1.408)\tData 0.371 (0.374)\tLoss {b} (12.3890)\n"
    "Test: [240/242]\tTime 0.641 (0.642)\tLoss 4.6884 ({v})\n"
    "cos_sim_loss  0.310 (0.311)\n"
    "neg_cos_sim_loss  0.218 (0.218)\n"
    "loss1,loss2,loss3,feature_center_loss 5.45 5.50 5.51 1.0\n"
    " * Prec@1     {p} Prec@5 80.394\n"
    " * Prec@1   k 49.206 Prec@5 001 78.840\n"
)


def _log(n: int) -> str:
    rows = [
        EPOCH.format(e=e, a=13.06 - e, b=12.66 - e, v=6.44 - e / 2, p=52.365 + 5 * e)
        for e in range(n)
    ]
    return "".join(rows)


def test_an_epoch_heading_sits_at_its_epochs_first_batch_one_run(tmp_path: Path) -> None:
    # "Start epoch 1 ...lr=" read at step 1 sent the steps back from 249 to 1: every epoch
    # was cut into a run of its own (80 runs of 25 points in the real log)
    run = one_log(tmp_path, _log(3))
    assert run.get("loss").steps.tolist() == [0, 10, 250, 260, 500, 510]
    assert run.get("lr").steps.tolist() == [0, 250, 500]


def test_the_prec_at_k_summary_is_the_evaluations_top_k_accuracy(tmp_path: Path) -> None:
    run = one_log(tmp_path, _log(3))
    assert values(run, "eval_acc1") == pytest.approx([52.365, 57.365, 62.365])
    assert values(run, "eval_acc5") == pytest.approx([80.394] * 3)
    # a branch's line ("Prec@1   k 49.206") names no top-k pair: not the summary
    assert 49.206 not in values(run, "eval_acc1")


def test_a_heading_for_an_epoch_the_batches_never_reach_is_not_moved(tmp_path: Path) -> None:
    # near miss: an epoch-only line after the last batches, for an epoch they never reach,
    # heads no batches: it is not pulled to a batch's step (it keeps its own, as before)
    body = _log(2) + "Start epoch 7 ==========,lr=0.002000\n"
    first = read_log(tmp_path, body, "train.log")[0]
    assert first.get("loss").steps.tolist() == [0, 10, 250, 260]
    assert values(first, "lr") == [0.001, 0.001]
