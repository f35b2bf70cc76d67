"""Output vocabularies of common language-model families, read from the model's name.

A run that fine-tunes `google/gemma-3-1b-it` or `meta-llama/Llama-2-7b-hf` predicts
over that family's tokenizer: its uniform floor is ln(V) of that vocabulary even when
no config.json sits beside the log. V for a released family is public knowledge (each
family's config.json `vocab_size`). Only decoder LMs and text-to-text models are
listed: an encoder (BERT, RoBERTa) is mostly fine-tuned with a classification head,
whose output is its C classes, not the vocabulary. A name matches on the family's own
spelling (case, `-`, `_`, `.` and `/` aside), most specific first: `Llama-3.1-8B`
before `llama`, `gemma-3n` before `gemma-3` before `gemma`.
"""

from __future__ import annotations

import re

# (pattern on the normalised name, display name, V). Sources: each family's config.json.
_FAMILIES: tuple[tuple[str, str, int], ...] = (
    (r"gemma-?3n", "Gemma 3n", 262400),
    (r"gemma-?3", "Gemma 3", 262144),
    (r"gemma", "Gemma / Gemma 2", 256000),
    (r"codellama|code-llama", "Code Llama", 32016),
    (r"llama-?4", "Llama 4", 202048),
    (r"llama-?3", "Llama 3", 128256),
    (
        r"llama-?2|tinyllama|vicuna|alpaca|llama-7b|llama-13b|llama-30b|llama-65b",
        "Llama 1/2",
        32000,
    ),
    (r"mistral-nemo", "Mistral Nemo", 131072),
    (r"mistral.*v0-?3", "Mistral v0.3", 32768),
    (r"mistral|mixtral|zephyr", "Mistral / Mixtral", 32000),
    (r"qwen", "Qwen", 151936),
    (r"(?<![a-z])phi-?4", "Phi-4", 100352),
    (r"(?<![a-z])phi-?3", "Phi-3", 32064),
    (r"(?<![a-z])phi-?[12]", "Phi-1.5 / Phi-2", 51200),
    (r"bloom", "BLOOM", 250880),
    (r"falcon", "Falcon", 65024),
    (r"pythia|gpt-?neox", "Pythia / GPT-NeoX", 50304),
    (r"gpt-?j", "GPT-J", 50400),
    (r"(?<![a-z])opt-\d", "OPT", 50272),
    (r"gpt-?neo|gpt-?2|distilgpt2", "GPT-2 / GPT-Neo", 50257),
    (r"smollm|starcoder", "SmolLM / StarCoder", 49152),
    (r"(?<![a-z])mt5", "mT5", 250112),
    (r"(?<![a-z])(flan-)?t5", "T5", 32128),
    (r"mbart", "mBART", 250054),
    (r"whisper", "Whisper", 51865),
    (r"(?<![a-z])yi-\d", "Yi", 64000),
)
_COMPILED = tuple((re.compile(p), name, v) for p, name, v in _FAMILIES)


def family_vocab(model: str) -> tuple[str, int] | None:
    """(family, V) of the LM family a model name or path names, or None."""
    low = re.sub(r"[\s_.]+", "-", model.lower())
    for pattern, name, v in _COMPILED:
        if pattern.search(low):
            return name, v
    return None
