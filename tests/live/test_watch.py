"""traindoc watch on a run being written by another process."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

from traindoc.live.command import watch
from traindoc.live.watch import Watcher

WRITER = """
import json, math, sys, time
out = sys.argv[1]
with open(out + "/metrics.jsonl", "a") as f:
    for step in range(1, 31):
        loss = 10.8 - 0.1 * step if step < 20 else math.nan
        f.write(json.dumps({"step": step, "loss": loss, "time": time.time()}) + "\\n")
        f.flush()
        time.sleep(0.05)
time.sleep(60)  # alive, but writing nothing: a stall
"""


def test_watch_reports_findings_then_the_stall(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)])
    try:
        w = Watcher(tmp_path, stall_after=1.0)
        rules, stall, t0 = [], None, time.monotonic()
        while stall is None and time.monotonic() - t0 < 30:
            u = w.poll()
            rules += [f.rule for f in u.findings]
            stall = u.stall
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    assert "nonfinite-loss" in rules
    assert stall is not None and stall.rule == "stalled-training"
    assert stall.evidence["stalled_after_step"] == 30
    assert rules.index("nonfinite-loss") < len(rules)  # findings came before the stall


def test_watch_command_once(tmp_path: Path, capsys) -> None:
    with (tmp_path / "metrics.jsonl").open("w") as f:
        for step in range(1, 6):
            f.write(json.dumps({"step": step, "loss": 96.0 if step == 1 else math.nan}) + "\n")
    assert watch(tmp_path, once=True) == 1
    out = capsys.readouterr().out
    assert "nonfinite-loss" in out
    assert watch(tmp_path / "missing", once=True) == 2
