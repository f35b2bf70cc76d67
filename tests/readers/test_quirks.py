"""Logging quirks named, not flagged: a train loss summed over the accumulation steps."""

from __future__ import annotations

import numpy as np
import pytest

from traindoc.engine import diagnose
from traindoc.model import Fact, Run, Series
from traindoc.readers.derived import finalize


def _run(ga: int | None, train_over_eval: float, versions: dict | None = None) -> Run:
    steps = np.arange(10, 1001, 10)
    ev_steps = np.arange(100, 1001, 100)
    eval_level = 1.6 - 0.3 * (ev_steps / 1000)
    train = (1.6 - 0.3 * (steps / 1000)) * train_over_eval
    facts = {"vocab_size": Fact(32000, "config.json"), "regime": Fact("lora", "adapter")}
    if ga is not None:
        facts["grad_accum"] = Fact(ga, "training_args.bin")
    if versions:
        facts["versions"] = Fact(versions, "trainer_state.json")
    series = {
        "loss": Series.from_arrays("loss", steps, train, None, "hf: loss"),
        "eval_loss": Series.from_arrays("eval_loss", ev_steps, eval_level, None, "hf: eval_loss"),
    }
    return Run("r", series, facts)


def test_train_loss_at_ga_times_eval_is_divided_back_and_named() -> None:
    raw = _run(8, 8.0, {"transformers": "4.46.0"})
    assert raw.get("loss").values[0] > np.log(32000)  # a LoRA "above ln(V)"
    run = finalize(raw)
    np.testing.assert_allclose(run.get("loss").values, raw.get("loss").values / 8)
    note = next(n.message for n in run.notes if "summed" in n.message)
    assert "4.46.0" in note and "divides it by 8" in note
    assert not {f.rule for f in diagnose(run).findings} & {"absurd-initial-loss", "uniform-plateau"}


@pytest.mark.parametrize(
    ("ga", "ratio"),
    [
        (8, 1.05),  # healthy: train near eval
        (4, 2.5),  # near miss: 2.5x is not 4x (more than 20% off)
        (None, 8.0),  # accumulation unknown: nothing to compare with
        (1, 1.0),  # no accumulation
    ],
)
def test_no_quirk_without_the_accumulation_ratio(ga: int | None, ratio: float) -> None:
    raw = _run(ga, ratio)
    run = finalize(raw)
    np.testing.assert_array_equal(run.get("loss").values, raw.get("loss").values)
    assert not any("summed" in n.message for n in run.notes)


# 1.2 s left after records ~13 s apart: detectron2's last iteration (its ETA counts the
# current one); 6.8 s is about one more interval: the log may stop short of the end
@pytest.mark.parametrize(("last", "ended"), [(0.0, True), (1.2, True), (6.8, None)])
def test_an_eta_counting_down_to_zero_says_the_run_ended(last: float, ended: bool | None) -> None:
    steps = np.arange(19, 300, 20)
    eta = np.append(np.linspace(200, 13.5, steps.size - 1), last)
    run = Run("r", {"eta_seconds": Series.from_arrays("eta_seconds", steps, eta)}, {})
    assert finalize(run).fact("ended") is ended
