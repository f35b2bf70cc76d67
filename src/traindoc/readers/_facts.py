"""Facts derived once every reader is done: effective batch, regime, task.

Every derived fact says how it was derived in its source string, so a report
can tell "config says" from "we guessed".
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from traindoc.model import Fact, Run
from traindoc.model.signals import Signal

# first loss / ln(V): at or above this the model started from scratch (uniform guess)
PRETRAIN_RATIO = 0.9
# below this it clearly started from learned weights
FINETUNE_RATIO = 0.7


def finalize(run: Run) -> Run:
    facts = dict(run.facts)
    _effective_batch(facts)
    _task(run, facts)
    _regime(run, facts)
    return replace(run, facts=facts)


def _effective_batch(facts: dict[str, Fact]) -> None:
    if "effective_batch" in facts or not isinstance(_val(facts, "per_device_batch"), int):
        return
    parts, total = [], 1
    for key in ("per_device_batch", "devices", "grad_accum"):
        v = _val(facts, key)
        if isinstance(v, int) and v > 0:
            parts.append(f"{key} {v}")
            total *= v
        else:
            parts.append(f"{key} 1 (assumed: not recorded)")
    facts["effective_batch"] = Fact(total, " x ".join(parts))


def _regime(run: Run, facts: dict[str, Fact]) -> None:
    # An RL loss is a surrogate (~0 from the first step), not a cross-entropy.
    if "regime" in facts or _val(facts, "task") == "rl":
        return
    vocab = _val(facts, "vocab_size")
    loss = run.get(Signal.LOSS)
    # A classifier's fresh head starts at ln(C) in any regime, so only ln(V) of an LM tells.
    if not isinstance(vocab, int) or vocab < 2 or loss is None:
        return
    finite = loss.values[np.isfinite(loss.values)]
    if not finite.size:
        return
    first, floor = float(finite[0]), math.log(vocab)
    ratio = first / floor
    if ratio >= PRETRAIN_RATIO:
        rel = "≈" if ratio < 1.1 else "above"
        src = f"inferred: first loss {first:.4g} {rel} ln(V)={floor:.4g}"
        facts["regime"] = Fact("pretraining", src)
    elif ratio < FINETUNE_RATIO:
        src = f"inferred: first loss {first:.4g} well below ln(V)={floor:.4g}"
        facts["regime"] = Fact("full-finetune", src)


def _task(run: Run, facts: dict[str, Fact]) -> None:
    if "task" in facts:
        return
    if run.get(Signal.REWARD) is not None or run.get(Signal.REWARD_STD) is not None:
        facts["task"] = Fact("rl", "inferred: a reward series is logged")
    elif _val(facts, "num_classes"):
        facts["task"] = Fact("classification", f"inferred: {facts['num_classes'].source}")
    elif _val(facts, "vocab_size"):
        facts["task"] = Fact("lm", f"inferred: {facts['vocab_size'].source}")


def _val(facts: dict[str, Fact], key: str) -> object:
    f = facts.get(key)
    return None if f is None else f.value
