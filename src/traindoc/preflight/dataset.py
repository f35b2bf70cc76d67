"""`preflight --data`: the data audit when it is importable, else a plain count.

The count (samples, empty samples and their lines) is enough for
dataset-too-small and empty-samples when the data extra is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traindoc.model import Fact, Input, Note
from traindoc.model.numbers import loads


def _audit(data: Path, notes: list[Note]) -> Any:
    """The data audit's summary (traindoc.data, its own issue) when it is importable."""
    try:
        from traindoc.data.audit import audit
        from traindoc.data.readers import DataError, discover
    except ImportError:
        return None
    try:
        return audit(discover(data)).summary
    except DataError as exc:
        notes.append(Note(str(data), f"data audit: {exc}"))
    except ImportError as exc:  # a format whose reader needs an extra (pyarrow)
        notes.append(Note(str(data), f"data audit skipped: {exc}"))
    return None


def data_facts(
    data: Path,
    facts: dict[str, Fact],
    inputs: list[Input],
    notes: list[Note],
    extra_data: list[Any],
) -> None:
    """The data audit's summary into `extra_data` and its size into the facts, or,
    when the audit is not importable, a plain count of samples and empty ones."""
    inputs.append(Input(str(data), "data"))
    summary = _audit(data, notes)
    if summary is not None:
        facts["data_audit"] = Fact(True, "traindoc.data.audit")
        extra_data.append(summary)
        rows = getattr(summary, "rows", 0)
        if rows and not ("dataset_size" in facts and facts["dataset_size"].source.startswith("--")):
            facts["dataset_size"] = Fact(int(rows), f"{data.name}: {rows} rows (data audit)")
        return
    n, empty, lines = _count(data, notes)
    if n is None:
        return
    if not ("dataset_size" in facts and facts["dataset_size"].source.startswith("--")):
        facts["dataset_size"] = Fact(n, f"{data.name}: {n} samples counted")
    facts["empty_samples"] = Fact(empty, f"{data.name}: counted")
    facts["empty_lines"] = Fact(lines[:5], f"{data.name}")


def _count(data: Path, notes: list[Note]) -> tuple[int | None, int, list[int]]:
    """(samples, empty samples, lines of the first empties) of a JSONL / JSON array / text file."""
    if data.suffix in (".parquet", ".arrow"):
        notes.append(Note(str(data), "not counted: Parquet/Arrow need the data audit"))
        return None, 0, []
    text = data.read_text(encoding="utf-8", errors="replace")
    records: list[tuple[int, Any]] = []
    if text.lstrip().startswith("["):
        try:
            records = list(enumerate(loads(text), 1))
        except ValueError:
            notes.append(Note(str(data), "not a JSON array; counted as lines"))
    if not records:
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((i, loads(line) if data.suffix in (".jsonl", ".json") else line))
            except ValueError:
                records.append((i, line))
    empty = [i for i, r in records if not _text(r).strip()]
    return len(records), len(empty), empty


def _text(rec: Any) -> str:
    if isinstance(rec, str):
        return rec
    if isinstance(rec, dict):
        return " ".join(_text(v) for v in rec.values() if isinstance(v, (str, list, dict)))
    if isinstance(rec, list):
        return " ".join(_text(v) for v in rec)
    return ""
