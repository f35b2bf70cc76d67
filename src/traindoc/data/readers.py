"""Dataset readers: JSONL, JSON arrays, CSV/TSV, Parquet, Arrow (HF save_to_disk), shards.

Every reader streams record batches of `(line, index, dict)` so the audit never
holds a corpus in memory; a JSON array is the one exception (it is parsed
whole, and said so). A malformed record is counted, noted with its path and
line, and skipped; the rest is audited. pyarrow is imported only for
Parquet and Arrow files.
"""

from __future__ import annotations

import csv
import glob
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traindoc.model.numbers import loads

FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".arrow": "arrow",
}
Batch = list[tuple[int | None, int, dict[str, Any]]]  # (line, index in file, record)


class DataError(Exception):
    """Unusable input: the message names the file and, where known, the line."""


@dataclass
class Notes:
    """Reader messages; the first `keep` are kept verbatim, the rest only counted."""

    keep: int = 20
    messages: list[str] = field(default_factory=list)
    malformed: int = 0
    dropped: int = 0

    def add(self, msg: str, malformed: bool = False) -> None:
        self.malformed += malformed
        if len(self.messages) < self.keep:
            self.messages.append(msg)
        else:
            self.dropped += 1

    def all(self) -> tuple[str, ...]:
        more = [f"... and {self.dropped} more"] if self.dropped else []
        return (*self.messages, *more)


def discover(path: str | Path) -> list[Path]:
    """The data files behind a path: a file, a glob, a directory of shards, or
    an HF `save_to_disk` directory (its `state.json` lists the shards in order)."""
    text = str(path)
    if any(c in text for c in "*?["):
        files = sorted(Path(p) for p in glob.glob(text, recursive=True))
        files = [f for f in files if f.suffix.lower() in FORMATS]
        if not files:
            raise DataError(f"{text}: no data files match")
        return files
    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: no such file or directory")
    if p.is_file():
        if p.suffix.lower() not in FORMATS:
            raise DataError(f"{p}: unknown data format; supported: {', '.join(sorted(FORMATS))}")
        return [p]
    state = p / "state.json"
    if state.is_file():
        try:
            names = [d["filename"] for d in json.loads(state.read_text())["_data_files"]]
            return [p / n for n in names]
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{state}: not a datasets state.json ({exc})") from None
    if (p / "dataset_dict.json").is_file():
        return discover(p / splits(p)[0])
    files = sorted(
        f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in FORMATS and not _meta(f, p)
    )
    if not files:
        raise DataError(f"{p}: no data files ({', '.join(sorted(FORMATS))}) in this directory")
    return files


def splits(path: Path) -> list[str]:
    """A `DatasetDict` directory's splits, train first."""
    names = json.loads((path / "dataset_dict.json").read_text()).get("splits", [])
    return sorted(names, key=lambda s: (s != "train", s))


def _meta(f: Path, root: Path) -> bool:
    # datasets' own bookkeeping next to the shards is not data.
    return f.name in ("dataset_info.json", "state.json", "dataset_dict.json")


def read(files: list[Path], notes: Notes, batch: int = 8192) -> Iterator[tuple[int, Batch]]:
    """(file index, batch of records) over all files in order."""
    for i, f in enumerate(files):
        if not f.exists():
            notes.add(f"{f}: missing (listed but not found)")
            continue
        if f.stat().st_size == 0:
            notes.add(f"{f}: empty file")
            continue
        kind = FORMATS.get(f.suffix.lower(), "")
        reader = _READERS[kind]
        rows = 0
        try:
            for b in reader(f, notes, batch):
                if b:
                    rows += len(b)
                    yield i, b
        except PermissionError:
            raise DataError(f"{f}: permission denied") from None
        except (OSError, ValueError, RecursionError) as exc:  # a corrupt page, a bad block
            where = f"after {rows} rows" if rows else "before the first row"
            raise DataError(f"{f}: unreadable {kind or 'data'} file {where} ({why(exc)})") from None


def why(exc: BaseException) -> str:
    """An exception in one line (pyarrow's span several), for a one-line message."""
    text = " ".join(str(exc).split())
    text = text[:160] + "..." if len(text) > 160 else text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _jsonl(f: Path, notes: Notes, batch: int) -> Iterator[Batch]:
    out: Batch = []
    index = 0
    with open(f, "rb") as fh:
        head = fh.read(64).lstrip()
        fh.seek(0)
        if head.startswith(b"["):
            yield from _json_array(f, notes, batch)
            return
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                notes.add(f"{f}:{n}: not UTF-8 (byte {exc.start}); undecodable bytes replaced")
                text = raw.decode("utf-8", errors="replace")
            try:
                rec = loads(text)
            except ValueError as exc:
                msg = getattr(exc, "msg", None) or why(exc)
                notes.add(f"{f}:{n}: malformed JSON ({msg}); line skipped", malformed=True)
                continue
            if not isinstance(rec, dict):
                notes.add(f"{f}:{n}: a {type(rec).__name__}, not an object; skipped", True)
                continue
            out.append((n, index, rec))
            index += 1
            if len(out) >= batch:
                yield out
                out = []
    yield out


