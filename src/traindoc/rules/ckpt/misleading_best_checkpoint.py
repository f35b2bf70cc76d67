"""misleading-best-checkpoint: the checkpoint called "best" is broken or not the best."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.model.checkpoint import CheckpointSummary
from traindoc.rules.api import Hit, rule
from traindoc.rules.ckpt._common import checkpoints, exploded, nonfinite, zeroed


@dataclass(frozen=True)
class Params:
    # Same thresholds as exploded-weights, so "unhealthy" means what that rule says.
    ratio: float = 10.0
    ratio_alone: float = 100.0
    # A metric better by less than this (relative) is a tie, not a better checkpoint.
    metric_tol: float = 1e-3


def _problems(c: CheckpointSummary, p: Params) -> list[str]:
    out = [
        f"{e.tensor.name} exploded (std {e.tensor.std:.3g})"
        for e in exploded(c, p.ratio, p.ratio_alone)
    ]
    out += [f"{t.name} has {t.nan} NaN / {t.inf} Inf" for t in nonfinite(c)]
    out += [f"{t.name} is all zero" for t in zeroed(c)]
    return out


@rule(
    "misleading-best-checkpoint",
    minimum="a checkpoint labelled best with a metric, and the eval curve",
    family="ckpt",
    qualifier="{checkpoint}",  # one finding per checkpoint
    severity=Severity.ERROR,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """The checkpoint called best (by its name or best_model_checkpoint) is not the best.

    **What it does.** For each checkpoint labelled best, by a directory name
    containing "best" or by trainer_state.json's `best_model_checkpoint`:
    error if its tensors are unhealthy (exploded, NaN/Inf or all-zero: the
    same tests as those rules) while another checkpoint of the run is
    healthy; warning if another checkpoint has a clearly better recorded
    eval metric.

    **Why it matters.** The exploded-head run: the broken checkpoint had passed a head-warmup
    phase and was named "best"; the run started from it and spent 300 steps
    undoing the damage. Names lie: verify a checkpoint by its statistics and
    its first-batch loss, never by its label alone.

    **Known false positives.** `best_model_checkpoint` follows
    `metric_for_best_model`, which may not be eval loss; a "better" eval loss
    elsewhere is then only a warning.

    **What to do.** Start from the healthy checkpoint named in the evidence,
    and rename or delete the misleading one.
    """
    cks = checkpoints(run)
    health = {c.path: _problems(c, p) for c in cks}
    for c in cks:
        if not c.labelled_best:
            continue
        label = "named" if c.labelled_best == "name" else "recorded as best_model_checkpoint"
        bad = health[c.path]
        healthy = [o for o in cks if o.path != c.path and not health[o.path] and o.tensors]
        if bad:
            alt = healthy[-1].name if healthy else None
            yield Hit(
                title=(
                    f"Checkpoint {c.name!r} is {label} best but is broken: {bad[0]}"
                    + (f"; {alt!r} is healthy" if alt else "")
                ),
                step=c.step,
                evidence={
                    "checkpoint": c.name,
                    "path": c.path,
                    "labelled_by": c.labelled_best,
                    "problems": bad,
                    "healthy_alternative": alt,
                },
                explanation=(
                    "The label says best, the tensors say broken. A run started or resumed "
                    "from it inherits the damage; the label usually comes from an earlier "
                    "phase's metric or from a copy made before the weights went bad."
                ),
                prescription=(
                    f"Start from {alt!r} instead and rename or delete {c.name!r}."
                    if alt
                    else f"Do not use {c.name!r}; re-create a clean checkpoint."
                ),
                severity=Severity.ERROR if alt else Severity.WARNING,
            )
            continue
        if c.metric is None:
            continue
        sign = -1.0 if c.greater_is_better else 1.0
        better = [
            o for o in cks
            if o.metric is not None and o.path != c.path
            and sign * (c.metric - o.metric) > p.metric_tol * max(abs(c.metric), 1e-12)
        ]  # fmt: skip
        if better:
            top = min(better, key=lambda o: sign * o.metric)
            yield Hit(
                title=(
                    f"Checkpoint {c.name!r} is {label} best, but {top.name!r} has a better "
                    f"{c.metric_name or 'metric'} ({top.metric:.4g} vs {c.metric:.4g})"
                ),
                step=c.step,
                evidence={
                    "checkpoint": c.name,
                    "labelled_by": c.labelled_best,
                    "metric": c.metric,
                    "metric_name": c.metric_name,
                    "better_checkpoint": top.name,
                    "better_metric": top.metric,
                },
                explanation=(
                    "The checkpoint labelled best does not have the best recorded metric: the "
                    "label was set on another metric, by an earlier phase, or copied by hand."
                ),
                prescription=f"Compare {c.name!r} and {top.name!r} before choosing where to start.",
                severity=Severity.WARNING,
            )
