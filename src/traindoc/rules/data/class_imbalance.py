"""class-imbalance: the label distribution is heavily skewed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pct, summary


@dataclass(frozen=True)
class Params:
    # Largest / smallest class of 10:1 is the usual line past which plain
    # cross-entropy learns mostly the majority class.
    ratio: float = 10.0
    # ... or a rare class under 1% of the samples, whatever the ratio.
    min_share: float = 0.01
    # More classes than this: not a classification label (ids, free text).
    max_classes: int = 200


@rule(
    "class-imbalance",
    minimum="a dataset audit (data found with the run or `traindoc data`) with a label column",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Class labels heavily skewed: largest/smallest class >= 10x, or a class under 1%.

    **What it does.** Reads the label distribution of categorical labels and
    compares the largest class with the smallest.

    **Why it matters.** The LoRA-plateau run lists class imbalance among the causes of the
    oscillating plateau: the loss falls fast to the majority-class prior and
    stays there, and the minority classes barely move the gradient.

    **Known false positives.** A skew that mirrors the deployment distribution
    is sometimes intended; judge by per-class metrics, not accuracy.

    **What to do.** Re-sample (over-sample the rare classes or under-sample the
    common one), weight the loss by inverse class frequency, or collect more
    minority samples; report per-class metrics.
    """
    d = summary(run)
    if d is None or not d.labels or d.label_kind != "class":
        return
    counts = dict(d.labels)
    if len(counts) < 2 or len(counts) > p.max_classes:
        return
    total = sum(counts.values())
    big = max(counts, key=counts.__getitem__)
    small = min(counts, key=counts.__getitem__)
    ratio = counts[big] / max(counts[small], 1)
    share = counts[small] / total
    if ratio < p.ratio and share >= p.min_share:
        return
    yield Hit(
        title=f"Class {small!r} has {counts[small]} samples ({pct(share)}), {ratio:.0f}x fewer than {big!r}",
        evidence={
            "labels": counts,
            "ratio": ratio,
            "majority": big,
            "minority": small,
            "minority_share": share,
            "majority_share": counts[big] / total,
        },
        explanation=(
            "With a heavily skewed distribution the loss quickly reaches the majority-class "
            "prior and plateaus; the rare classes contribute too little gradient to be learned."
        ),
        prescription=(
            "Over-sample the rare classes or weight the loss by inverse class frequency, and "
            "track per-class recall rather than accuracy."
        ),
    )
