"""untied-embeddings: the config ties input and output embeddings, the tensors differ."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints


@rule("untied-embeddings", family="ckpt", severity=Severity.WARNING)
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
    writers save a tied pair once.

    **What to do.** Set `tie_word_embeddings` to what the model was trained
    with, or re-tie the weights (`model.tie_weights()`) before saving.
    """
    for ckpt in checkpoints(run):
        if ckpt.config.get("tie_word_embeddings") is not True:
            continue
        emb = [t for t in ckpt.by_role("embed") if t.read and t.is_matrix]
        head = [t for t in ckpt.by_role("lm_head") if t.read and t.is_matrix]
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
