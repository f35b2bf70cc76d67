"""Cause rules judge from the symptom findings (RuleSpec.reads), in the engine's second pass."""

from __future__ import annotations

from dataclasses import replace
from graphlib import CycleError

import pytest

from tests.rules.synth import build_run
from traindoc.engine import _after_what_they_read, diagnose
from traindoc.model import Severity
from traindoc.rules.registry import load_all

# A pretrained model (2.1) wrecked by one interval at LR 5e-3: only divergence's two-point
# path can see it, lr-too-high's own curve summary needs more points. AdamW is named: an
# error needs the LR judged on known ground, not the Trainer default assumed.
CASE = {
    "facts": {"vocab_size": 32000, "optim": "adamw_torch"},
    "series": {
        "loss": {"segments": [{"values": [2.1, 11.9]}]},
        "lr": {"segments": [{"values": [5e-3, 5e-3]}]},
    },
}


def _lr_finding(*rules: str):
    specs = load_all()
    d = diagnose(build_run(CASE), [specs[r] for r in rules])
    return next(f for f in d.findings if f.rule == "lr-too-high")


def test_lr_too_high_reads_the_divergence_found() -> None:
    f = _lr_finding("lr-too-high", "divergence")
    assert f.severity == Severity.ERROR
    assert "diverging" in f.evidence["instability"]
    # ... and it runs after divergence whatever the order the rules are given in
    assert _lr_finding("divergence", "lr-too-high").severity == Severity.ERROR


def test_the_same_break_with_no_optimizer_named_is_a_warning() -> None:
    case = {**CASE, "facts": {"vocab_size": 32000}}
    specs = load_all()
    d = diagnose(build_run(case), [specs[r] for r in ("lr-too-high", "divergence")])
    f = next(f for f in d.findings if f.rule == "lr-too-high")
    assert f.severity == Severity.WARNING  # the AdamW table assumed, not read


def test_without_the_symptom_rule_the_lr_alone_is_info() -> None:
    f = _lr_finding("lr-too-high")
    assert f.severity == Severity.INFO
    assert f.evidence["instability"] == "none"


def test_every_rule_read_is_registered_and_runs_first() -> None:
    specs = load_all()
    order = [s.id for s in _after_what_they_read([s for s in specs.values() if s.reads])]
    for spec in specs.values():
        for r in spec.reads:
            assert r in specs, f"{spec.id} reads unknown rule {r}"
            if specs[r].reads:  # a rule that reads others runs after them
                assert order.index(r) < order.index(spec.id), (r, spec.id)


def test_a_cycle_of_reads_is_refused() -> None:
    specs = load_all()
    a = replace(specs["no-learning"], reads=("lr-too-high",))
    with pytest.raises(CycleError):
        _after_what_they_read([a, specs["lr-too-high"]])


# A full fine-tune at 1e-3 (5x what it tolerates) whose loss never moves: the LR is
# too high for it to find any descent. lr-too-high reads no-learning, itself a rule
# that reads eval-stagnation, so it must run after it.
STUCK = {
    "facts": {"regime": "full-finetune"},
    "series": {
        "loss": {"segments": [{"n": 300, "const": 4.3}], "noise": 0.005},
        "lr": {"segments": [{"n": 300, "const": 1e-3}]},
    },
}


def test_lr_too_high_reads_a_run_that_never_learned() -> None:
    specs = load_all()
    rules = [specs[r] for r in ("lr-too-high", "no-learning")]
    d = diagnose(build_run(STUCK), rules)
    f = next(f for f in d.findings if f.rule == "lr-too-high")
    assert f.severity == Severity.ERROR and "stuck" in f.evidence["instability"]
    nl = next(f for f in d.findings if f.rule == "no-learning")
    assert "lr-too-high" in nl.caused_by


def test_a_usual_lr_that_never_learned_is_not_blamed() -> None:
    specs = load_all()
    case = {**STUCK, "series": {**STUCK["series"], "lr": {"segments": [{"n": 300, "const": 2e-5}]}}}
    d = diagnose(build_run(case), [specs[r] for r in ("lr-too-high", "no-learning")])
    assert not [f for f in d.findings if f.rule == "lr-too-high"]
    assert [f for f in d.findings if f.rule == "no-learning"]


