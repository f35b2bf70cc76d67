"""A margin-softmax head (ArcFace, CosFace, ...) has no ln(C) floor.

Its loss is a cross-entropy over logits scaled by s with the true class's pushed down by a
margin m: an untrained model starts near ln(C) + s*sin(m) (24 for s=30, m=0.7 and 41
classes), which absurd-initial-loss read as a first loss 6.5x "the uniform floor ln(41)"
(an error on a loss that starts exactly where its design puts it). A log that names such a
head, or prints its scale and margin, states the fact `margin_softmax`; the floor is then
unknown.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.engine import diagnose
from traindoc.readers import load_run

# tests/real/no_learning_stgram_mfn_anomaly_auc_50_chance_epochs0_1_and_151_171 (verbatim)
_STGRAM = "INFO:utils:STgram-MFN(m=0.7,s=30)\nINFO:utils:Num classes: 41\nINFO:utils:Epoch-0\tloss:24.03866\nINFO:utils:ToyCar\t\tAUC: 54.175\tpAUC: 50.496\nINFO:utils:ToyConveyor\t\tAUC: 51.290\tpAUC: 50.329\nINFO:utils:fan\t\tAUC: 51.547\tpAUC: 52.009\nINFO:utils:pump\t\tAUC: 48.913\tpAUC: 50.384\nINFO:utils:slider\t\tAUC: 46.832\tpAUC: 51.002\nINFO:utils:valve\t\tAUC: 50.217\tpAUC: 49.479\nINFO:utils:Total average:\t\tAUC: 50.496\tpAUC: 50.616\nINFO:utils:Best epoch now is:    0\nINFO:utils:Epoch-1\tloss:22.95186\nINFO:utils:ToyCar\t\tAUC: 50.276\tpAUC: 50.182\nINFO:utils:ToyConveyor\t\tAUC: 51.484\tpAUC: 50.364\nINFO:utils:fan\t\tAUC: 48.534\tpAUC: 51.844\nINFO:utils:pump\t\tAUC: 48.017\tpAUC: 50.955\nINFO:utils:slider\t\tAUC: 43.555\tpAUC: 50.622\nINFO:utils:valve\t\tAUC: 50.433\tpAUC: 50.314\nINFO:utils:Total average:\t\tAUC: 48.717\tpAUC: 50.714\n[... excerpt gap ...]\n"


def _run(tmp_path: Path, text: str):
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def test_scale_and_margin_printed_is_a_margin_softmax(tmp_path: Path) -> None:
    run = _run(tmp_path, _STGRAM)
    assert run.fact("margin_softmax") is True
    assert run.fact("num_classes") == 41
    assert run.floor is None
    assert "absurd-initial-loss" not in {f.rule for f in diagnose(run).findings}


def test_without_the_head_line_the_floor_is_ln_c(tmp_path: Path) -> None:
    # near miss: the same log without its model line is a plain 41-class cross-entropy
    run = _run(tmp_path, _STGRAM.split("\n", 1)[1])
    assert run.fact("margin_softmax") is None
    assert run.floor is not None
    assert "absurd-initial-loss" in {f.rule for f in diagnose(run).findings}


def test_momentum_alone_is_no_margin(tmp_path: Path) -> None:
    # near miss: an optimiser's m=0.9 without a scale beside it names no margin head
    text = "INFO:utils:SGD(lr=0.1, m=0.9, wd=5e-4)\n" + _STGRAM.split("\n", 1)[1]
    assert _run(tmp_path, text).fact("margin_softmax") is None


def test_a_named_head_is_enough(tmp_path: Path) -> None:
    text = "loss: ArcFace (additive angular margin)\n" + _STGRAM.split("\n", 1)[1]
    assert _run(tmp_path, text).fact("margin_softmax") is True
