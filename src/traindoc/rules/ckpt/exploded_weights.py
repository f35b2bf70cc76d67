"""exploded-weights: a tensor's scale is far above its init scale and its siblings'."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import at_start, checkpoints, exploded, names


@dataclass(frozen=True)
class Params:
    # 10x above the largest common init scale *and* 10x the median of its siblings:
    # trained weights drift (pretrained GPT-2 attention is ~5x its 0.02 init) but
    # stay in their siblings' range; the exploded-head run's head was 55-700x both.
    ratio: float = 10.0
    # Far enough above any init that siblings cannot excuse it (everything exploded).
    ratio_alone: float = 100.0


@rule(
    "exploded-weights",
    minimum="one checkpoint with readable tensors",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.ERROR,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """A tensor's scale is far above its expected init scale and above its siblings.

    **What it does.** For every float tensor of every checkpoint, compares its
    RMS with the largest common initialisation for its role (weight matrices
    max(0.02, 1/sqrt(fan_in)), embeddings 1, norms 1) and with the median RMS of
    its siblings (the same role in other blocks; for an output head, the other
    weight matrices). Flags a tensor `ratio`x above both, or `ratio_alone`x
    above its init scale.

    **Why it matters.** In the exploded-head run, a checkpoint named "best" has an
    lm_head with std 13.87 where healthy heads sit at 0.02-0.1. The first loss
    is 96 (8.9x ln V), and 300 steps at LR 1e-6 leave it there. No learning
    rate fixes a rotten starting point quickly.

    **Known false positives.** Models with deliberately scaled layers (e.g.
    muP output multipliers folded into weights) can sit well above their
    siblings; check the architecture before discarding the checkpoint.

    **What to do.** Do not train from this checkpoint: go back to the last
    checkpoint where the tensor is in range (`traindoc ckpt A --against B`
    shows where it blew up), and check the first-batch loss before relaunching.
    """
    for ckpt in checkpoints(run):
        hits = sorted(exploded(ckpt, p.ratio, p.ratio_alone), key=lambda e: -e.ratio_init)
        if not hits:
            continue
        worst = hits[0]
        t = worst.tensor
        sib = (
            f" and {worst.ratio_siblings:.0f}x its siblings ({worst.siblings_rms:.3g})"
            if worst.ratio_siblings
            else ""
        )
        start = at_start(run, ckpt)
        yield Hit(
            title=(
                f"{t.name} in checkpoint {ckpt.name!r} has std {t.std:.4g}: "
                f"{worst.ratio_init:.0f}x its init scale{sib}"
            ),
            step=ckpt.step,
            evidence={
                "checkpoint": ckpt.name,
                "path": ckpt.path,
                "tensor": t.name,
                "role": t.role,
                "layer": t.layer,
                "std": t.std,
                "rms": t.rms,
                "absmax": t.absmax,
                "expected_scale": worst.expected,
                "siblings_rms": worst.siblings_rms,
                "ratio": worst.ratio_init,
                "ratio_siblings": worst.ratio_siblings,
                "at_start": start,
                "tensors": [e.tensor.name for e in hits],
            },
            explanation=(
                f"{len(hits)} tensor(s) ({names([e.tensor for e in hits])}) are far outside the "
                "range any initialisation or ordinary training produces, and far from the same "
                "role elsewhere in the model. An output head this large makes the logits huge, "
                "so the loss starts many times above ln(V)"
                + (", which is where this run started." if start else ".")
            ),
            prescription=(
                "Do not start or resume from this checkpoint; use the last checkpoint in which "
                f"{t.name} is in range (compare with `traindoc ckpt {ckpt.name} --against <other>`)"
                ". Check the first-batch loss before spending compute."
            ),
        )