def _json_array(f: Path, notes: Notes, batch: int) -> Iterator[Batch]:
    raw = f.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        notes.add(f"{f}: not UTF-8 (byte {exc.start}); undecodable bytes replaced")
        text = raw.decode("utf-8", errors="replace")
    try:
        data = loads(text)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise DataError(f"{f}:{exc.lineno}: malformed JSON ({exc.msg})") from None
        raise DataError(f"{f}: malformed JSON ({why(exc)})") from None
    if isinstance(data, dict):  # {"data": [...]} or {"train": [...]}: the first list
        data = next((v for v in data.values() if isinstance(v, list)), None)
    if not isinstance(data, list):
        raise DataError(f"{f}: JSON holds neither an array of records nor JSON lines")
    out: Batch = []
    for index, rec in enumerate(data):
        if not isinstance(rec, dict):
            notes.add(f"{f}[{index}]: a {type(rec).__name__}, not an object; skipped", True)
            continue
        out.append((None, index, rec))
        if len(out) >= batch:
            yield out
            out = []
    yield out


def _csv(f: Path, notes: Notes, batch: int, delimiter: str = ",") -> Iterator[Batch]:
    csv.field_size_limit(1 << 30)
    with open(f, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        reader = csv.DictReader(text, delimiter=delimiter)
        out: Batch = []
        bad_utf8 = False
        index = 0
        line = reader.line_num + 1
        for rec in reader:
            if None in rec:  # more cells than the header
                notes.add(
                    f"{f}:{line}: {len(rec[None]) + len(rec) - 1} cells, header has "  # type: ignore[index]
                    f"{len(reader.fieldnames or [])}; row skipped",
                    True,
                )
                line = reader.line_num + 1
                continue
            if not bad_utf8 and any("\ufffd" in (v or "") for v in rec.values()):
                notes.add(f"{f}:{line}: not UTF-8; undecodable bytes replaced")
                bad_utf8 = True
            out.append((line, index, dict(rec)))
            index += 1
            line = reader.line_num + 1
            if len(out) >= batch:
                yield out
                out = []
        yield out


def _tsv(f: Path, notes: Notes, batch: int) -> Iterator[Batch]:
    return _csv(f, notes, batch, "\t")


def _parquet(f: Path, notes: Notes, batch: int) -> Iterator[Batch]:
    pq = _pyarrow("parquet")
    try:
        pf = pq.ParquetFile(f)
    except Exception as exc:
        raise DataError(f"{f}: not a readable Parquet file ({why(exc)})") from None
    index = 0
    for rb in pf.iter_batches(batch_size=batch):
        rows = rb.to_pylist()
        yield [(None, index + k, r) for k, r in enumerate(rows)]
        index += len(rows)


def _arrow(f: Path, notes: Notes, batch: int) -> Iterator[Batch]:
    """HF datasets write the IPC *stream* format; plain Arrow files use the file format."""
    pa = _pyarrow()
    import pyarrow.ipc as ipc

    src = pa.memory_map(str(f))
    try:
        reader: Any = ipc.open_stream(src)
        batches = iter(reader)
    except pa.ArrowInvalid:
        try:
            fr = ipc.open_file(src)
        except pa.ArrowInvalid as exc:
            raise DataError(f"{f}: not an Arrow stream or file ({why(exc)})") from None
        batches = (fr.get_batch(i) for i in range(fr.num_record_batches))
    index = 0
    for rb in batches:
        for lo in range(0, rb.num_rows, batch):
            rows = rb.slice(lo, batch).to_pylist()
            yield [(None, index + k, r) for k, r in enumerate(rows)]
            index += len(rows)


def _pyarrow(sub: str = "") -> Any:
    try:
        import pyarrow as pa

        if sub == "parquet":
            import pyarrow.parquet as pq

            return pq
        return pa
    except ImportError:
        raise DataError(
            "reading Parquet/Arrow needs pyarrow: pip install 'traindoc[data]'"
        ) from None


_READERS = {
    "jsonl": _jsonl,
    "json": _jsonl,  # sniffs `[` and falls back to the array reader
    "csv": _csv,
    "tsv": _tsv,
    "parquet": _parquet,
    "arrow": _arrow,
}


def format_of(f: Path) -> str:
    return FORMATS.get(f.suffix.lower(), "unknown")
