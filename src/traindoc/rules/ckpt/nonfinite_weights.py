"""nonfinite-weights: NaN or Inf inside a checkpoint's tensors."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import at_start, checkpoints, names, nonfinite


@rule(
    "nonfinite-weights",
    minimum="one checkpoint with readable tensors",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.ERROR,
)
def check(run: Run, p: None) -> Iterator[Hit]:
    """NaN or Inf values in a checkpoint's tensors.

    **What it does.** Counts NaN and +-Inf in every float tensor of every
    checkpoint (exact counts, streamed) and names the tensors and blocks.

    **Why it matters.** One NaN weight makes every activation downstream NaN:
    the loss is NaN from the first batch, or (with HF's NaN filter) silently
    replaced by an average. A checkpoint saved after an fp16 overflow or a
    diverged step carries the poison into every run started from it.

    **Known false positives.** None known: no trained tensor should hold NaN.
    Some quantised formats store Inf sentinels in scale tensors, but those are
    not float weights.

    **What to do.** Go back to the last checkpoint without NaN; find the step
    where the loss or gradient norm first went non-finite (fp16 is the usual
    cause: switch to bf16 or fp32).
    """
    for ckpt in checkpoints(run):
        bad = nonfinite(ckpt)
        if not bad:
            continue
        n_nan = sum(t.nan for t in bad)
        n_inf = sum(t.inf for t in bad)
        layers = sorted({t.layer for t in bad if t.layer is not None})
        yield Hit(
            title=(
                f"{n_nan} NaN and {n_inf} Inf in {len(bad)} tensor(s) of checkpoint "
                f"{ckpt.name!r}: {names(bad, 3)}"
            ),
            step=ckpt.step,
            evidence={
                "checkpoint": ckpt.name,
                "path": ckpt.path,
                "tensor": bad[0].name,
                "tensors": [t.name for t in bad],
                "nan": n_nan,
                "inf": n_inf,
                "layers": layers,
                "at_start": at_start(run, ckpt),
            },
            explanation=(
                "Non-finite weights propagate through every forward pass: the model's output "
                "is NaN for every input. The checkpoint was saved after the numerics broke."
            ),
            prescription=(
                "Resume from the last checkpoint without NaN/Inf and fix the cause first "
                "(fp16 overflow: use bf16 or fp32; a diverging LR: lower it or warm up longer)."
            ),
        )
