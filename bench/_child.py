"""One measurement in a fresh interpreter, so each peak RSS (VmHWM) is its own.

The JSONL, trainer_state and W&B benches each write a child script that prints
`seconds points peak_rss kept_bytes interpreter_rss` as its last five fields.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_child(code: str, which: str, path: Path) -> tuple[float, int, int, int, int]:
    """(seconds, points, peak RSS, kept bytes, interpreter RSS) of `which` on `path`."""
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    r = subprocess.run(
        [sys.executable, "-c", code, which, str(path)], capture_output=True, text=True, env=env
    )
    if r.returncode:
        sys.exit(f"{which} failed:\n{r.stderr[-2000:]}")
    t, n, rss, kept, base = r.stdout.split()[-5:]
    return float(t), int(n), int(rss), int(kept), int(base)
