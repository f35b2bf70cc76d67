"""untied-embeddings: the config ties input and output embeddings, the tensors differ."""

from __future__ import annotations

import re
from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints


@rule(
    "untied-embeddings",
    minimum="one checkpoint whose config ties embeddings",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.WARNING,
)
def check(run: Run, p: None) -> Iterator[Hit]:
    """The config says tie_word_embeddings, but the saved embedding and lm_head differ.

    **What it does.** When a checkpoint's config.json sets
    `tie_word_embeddings: true` and the file holds both an input embedding and
    an output head of the same shape, compares their statistics; tied weights
    are one tensor and must be identical.

    **Why it matters.** A model trained tied but saved or loaded untied (or
    the reverse) runs with an output head that is not the one it learned:
    typically a freshly initialised or stale head, and a first loss near or
    above ln(V) after loading.

    **Known false positives.** None known when the config says tied: HF
    writers save a tied pair once. Only an LM head (vocabulary rows, not a
    classifier or a reward `score`) is compared, and only with the word
    embeddings: a BERT classifier's 2 x hidden head shares its shape with
    `token_type_embeddings` and was never tied to anything.

    **What to do.** Set `tie_word_embeddings` to what the model was trained
    with, or re-tie the weights (`model.tie_weights()`) before saving.
    """
    for ckpt in checkpoints(run):
        if ckpt.config.get("tie_word_embeddings") is not True:
            continue
        # Only a vocabulary head can be tied, and only to the word embeddings: a
        # classifier (2 x hidden) may share its shape with token_type_embeddings.
        vocab = ckpt.config.get("vocab_size")
        emb = [
            t
            for t in ckpt.by_role("embed")
            if t.read and t.is_matrix and not _NOT_WORDS.search(t.name) and _rows(t, vocab)
        ]
        head = [
            t
            for t in ckpt.by_role("lm_head")
            if t.read and t.is_matrix and not _NOT_LM_HEAD.search(t.name) and _rows(t, vocab)
        ]
        for h in head:
            e = next((e for e in emb if e.shape == h.shape), None)
            if e is None or e.fingerprint() == h.fingerprint():
                continue
            yield Hit(
                title=(
                    f"Checkpoint {ckpt.name!r}: config ties embeddings but {h.name} "
                    f"(std {h.std:.3g}) differs from {e.name} (std {e.std:.3g})"
                ),
                step=ckpt.step,
                evidence={
                    "checkpoint": ckpt.name,
                    "embedding": e.name,
                    "head": h.name,
                    "embedding_std": e.std,
                    "head_std": h.std,
                },
                explanation=(
                    "With tied embeddings the output head is the input embedding. Two different "
                    "tensors mean one of them is not what the model was trained with."
                ),
                prescription=(
                    "Make tie_word_embeddings match how the model was trained, or call "
                    "model.tie_weights() before saving."
                ),
            )


_NOT_WORDS = re.compile(r"token_type|segment|position", re.I)
_NOT_LM_HEAD = re.compile(r"\bclassifier\b|score\.weight$|\bqa_outputs\b", re.I)


def _rows(t: object, vocab: object) -> bool:
    """A vocabulary-sized matrix (any rows when the config gives no vocab_size)."""
    return not isinstance(vocab, int) or t.shape[0] == vocab  # type: ignore[attr-defined]
