"""A dataset audit as data: counts, rates and a few example rows. No I/O here.

`traindoc.data.audit` streams a dataset once (twice when there are examples
to quote) and fills a `DataSummary`; the data rules read only it. Rows are
0-based indices over all shards in order; `line` is the 1-based line in the
file where the format has lines (JSONL, CSV), else None and `index` is the
row within its file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class RowRef:
    row: int
    path: str = ""
    line: int | None = None
    index: int | None = None  # row within its file
    preview: str = ""
    label: str | None = None  # the label or the start of the answer, when it matters

    @property
    def where(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}"
        return f"{self.path}[{self.index}]" if self.index is not None else f"row {self.row}"


@dataclass(frozen=True)
class Pair:
    a: RowRef
    b: RowRef
    similarity: float = 1.0


@dataclass(frozen=True)
class DataSummary:
    """What a dataset holds. Counts are rows; rates are over `rows` (eval: `eval_rows`)."""

    paths: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    schema: str = "text"  # text | classification | alpaca | prompt-completion | messages | ...
    fields: tuple[str, ...] = ()  # the fields the input text is built from
    label_field: str | None = None
    label_kind: str | None = None  # "class" (categorical) | "text" (an answer) | None
    rows: int = 0
    empty: int = 0
    duplicates: int = 0  # rows that repeat an earlier row exactly (after normalisation)
    duplicate_groups: int = 0
    near_duplicates: int = 0  # rows near-identical to an earlier row (not exact copies)
    near_pairs: int = 0
    conflicts: int = 0  # rows in a same-or-near-same-input, different-label pair
    conflict_pairs: int = 0
    labels: Mapping[str, int] | None = None  # class -> count, for categorical labels
    eval_rows: int = 0
    leaked: int = 0  # eval rows whose input appears (exactly or nearly) in train
    leaked_exact: int = 0
    code_share: float = 0.0  # share of non-empty samples that look like source code
    scripts: Mapping[str, float] = field(default_factory=dict)  # writing system -> share
    length: Mapping[str, float] = field(default_factory=dict)  # words: mean, p50, p95, max
    length_modes: tuple[float, ...] = ()  # typical lengths (words) of distinct length modes
    max_seq_len: int | None = None
    over_max_seq_len: int = 0  # samples whose estimated tokens exceed max_seq_len
    threshold: float = 0.8
    malformed: int = 0
    notes: tuple[str, ...] = ()
    empty_examples: tuple[RowRef, ...] = ()
    duplicate_examples: tuple[Pair, ...] = ()
    near_examples: tuple[Pair, ...] = ()
    conflict_examples: tuple[Pair, ...] = ()
    leak_examples: tuple[Pair, ...] = ()
    seconds: float = 0.0

    @property
    def samples(self) -> int:
        """Non-empty rows."""
        return self.rows - self.empty

    @property
    def unique(self) -> int:
        """Representative samples: non-empty, exact and near copies counted once."""
        return max(self.samples - self.duplicates - self.near_duplicates, 0)

    def rate(self, count: int, eval_side: bool = False) -> float:
        base = self.eval_rows if eval_side else self.rows
        return count / base if base else 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["samples"], out["unique"] = self.samples, self.unique
        out["seconds"] = round(self.seconds, 3)
        return out

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> DataSummary:
        """Builds a summary from plain values (tests, JSON); unknown keys are an error."""
        known = {f.name for f in fields(DataSummary)}
        bad = set(d) - known
        if bad:
            raise ValueError(f"unknown DataSummary fields {sorted(bad)}; valid: {sorted(known)}")
        kw: dict[str, Any] = {}
        for k, v in d.items():
            if k.endswith("_examples"):
                kw[k] = tuple(_example(x) for x in v)
            elif isinstance(v, list):
                kw[k] = tuple(v)
            else:
                kw[k] = v
        return DataSummary(**kw)


def _example(x: Any) -> RowRef | Pair:
    if isinstance(x, (RowRef, Pair)):
        return x
    if "a" in x:
        return Pair(RowRef(**x["a"]), RowRef(**x["b"]), float(x.get("similarity", 1.0)))
    return RowRef(**x)
