"""fairseq's legacy epoch summary ("| epoch 009 | loss 6.233 | ... | gnorm 1.241") after its
per-interval lines ("| epoch 009:   2000 / 2737 loss=6.234, ..."): the epoch's mean is kept
apart from the interval series (records.epoch_aggregates). Real excerpts under
assets/trainers/, each with its source in a `.source.txt`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import one_log, values
from traindoc.readers import load_run

ASSETS = Path(__file__).parent / "assets" / "trainers"


def _at(run, name: str) -> list[tuple[int, float]]:
    s = run.get(name)
    assert s is not None, f"{name} not in {sorted(run.series)}"
    return list(zip(s.steps.tolist(), s.values.tolist(), strict=True))


# -- fairseq: the epoch summary is kept apart from the per-interval series -----------------
def test_fairseq_epoch_summary_is_not_a_point_of_the_interval_series() -> None:
    run = load_run(ASSETS / "fairseq_legacy_epochs_8_10.log")
    assert _at(run, "loss") == [(22897, 6.22), (23897, 6.234), (25634, 6.144)]
    assert _at(run, "grad_norm") == [(22897, 1.242), (23897, 1.242), (25634, 1.279)]
    # the epoch means, at each epoch's last update, under Lightning's name for them
    assert _at(run, "loss_epoch") == [(21896, 6.326), (24633, 6.233)]
    assert _at(run, "gnorm_epoch") == [(21896, 1.201), (24633, 1.241)]
    # the valid lines are evaluations, never renamed
    assert values(run, "eval_loss") == pytest.approx([6.43844, 6.37204])


def test_near_miss_a_paste_of_fairseq_epoch_summaries_only_keeps_them_as_the_curve(
    tmp_path: Path,
) -> None:
    lines = (ASSETS / "fairseq_legacy_epochs_8_10.log").read_text().splitlines(keepends=True)
    summaries = "".join(ln for ln in lines if ln.startswith("| epoch 00") and " / " not in ln)
    run = one_log(tmp_path, summaries)
    assert _at(run, "loss") == [(21896, 6.326), (24633, 6.233)]
    assert _at(run, "grad_norm") == [(21896, 1.201), (24633, 1.241)]
    assert run.get("loss_epoch") is None


def test_near_miss_an_epoch_mean_beside_single_batch_lines_is_not_renamed() -> None:
    # PatchTST's exp_main: "iters: 100, epoch: 1 | loss: ..." (one batch's loss, its
    # counter the batch, no "i / N" interval) then "Epoch: 1, Steps: 284 | Train Loss:
    # <epoch mean> Vali Loss: ... Test Loss: ...": no interval lines to keep it apart from
    run = load_run(ASSETS / "patchtst_weather_log.txt")
    assert _at(run, "loss")[:3] == [(100, 0.7078106), (200, 0.7264591), (384, 0.3509977)]
    assert _at(run, "train_loss")[:2] == [(284, 0.747254), (568, 0.4904773)]
    assert run.get("train_loss_epoch") is None
    assert _at(run, "eval_loss")[:2] == [(284, 0.541561), (568, 0.4162776)]
