"""JSONL persistence of a live run: <output_dir>/traindoc/{metrics,findings}.jsonl.

The only place traindoc ever writes, and only in live mode. metrics.jsonl is a
plain JSONL metrics log, so `traindoc diagnose <output_dir>/traindoc` reads it
back with the ordinary JSONL reader; run_config.json beside it carries the facts
the monitor was given (vocab_size, regime) for that reader to pick up.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import IO, Any

from traindoc.model import Finding

DIRNAME = "traindoc"
METRICS = "metrics.jsonl"
FINDINGS = "findings.jsonl"
CONFIG = "run_config.json"
# Metric lines are buffered and flushed at most this often: one write syscall
# per step would be most of the monitor's cost on a fast loop.
FLUSH_S = 1.0


class Sink:
    def __init__(self, output_dir: str | Path, facts: dict[str, Any]) -> None:
        self.dir = Path(output_dir) / DIRNAME
        self.dir.mkdir(parents=True, exist_ok=True)
        if facts:
            (self.dir / CONFIG).write_text(json.dumps(facts, indent=1, default=str) + "\n")
        self._metrics: IO[str] = (self.dir / METRICS).open("a", buffering=1 << 16)
        self._findings: IO[str] = (self.dir / FINDINGS).open("a", buffering=1)
        self._flushed = time.monotonic()

    def metrics(self, record: dict[str, Any]) -> None:
        self._metrics.write(json.dumps(record, default=_num) + "\n")
        now = time.monotonic()
        if now - self._flushed >= FLUSH_S:
            self._metrics.flush()
            self._flushed = now

    def finding(self, finding: Finding, action: str, t: float) -> None:
        self._metrics.flush()
        rec = {"time": t, "action": action, **finding.to_dict()}
        self._findings.write(json.dumps(rec, default=_num) + "\n")

    def flush(self) -> None:
        self._metrics.flush()
        self._findings.flush()

    def close(self) -> None:
        for f in (self._metrics, self._findings):
            if not f.closed:
                f.close()


def _num(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return v
    return str(v)


def read_findings(path: str | Path) -> list[dict[str, Any]]:
    """Findings recorded by a live run (a traindoc/ dir or its findings.jsonl)."""
    p = Path(path)
    if p.is_dir():
        p = p / FINDINGS if (p / FINDINGS).is_file() else p / DIRNAME / FINDINGS
    if not p.is_file():
        return []
    out = []
    for line in p.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash mid-write
        if isinstance(rec, dict):
            out.append(rec)
    return out
