"""A bare `nll` (a negative log-likelihood: a VAE's or a flow's or an LM's training
criterion) and a bare `objective` were read as "other", not as any loss: a log that prints
only them gave no loss curve. They are a loss by name, as a `cost` is: the run's loss
where no `loss` is logged, and a term of it (kept under its own name) where one is.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import load_log, values
from traindoc.model.signals import kind


def test_the_names_are_loss_parts() -> None:
    assert kind("nll") == "component_loss"
    assert kind("objective") == "component_loss"
    assert kind("train_nll") == "component_loss"
    assert kind("val_nll") == "eval_component_loss"
    # near misses: other phrases with the word stay what they were
    assert kind("surrogate_objective") == "other"
    assert kind("objective_value") == "other"


def test_a_lone_nll_is_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"step {s}: nll {v:.3f}, val_nll {v + 0.1:.3f}\n"
        for s, v in ((100, 3.2), (200, 2.9), (300, 2.7))
    )
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [3.2, 2.9, 2.7]
    assert values(run, "eval_loss") == [3.3, 3.0, 2.8]


def test_a_lone_objective_is_the_loss(tmp_path: Path) -> None:
    body = "".join(
        f"iter {s} objective={v:.4f} lr=0.001\n" for s, v in ((10, 1.5), (20, 1.2), (30, 1.1))
    )
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [1.5, 1.2, 1.1]


def test_nll_beside_the_loss_is_a_term_of_it(tmp_path: Path) -> None:
    # near miss: a VAE's "loss" is nll + kl; the nll is one of its terms, not the loss
    body = "".join(
        f"step {s}: loss {n + k:.3f}, nll {n:.3f}, kl {k:.3f}\n"
        for s, n, k in ((100, 3.0, 0.5), (200, 2.7, 0.6), (300, 2.5, 0.7))
    )
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [3.5, 3.3, 3.2]
    assert values(run, "nll") == [3.0, 2.7, 2.5]
