"""Reader gaps seen on dev cases by helper readers21 (pasted CV-toolkit logs): a total
printed as "sum loss" beside its terms.

Each fix is built on the real lines (sources quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run

# https://github.com/tianzhi0549/FCOS/issues/381 (two lines, verbatim)
_FCOS = (
    "2022-06-17 07:54:53.057 | INFO     | __main__:train:229 - cls loss : 5515.9775390625, "
    "reg loss : 7.476679801940918, ness loss : 0.7106261253356934, sum loss : 279.5187072753906\n"
    "2022-06-17 07:54:54.175 | INFO     | __main__:train:229 - cls loss : nan, reg loss : nan, "
    "ness loss : nan, sum loss : nan\n"
)


def _load(tmp_path: Path, body: str):
    p = tmp_path / "train.log"
    p.write_text(body)
    return load_run(p)


def test_sum_loss_is_the_total_not_a_term(tmp_path: Path) -> None:
    # before: loss was derived as cls + reg + ness + sum = 5803.68, the total counted twice
    run = _load(tmp_path, _FCOS)
    v = [float(x) for x in run.get("loss").values]
    assert v[0] == 279.5187072753906
    assert v[1] != v[1]  # NaN stays


def test_terms_without_a_total_are_still_summed(tmp_path: Path) -> None:
    # near miss: with no "sum loss" printed, the loss is the sum of the printed terms
    body = "".join(line.rsplit(", sum loss", 1)[0] + "\n" for line in _FCOS.splitlines())
    run = _load(tmp_path, body)
    v = [float(x) for x in run.get("loss").values]
    assert abs(v[0] - (5515.9775390625 + 7.476679801940918 + 0.7106261253356934)) < 1e-6
