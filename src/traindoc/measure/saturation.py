"""The loss of a classifier whose every output is saturated: probabilities pinned at the
clip a framework puts before its log.

A cross-entropy takes the log of a probability, and frameworks clip that probability (or
the log) so that a confident mistake costs a finite amount:

- Keras / TensorFlow clip at epsilon = 1e-7: a wrong output pinned at 0 costs -ln(1e-7) =
  16.1181; one pinned at the upper clip 1 - 1e-7, which float32 rounds to 1 - 2**-23,
  costs -ln(2**-23) = 15.9424 (a sigmoid saturated on the wrong side);
- Caffe's SoftmaxWithLoss clamps the true class's probability at FLT_MIN: 87.3365;
- PyTorch's BCELoss clamps each log at -100: 100.

A sample whose output sits at a clip costs 0 when it is right and exactly the clamp K when
it is wrong. So a batch, or a running mean of batches, in which every output is saturated
scores K times its error rate, to the printed digit: loss = K (1 - accuracy). One output
that is not saturated (a probability of 0.3, of 0.99) moves the loss off that line, so a
model that still weighs its inputs lands on it only by coincidence, and on it at two logs
(two different sets of batches) practically never.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_F32 = np.finfo(np.float32)

# clamp name -> the cost of one saturated mistake (nats)
CLAMPS: dict[str, float] = {
    "Keras / TF epsilon 1e-7": -math.log(1e-7),
    "Keras / TF upper clip 1 - 1e-7 (float32)": -math.log(float(_F32.eps)),
    "float32 FLT_MIN (Caffe softmax)": -math.log(float(_F32.tiny)),
    "PyTorch BCELoss log clamp": 100.0,
}


@dataclass(frozen=True)
class Saturated:
    clamp: str  # which clip
    cost: float  # its cost per mistake, K
    points: int  # trailing logs on the line loss = K (1 - accuracy)


def on_clamp_line(loss: float, acc: float, cost: float, rel_tol: float) -> bool:
    """loss = cost x (1 - acc) within `rel_tol` of the predicted value, for an accuracy
    (a fraction) under 1: a run that gets some samples wrong."""
    if not (math.isfinite(loss) and math.isfinite(acc)) or not 0.0 <= acc < 1.0:
        return False
    want = cost * (1.0 - acc)
    return abs(loss - want) <= rel_tol * want


def saturated_tail(loss: np.ndarray, acc: np.ndarray, rel_tol: float) -> Saturated | None:
    """The clamp whose line loss = K (1 - acc) the paired logs (same steps, accuracy as a
    fraction) follow over the longest run that ends at the last log, None when the last
    log is on no clamp's line."""
    best: Saturated | None = None
    for name, cost in CLAMPS.items():
        n = 0
        for lv, av in zip(loss[::-1], acc[::-1], strict=True):
            if not on_clamp_line(float(lv), float(av), cost, rel_tol):
                break
            n += 1
        if n and (best is None or n > best.points):
            best = Saturated(name, cost, n)
    return best
