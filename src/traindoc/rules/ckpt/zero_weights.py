"""zero-weights: an all-zero weight matrix, embedding or norm weight."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints, names, zeroed


@rule(
    "zero-weights",
    minimum="one checkpoint with readable tensors",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.ERROR,
)
def check(run: Run, p: None) -> Iterator[Hit]:
    """An all-zero tensor that should not be: a weight matrix, embedding or norm weight.

    **What it does.** Flags float tensors whose every value is zero, except
    biases (zero at init), LoRA B matrices (see `untrained-adapter`) and
    buffers.

    **Why it matters.** An all-zero weight matrix passes no signal and, for
    most layers, gets no gradient either (symmetry): it stays dead. It usually
    means a failed load (weights missing from the file, then zero-filled), a
    sharding/merge bug, or a "zero init" applied to the wrong module.

    **Known false positives.** Architectures that zero-initialise a projection
    on purpose (e.g. some adapters, ReZero-style gates) before training; after
    training they are no longer all zero.

    **What to do.** Check how the checkpoint was produced (merge, conversion,
    sharding) and compare with the source (`traindoc ckpt A --against B`).
    """
    for ckpt in checkpoints(run):
        bad = zeroed(ckpt)
        if not bad:
            continue
        yield Hit(
            title=f"{len(bad)} all-zero tensor(s) in checkpoint {ckpt.name!r}: {names(bad, 3)}",
            step=ckpt.step,
            evidence={
                "checkpoint": ckpt.name,
                "path": ckpt.path,
                "tensor": bad[0].name,
                "tensors": [t.name for t in bad],
                "roles": sorted({t.role for t in bad}),
            },
            explanation=(
                "A weight matrix that is exactly zero carries no signal and usually receives "
                "no gradient, so training cannot revive it."
            ),
            prescription=(
                "Re-create the checkpoint from its source (merge/convert/shard step) and verify "
                "the tensor is non-zero there."
            ),
        )
