"""sequence-truncation: samples longer than max_seq_len are cut during training."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pct, summary


@dataclass(frozen=True)
class Params:
    # A few long outliers lose their tails harmlessly; past 5% of samples the
    # truncated part (often the answer, which comes last) is a real loss of signal.
    warning_rate: float = 0.05


@rule(
    "sequence-truncation",
    minimum="a dataset audit and the max sequence length",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Samples whose estimated token count exceeds max_seq_len: their ends are cut.

    **What it does.** With a max_seq_len given (`--max-seq-len`), counts the
    samples whose estimated length (characters / 4, no tokenizer loaded)
    exceeds it.

    **Why it matters.** Trainers truncate silently. In instruction and chat
    data the answer comes last, so truncation removes exactly the tokens the
    loss is computed on, and the model learns to stop mid-answer.

    **Known false positives.** The characters/4 estimate is for English
    prose; code and non-Latin scripts take more tokens per character, so
    they are under-counted, and very repetitive text may be over-counted.

    **What to do.** Raise max_seq_len, filter or split the long samples, or
    truncate from the left for chat data so the answer survives.
    """
    d = summary(run)
    if d is None or not d.max_seq_len or d.over_max_seq_len == 0:
        return
    rate = d.rate(d.over_max_seq_len, False) if d.rows else 0.0
    yield Hit(
        title=f"{d.over_max_seq_len} samples ({pct(rate)}) exceed max_seq_len {d.max_seq_len} (estimated)",
        evidence={
            "over": d.over_max_seq_len,
            "rate": rate,
            "max_seq_len": d.max_seq_len,
            "length_words": dict(d.length),
        },
        explanation=(
            "Samples longer than max_seq_len are cut by the trainer; the cut part, usually the "
            "answer, never contributes to the loss."
        ),
        prescription=(
            "Raise max_seq_len, drop or split the long samples, or truncate from the left so "
            "the answer survives."
        ),
        severity=Severity.WARNING if rate >= p.warning_rate else Severity.INFO,
    )
