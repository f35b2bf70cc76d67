"""A reward that stops improving in a run whose losses blow up or turn NaN is what the
broken updates did to the policy: the engine links rl-no-signal to that finding, so the
report names the root cause first. A flat reward beside a loss that trains is its own
finding."""

from __future__ import annotations

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.model import Finding
from traindoc.rules.registry import load_all

RULES = ("rl-no-signal", "divergence", "nonfinite-loss")
# a reward that drifts down inside its noise band: no improvement over 200 logs
FLAT_REWARD = {"segments": [{"n": 200, "from": 1.0, "to": 0.9}], "noise": 0.2}


def _findings(loss: dict) -> dict[str, Finding]:
    specs = load_all()
    case = {"series": {"reward": FLAT_REWARD, "loss": loss}}
    d = diagnose(build_run(case), [specs[r] for r in RULES])
    return {f.rule: f for f in d.findings}


def test_a_flat_reward_while_the_critic_explodes_is_caused_by_the_divergence() -> None:
    # an off-policy actor's loss is -Q: at -1e7 beside returns of ~1 the critic exploded
    actor = {
        "segments": [{"n": 100, "from": -1.0, "to": -5.0}, {"n": 100, "from": -5.0, "to": -1e7}]
    }
    fs = _findings(actor)
    assert "divergence" in fs
    assert fs["rl-no-signal"].caused_by == (fs["divergence"].id,)


def test_a_flat_reward_while_the_loss_turns_nan_is_caused_by_the_nan() -> None:
    fs = _findings(
        {
            "segments": [{"n": 150, "from": 2.0, "to": 1.5}, {"values": [float("nan")] * 50}],
            "noise": 0.01,
        }
    )
    assert fs["rl-no-signal"].caused_by == (fs["nonfinite-loss"].id,)


def test_near_miss_a_flat_reward_beside_a_loss_that_trains_is_its_own_finding() -> None:
    fs = _findings(
        {"segments": [{"n": 200, "from": 2.0, "to": 1.2, "shape": "exp"}], "noise": 0.01}
    )
    assert set(fs) == {"rl-no-signal"}
    assert fs["rl-no-signal"].caused_by == ()
