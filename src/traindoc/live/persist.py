"""JSONL persistence of a live run: <output_dir>/traindoc/{metrics,findings}.jsonl.

The only place traindoc ever writes, and only in live mode. `traindoc diagnose
<output_dir>` reads both back: metrics.jsonl is a plain JSONL metrics log for
the ordinary JSONL reader (run_config.json beside it carries the facts the
monitor was given, vocab_size and regime), and readers.live reads the findings.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import IO, Any

from traindoc.model import Finding
from traindoc.readers.live import CONFIG, DIRNAME, FINDINGS, METRICS, findings_file, read

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


def read_findings(path: str | Path) -> list[Finding]:
    """Findings recorded by a live run (its output dir, traindoc/ dir or findings.jsonl),
    each with evidence["live"] = {action, time}."""
    p = Path(path)
    found = p if p.is_file() else findings_file(p)
    return list(read(found)[0]) if found else []
