"""frozen-parameters: tensors identical between two checkpoints of one run."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints


@dataclass(frozen=True)
class Params:
    # Below this share of frozen elements, a few untouched tensors (e.g. unused
    # position rows' biases) are not worth a finding.
    min_frozen_frac: float = 0.01


@rule(
    "frozen-parameters",
    minimum="two checkpoints of the same model at different steps",
    family="ckpt",
    qualifier="{to}",  # one finding per compared pair (the model, its adapter)
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Tensors identical between the first and last checkpoint of one run.

    **What it does.** Takes the run's checkpoints of the same kind (full model
    or adapter) with known steps, and compares the earliest with the latest
    tensor by tensor. Two tensors are identical when their streamed statistics
    (dtype, shape, exact mean, M2, min, max, zero count) all agree, which any
    update changes. Reports the frozen tensors grouped by block and role.

    **Why it matters.** A block that never changes never learned: a
    `requires_grad=False` left on, a module missing from the optimizer's
    parameter groups, or a freeze schedule that never unfroze. If *nothing*
    changed, no step happened at all (LR 0, optimizer on the wrong model).

    **Known false positives.** Deliberate freezing (frozen embeddings, a frozen
    vision tower) looks the same; the finding is a warning so the intent can be
    confirmed.

    **What to do.** Check `requires_grad` and the optimizer's parameter groups
    for the listed blocks; `traindoc ckpt A --against B` shows update sizes per
    block.
    """
    for kind in (False, True):
        cks = sorted(
            (c for c in checkpoints(run) if c.step is not None and c.is_adapter == kind),
            key=lambda c: c.step,
        )
        if len(cks) < 2 or cks[0].step == cks[-1].step:
            continue
        a, b = cks[0], cks[-1]
        before = {t.name: t for t in a.tensors if t.read and t.role != "buffer"}
        same, compared = [], 0
        for t in b.tensors:
            old = before.get(t.name)
            if old is None or not t.read:
                continue
            compared += t.numel
            if t.fingerprint() == old.fingerprint():
                same.append(t)
        frozen = sum(t.numel for t in same)
        if not same or compared == 0 or frozen < p.min_frozen_frac * compared:
            continue
        everything = frozen == compared
        blocks = sorted({t.layer for t in same if t.layer is not None})
        roles = sorted({t.role for t in same})
        what = (
            "no tensor changed"
            if everything
            else f"{len(same)} tensors ({frozen / compared:.0%} of the weights) did not change"
        )
        yield Hit(
            title=(
                f"{what} between {a.name!r} (step {a.step}) and {b.name!r} (step {b.step})"
                + (f": block(s) {', '.join(map(str, blocks))}" if blocks and not everything else "")
            ),
            step=a.step,
            end_step=b.step,
            evidence={
                "from": a.name,
                "to": b.name,
                "tensors": [t.name for t in same],
                "frozen_fraction": frozen / compared,
                "layers": blocks,
                "roles": roles,
                "all_frozen": everything,
            },
            explanation=(
                "Tensors that are bit-identical across training steps received no update: "
                "they are excluded from the optimizer, have requires_grad=False, or get no "
                "gradient."
                + (
                    " Nothing changed at all, so no optimizer step took effect."
                    if everything
                    else ""
                )
            ),
            prescription=(
                "Check requires_grad and the optimizer's param groups for these tensors (and a "
                "non-zero LR); if the freeze is intended, ignore this warning."
            ),
            severity=Severity.WARNING,
        )
