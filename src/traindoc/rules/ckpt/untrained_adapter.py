"""untrained-adapter: LoRA B matrices still exactly zero after training."""

from __future__ import annotations

from collections.abc import Iterator

from traindoc.model import Run, Severity
from traindoc.model.roles import module_of
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints


@rule(
    "untrained-adapter",
    minimum="one LoRA adapter checkpoint",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.ERROR,
)
def check(run: Run, p: None) -> Iterator[Hit]:
    """A LoRA adapter whose B matrices are still all zero after training.

    **What it does.** In every adapter checkpoint, checks the `lora_B` (and
    `lora_embedding_B`) tensors. With PEFT's default init they start at
    exactly zero, so all of them still zero at step > 0 means no update ever
    reached the adapter; some of them zero means those modules never trained.

    **Why it matters.** LoRA output = W x + (alpha/r) B A x. With B = 0 the
    adapter adds nothing: the "fine-tuned" model is the base model, and the
    loss curve is flat or only moved by noise. The usual causes: the optimizer
    was built before `get_peft_model` (it holds the frozen base weights), the
    LR is 0, or the adapter's parameters have `requires_grad=False`.

    **Known false positives.** A checkpoint saved at step 0, or an adapter
    initialised with `init_lora_weights=False`/PiSSA, is not evidence; a
    checkpoint whose step is unknown is reported as a warning.

    **What to do.** Build the optimizer from `model.parameters()` *after*
    `get_peft_model`, check `model.print_trainable_parameters()`, and confirm
    the LR is non-zero at the first step.
    """
    for ckpt in checkpoints(run):
        bs = [t for t in ckpt.tensors if t.role == "lora_b" and t.read]
        if not bs or ckpt.step == 0:
            continue
        zero = [t for t in bs if t.zero_frac >= 1.0]
        if not zero:
            continue
        every = len(zero) == len(bs)
        sev = Severity.ERROR if every and ckpt.step else Severity.WARNING
        mods = [module_of(t.name).replace(".lora_B", "") for t in zero]
        when = f"at step {ckpt.step}" if ckpt.step else "(step unknown)"
        yield Hit(
            title=(
                f"LoRA adapter {ckpt.name!r} {when}: "
                + (
                    "every lora_B is still exactly zero"
                    if every
                    else f"{len(zero)} of {len(bs)} lora_B matrices are still exactly zero"
                )
            ),
            step=ckpt.step,
            evidence={
                "checkpoint": ckpt.name,
                "path": ckpt.path,
                "zero_b": len(zero),
                "total_b": len(bs),
                "modules": mods,
                "r": (ckpt.adapter or {}).get("r"),
            },
            explanation=(
                "PEFT initialises lora_B to zero, so the adapter adds nothing until the "
                "optimizer updates it. Still zero after training means the adapter never "
                "received an update: the model is the base model."
            ),
            prescription=(
                "Create the optimizer after get_peft_model (from the wrapped model's trainable "
                "parameters), check print_trainable_parameters() and a non-zero LR."
            ),
            severity=sev,
        )
