"""The engine's verdict on a run it could not look at: not judged, not healthy."""

from __future__ import annotations

import numpy as np

from traindoc.engine import diagnose
from traindoc.model import Fact, Run, Series

PLAN = {"max_steps": Fact(750, "log: total optimization steps"), "grad_accum": Fact(4, "log")}


def test_a_log_without_a_curve_is_inconclusive_and_says_why() -> None:
    d = diagnose(Run("resume-only", {}, dict(PLAN)))
    assert d.verdict == "inconclusive"
    reasons = {s.rule: s.reason for s in d.not_judged}
    assert reasons["no-learning"].startswith("no metric series was read from the log")
    assert "divergence" in reasons
    assert "rl-no-signal" not in reasons  # needs a reward, not a loss: not relevant here


def test_preflight_checks_a_setup_and_may_call_it_healthy() -> None:
    facts = {**PLAN, "preflight": Fact(True, "traindoc preflight")}
    d = diagnose(Run("setup", {}, facts))
    assert d.verdict == "healthy" and not d.not_judged


def test_a_run_with_a_curve_is_judged_by_its_curve() -> None:
    steps = np.arange(1, 201)
    loss = Series.from_arrays("loss", steps, 3.0 * np.exp(-steps / 60) + 0.5, None, "t")
    d = diagnose(Run("ok", {"loss": loss}, dict(PLAN)))
    assert not any("no metric series" in s.reason for s in d.not_judged)


def test_a_gan_with_no_single_loss_is_inconclusive_and_says_why() -> None:
    steps = np.arange(1, 201)
    g = Series.from_arrays("loss_g", steps, 2.0 + steps / 100, None, "t")  # rises: normal
    d_ = Series.from_arrays("loss_d", steps, 0.7 - steps / 1000, None, "t")
    d = diagnose(Run("gan", {"loss_g": g, "loss_d": d_}, {"task": Fact("gan", "inferred")}))
    assert d.verdict == "inconclusive" and not d.findings
    reasons = {s.rule: s.reason for s in d.not_judged}
    assert "opponents" in reasons["divergence"]


def test_the_same_players_beside_a_logged_loss_are_judged_by_it() -> None:
    steps = np.arange(1, 201)
    loss = Series.from_arrays("loss", steps, 3.0 * np.exp(-steps / 60) + 0.5, None, "t")
    g = Series.from_arrays("loss_g", steps, 2.0 + steps / 100, None, "t")
    d = diagnose(Run("gan+loss", {"loss": loss, "loss_g": g}, {"task": Fact("gan", "inferred")}))
    assert not any("opponents" in s.reason for s in d.not_judged)
