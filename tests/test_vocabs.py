"""Vocabulary sizes of LM families, read from a model's name or path."""

from __future__ import annotations

import pytest

from traindoc.model.vocabs import family_vocab


@pytest.mark.parametrize(
    ("name", "vocab"),
    [
        ("google/gemma-3-1b-it", 262144),
        ("/kaggle/input/gemma-3/transformers/gemma-3-1b-it/1", 262144),
        ("google/gemma-3n-E2B-it", 262400),
        ("google/gemma-2-9b", 256000),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", 128256),
        ("meta-llama/Llama-2-7b-hf", 32000),
        ("C:\\LLaMA-Factory\\checkpoints\\Llama-2-13b-chat-hf", 32000),
        ("codellama/CodeLlama-7b-hf", 32016),
        ("mistralai/Mistral-7B-Instruct-v0.3", 32768),
        ("mistralai/Mistral-7B-v0.1", 32000),
        ("Qwen/Qwen2.5-7B-Instruct", 151936),
        ("bigscience/bloom-1b7", 250880),
        ("microsoft/phi-2", 51200),
        ("gpt2-medium", 50257),
        ("EleutherAI/pythia-410m", 50304),
        ("facebook/opt-1.3b", 50272),
        ("google/flan-t5-base", 32128),
        ("google/mt5-small", 250112),
    ],
)
def test_a_family_name_gives_its_vocabulary(name: str, vocab: int) -> None:
    got = family_vocab(name)
    assert got is not None and got[1] == vocab


@pytest.mark.parametrize(
    "name", ["bert-base-uncased", "xlm-roberta-base", "my-org/private-model", "resnet50", "adopt"]
)
def test_encoders_and_unknown_names_give_none(name: str) -> None:
    """An encoder is mostly fine-tuned with a classification head (its C, not V)."""
    assert family_vocab(name) is None
