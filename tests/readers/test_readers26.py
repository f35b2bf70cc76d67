"""Reader gaps seen on readers26's dev cases (frameworks the corpus has few of).

Each fix reads a format as the framework prints it, built on verbatim lines (sources
quoted), with a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import load_log, values
from traindoc.readers.logs.shapes import _ABBREVIATED as ABBREVIATED
from traindoc.readers.logs.shapes import analyse

# -- 1. a paste of evaluation lines alone: each evaluation is a point of the order ------

# https://github.com/open-mmlab/mmaction2/issues/2050 (a maintainer's log, val lines only)
_MMENGINE_VAL = (
    "2022/11/21 22:25:53 - mmengine - INFO - Epoch(val) [1][265/265]  acc/top1: 0.1988  "
    "acc/top5: 0.4260  acc/mean1: 0.1988\n"
    "2022/11/21 23:01:48 - mmengine - INFO - Epoch(val) [2][265/265]  acc/top1: 0.2198  "
    "acc/top5: 0.4590  acc/mean1: 0.2198\n"
    "2022/11/21 23:37:49 - mmengine - INFO - Epoch(val) [3][265/265]  acc/top1: 0.2328  "
    "acc/top5: 0.4779  acc/mean1: 0.2328\n"
    "2022/11/22 00:13:53 - mmengine - INFO - Epoch(val) [4][265/265]  acc/top1: 0.2321  "
    "acc/top5: 0.4828  acc/mean1: 0.2321\n"
)


def test_eval_only_lines_are_one_point_each(tmp_path: Path) -> None:
    run = load_log(tmp_path, _MMENGINE_VAL)
    assert values(run, "eval_acc/top1") == [0.1988, 0.2198, 0.2328, 0.2321]


def test_eval_lines_after_train_lines_still_take_the_train_step(tmp_path: Path) -> None:
    # near miss: with train lines in the file, a val line sits at the train step before it
    train = (
        "2022/11/21 22:20:00 - mmengine - INFO - Epoch(train)  [1][100/100]  lr: 1.0000e-02  "
        "eta: 1:00:00  time: 0.5000  data_time: 0.0100  memory: 1000  loss: 2.5000  "
        "loss_cls: 2.5000\n"
    )
    lines = _MMENGINE_VAL.splitlines(keepends=True)
    run = load_log(tmp_path, train + lines[0])
    assert values(run, "eval_acc/top1") == [0.1988]
    assert len(run.get("loss").values) == 1


# -- 2. Marian NMT: "Up." is the update count (the step), "L.r." the learning rate -------

# https://github.com/marian-nmt/marian/issues/376 (verbatim)
_MARIAN = (
    "[2021-07-17 12:54:33] Ep. 1 : Up. 14000 : Sen. 965,843 : Cost 5.20174599 : "
    "Time 359.59s : 3007.81 words/s\n"
    "[2021-07-17 13:13:46] Ep. 1 : Up. 16000 : Sen. 1,052,108 : Cost 6.59608603 : "
    "Time 1153.11s : 1942.28 words/s\n"
    "[2021-07-17 13:32:37] Ep. 1 : Up. 18000 : Sen. 1,123,604 : Cost 6.29688978 : "
    "Time 1131.22s : 2070.52 words/s\n"
)
# a Marian line with the LR report (--lr-report), from a zh-en transformer's train.log
_MARIAN_LR = (
    "[2019-08-17 17:31:11] Ep. 2 : Up. 537000 : Sen. 49,522,161 : Cost 2.76847577 : "
    "Time 336.76s : 28766.02 words/s : L.r. 5.1784e-05\n"
    "[2019-08-17 17:36:49] Ep. 2 : Up. 538000 : Sen. 49,956,653 : Cost 2.76508141 : "
    "Time 338.22s : 28584.60 words/s : L.r. 5.1736e-05\n"
)


def test_marian_update_count_is_the_step(tmp_path: Path) -> None:
    run = load_log(tmp_path, _MARIAN)
    assert [float(s) for s in run.get("loss").steps] == [14000, 16000, 18000]
    assert values(run, "loss") == [5.20174599, 6.59608603, 6.29688978]


def test_marian_lr_report_is_read(tmp_path: Path) -> None:
    run = load_log(tmp_path, _MARIAN_LR)
    assert values(run, "lr") == [5.1784e-05, 5.1736e-05]
    assert [float(s) for s in run.get("loss").steps] == [537000, 538000]


def test_a_word_and_a_dot_before_a_number_is_no_key_elsewhere() -> None:
    # near miss: "No. 3" is not one of Marian's abbreviations and names no counter
    plan = analyse("No. \x00 : loss \x00")
    assert not [f for f in plan.fields if f.role == "step" or f.key in ABBREVIATED.values()]
