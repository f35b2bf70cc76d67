"""Reader gaps seen on readers26's dev cases (frameworks the corpus has few of).

Each fix reads a format as the framework prints it, built on verbatim lines (sources
quoted), with a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run


def _load(tmp_path: Path, body: str, name: str = "train.log"):
    p = tmp_path / name
    p.write_text(body)
    return load_run(p)


def _values(run, name: str) -> list[float]:
    return [float(v) for v in run.get(name).values]


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
    run = _load(tmp_path, _MMENGINE_VAL)
    assert _values(run, "eval_acc/top1") == [0.1988, 0.2198, 0.2328, 0.2321]


def test_eval_lines_after_train_lines_still_take_the_train_step(tmp_path: Path) -> None:
    # near miss: with train lines in the file, a val line sits at the train step before it
    train = (
        "2022/11/21 22:20:00 - mmengine - INFO - Epoch(train)  [1][100/100]  lr: 1.0000e-02  "
        "eta: 1:00:00  time: 0.5000  data_time: 0.0100  memory: 1000  loss: 2.5000  "
        "loss_cls: 2.5000\n"
    )
    lines = _MMENGINE_VAL.splitlines(keepends=True)
    run = _load(tmp_path, train + lines[0])
    assert _values(run, "eval_acc/top1") == [0.1988]
    assert len(run.get("loss").values) == 1
