"""divergence's readings of a loss by its magnitude and sign rather than its rise: the
terms of a loss whose total is not logged (a GAN's players, an actor-critic's heads), and
a loss that runs off below zero.

A relative rise needs a level to rise from and a loss whose larger values are worse. A
discriminator's loss at 1e12 or a loss at -75,000 that falls further at every log needs
neither: no healthy term of any loss sits at the first, and no loss a model can reach
its floor of runs on like the second."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.losses import components
from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


def part_astronomical(
    run: Run, p: Params, astronomical: Callable[[Run, Params, Series], Hit | None]
) -> Hit | None:
    """A loss term (no total logged) that is `astronomical` by the total loss's own test:
    the term with the largest peak among those that pass. Only a term that is never
    negative is read (a loss proper: a discriminator's or a head's loss). A signed term
    is a raw score, a -Q or a log-likelihood: a WGAN critic's scores on real and fake
    samples (loss_real, loss_fake) are trained only through their difference, so both
    may drift far from 0 together (ProGAN's drift penalty exists for it)."""
    hits = []
    for name in components(run):
        s = run.get(name)
        if s is None or not len(s.finite()):
            continue
        f = s.finite()
        if float(f.values.min()) < 0:
            continue  # a signed score: its offset is free, only differences are trained
        if (hit := astronomical(run, p, f)) is not None:
            hits.append((float(hit.evidence.get("peak_loss", 0.0)), name, hit))
    if not hits:
        return None
    peak, name, hit = max(hits, key=lambda t: t[0])
    step = hit.step
    return replace(
        hit,
        title=(
            f"Loss term {name} reaches a magnitude of {fmt(peak)} at step {step}: "
            "the model has blown up"
        ),
        evidence={**hit.evidence, "signal": name},
        explanation=(
            f"{name} is one term of the objective (the run logs no total). A magnitude of "
            f"{fmt(peak)} is beyond any cross-entropy and any loss or score over normalised "
            "data: a player's or a head's outputs have grown without bound (a critic "
            "without a Lipschitz constraint, weights that overflowed), and every update "
            "computed from them is garbage."
        ),
    )


def runs_off_below_zero(p: Params, f: Series) -> Hit | None:
    """The last `below_points`+ logs all under `-below_scale`, each lower than the one
    before, and the fall of the later half of that stretch at least the earlier half's:
    a loss heading for -Inf at a pace that does not slow (warning).

    Cross-entropy, CTC, a transducer loss and any squared error are >= 0: one that reads
    negative is computed wrong (a likelihood above 1, warp-transducer's "forward backward
    likelihood mismatch"), and the optimizer drives the wrong sign without bound. A
    continuous log-likelihood can go negative, but a model's fit to data decelerates as
    it nears its best; a fall that keeps its pace (or speeds up) at thousands of nats has
    no best to reach: a variance collapsing to 0, a sign error."""
    v = f.values
    k = min(len(v), p.below_window)
    if k < p.below_points:
        return None
    tail = v[-k:]
    drops = -np.diff(tail)
    if not (bool(np.all(tail < -p.below_scale)) and bool(np.all(drops > 0))):
        return None
    half = drops.size // 2
    early, late = float(np.sum(drops[:half])), float(np.sum(drops[-half:]))
    if late < early:
        return None  # slowing down: a fit nearing its best, however far below 0
    s0, s1 = int(f.steps[-k]), int(f.steps[-1])
    return Hit(
        title=(
            f"Loss runs off below zero: {fmt(float(tail[0]))} at step {s0} to "
            f"{fmt(float(tail[-1]))} at step {s1}, lower at every log and not slowing"
        ),
        step=s0,
        end_step=s1,
        evidence={
            "signal": "loss below zero, falling without bound",
            "first_loss": float(tail[0]),
            "last_loss": float(tail[-1]),
            "points": k,
            "drop_early": early,
            "drop_late": late,
        },
        explanation=(
            "A cross-entropy, CTC or transducer loss and any squared error cannot go below "
            "0: one that does is computed wrong (a likelihood above 1), and the optimizer "
            "drives the error without bound. A continuous log-likelihood can be negative, "
            "but a fit decelerates as it nears its best; this loss falls as fast or faster "
            "at every log, thousands of nats below zero: it has no floor to reach, and "
            "typically ends in Inf/NaN."
        ),
        prescription=(
            "Check the loss's inputs against what it expects (log-probabilities vs logits, "
            "blank index, label and input lengths for CTC / transducer losses; a learned "
            "variance floored for a likelihood); a custom CUDA loss: run its gradient check."
        ),
        severity=Severity.WARNING,
    )
