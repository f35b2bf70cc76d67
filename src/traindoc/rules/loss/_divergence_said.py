"""divergence's verdict on a run whose trainer said it blew up: its own guard compared the
loss with its first value and aborted the run past a multiple of it ("loss seems to be
exploding, quitting.", the `loss-exploding` event the log reader recognises).

The guard saw every batch's loss; a pasted log shows a few lines of it, often too few for
the trend tests (neuraltalk's abort comes three lines after 37 -> 39 -> 141). Its word is
the trainer's own measurement, read as such unless the lines it printed contradict it."""

from __future__ import annotations

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit


def said_exploding(run: Run, loss: Series | None) -> Hit | None:
    """The first `loss-exploding` message, unless the losses logged up to it never rose:
    the last one at or before the message is no higher than the lowest before it (the
    guard then read some other number than the loss this log prints)."""
    said = next((e for e in run.events if e.kind == "loss-exploding"), None)
    if said is None:
        return None
    f = loss.finite() if loss is not None else None
    rise = ""
    if f is not None and len(f) >= 2:
        upto = f.values if said.step is None else f.values[f.steps <= said.step]
        if upto.size >= 2:
            low, last = float(np.min(upto[:-1])), float(upto[-1])
            if last <= low:
                return None  # the loss it printed did not rise: not this loss's blow-up
            rise = f" (the log's loss rose from {fmt(low)} to {fmt(last)} before it)"
    where = f" at step {said.step}" if said.step is not None else ""
    return Hit(
        title=f"The trainer aborted the run{where}: its loss blew up past its own limit",
        step=said.step,
        evidence={
            "message": said.text,
            "line": said.line,
            "step": said.step,
            "source": f"{said.path}:{said.line}" if said.path else None,
        },
        explanation=(
            f"The training script's own guard printed {said.text!r}{rise}. Such a guard "
            "compares each loss with the first one and stops the run once it is a multiple "
            "of it (2x in neuraltalk, 3x in char-rnn, 20x in neuraltalk2) or past a bound "
            "no healthy loss reaches (100 in tacotron, 1e8 in NCRF++): the updates are "
            "making the model worse, and the run ended there."
        ),
        prescription=(
            "Lower the learning rate 3-10x (or add warmup) and clip gradients (max norm "
            "~1-5); if it still blows up, run a gradient check on the model's backward pass."
        ),
        severity=Severity.ERROR,
    )
