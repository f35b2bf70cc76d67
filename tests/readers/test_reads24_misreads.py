"""Columns read as the wrong quantity, each from a few verbatim lines of a real log:

- neuraltalk's driver.py (karpathy/neuraltalk issue #4) prints "loss cost = L, reg cost = R":
  the data's cost and the L2 penalty's. The penalty is a regulariser (it depends on the
  weights only and prints 0.000001 at every batch), never a bare `cost` the loss's twin.
- a YOLOv3 results table re-typed under guessed headers (ultralytics/yolov3 issue #1211)
  holds the train GIoU / obj / cls losses, their total (mloss3) and the val losses: the
  total is the loss, not one more term to add to the others.
- scikit-learn's SGD verbose epoch line (a python_sklearn.py printout) prints the weight
  vector's "Norm" beside its non-zeros and bias: no gradient norm.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_log, one_log, read_log, values
from traindoc.readers import ReadError

_NEURALTALK = """\
253/15000 batch done in 5.037s. at epoch 0.84. loss cost = 37.447347, reg cost = 0.000001, ppl2 = 26.10 (smooth 48.09)
254/15000 batch done in 5.082s. at epoch 0.85. loss cost = 39.408169, reg cost = 0.000001, ppl2 = 29.19 (smooth 47.91)
255/15000 batch done in 4.914s. at epoch 0.85. loss cost = 140.730310, reg cost = 0.000001, ppl2 = 237360.65 (smooth 2421.03)
Aboring, cost seems to be exploding. Run gradcheck? Lower the learning rate?
"""


def test_reg_cost_is_the_regulariser_not_a_bare_cost(tmp_path: Path) -> None:
    run = load_log(tmp_path, _NEURALTALK)
    assert run.get("cost") is None
    assert values(run, "reg_cost") == [1e-06] * 3
    assert [round(v, 2) for v in values(run, "loss")] == [37.45, 39.41, 140.73]


def test_near_miss_a_bare_cost_is_still_the_loss(tmp_path: Path) -> None:
    body = "".join(f"Pass {i}, Batch 10, Cost {5.0 / (i + 1):.4f}\n" for i in range(4))
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [5.0, 2.5, 1.6667, 1.25]


_YOLOV3_TABLE = """\
epoch|mem|mloss0|mloss1|mloss2|mloss3|targets|imgsize|p|r|map|mf1|loss0|loss1|loss2
-|-|-|-|-|-|-|-|-|-|-|-|-|-|-
0/299|7.17G| 3.28| 2.15|0.816| 6.25|    5|  576|0.409|0.723|0.623|0.517| 3.06|  1.4|0.773|
1/299|7.35G| 3.46| 1.92|0.969| 6.35|    5|  512| 0.49|0.709|0.647|0.572| 2.74| 1.23|  0.8|
2/299|7.19G| 3.84| 1.85| 1.33| 7.02|    5|  384|0.536|0.665|0.629|0.585|  2.7| 1.16|0.883|
3/299|7.17G| 3.85| 1.81| 1.58| 7.24|    5|  640|0.547|0.632|0.607|0.576|  2.7| 1.18|0.935|
"""


def test_a_column_that_sums_others_is_the_loss_not_a_term(tmp_path: Path) -> None:
    run = load_log(tmp_path, _YOLOV3_TABLE)
    # mloss3 alone: not 17.73, the sum of every loss-named column
    assert values(run, "loss") == [6.25, 6.35, 7.02, 7.24]
    assert "mloss3" in run.get("loss").source


def test_near_miss_terms_with_no_total_are_summed(tmp_path: Path) -> None:
    # the first rows of the same table without its total column: no column adds up two
    # others, so the loss is the sum of the three terms
    rows = [r.split("|") for r in _YOLOV3_TABLE.splitlines()[2:]]
    body = "epoch|mloss0|mloss1|mloss2\n-|-|-|-\n" + "".join(
        "|".join([r[0], r[2], r[3], r[4]]) + "|\n" for r in rows
    )
    run = load_log(tmp_path, body)
    assert [round(v, 3) for v in values(run, "loss")] == [6.246, 6.349, 7.02, 7.24]


_SKLEARN_SGD = """\
-- Epoch 1
Norm: 1.59, NNZs: 2, Bias: 1.941867, T: 1000, Avg. loss: 0.660085
Total training time: 0.00 seconds.
-- Epoch 2
Norm: 1.75, NNZs: 2, Bias: 2.123407, T: 2000, Avg. loss: 0.014382
Total training time: 0.00 seconds.
-- Epoch 3
Norm: 1.78, NNZs: 2, Bias: 2.158143, T: 3000, Avg. loss: 0.001975
Total training time: 0.00 seconds.
-- Epoch 4
Norm: 1.79, NNZs: 2, Bias: 2.166933, T: 4000, Avg. loss: 0.001385
Total training time: 0.00 seconds.
"""


def test_sgd_norm_beside_the_weights_is_their_norm(tmp_path: Path) -> None:
    run = one_log(tmp_path, _SKLEARN_SGD)
    assert run.get("grad_norm") is None
    assert values(run, "weight_norm") == [1.59, 1.75, 1.78, 1.79]
    assert values(run, "loss") == [0.660085, 0.014382, 0.001975, 0.001385]


def test_near_miss_llm_c_bare_norm_stays_the_gradient_norm(tmp_path: Path) -> None:
    body = "".join(
        f"step {s:4d}/10 | train loss {11.0 - s * 0.5:.6f} | norm {15.4 - s:.4f} | lr 6.00e-04\n"
        for s in range(1, 5)
    )
    run = one_log(tmp_path, body)
    assert values(run, "grad_norm") == [14.4, 13.4, 12.4, 11.4]


# PyTorch Geometric's examples (a GCN on a small graph set, as printed in a public
# notebook): `print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: {train_acc:.4f}, Val:
# {val_acc:.4f}, Test: {test_acc:.4f}')`, and the variant without the loss.
_PYG = """\
Epoch: 020, Loss: 0.6253, Train: 0.7535, Val: 0.5000, Test: 0.5625
Epoch: 040, Loss: 0.6201, Train: 0.8239, Val: 0.8750, Test: 0.6875
Epoch: 060, Loss: 0.5318, Train: 0.8451, Val: 0.7500, Test: 0.5625
Epoch: 080, Loss: 0.3640, Train: 0.8803, Val: 0.8750, Test: 0.5625
"""
_PYG_NO_LOSS = """\
Epoch: 012, Train: 0.7857, Val: 0.5440, Test: 0.5690
Epoch: 013, Train: 0.8000, Val: 0.5580, Test: 0.6080
Epoch: 014, Train: 0.8357, Val: 0.5840, Test: 0.6350
Epoch: 015, Train: 0.8571, Val: 0.6120, Test: 0.6520
"""


def test_pyg_split_words_beside_a_loss_are_the_split_accuracies(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PYG)
    assert values(run, "loss") == [0.6253, 0.6201, 0.5318, 0.364]
    assert values(run, "train_acc") == [0.7535, 0.8239, 0.8451, 0.8803]
    assert values(run, "val_acc") == [0.5, 0.875, 0.75, 0.875]
    assert values(run, "test_acc") == [0.5625, 0.6875, 0.5625, 0.5625]
    assert run.get("val") is None and run.get("test") is None


def test_pyg_three_splits_without_a_loss_are_accuracies(tmp_path: Path) -> None:
    run = one_log(tmp_path, _PYG_NO_LOSS)
    assert values(run, "train_acc") == [0.7857, 0.8, 0.8357, 0.8571]
    assert values(run, "val_acc") == [0.544, 0.558, 0.584, 0.612]


def test_near_miss_two_bare_splits_without_a_loss_stay_as_read(tmp_path: Path) -> None:
    # "train: 1.42, val: 1.38" may be the two losses: no accuracy is made up
    body = "".join(
        f"epoch: {e}, train: {1.5 - 0.1 * e:.2f}, val: {1.45 - 0.08 * e:.2f}\n" for e in range(1, 5)
    )
    with pytest.raises(ReadError):  # as before: no metric this reader knows
        one_log(tmp_path, body)


def test_top_k_error_is_better_lower() -> None:
    # SlowFast / pycls print the top-k error, 100 - the top-k accuracy: '{"_type":
    # "val_iter", "epoch": "1/2", ..., "loss_des": 4.77786, "time_diff": 0.13320,
    # "top1_err": 84.00000, "top5_err": 50.04000}'
    from traindoc.measure.metrics import direction

    assert direction("top1_err") is False
    assert direction("val_top5_err") is False
    assert direction("top1") is True  # near miss: the accuracy itself
    assert direction("acc") is True


# A training loop that counts the batches of each epoch and closes the epoch with a
# summary line (its counter starts over after every summary): the shape of the common
# hand-written loop `print(f"iters: {i}/{len(loader)}, loss: ...")` then
# `print(f"Epoch {epoch} finished, train_loss: ..., val_loss: ...")`; values made up.
def _epochs(counter: str, epochs: int = 4) -> str:
    lines, loss = [], 2.3
    for e in range(1, epochs + 1):
        for i in range(100, 600, 100):
            loss *= 0.97
            lines.append(f"{counter.format(i=i)}, loss: {loss:.4f}, lr: 0.001")
        lines.append(f"Epoch {e} finished, train_loss: {loss:.4f}, val_loss: {loss * 1.1:.4f}")
    return "\n".join(lines) + "\n"


def test_batch_counter_closed_by_epoch_summaries_is_one_run(tmp_path: Path) -> None:
    runs = read_log(tmp_path, _epochs("iters: {i}/520"))
    assert len(runs) == 1
    loss = runs[0].get("loss")
    assert len(loss) == 20
    # epoch x 520 + batch: the second epoch's first batch follows the first epoch's last
    assert [int(s) for s in loss.steps[4:6]] == [500, 620]
    assert len(runs[0].get("eval_loss")) == 4


def test_batch_counter_without_its_total_is_one_run_too(tmp_path: Path) -> None:
    runs = read_log(tmp_path, _epochs("iters: {i}"))
    assert len(runs) == 1
    assert len(runs[0].get("loss")) == 20


def test_near_miss_a_relaunch_that_starts_over_at_epoch_1_is_a_new_run(tmp_path: Path) -> None:
    # the summaries' epochs go back to 1: a second session appended, not one more epoch
    runs = read_log(tmp_path, _epochs("iters: {i}/520", 2) + _epochs("iters: {i}/520", 2))
    assert len(runs) == 2


# OpenAI Spinning Up's PPO progress.txt (a released Ant run, tab-separated): its
# DeltaLossPi / DeltaLossV are how much an update moved each loss, no terms of a loss.
_SPINNINGUP = (
    "Epoch\tAverageEpRet\tStdEpRet\tMaxEpRet\tMinEpRet\tEpLen\tAverageVVals\tStdVVals\tMaxVVals\tMinVVals\tTime Steps\tLossPi\tLossV\tDeltaLossPi\tDeltaLossV\tEntropy\tKL\tClipFrac\tStopIter\tTime\tAVG Time Per Epoch\n"
    "0\t-119.12247\t194.42764\t40.1079\t-622.4879\t212.72728\t-0.0069616027\t0.16233265\t0.46955332\t-0.50053567\t5000\t1.04904174e-07\t2352.8904\t-0.07930646\t-1605.0254\t0.91894025\t0.024135098\t0.3584\t79.0\t8.504266500473022\t8.504268407821655\n"
    "1\t-108.32261\t175.5686\t7.0250525\t-556.84717\t224.86363\t-28.49486\t0.71806455\t-4.9538207\t-28.696577\t10000\t1.06155875e-08\t479.9868\t-0.0806721\t-120.431946\t0.90204924\t0.028935632\t0.362\t79.0\t16.97582173347473\t8.487911820411682\n"
    "2\t-92.95338\t116.21216\t8.342908\t-400.24725\t220.77272\t-36.862625\t3.2914746\t29.137577\t-37.358356\t15000\t-1.9073486e-08\t453.26456\t-0.08456812\t-65.23596\t0.8882046\t0.034423772\t0.376\t79.0\t25.231459856033325\t8.410487254460653\n"
    "3\t-95.716995\t142.3756\t3.743136\t-439.33942\t248.95\t-31.301128\t4.382683\t15.783549\t-33.376904\t20000\t1.8632411e-08\t260.06934\t-0.08655088\t-57.56259\t0.8773879\t0.03755427\t0.3938\t79.0\t33.900115728378296\t8.475029587745667\n"
)


def test_spinning_up_delta_losses_are_no_terms(tmp_path: Path) -> None:
    run = load_log(tmp_path, _SPINNINGUP, "progress.txt")
    assert "deltalosspi" not in run.get("loss").source.lower()
    assert "deltalossv" not in run.get("loss").source.lower()


# d3rlpy's CQL epoch lines (takuseno/d3rlpy issue #363): an off-policy actor-critic's
# critic_loss (its conservative_loss a part of it) and actor_loss (-Q), each network's own.
_D3RLPY = (
    "2024-01-03 08:15.28 [info     ] CQL_20240103081154: epoch=5 step=5000 distributed=DistributedWorkerInfo(rank=0, backend='nccl', world_size=1) epoch=5 metrics={'time_sample_batch': 0.011790130138397217, 'time_algorithm_update': 0.028200243949890135, 'critic_loss': 28059.851187988283, 'conservative_loss': 28058.72673388672, 'alpha': 4575.802740356446, 'actor_loss': 15.330485224723816, 'temp': 0.67492482483387, 'temp_loss': 0.723234123468399, 'time_step': 0.04007934713363647, 'environment': -264.5921235686523} step=5000\n"
    "2024-01-03 08:16.11 [info     ] CQL_20240103081154: epoch=6 step=6000 distributed=DistributedWorkerInfo(rank=0, backend='nccl', world_size=1) epoch=6 metrics={'time_sample_batch': 0.011838379859924317, 'time_algorithm_update': 0.029622458934783935, 'critic_loss': 221924.761796875, 'conservative_loss': 221922.75696484375, 'alpha': 40970.942463867184, 'actor_loss': 17.77835116481781, 'temp': 0.6240606836676598, 'temp_loss': 0.5938283017277718, 'time_step': 0.041547907114028934, 'environment': -334.650864965825} step=60\n"
)


def test_actor_and_critic_losses_are_not_summed_into_one_loss(tmp_path: Path) -> None:
    run = load_log(tmp_path, _D3RLPY)
    assert run.get("loss") is None
    assert values(run, "critic_loss") == [28059.851187988283, 221924.761796875]
    assert values(run, "actor_loss") == [15.330485224723816, 17.77835116481781]


def test_near_miss_policy_and_value_losses_of_one_network_are_summed(tmp_path: Path) -> None:
    body = "".join(
        f"update {u}, policy_loss: {0.05 - u * 0.001:.4f}, value_loss: {0.5 - u * 0.02:.4f}\n"
        for u in range(1, 5)
    )
    run = load_log(tmp_path, body)
    assert "policy_loss + value_loss" in run.get("loss").source


def test_near_miss_split_sizes_are_no_accuracies(tmp_path: Path) -> None:
    # a data summary printed before training (a skin-lesion VGG16 run's log): the sizes
    # of the splits, in samples and in batches, beside no epoch and no loss
    body = (
        "2026-05-08 22:39:25 | INFO | [Split] Train=3667 | Val=786 | Test=787\n"
        "2026-05-08 22:39:25 | INFO | [DataLoaders] Train=115 batches | Val=25 batches"
        " | Test=25 batches\n"
        + "".join(
            f"2026-05-08 22:4{e}:00 | INFO | Epoch {e} | train_loss={1.0 - e / 10:.3f} | "
            f"val_loss={1.1 - e / 20:.3f}\n"
            for e in range(1, 5)
        )
    )
    run = one_log(tmp_path, body)
    assert run.get("val_acc") is None and run.get("test_acc") is None
    assert run.get("train_acc") is None


def test_a_sub_total_keeps_the_terms_it_does_not_add_up(tmp_path: Path) -> None:
    # a detector's region-proposal loss printed beside its two terms and the head's
    # losses: the sub-total replaces its terms, the other terms still add to the loss
    body = "".join(
        f"iter: {i}  loss_rpn: {a + b:.4f}  loss_rpn_cls: {a:.4f}  loss_rpn_loc: {b:.4f}  "
        f"loss_cls: {c:.4f}  loss_box: {d:.4f}\n"
        for i, (a, b, c, d) in enumerate(
            [
                (0.5, 0.3, 1.2, 0.8),
                (0.4, 0.25, 1.0, 0.7),
                (0.35, 0.2, 0.9, 0.6),
                (0.3, 0.2, 0.8, 0.5),
            ],
            start=1,
        )
    )
    run = load_log(tmp_path, body)
    assert [round(v, 3) for v in values(run, "loss")] == [2.8, 2.35, 2.05, 1.8]
