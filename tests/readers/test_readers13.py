"""Reader fixes found on a fresh sample of pasted logs (issue 12, readers13): keys in square
brackets, CJK keys with full-width colons, PaddlePaddle's `avg_cost` / `Pass N, Batch N,
Cost X` and MXNet's `CrossEntropy=`.

Each fix is built on the real lines (source quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.model.signals import kind
from traindoc.readers import load_run


def _loaded(tmp_path: Path, body: str):
    """load_run of a pasted log: derived.py's loss (from a cost) included."""
    path = tmp_path / "paste.log"
    path.write_text(body, encoding="utf-8")
    return load_run(path)


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# -- 1. a key in square brackets: "[loss]: 4.99", "[Loss] nan" ---------------------------

# https://github.com/liuslnlp/CoupletAI/issues/2
_COUPLET = (
    "2019-08-07 02:59:37,013 - __main__ - INFO - [epoch]: 199, [batch]: 23900, "
    "[loss]: 4.994150638580322\n"
    "2019-08-07 02:59:38,017 - __main__ - INFO - [epoch]: 199, [batch]: 24000, "
    "[loss]: 4.850643634796143\n"
)
# https://github.com/nv-tlabs/LION/issues/9
_LION = "".join(
    f"2023-01-25 00:2{i}:09.074 | INFO     | trainers.base_trainer:train_epochs:256 - [R0] | "
    f"E{i} iter[ 14/ 15] | [Loss] {loss} | [exp] ./exp/0125/car/x_B40 | [step]   {step} | "
    "[url] none | [time] 0.4m (~5h) |[best] 0 -100.000x1e-2 \n"
    for i, (loss, step) in enumerate([("51566519.44", 89), ("nan", 104), ("nan", 119)], 5)
)


def test_bracketed_keys_name_their_values(tmp_path: Path) -> None:
    run = one_log(tmp_path, _COUPLET)
    assert values(run, "loss") == [4.994150638580322, 4.850643634796143]
    lion = one_log(tmp_path, _LION)
    assert _steps(lion, "loss") == [89.0, 104.0, 119.0]
    assert values(lion, "loss")[0] == 51566519.44


def test_a_bracketed_level_or_a_bracket_around_a_number_is_no_key(tmp_path: Path) -> None:
    run = one_log(tmp_path, "[INFO] 3 loss: 0.5\n[INFO] 3 loss: 0.4\n")
    assert values(run, "loss") == [0.5, 0.4]
    assert "info" not in run.series and "INFO" not in run.series
    mx = one_log(tmp_path, "Epoch[1] Batch [100] loss=0.5\nEpoch[1] Batch [200] loss=0.4\n")
    assert values(mx, "loss") == [0.5, 0.4]
    assert not any(n.startswith("batch") for n in mx.series)


# -- 2. CJK keys and full-width colons: "训练次数：100, Loss：1.98" -------------------------

# https://github.com/xiaotudui/pytorch-tutorial/issues/1
_TUDUI = (
    "-------第 1 轮训练开始------\n"
    "训练次数：100, Loss：1.9817659854888916\n"
    "训练次数：200, Loss：1.9057204723358154\n"
    "训练次数：300, Loss：1.7302981615066528\n"
)


def test_full_width_colons_and_a_cjk_key_read(tmp_path: Path) -> None:
    run = one_log(tmp_path, _TUDUI)
    assert values(run, "loss") == [1.9817659854888916, 1.9057204723358154, 1.7302981615066528]


def test_a_cjk_sentence_before_a_colon_is_still_prose(tmp_path: Path) -> None:
    # a long run of letters is a sentence, not a name: its number is no metric
    body = "这是一个非常长的句子用来说明模型的训练情况如下: 100\n" * 3
    body += "loss: 0.5\nloss: 0.4\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.5, 0.4]
    assert len(run.series) == 1


# -- 3. a cost is the loss: PaddlePaddle's avg_cost and "Pass N, Batch N, Cost X" ---------

