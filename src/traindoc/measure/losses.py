"""Which logged series are losses: the total, its components, the eval loss.

Trainers log the total (`loss`) next to its parts (detectron2's `loss_cls`,
`loss_box_reg`; YOLO's `box_loss`; mmdet's `loss_bbox`), and a smoothed total can
stay finite for a window after a part has gone NaN. Rules that look for a broken
loss look at all of them, in that order.
"""

from __future__ import annotations

import re

import numpy as np

from traindoc.model import Run, Series
from traindoc.model.signals import kind

# A component of the training loss: loss_cls, box_loss, train/loss_ctc, lm_loss
# (the fp16 scaler's loss_scale is not one).
_COMPONENT = re.compile(r"(^|[_/])loss([_/]|$)")


def components(run: Run) -> list[str]:
    """Names of the logged loss components (not the total, not the eval loss): named
    as losses, or by a name signals.kind reads as a loss part though it lacks the word
    (a GAN player's D_A / G_GAN, a `cost`): a NaN there is a NaN loss."""
    return [
        n
        for n in sorted(run.series)
        if n not in ("loss", "eval_loss")
        and (_COMPONENT.search(n) or kind(n) == "component_loss")
        and "scale" not in n
        and not n.startswith(("eval", "val", "test"))
        # a metric logger's running average of a logged series (`loss: 0.77 (0.82)`
        # read as loss / loss_avg) is that series smoothed, not a term of the loss
        and not (n.endswith("_avg") and n[: -len("_avg")] in run.series)
    ]


def nonfinite_loss(run: Run) -> tuple[str, Series] | None:
    """The loss curve that holds a NaN/Inf: the total first, then its components, then
    the eval loss (earliest first bad step among the components)."""
    loss = run.get("loss")
    if loss is not None and not np.isfinite(loss.values).all():
        return "loss", loss
    parts = []
    for name in components(run):
        s = run.get(name)
        if s is not None and not np.isfinite(s.values).all():
            first = int(s.steps[int(np.argmax(~np.isfinite(s.values)))])
            parts.append((first, name, s))
    if parts:
        _, name, s = min(parts, key=lambda t: t[0])
        return name, s
    ev = run.get("eval_loss")
    if ev is not None and not np.isfinite(ev.values).all():
        return "eval_loss", ev
    return None


# A loss whose best logged point is 100x or more under its level has been solved to ~0:
# each point is then the error of a handful of samples, and it wobbles by multiples of
# itself (a fine-tuned C3D at 0.007 prints 3.7e-5 and 0.085 within 8 logs). Ratios to
# the level measure nothing there; a rise must be judged against the loss's scale
# before it was solved (divergence: a share of what it learned) or against how far its
# own points swing (loss-spike).
SOLVED_RATIO = 100.0


def solved(level: float, best: float, ratio: float = SOLVED_RATIO) -> bool:
    """The loss is solved to ~0: its best point is `ratio` (100x) or more under `level`
    (the level it fell from, or a paste's median), both positive."""
    return best > 0 and level >= ratio * best
