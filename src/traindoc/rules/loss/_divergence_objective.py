"""How sure divergence may be of a rise, judged by what the logged loss measures: a GAN
player's loss or an objective whose loss-term weights were re-weighted over the rise is
no quantity whose rise means the updates made the model worse."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run, Series, Severity
from traindoc.rules.api import Hit

if TYPE_CHECKING:
    from traindoc.rules.loss.divergence import Params


# A weight of a loss term (a VAE's beta / KL weight, a term's coefficient or lambda):
# logged, it shows the objective being re-weighted. Not weight decay or a weight norm.
_TERM_WEIGHT = re.compile(
    r"(?:^|[_/])(?:beta|kl_?(?:weight|coef|beta|scale)|\w*loss_?(?:weight|coef)|lambda\w*|"
    r"\w+_(?:weight|coef))$",
    re.I,
)


_NOT_TERM_WEIGHT = re.compile(r"decay|norm|ema|param|lr|momentum|beta[12]$", re.I)


def _graded_by_objective(run: Run, p: Params, hit: Hit, f: Series) -> Hit:
    """A relative test's hit, lowered where the logged loss is no quantity whose rise
    means the updates made the model worse: a GAN's (its players' losses rise and fall
    as each gains on the other: info), one whose objective was re-weighted over the rise
    (a logged loss-term weight that moved 2x or more, a VAE's KL annealed in: info), or a
    loss that goes negative (a log-likelihood, an ELBO: a relative rise has no zero to be
    measured from, and the sign may be the one maximised: at most a warning)."""
    onset = int(hit.evidence.get("onset_step", hit.step) or f.steps[0])
    note = _objective_note(run, p, onset, f)
    if note is None or (hit.severity or Severity.ERROR) <= note[1]:
        return hit
    why, severity = note
    return replace(hit, severity=severity, explanation=f"{hit.explanation} {why}".strip())


def _objective_note(run: Run, p: Params, onset: int, f: Series) -> tuple[str, Severity] | None:
    """Why a rise of this loss is weaker evidence than a cross-entropy's, and the most
    severe a relative test may then say; None for a plain loss."""
    if run.fact("task") == "gan":
        why = (
            "This is an adversarial run: a player's loss rises whenever the other gains on "
            "it, by design, so a rising loss alone does not show updates wrecking the model; "
            "judge it by samples or a quality metric (FID)."
        )
        return why, Severity.INFO
    if (w := _reweighted(run, p, onset, int(f.steps[-1]))) is not None:
        why = (
            f"The loss-term weight {w} moved over the rise: the objective itself changed (a "
            "KL or auxiliary term annealed in), so the total's rise is the new term's "
            "weight, not a worse model."
        )
        return why, Severity.INFO
    if float(np.mean(f.values < 0)) >= p.signed_share:
        why = (
            "The loss goes negative (a log-likelihood or an ELBO): it has no zero to measure "
            "a relative rise from, and a quantity that is maximised rises as it learns; "
            "check the sign it is logged with."
        )
        return why, Severity.WARNING
    return None


def _reweighted(run: Run, p: Params, start: int, end: int) -> str | None:
    """A logged loss-term weight whose value moved by `reweight_factor` or more (or from 0)
    between `start` and `end`: '<name> <before> -> <after>'."""
    for name in sorted(run.series):
        if not _TERM_WEIGHT.search(name) or _NOT_TERM_WEIGHT.search(name):
            continue
        s = run.get(name)
        g = s.finite() if s is not None else None
        if g is None or not len(g):
            continue
        at, to = g.values[g.steps <= start], g.values[(g.steps > start) & (g.steps <= end)]
        if not at.size or not to.size:
            continue
        a, b = abs(float(at[-1])), abs(float(to[-1]))
        if max(a, b) > 0 and max(a, b) >= p.reweight_factor * min(a, b):
            return f"{name} {fmt(float(at[-1]))} -> {fmt(float(to[-1]))}"
    return None
