"""The checkpoint rules on checkpoints from real tiny trainings (tests/ckpt/assets/README.md)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from traindoc.ckpt.api import find_checkpoints, summarize, summarize_run
from traindoc.engine import diagnose
from traindoc.model import Run
from traindoc.rules.registry import load_all

ASSETS = Path(__file__).parent / "assets"


def ckpt_findings(path: Path, **facts) -> list:
    found = summarize(path)
    cks = tuple(found if isinstance(found, list) else [found])
    specs = [s for s in load_all().values() if s.family == "ckpt"]
    from traindoc.model import Fact

    run = Run(name=path.name, checkpoints=cks, facts={k: Fact(v, "test") for k, v in facts.items()})
    d = diagnose(run, specs)
    assert not d.errors
    return list(d.findings)


@pytest.mark.parametrize("name", ["healthy-run", "lora-trained", "formats/sharded", "formats/bin"])
def test_healthy_checkpoints_raise_nothing(name: str) -> None:
    assert ckpt_findings(ASSETS / name) == []


def test_seed_a_exploded_head_in_best() -> None:
    found = {f.rule: f for f in ckpt_findings(ASSETS / "seed-a", base_model="runs/seed-a/best")}
    assert set(found) == {"exploded-weights", "misleading-best-checkpoint"}
    ex = found["exploded-weights"].evidence
    assert ex["tensor"] == "lm_head.weight" and ex["checkpoint"] == "best"
    assert math.isclose(ex["std"], 13.87, rel_tol=1e-3)
    assert ex["at_start"] is True
    best = found["misleading-best-checkpoint"].evidence
    assert best["checkpoint"] == "best" and best["healthy_alternative"] == "checkpoint-30"
    assert str(found["misleading-best-checkpoint"].severity) == "error"


def test_nan_poisoned_layer() -> None:
    (f,) = ckpt_findings(ASSETS / "nan-layer")
    assert f.rule == "nonfinite-weights"
    assert f.evidence["tensor"] == "transformer.h.1.mlp.c_fc.weight"
    assert f.evidence["layers"] == [1]
    # 1 in 7 of 16x64 weights, minus the two set to +-Inf
    assert f.evidence["nan"] == len(range(0, 1024, 7)) and f.evidence["inf"] == 2


def test_untrained_lora_adapter() -> None:
    (f,) = ckpt_findings(ASSETS / "lora-untrained")
    assert f.rule == "untrained-adapter" and str(f.severity) == "error"
    assert f.evidence["zero_b"] == f.evidence["total_b"] == 2
    assert f.evidence["r"] == 4


def test_frozen_block() -> None:
    (f,) = ckpt_findings(ASSETS / "frozen-run")
    assert f.rule == "frozen-parameters"
    assert f.evidence["layers"] == [0] and not f.evidence["all_frozen"]
    assert f.step == 10 and f.end_step == 20


def test_run_metadata_from_trainer_state() -> None:
    cks = summarize_run(ASSETS / "healthy-run")
    assert [c.name for c in cks] == ["checkpoint-20", "checkpoint-40"]
    assert [c.step for c in cks] == [20, 40]
    assert all(c.metric is not None for c in cks)
    assert cks[1].labelled_best == "best_model_checkpoint"
    assert [p.name for p in find_checkpoints(ASSETS / "seed-a")] == ["checkpoint-30", "best"]


def test_bin_and_sharded_safetensors_agree() -> None:
    """The same model saved both ways: the zip reader (no torch) gives the same numbers."""
    a = {t.name: t for t in summarize(ASSETS / "formats" / "sharded").tensors}
    b = {t.name: t for t in summarize(ASSETS / "formats" / "bin").tensors}
    assert set(a) == set(b)
    for name, t in a.items():
        assert t.fingerprint() == b[name].fingerprint(), name


def test_adapter_config_is_read() -> None:
    s = summarize(ASSETS / "lora-trained")
    assert s.format == "peft-lora" and s.adapter["r"] == 4 and s.adapter["scale"] == 2.0
    assert {t.role for t in s.tensors} == {"lora_a", "lora_b"}


def test_groups_by_role_and_layer() -> None:
    s = summarize(ASSETS / "seed-a" / "best")
    groups = {(g.role, g.layer): g for g in s.groups()}
    assert math.isclose(groups[("lm_head", None)].rms, 13.87, rel_tol=1e-2)
    assert groups[("mlp_in", 1)].tensors == ("transformer.h.1.mlp.c_fc.weight",)


def test_against_names_what_exploded_and_what_froze() -> None:
    from traindoc.ckpt.compare import compare

    c = compare(ASSETS / "frozen-run" / "checkpoint-10", ASSETS / "frozen-run" / "checkpoint-20")
    assert {t.layer for t in c.frozen} == {0}
    assert all(g.rel_update > 0 for g in c.groups() if g.layer == 1)
    c = compare(ASSETS / "seed-a" / "checkpoint-30", ASSETS / "seed-a" / "best")
    assert [t.name for t in c.exploded] == ["lm_head.weight"]


def test_run_size_is_counted_from_the_checkpoint_and_estimated_from_the_config() -> None:
    """n_params drives the size-aware LR ranges: exact from tensors, else from config.json."""
    from safetensors import safe_open

    from traindoc.pipeline import load
    from traindoc.readers import load_run

    run_dir = ASSETS / "healthy-run"
    with safe_open(run_dir / "checkpoint-40/model.safetensors", "numpy") as f:
        exact = sum(math.prod(f.get_slice(k).get_shape()) for k in f.keys())  # noqa: SIM118
    run = load(run_dir)
    assert run.fact("n_params") == exact and "checkpoint-40" in run.facts["n_params"].source
    estimate = load_run(run_dir).fact("n_params")  # no checkpoint read: config.json dimensions
    assert abs(estimate - exact) / exact < 0.05
