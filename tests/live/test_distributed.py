"""torch.distributed (2 gloo ranks under torchrun): a hung rank and a NaN on one rank."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

import contextlib

from traindoc.live.persist import read_findings

WORKER = Path(__file__).with_name("_ddp_worker.py")
ROOT = Path(__file__).parents[2]


def _torchrun(mode: str, out: Path) -> subprocess.Popen:
    log = (out / "torchrun.log").open("wb")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return subprocess.Popen(
        [*cmd, str(WORKER), mode, str(out)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _descendants(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for k in map(int, kids):
            out += [k, *_descendants(k)]
    return out


def _kill(proc: subprocess.Popen, out: Path) -> str:
    """Kill torchrun and the workers it started (by pid: they may leave its group)."""
    for pid in [*_descendants(proc.pid), proc.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)
    return (out / "torchrun.log").read_text(errors="replace")


def _log(out: Path) -> str:
    path = out / "torchrun.log"
    return path.read_text(errors="replace") if path.exists() else ""


def test_hung_rank_is_reported(tmp_path: Path) -> None:
    proc = _torchrun("hang", tmp_path)
    try:
        deadline = time.monotonic() + 60  # hard timeout
        found: list = []
        while time.monotonic() < deadline and proc.poll() is None:
            found = [f for f in read_findings(tmp_path) if f.rule == "stalled-training"]
            if found:
                break
            time.sleep(0.2)
        # the hung rank's own watchdog fires about when rank 0's does: give its stderr
        # the same hard deadline to reach torchrun's log (it lags under load)
        while found and time.monotonic() < deadline and "rank 1" not in _log(tmp_path):
            time.sleep(0.2)
    finally:
        log = _kill(proc, tmp_path)
    assert found, log[-3000:]
    ev = found[0].evidence
    assert ev["stalled_after_step"] == 10
    assert "backward" in ev["stuck_thread_stack"]  # rank 0 waits in DDP's all-reduce
    assert "rank 1" in log  # the hung rank's own watchdog reported too (stderr)


def test_nan_on_one_rank_stops_all(tmp_path: Path) -> None:
    proc = _torchrun("nan", tmp_path)
    try:
        proc.wait(timeout=90)
    finally:
        log = _kill(proc, tmp_path)
    results = [json.loads((tmp_path / f"result-{r}.json").read_text()) for r in (0, 1)]
    assert [r["stopped_at"] for r in results] == [5, 5], log[-3000:]
    assert any(f.rule == "nonfinite-loss" for f in read_findings(tmp_path))


def test_straggler_rank_is_named_by_the_throughput_rule(tmp_path: Path) -> None:
    proc = _torchrun("straggler", tmp_path)
    try:
        proc.wait(timeout=90)
    finally:
        log = _kill(proc, tmp_path)
    found = [f for f in read_findings(tmp_path) if f.rule == "throughput-drop"]
    assert [f.id for f in found] == ["throughput-drop@rank-1"], log[-3000:]
    assert found[0].evidence["rank"] == 1 and found[0].evidence["ratio"] >= 1.5
    assert found[0].family == "resume" and found[0].step is not None and found[0].step <= 30
