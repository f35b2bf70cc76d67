"""Eval lines that no word marks as eval: told apart by the step they repeat.

A loop that evaluates every N steps often prints the eval with the train line's own
layout and names, only a different prefix, at the step just printed (TF issue 12287:
`= >   step: 9 loss: 0.6931 accuracy:0.60`, then `= >  = = = = = =  > > > > > >    step: 9
loss: 0.6931 accuracy:0.66`). Read as one series, the eval record overwrites the train
record of that step (a step keeps its last write). A second shape whose lines each
repeat the step of the train line next to them, are at most half as many, print the
same names (a metric among them) and measure something else (not one value copied by a second logger) is
that eval: its names become eval_* so both series stay whole.
"""

from __future__ import annotations

import numpy as np

from traindoc.model.signals import METRIC_KINDS, is_eval, kind
from traindoc.readers.logs.records import Program, Records


def rename_repeats(rec: Records, step: np.ndarray, printed: np.ndarray) -> list[str]:
    """Rename the names of the shapes that repeat another shape's steps (in place on the
    programs); where those lines are, in words. `printed`: per record, its step was printed."""
    done = []
    progs = sorted(rec.programs, key=lambda p: -rec.count(p))
    for b in progs:
        if b.is_eval or not b.names or not printed[rec.where(b)].all():
            continue
        for a in progs:
            if a is b or a.is_eval or 2 * rec.count(b) > rec.count(a):
                continue
            if _repeats(rec, a, b, step, printed):
                b.names = tuple(n if is_eval(n) else f"eval_{n}" for n in b.names)
                b.is_eval, b.train = True, False
                line = int(rec.line[rec.where(b)[0]])
                done.append(f"line {line} and {rec.count(b) - 1} more like it")
                break
    return done


def _repeats(rec: Records, a: Program, b: Program, step: np.ndarray, printed: np.ndarray) -> bool:
    shared = list(b.names)
    if set(shared) != set(a.names) or not any(kind(n) in METRIC_KINDS for n in shared):
        return False  # another layout (a val line, DeepSpeed's beside Megatron's), or no metric
    wa, wb = rec.where(a), rec.where(b)
    if not printed[wa].all():
        return False
    pos = np.searchsorted(wa, wb)  # the record of `a` after each of `b`'s
    before, after = wa[np.maximum(pos - 1, 0)], wa[np.minimum(pos, wa.size - 1)]
    sb = step[wb]
    at_before = (pos > 0) & (step[before] == sb)
    at_after = (pos < wa.size) & (step[after] == sb)
    if not (at_before | at_after).all():
        return False
    twin = np.where(at_before, np.maximum(pos - 1, 0), np.minimum(pos, wa.size - 1))
    va, vb = rec.values(a), rec.values(b)
    return any(not np.array_equal(va[n][twin], vb[n], equal_nan=True) for n in shared)
