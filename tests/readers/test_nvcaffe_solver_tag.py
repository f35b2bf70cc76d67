"""NVIDIA's Caffe fork (NVCaffe) tags each solver message with its solver rank and device
("[0.0]") after the glog prefix: the message after the tag is Caffe's own, so its net
outputs (an SSD's `mbox_loss`, finite or not) are read as Caffe's (layouts.py, _GLOG)."""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import console

# NVIDIA/caffe#499 (comment by a64bit, 2018-08-22), verbatim
_NVCAFFE = [
    "I0822 20:55:01.366313 14071 solver.cpp:333]     [0.0] Iteration 10 (1.94662 iter/s,"
    " 4.10968s/8 iter), loss = nan",
    "I0822 20:55:01.366365 14071 solver.cpp:361]     [0.0]     Train net output #0:"
    " mbox_loss = inf (* 1 = inf loss)",
    "I0822 20:55:01.366377 14071 sgd_solver.cpp:180] [0.0] Iteration 10, lr = 0.001, m = 0.9,"
    " lrm = 0.01, wd = 0.0005, gs = 6.21",
    "I0822 20:55:06.431057 14071 solver.cpp:333]     [0.0] Iteration 20 (1.97443 iter/s,"
    " 5.06474s/10 iter), loss = nan",
    "I0822 20:55:06.431109 14071 solver.cpp:361]     [0.0]     Train net output #0:"
    " mbox_loss = inf (* 1 = inf loss)",
]


def _read(tmp: Path, lines: list[str]):
    p = tmp / "log.txt"
    p.write_text("\n".join(lines) + "\n")
    return console.read(p)


def test_nvcaffe_net_outputs_are_read_at_their_iteration(tmp_path: Path) -> None:
    run = _read(tmp_path, _NVCAFFE)
    mbox = run.get("mbox_loss")
    assert mbox is not None and mbox.steps.tolist() == [10, 20]
    assert all(v == float("inf") for v in mbox.values)
    assert run.inputs[0].lines_not_understood == 0


def test_finite_outputs_and_bvlc_caffe_without_the_tag(tmp_path: Path) -> None:
    """The same lines with finite values, and BVLC Caffe's (no tag): read alike."""
    fin = [ln.replace("= inf (* 1 = inf loss)", "= 5.1 (* 1 = 5.1 loss)") for ln in _NVCAFFE]
    bvlc = [ln.replace("[0.0] ", "").replace("]     [0.0]", "]") for ln in fin]
    for lines in (fin, bvlc):
        mbox = _read(tmp_path, lines).get("mbox_loss")
        assert mbox is not None and mbox.values.tolist() == [5.1, 5.1]


def test_a_bracketed_word_after_the_prefix_is_not_a_tag(tmp_path: Path) -> None:
    """Near miss: only a rank.device pair is the tag; "[train]" stays in the message."""
    lines = [ln.replace("[0.0]", "[train]") for ln in _NVCAFFE]
    assert _read(tmp_path, lines).get("mbox_loss") is None