# Six per-epoch logs of a regression whose eval and train loss never move: too few
# losses for no-learning's own test, but eval-stagnation spans the whole run.
FLAT = {
    "series": {
        "loss": {
            "every": 500,
            "start": 500,
            "segments": [{"values": [0.3512, 0.3509, 0.3511, 0.3507, 0.3510, 0.3508]}],
        },
        "eval_loss": {"every": 500, "start": 500, "segments": [{"n": 6, "const": 0.3498}]},
    }
}


def test_no_learning_reads_a_whole_run_stagnation() -> None:
    specs = load_all()
    d = diagnose(build_run(FLAT), [specs["no-learning"], specs["eval-stagnation"]])
    nl = next(f for f in d.findings if f.rule == "no-learning")
    assert nl.severity == Severity.WARNING and nl.evidence["window_frac"] >= 0.95
    stag = next(f for f in d.findings if f.rule == "eval-stagnation")
    assert "no-learning" in stag.caused_by  # the stagnation is what not learning looks like
    # alone, the six losses within 0.2% of each other already say the loss never moves
    alone = diagnose(build_run(FLAT), [specs["no-learning"]])
    (f,) = alone.findings
    assert f.evidence["spread_rel"] < 0.005 and "window_frac" not in f.evidence


def _sparse_flat(first_eval: int) -> dict:
    """6 flat train losses from step 25, and evals every 264 steps from `first_eval`,
    flat at 3.57: a run that never moved, seen at a sparse eval interval."""
    n = (2640 - first_eval) // 264 + 1
    return {
        "series": {
            "loss": {
                "steps": [25, 300, 800, 1300, 1800, 2300],
                "segments": [{"values": [2.028, 2.001, 1.994, 2.012, 1.985, 1.998]}],
            },
            "eval_loss": {
                "every": 264,
                "start": first_eval,
                "segments": [
                    {
                        "values": [
                            3.571,
                            3.565,
                            3.568,
                            3.562,
                            3.566,
                            3.569,
                            3.564,
                            3.567,
                            3.563,
                            3.565,
                        ][:n]
                    }
                ],
            },
        }
    }


def test_flat_from_the_first_eval_is_the_whole_run_at_any_eval_interval() -> None:
    specs = load_all()
    rules = [specs["no-learning"], specs["eval-stagnation"]]
    d = diagnose(build_run(_sparse_flat(264)), rules)
    nl = next(f for f in d.findings if f.rule == "no-learning")
    # the window starts at the first eval (step 264), so it spans only ~91% of the run
    assert nl.evidence["window_frac"] < 0.95 and nl.evidence["from_first_eval"]
    # near miss: flat only from a first eval 3 intervals in, which is not the whole run
    late = diagnose(build_run(_sparse_flat(792)), rules)
    assert not [f for f in late.findings if f.rule == "no-learning"]
    assert any(s.rule == "no-learning" for s in late.not_judged)


# Whisper-like: a 1000-step warmup (38% of the run) to an LR of 3e-3, the loss
# climbing as the LR rises. The level hurt, not the ramp: warmup-too-long is info.
# (the log ends there: a log cut mid-warmup before its planned end shows no cost of
# the warmup yet, so warmup-too-long alone would be info)
RAMP = {
    "facts": {"max_steps": 2640, "ended": True},
    "series": {
        "loss": {"every": 25, "segments": [{"n": 40, "from": 1.2, "to": 4.0}], "noise": 0.02},
        "lr": {"every": 25, "segments": [{"n": 40, "from": 3e-6, "to": 3e-3}]},
    },
}


def test_a_long_warmup_is_not_blamed_when_the_lr_was_too_high() -> None:
    specs = load_all()
    alone = diagnose(build_run(RAMP), [specs["warmup-too-long"]])
    assert alone.findings[0].severity == Severity.WARNING
    d = diagnose(build_run(RAMP), [specs[r] for r in ("warmup-too-long", "lr-too-high")])
    assert next(f for f in d.findings if f.rule == "lr-too-high").severity >= Severity.WARNING
    assert next(f for f in d.findings if f.rule == "warmup-too-long").severity == Severity.INFO


