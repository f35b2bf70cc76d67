"""A spike is its own finding only in a run that otherwise trains: in one that then
blows up, goes NaN or never learned, the engine links it to that bigger finding."""

from __future__ import annotations

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.model import Finding, Severity
from traindoc.rules.registry import load_all

# a pre-training-like curve with two recovered spikes (warning on their own)
TRAINS = [{"n": 1000, "from": 4.0, "to": 2.0, "shape": "exp"}]
SPIKES = {700: 9.0, 701: 6.0, 850: 8.0}


def _findings(segments: list[dict], rules: tuple[str, ...], **loss: object) -> dict[str, Finding]:
    specs = load_all()
    case = {"series": {"loss": {"segments": segments, "noise": 0.02, "set": SPIKES, **loss}}}
    d = diagnose(build_run(case), [specs[r] for r in rules])
    return {f.rule: f for f in d.findings}


def test_spikes_before_the_loss_goes_nan_are_its_onset() -> None:
    fs = _findings([*TRAINS, {"values": [float("nan")] * 20}], ("loss-spike", "nonfinite-loss"))
    assert fs["loss-spike"].severity == Severity.WARNING
    assert fs["loss-spike"].caused_by == (fs["nonfinite-loss"].id,)


def test_spikes_before_the_loss_climbs_for_good_are_its_onset() -> None:
    segments = [*TRAINS, {"n": 200, "from": 2.0, "to": 8.0}]
    fs = _findings(segments, ("loss-spike", "divergence"))
    assert fs["loss-spike"].caused_by == (fs["divergence"].id,)


def test_spikes_on_a_run_that_never_learned_belong_to_that_finding() -> None:
    fs = _findings(
        [{"n": 1000, "const": 0.693}],
        ("loss-spike", "no-learning"),
        noise=0.01,
        set={300: 1.5, 301: 1.2, 600: 1.6, 601: 1.3, 800: 1.4},
    )
    assert fs["loss-spike"].caused_by == (fs["no-learning"].id,)


def test_near_miss_spikes_in_a_run_that_trains_on_are_their_own_finding() -> None:
    fs = _findings(TRAINS, ("loss-spike", "nonfinite-loss", "divergence", "no-learning"))
    assert set(fs) == {"loss-spike"}
    assert fs["loss-spike"].severity == Severity.WARNING
    assert fs["loss-spike"].caused_by == ()


def test_grad_spikes_before_the_norm_goes_nan_are_its_onset() -> None:
    specs = load_all()
    gn = {
        "segments": [{"n": 400, "const": 1.0}, {"values": [float("nan")] * 10}],
        "noise_rel": 0.1,
        "set": {200: 80.0, 300: 90.0},
    }
    case = {"series": {"grad_norm": gn, "loss": {"segments": [{"n": 410, "const": 2.0}]}}}
    d = diagnose(build_run(case), [specs["grad-spike"], specs["nonfinite-gradients"]])
    fs = {f.rule: f for f in d.findings}
    assert fs["grad-spike"].caused_by == (fs["nonfinite-gradients"].id,)
