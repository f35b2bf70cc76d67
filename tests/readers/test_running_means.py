"""A metric logger's running average in brackets (`loss: 0.7677 (0.8246)`) is read as its
own series `<key>_avg`, never as the key's value: maskrcnn_benchmark's / DINOv2's
MetricLogger prints `name: median (global_avg)`, timm / Swin `name val (avg)`.

Built on real lines (sources quoted), with near misses the reading must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import one_log, read_log, values
from traindoc.measure.losses import components, nonfinite_loss

# https://github.com/facebookresearch/maskrcnn-benchmark/issues/1074 (two lines, verbatim)
_MRCNN = (
    "2019-09-04 17:07:17,711 maskrcnn_benchmark.trainer INFO: eta: 9:19:05  iter: 660  "
    "loss_box_reg: 0.0632 (0.0884)  loss: 0.7677 (0.8246)  loss_classifier: 0.3055 (0.3680)  "
    "loss_rpn_box_reg: 0.1366 (0.1266)  loss_objectness: 0.2651 (0.2416)  data: 0.0139 (0.0183)"
    "  time: 0.3717 (0.3755)  lr: 0.020000  max mem: 3889\n"
    "2019-09-04 17:07:25,205 maskrcnn_benchmark.trainer INFO: eta: 9:18:55  iter: 680  "
    "loss_box_reg: 0.0735 (0.0883)  loss: 0.7835 (0.8263)  loss_classifier: 0.3279 (0.3691)  "
    "loss_rpn_box_reg: 0.0588 (0.1269)  loss_objectness: 0.1906 (0.2420)  data: 0.0167 (0.0183)"
    "  time: 0.3737 (0.3755)  lr: 0.020000  max mem: 3889\n"
)


def test_bracketed_running_average_is_its_own_series(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MRCNN)
    assert values(run, "loss") == [0.7677, 0.7835]
    assert values(run, "loss_avg") == [0.8246, 0.8263]
    assert values(run, "loss_classifier_avg") == [0.368, 0.3691]
    assert values(run, "lr") == [0.02, 0.02]
    assert run.get("lr_avg") is None  # lr prints no average


def test_the_average_is_not_a_loss_component(tmp_path: Path) -> None:
    run = one_log(tmp_path, _MRCNN)
    parts = components(run)
    assert "loss_classifier" in parts
    assert not [n for n in parts if n.endswith("_avg")]


# A NaN in the average with a finite current value (the shape the task's dev case showed:
# `loss: 5.2813 (nan)`): the NaN is in loss_avg, the loss itself stays finite and is not
# reported as non-finite from the average alone.
def test_nan_in_the_average_does_not_make_the_loss_nonfinite(tmp_path: Path) -> None:
    body = _MRCNN.replace("loss: 0.7835 (0.8263)", "loss: 5.2813 (nan)")
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.7677, 5.2813]
    assert math.isnan(values(run, "loss_avg")[1])
    assert nonfinite_loss(run) is None


# https://github.com/youngwanLEE/CenterMask/issues/17 (verbatim line)
_CENTERMASK = (
    "2020-02-09 23:37:35,529 maskrcnn_benchmark.trainer INFO: eta: 8 days, 1:01:12  iter: 20  "
    "loss: 23542148363337776622290525596155904.0000 (nan)  loss_mask: 0.6979 "
    "(424800877876977736876032.0000)  loss_maskiou: 23542148363337776622290525596155904.0000 "
    "(nan)  loss_cls: 1.1945 (11.2513)  loss_reg: 0.9993 (nan)  loss_centerness: 0.7402 (nan)  "
    "time: 0.4166 (1.9303)  data: 0.0025 (1.4344)  lr: 0.003333  max mem: 4481\n"
)


def test_centermask_line_keeps_the_current_values(tmp_path: Path) -> None:
    run = one_log(tmp_path, _CENTERMASK)
    assert values(run, "loss") == [2.3542148363337776e34]
    assert math.isnan(values(run, "loss_avg")[0])
    assert values(run, "loss_cls") == [1.1945]
    assert values(run, "loss_cls_avg") == [11.2513]


# Near misses: a count in brackets after a percentage, and a bracketed number after a word.
def test_share_count_and_worded_brackets_are_left_alone(tmp_path: Path) -> None:
    body = "".join(
        f"Epoch {e}: loss: {x} Accuracy: {a}% ({k}/8)\n"
        for e, x, a, k in [(1, 0.9, "50.00", 4), (2, 0.8, "62.50", 5), (3, 0.7, "75.00", 6)]
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.9, 0.8, 0.7]
    assert not [n for n in run.series if n.endswith("_avg")]


# -- two attempts pasted in separate code blocks at the same iteration -------------------

# https://github.com/youngwanLEE/CenterMask/issues/17: "loss: nan" at iter 20 in one block,
# a second attempt's iter 20 in the next; the later block must not overwrite the first.
_FIRST_ATTEMPT = (
    "2020-02-09 23:27:24,918 maskrcnn_benchmark.trainer INFO: eta: 7 days, 22:00:10  iter: 20  "
    "loss: nan (nan)  loss_mask: nan (nan)  loss_maskiou: nan (nan)  loss_cls: 21.4419 (18.3350)"
    "  loss_reg: nan (nan)  loss_centerness: nan (nan)  time: 0.3928 (1.9001)  data: 0.0029 "
    "(1.4490)  lr: 0.003333  max mem: 4277\n"
)


def test_two_attempts_in_separate_blocks_are_two_runs(tmp_path: Path) -> None:
    body = (
        "Bad results from beginning:\n```\n"
        + _FIRST_ATTEMPT
        + "```\n\n```\n"
        + _CENTERMASK
        + "```\n"
    )
    runs = read_log(tmp_path, body)
    assert len(runs) == 2
    assert math.isnan(values(runs[0], "loss")[0])
    assert values(runs[1], "loss") == [2.3542148363337776e34]


def test_same_step_in_one_block_is_still_one_run(tmp_path: Path) -> None:
    # near miss: the same two lines in one block (a log that rewrote its step) stay one run
    runs = read_log(tmp_path, "```\n" + _FIRST_ATTEMPT + _CENTERMASK + "```\n")
    assert len(runs) == 1
