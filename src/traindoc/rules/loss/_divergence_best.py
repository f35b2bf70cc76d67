"""divergence read from the best eval loss a trainer reports itself (fairseq's `best`):
the last eval loss far above that best with the train loss no lower, which overfitting
(train still falling) does not do."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit
from traindoc.rules.loss._divergence_short import _steadier_from

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def _above_own_best(run: Run, p: Params, f: Series | None) -> Hit | None:
    """The last eval loss 50%+ above the best eval loss the trainer itself reports
    (fairseq's `best`), with the train loss at that point no lower than that best:
    the model got worse on both sets, which overfitting (train falling) does not do.
    With no train loss logged (`f` None), the eval loss must instead have jumped by
    half that best between two consecutive evals: overfitting creeps up, eval after
    eval; a jump of half the best level in one eval interval is the model wrecked."""
    ev, best = run.get("eval_loss"), run.get("eval_best_loss")
    if ev is None or best is None or (f is not None and not len(f)):
        return None
    e, b = ev.finite(), best.finite()
    if not len(e) or not len(b):
        return None
    last, lo = float(e.values[-1]), float(b.values.min())
    if not (lo > 0 and last >= (1 + p.blowup_rise) * lo):
        return None
    step = int(e.steps[-1])
    if f is None:
        jumps = np.diff(e.values)
        if not (jumps.size and float(jumps.max()) >= p.blowup_rise * lo):
            return None
        at = int(e.steps[int(np.argmax(jumps)) + 1])
        return Hit(
            title=(
                f"Eval loss {fmt(last)} at step {step} is {last / lo:.1f}x the run's own best "
                f"{fmt(lo)}, after jumping {fmt(float(jumps.max()))} in one eval interval "
                f"(step {at})"
            ),
            step=at,
            end_step=step,
            evidence={
                "eval_loss": last,
                "best_eval_loss": lo,
                "jump": float(jumps.max()),
                "jump_step": at,
            },
            explanation=(
                "The trainer's record of its best eval loss shows the model was once far "
                "better than it is now, and the eval loss did not creep up eval after eval "
                "as overfitting does: it jumped by half the best level between two evals. "
                "The updates wrecked what the model had learned."
            ),
            prescription=_steadier_from(
                run, f"Restart from the best checkpoint (before step {at})"
            ),
            severity=Severity.ERROR,
        )
    train = float(f.values[f.steps <= e.steps[-1]][-1]) if (f.steps <= e.steps[-1]).any() else None
    if not (train is not None and train >= lo):
        return None
    return Hit(
        title=(
            f"Eval loss {fmt(last)} at step {step} is {last / lo:.1f}x the run's own best "
            f"{fmt(lo)}, and the train loss ({fmt(train)}) is above that best too"
        ),
        step=step,
        evidence={"eval_loss": last, "best_eval_loss": lo, "train_loss": train},
        explanation=(
            "The trainer's record of its best eval loss shows the model was once far better "
            "than it is now, on held-out data and on the training data alike: the updates "
            "wrecked what it had learned. Overfitting raises the eval loss while the train "
            "loss keeps falling below it; here both are worse than the best."
        ),
        prescription=_steadier_from(run, "Restart from the best checkpoint"),
        severity=Severity.ERROR,
    )
