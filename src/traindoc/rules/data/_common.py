"""Helpers shared by the data rules (private: not loaded as a rule)."""

from __future__ import annotations

from typing import Any

from traindoc.model import Run
from traindoc.model.data import DataSummary, Pair, RowRef


def summary(run: Run) -> DataSummary | None:
    """The run's dataset audit, or None when no audit was run (the rule then has nothing to say)."""
    d = run.data
    return d if isinstance(d, DataSummary) else None


def pairs(examples: tuple[Pair, ...]) -> list[dict[str, Any]]:
    """Example pairs as evidence: where each side is, its similarity, the labels when known."""
    out = []
    for p in examples:
        item: dict[str, Any] = {
            "a": p.a.where,
            "b": p.b.where,
            "similarity": round(p.similarity, 3),
        }
        if p.a.label is not None or p.b.label is not None:
            item["labels"] = [p.a.label, p.b.label]
        if p.a.preview:
            item["text"] = p.a.preview
        out.append(item)
    return out


def rows(examples: tuple[RowRef, ...]) -> list[str]:
    return [r.where for r in examples]


def pct(x: float) -> str:
    return f"{100 * x:.1f}%" if x >= 0.001 else f"{100 * x:.2g}%"
