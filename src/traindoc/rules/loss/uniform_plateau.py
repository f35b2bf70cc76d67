"""uniform-plateau: the loss sits at ln(V), the loss of a model that guesses uniformly."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from traindoc.model import Run, Severity
from traindoc.rules._stats import bins, mad, rolling_median
from traindoc.rules.api import Hit, rule
from traindoc.rules.loss._common import floor_band, infer_vocab


@dataclass(frozen=True)
class Params:
    # A handful of logged points is the least that can be called "sits there".
    min_points: int = 5
    # 15% of the run at ln(V) is far longer than a fresh init spends there (a healthy
    # LM leaves the floor within the first few percent); seed A spent 87% there.
    min_fraction: float = 0.15
    # Rolling median over binned points so one odd batch does not split a plateau.
    smooth: int = 5
    # Tail share used to guess the plateau level when V is unknown.
    tail_fraction: float = 0.3
    # A model at the uniform floor scores the same on every batch: when V must be
    # inferred, the plateau's spread must be this small (relative), else exp(loss)
    # landing near some vocabulary size is coincidence.
    max_rel_spread_inferred: float = 0.005


@rule(
    "uniform-plateau",
    family="loss",
    severity=Severity.ERROR,
    params=Params(),
    requires=("loss",),
    uses=("lr",),
    explained_by=(
        "absurd-initial-loss",
        "lr-too-low",
        "schedule-not-applied",
        "no-trainable-parameters",
        # A blow-up that wrecked the model into uniform predictions lands here.
        "divergence",
    ),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Loss sits at the uniform floor ln(V): the model predicts every token equally.

    **What it does.** Finds the longest stretch where the (binned, median-smoothed)
    training loss stays at ln(V) (ln(C) for a C-class classifier), allowing one
    quantum of the logged dtype (fact `loss_dtype`; bf16 spacing when unknown) or
    0.5% below / 2% above, whichever is wider, and flags it when it covers at least
    15% of the run (error if the run ends there, warning if it left the floor). When V is unknown it is
    inferred from exp(plateau loss) if that lands on a known tokenizer size
    (50257, 32000, 128256, 151936, ...) or, when the log's resolution allows, on a
    multiple of 128/64 (evidence `inferred_vocab_size`).

    **Why it matters.** ln(V) is what a model scores when its output ignores the
    input. Seed A sat at 10.8125 = ln(50257) = 10.8249 rounded to bf16 for 260 of
    300 steps and generated noise: the run had spent itself undoing a broken
    checkpoint (first loss 96) and landed on a "blank" model.

    **Known false positives.** A freshly initialised model starts 1-2% above ln(V)
    and leaves within the first few percent of the run; only a long stretch counts.
    A plateau that ends before the run does is reported as a warning.

    **What to do.** Check the first-batch loss and the checkpoint (absurd initial
    loss?), the logged LR (0, never scheduled, or 1e-6 where pre-training needs
    ~3e-4) and the trainable-parameter count. Relaunch from a clean checkpoint with
    an LR suited to the regime.
    """
    loss = run.get("loss")
    assert loss is not None
    f = loss.finite()
    if len(f) < p.min_points:
        return
    st, vals = bins(f)
    sm = rolling_median(vals, p.smooth)
    nb = vals.size
    floor, vocab, inferred = run.floor, run.vocab_size, None
    if floor is None:
        k = max(p.min_points, int(p.tail_fraction * nb))
        level = float(np.median(sm[-k:]))
        tail_raw = f.values[f.steps >= st[-k]]
        spread = mad(tail_raw)
        if not math.isfinite(spread) or spread > p.max_rel_spread_inferred * abs(level):
            return
        guess = infer_vocab(level, spread, run)
        if guess is None:
            return
        vocab, inferred = guess
        floor = math.log(vocab)
    lo, hi = floor_band(run, floor)
    inside = (sm >= lo) & (sm <= hi)
    if not inside.any():
        return
    # Longest run of consecutive in-band bins.
    edges = np.diff(np.r_[0, inside.astype(np.int8), 0])
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    i = int(np.argmax(ends - starts))
    a, b = int(starts[i]), int(ends[i]) - 1
    length = b - a + 1
    if length < p.min_points or length < p.min_fraction * nb:
        return
    # Onset at raw resolution: the first raw point in band after the previous bin.
    prev = st[a - 1] if a > 0 else -np.inf
    seg = (f.steps > prev) & (f.steps <= st[b])
    in_raw = seg & (f.values >= lo) & (f.values <= hi)
    onset = int(f.steps[np.argmax(in_raw)]) if in_raw.any() else int(st[a])
    end = int(f.steps[-1]) if b == nb - 1 else int(st[b])
    stretch = f.values[(f.steps >= onset) & (f.steps <= end)]
    med = float(np.median(stretch))
    spread = mad(stretch)
    if spread > hi - lo:
        return  # wanders across the band rather than sitting at the floor
    to_end = b >= nb - 1
    severity = Severity.ERROR if to_end and inferred != "padded-multiple" else Severity.WARNING
    frac = length / nb
    what = f"ln({vocab})" if vocab else "ln(V)"
    evidence = {
        "median_loss": med,
        "floor": floor,
        "vocab_size": vocab,
        "onset_step": onset,
        "end_step": end,
        "fraction_of_run": frac,
        "band_low": lo,
        "band_high": hi,
        "loss_dtype": run.fact("loss_dtype") or "unknown (allowed bf16 spacing)",
        "still_at_floor_at_end": to_end,
    }
    if inferred:
        evidence["inferred_vocab_size"] = vocab
        evidence["inferred_from"] = inferred
    lr = run.get("lr")
    if lr is not None:
        lf = lr.finite()
        sel = lf.values[(lf.steps >= onset) & (lf.steps <= end)]
        if sel.size:
            evidence["median_lr_on_plateau"] = float(np.median(sel))
    yield Hit(
        title=(
            f"Loss is stuck at the uniform floor {what} = {floor:.4f} "
            f"(median {med:.6g}) from step {onset} to {end}"
            + (" (V inferred from the plateau)" if inferred else "")
        ),
        step=onset,
        end_step=end,
        evidence=evidence,
        explanation=(
            "A loss of ln(V) is what a model scores when it gives every token (class) the "
            "same probability: its output no longer depends on the input. Sitting there "
            f"for {frac:.0%} of the run means nothing is being learned; after a fall from "
            "a high start it means the run only undid a broken starting point."
        ),
        prescription=(
            "Check the first-batch loss and the starting checkpoint's tensor stats; check "
            "the logged LR is non-zero and right for the regime (pre-training ~3e-4, not "
            "1e-6) and that the scheduler steps; check the trainable-parameter count. "
            "Relaunch from a clean checkpoint with a corrected LR."
        ),
        severity=severity,
    )
