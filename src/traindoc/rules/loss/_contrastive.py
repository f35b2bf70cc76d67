"""no-learning's reading of an in-batch contrastive loss (CLIP, InfoNCE) trained on a
batch of one sample: one candidate per softmax, so the loss is 0 whatever the weights."""

from __future__ import annotations

import numpy as np

from traindoc.measure.schedule import effective_batch
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

# A CLIP-style model's learned temperature: logged only by in-batch contrastive trainers
# (Chinese-CLIP, open_clip).
_TEMPERATURE = ("logit_scale",)
# Name parts of the in-batch retrieval accuracies and losses such trainers log
# (Chinese-CLIP's "Image2Text Acc", a loss named contrastive / InfoNCE / clip).
_CONTRASTIVE_PARTS = (
    "image2text",
    "text2image",
    "img2txt",
    "txt2img",
    "contrastive",
    "infonce",
    "clip_loss",
)
# The per-step batch a log prints beside each line (Chinese-CLIP's "Global Batch Size: 1").
_BATCH_SERIES = ("global_batch_size", "batch_size")
# A printed 0: a 4-6 decimal logger prints anything under this as 0.0000.
_ZERO = 5e-5


def _contrastive(run: Run) -> str | None:
    """The series that marks the run as an in-batch contrastive one, if any."""
    for name in run.series:
        low = name.lower()
        if low in _TEMPERATURE or any(part in low for part in _CONTRASTIVE_PARTS):
            return name
    return None


def _batch_of_one(run: Run) -> str | None:
    """Where the log says each step sees one sample: a batch-size column at 1 at every
    log, else an effective batch of 1 from the run's facts."""
    for name in _BATCH_SERIES:
        s = run.get(name)
        if s is not None and len(f := s.finite()) and bool(np.all(f.values == 1)):
            return f"{name} = 1" + (f" at each of its {len(f)} logs" if len(f) > 1 else "")
    if effective_batch(run) == 1:
        return "an effective batch of 1 sample"
    return None


def _zero_loss(run: Run) -> Series | None:
    """The training loss, when every one of its finite logs prints 0."""
    loss = run.get("loss")
    if loss is None or not len(f := loss.finite()):
        return None
    return f if bool(np.all(np.abs(f.values) < _ZERO)) else None


def _single_candidate(run: Run) -> Hit | None:
    """An in-batch contrastive loss (CLIP-style: a logged logit_scale, an image-to-text
    accuracy, a loss named contrastive / InfoNCE) that prints 0 at every log while each
    step sees a batch of one sample (warning, from one log): the softmax over one
    candidate is 1, so the loss and its gradient are 0 by construction, whatever the
    weights."""
    marker = _contrastive(run)
    if marker is None or (f := _zero_loss(run)) is None or (batch := _batch_of_one(run)) is None:
        return None
    n = len(f)
    where = "at its one log" if n == 1 else f"at every one of {n} logs"
    return Hit(
        title=(
            f"Contrastive loss is {fmt(float(f.values[-1]))} {where} with {batch}: with "
            "one sample per batch the in-batch "
            "softmax has a single candidate, so the loss is 0 whatever the weights"
        ),
        step=int(f.steps[0]),
        end_step=int(f.steps[-1]),
        evidence={
            "signal": "contrastive loss 0 with a batch of one",
            "loss": float(f.values[-1]),
            "points": n,
            "batch": batch,
            "contrastive_marker": marker,
        },
        explanation=(
            "An in-batch contrastive loss (CLIP, InfoNCE) scores each sample's match against "
            "the other samples of its batch, which serve as the negatives. With one sample "
            "per batch the softmax has one candidate: its probability is 1, its cross-entropy "
            "0 and its gradient 0 for any model, and the in-batch accuracies read 100%. "
            "Nothing reaches the weights, so the model learns nothing from this run."
        ),
        prescription=(
            "Train with a batch of many pairs per step (in-batch contrastive learning needs "
            "negatives: tens to thousands of pairs; CLIP used 32,768), gathering the features "
            "across GPUs if memory is short, and check that the loss starts near ln(batch size)."
        ),
        severity=Severity.WARNING,
    )