# https://github.com/PaddlePaddle/Paddle/issues/17051
_AVG_COST = (
    "batch_id:481, avg_cost:33.391926\n"
    "batch_id:482, avg_cost:31.64903\n"
    "batch_id:483, avg_cost:29.620674\n"
)
# https://github.com/PaddlePaddle/Paddle/issues/8562
_PASS = (
    "Pass 54, Batch 4, Cost 19064.777344\n"
    "Pass 54, Batch 5, Cost 41354.742188\n"
    "Pass 55, Batch 0, Cost 0.818505\n"
    "Pass 55, Batch 1, Cost 30.474575\n"
    "Pass 55, Batch 5, Cost 40851.937500\n"
    "Pass 56, Batch 0, Cost 0.355856\n"
)


def test_paddle_avg_cost_is_the_loss(tmp_path: Path) -> None:
    run = _loaded(tmp_path, _AVG_COST)
    assert values(run, "loss") == [33.391926, 31.64903, 29.620674]
    assert "derived" in run.get("loss").source  # the original stays
    assert values(run, "avg_cost") == [33.391926, 31.64903, 29.620674]


def test_paddle_pass_batch_cost_numbers_each_batch(tmp_path: Path) -> None:
    run = _loaded(tmp_path, _PASS)
    # the batch counter starts over at 0: six batches a pass, no two on one step
    assert len(run.get("loss")) == 6
    steps = _steps(run, "loss")
    assert steps == sorted(set(steps))
    assert steps[2] - steps[1] == 1.0  # Pass 54 Batch 5 -> Pass 55 Batch 0


def test_a_cost_beside_a_loss_or_a_time_cost_is_not_the_loss(tmp_path: Path) -> None:
    run = _loaded(tmp_path, "step 1 loss: 0.9 cost: 3.0\nstep 2 loss: 0.8 cost: 2.0\n")
    assert values(run, "loss") == [0.9, 0.8]
    assert kind("time_cost") == "time"
    assert kind("cost") == "component_loss"
    assert kind("crossentropy") == "component_loss"
    assert kind("cost_center") == "other"


# -- 4. MXNet's "CrossEntropy=4.200497" --------------------------------------------------

# https://github.com/NervanaSystems/ngraph-mxnet/pull/378
_MXNET = (
    "INFO:root:Epoch[0] Batch [10]\tSpeed: 3.22 samples/sec\tCrossEntropy=4.200497\tSmoothL1=0.816728\n"
    "INFO:root:Epoch[0] Batch [20]\tSpeed: 3.30 samples/sec\tCrossEntropy=4.100497\tSmoothL1=0.806728\n"
)


def test_mxnet_cross_entropy_metric_is_the_loss(tmp_path: Path) -> None:
    # the SSD objective GluonCV back-propagates is CrossEntropy + SmoothL1 (SSDMultiBoxLoss):
    # both metrics are parts of the loss, which is their sum (see test_nonfinite_reads.py)
    run = _loaded(tmp_path, _MXNET)
    assert values(run, "loss") == pytest.approx([4.200497 + 0.816728, 4.100497 + 0.806728])
    assert values(run, "crossentropy") == [4.200497, 4.100497]


# GluonCV's train scripts print `[Epoch {}] Training cost: {:.3f}, {metrics}`: the epoch's
# wall time in seconds (tests/readers/test_readers9.py checks its real MXNet logs too).
def test_gluoncv_training_cost_is_the_epochs_seconds(tmp_path: Path) -> None:
    from tests.readers.helpers import one_log

    body = "".join(
        f"[Epoch {e}] Training cost: {1851.4 - e:.3f}, Train-loss={0.9 - 0.1 * e:.3f}\n"
        for e in range(3)
    )
    run = one_log(tmp_path, body)
    assert not any("cost" in n for n in run.series)
    assert float(run.series["loss"].values.max()) < 1


def test_a_training_cost_off_a_gluoncv_epoch_line_stays_a_metric(tmp_path: Path) -> None:
    from tests.readers.helpers import one_log

    body = "".join(f"Epoch {e}, Training cost: {2.3 - 0.1 * e:.2f}\n" for e in range(3))
    run = one_log(tmp_path, body)
    assert any("cost" in n for n in run.series)
