"""A training config's own model dimensions give the model's size (fact n_params): the
rate rules read a from-scratch run's LR against GPT-3's LR-by-size table."""

from __future__ import annotations

from traindoc.readers.configs import facts_from


def test_a_from_scratch_lm_config_gives_its_size() -> None:
    # CS336's TinyStories LM: 4 layers, d_model 512, vocab 10000 (tied embeddings)
    cfg = {"d_model": 512, "num_layers": 4, "vocab_size": 10000, "learning_rate": 1e-4}
    facts = facts_from(cfg, "config.json")
    assert 17e6 < facts["n_params"].value < 18.5e6
    assert "estimated from its dimensions" in facts["n_params"].source
    # a nested model block (model: {n_embd, n_layer}) is read as well
    nested = facts_from({"model": {"n_embd": 768, "n_layer": 12, "vocab_size": 50257}}, "c.yaml")
    assert 120e6 < nested["n_params"].value < 130e6


def test_no_size_without_the_dimensions_or_for_a_classifier() -> None:
    assert "n_params" not in facts_from({"d_model": 512, "vocab_size": 10000}, "c.json")
    cls = {"hidden_size": 768, "num_hidden_layers": 12, "vocab_size": 30522, "num_labels": 3}
    assert "n_params" not in facts_from(cls, "c.json")
