"""heterogeneous-mix: strongly mixed domains (code with prose, scripts, length modes)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from traindoc.model import Run, Severity
from traindoc.rules.api import Hit, rule
from traindoc.rules.data._common import pct, summary


@dataclass(frozen=True)
class Params:
    # Code vs prose: a mix only when the minority side is a real share of the data;
    # a handful of code snippets in prose is normal.
    min_minority: float = 0.15
    # Same for writing systems (a stand-in for languages).
    min_script: float = 0.15


@rule(
    "heterogeneous-mix",
    minimum="a dataset audit with text samples",
    family="data",
    severity=Severity.WARNING,
    params=Params(),
)
def check(run: Run, p: Params) -> Iterator[Hit]:
    """Strongly mixed data: code with prose, several writing systems, or separate length modes.

    **What it does.** Reads the share of samples that look like source code,
    the share of each writing system (a proxy for language), and whether the
    sample lengths form separate modes (e.g. one-liners and long documents).

    **Why it matters.** The LoRA-plateau run: heterogeneous data (style, register, domain,
    code mixed with natural language) deepens the plateau, because the model
    tries to fit conflicting patterns with one set of weights.

    **Known false positives.** Deliberately multi-task or multilingual mixes;
    then check that each part is large enough and consider per-domain eval.

    **What to do.** Split by domain and train or evaluate per part, or balance
    the mix on purpose; with LoRA, consider one adapter per domain.
    """
    d = summary(run)
    if d is None or d.samples == 0:
        return
    parts: list[str] = []
    minority = min(d.code_share, 1 - d.code_share)
    if minority >= p.min_minority:
        parts.append(f"{pct(d.code_share)} code, {pct(1 - d.code_share)} prose")
    scripts = {k: v for k, v in d.scripts.items() if v >= p.min_script and k != "other"}
    if len(scripts) >= 2:
        parts.append(" / ".join(f"{k} {pct(v)}" for k, v in scripts.items()))
    if len(d.length_modes) >= 2:
        parts.append("length modes at ~" + ", ".join(f"{m:.0f}" for m in d.length_modes) + " words")
    if not parts:
        return
    # Length modes alone are a weaker sign than a mix of domains.
    weak = len(parts) == 1 and len(d.length_modes) >= 2
    yield Hit(
        title="Mixed data: " + "; ".join(parts),
        evidence={
            "code_share": d.code_share,
            "scripts": dict(d.scripts),
            "length_modes": list(d.length_modes),
        },
        explanation=(
            "Samples of very different kinds pull the same weights towards conflicting "
            "patterns; the loss settles in a band instead of falling."
        ),
        prescription=(
            "Split the data by domain (train or at least evaluate each part), or balance the "
            "mix deliberately; with LoRA consider one adapter per domain."
        ),
        severity=Severity.INFO if weak else None,
    )