# OpenNMT-py with `-optim adam -learning_rate 1.0`, regime unknown: a loss pinned at
# the perplexity cap. Adam at 50x the most tolerant table value is too high for any
# network; SGD at 1.0 is OpenNMT's default and proves nothing.
ADAM_FAR = {
    "facts": {"optim": "adam", "learning_rate": 1.0},
    "series": {"loss": {"every": 50, "start": 50, "segments": [{"n": 6, "const": 100.0}]}},
}


def _lr_severity(case: dict, *rules: str) -> Severity | None:
    specs = load_all()
    d = diagnose(build_run(case), [specs[r] for r in ("lr-too-high", *rules)])
    return next((f.severity for f in d.findings if f.rule == "lr-too-high"), None)


def test_adam_far_past_any_table_that_never_learned_is_blamed_whatever_the_regime() -> None:
    assert _lr_severity(ADAM_FAR, "no-learning") == Severity.ERROR


def test_sgd_at_the_same_lr_or_adam_under_the_far_bound_is_not() -> None:
    sgd = {**ADAM_FAR, "facts": {"optim": "sgd", "learning_rate": 1.0}}
    assert _lr_severity(sgd, "no-learning") is None  # SGD's range: not the AdamW table's
    # near miss: Adam at 5e-3, under the far bound (1e-2, 10x Adam's default); at 1e-2 it is
    near = {**ADAM_FAR, "facts": {"optim": "adam", "learning_rate": 5e-3}}
    assert _lr_severity(near, "no-learning") == Severity.INFO
    at_bound = {**ADAM_FAR, "facts": {"optim": "adam", "learning_rate": 1e-2}}
    assert _lr_severity(at_bound, "no-learning") == Severity.ERROR


# Two logs at LR 2.0 whose first (after 49 updates) is 6776, far above any ln(V): the
# updates at that LR wrecked the model before the first log (OpenNMT transformer).
WRECKED = {
    "facts": {"trainer": "opennmt", "optim": "adam"},
    "series": {
        "loss": {"every": 50, "start": 50, "segments": [{"values": [6776.2, 6487.7]}]},
        "lr": {"every": 50, "start": 50, "segments": [{"values": [2.0, 2.0]}]},
    },
}


def test_a_first_loss_wrecked_by_updates_at_a_hot_lr_is_the_lrs() -> None:
    assert _lr_severity(WRECKED, "absurd-initial-loss") == Severity.ERROR
    # near miss: the same loss logged at step 1, before any update, is the init's
    at_init = {
        **WRECKED,
        "series": {k: {**v, "every": 1, "start": 1} for k, v in WRECKED["series"].items()},
    }
    assert _lr_severity(at_init, "absurd-initial-loss") == Severity.INFO


# An LM (GPT-2 vocabulary) at AdamW 6e-4, inside the usual pre-training range, that sits at
# the unigram level (~0.68 ln V) from its first log to step 1,400: lr-too-high names the
# stall and no-learning, which sees a loss that does not decrease, is linked to it as its
# cause (the sweep arms at 3e-4..1e-3 with no warmup).
UNIGRAM = {
    "facts": {"task": "lm", "vocab_size": 50258, "learning_rate": 6e-4},
    "series": {
        "loss": {"start": 49, "every": 50, "segments": [{"n": 28, "from": 7.45, "to": 7.40}]},
    },
}


def test_a_unigram_stall_in_the_usual_range_is_the_cause_of_no_learning() -> None:
    specs = load_all()
    d = diagnose(build_run(UNIGRAM), [specs[r] for r in ("lr-too-high", "no-learning")])
    f = next(f for f in d.findings if f.rule == "lr-too-high")
    assert f.severity == Severity.WARNING
    assert f.evidence["instability"] == "stuck at the unigram level"
    nl = next(f for f in d.findings if f.rule == "no-learning")
    assert "lr-too-high" in nl.caused_by
