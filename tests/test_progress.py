"""Progress on long work: a bar on a terminal's stderr after ~2 s, nothing when piped."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from traindoc import progress
from traindoc.ckpt.api import summarize

ROOT = Path(__file__).parents[1]
CKPT = ROOT / "tests" / "ckpt" / "assets" / "healthy-run"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_waits_for_the_delay_then_draws() -> None:
    out = _Tty()
    with progress.task("auditing x", unit="rows", stream=out, delay=0.0) as bar:
        for _ in range(5):
            bar.advance(100)
            time.sleep(0.05)
        assert bar.shown
    assert "auditing x" in out.getvalue()
    quick = _Tty()
    with progress.task("quick", stream=quick, delay=5.0) as bar:
        bar.advance(1)
    assert not bar.shown and quick.getvalue() == ""  # work under the delay: no bar


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch) -> None:
    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress.task("piped", delay=0.0) as bar:
        time.sleep(0.1)
        bar.advance(1)
    assert not bar.shown and sys.stderr.getvalue() == ""


def _data(tmp: Path) -> Path:
    f = tmp / "d.jsonl"
    f.write_text(
        "".join(json.dumps({"text": f"sample number {i} of many"}) + "\n" for i in range(10000))
    )
    return f


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != progress.ENV}
    return {**env, f"{progress.ENV}_DELAY": "0", "COLUMNS": "100"}


def test_cli_piped_has_no_bar_and_a_terminal_has_one(tmp_path: Path) -> None:
    f = _data(tmp_path)
    cmd = [sys.executable, "-m", "traindoc", "data", str(f)]
    piped = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=120)
    assert "auditing" not in piped.stderr + piped.stdout
    assert "\x1b[?25l" not in piped.stderr  # rich hides the cursor while a bar runs
    # stderr on a real pseudo-terminal: the bar is drawn there
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=_env())
    os.close(slave)
    seen = b""
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif p.poll() is not None:
            break
    p.wait(timeout=120)
    os.close(master)
    assert b"auditing" in seen or b"finding duplicates" in seen, seen[:300]


def test_checkpoint_stats_report_progress(monkeypatch, capsys) -> None:
    monkeypatch.setenv(progress.ENV, "always")
    found = summarize(CKPT)
    assert len(found) == 2
    assert "checking tensors" in capsys.readouterr().err


def test_console_log_read_shows_a_spinner(monkeypatch, capsys) -> None:
    from traindoc.readers import load_run

    monkeypatch.setenv(progress.ENV, "always")
    run = load_run(ROOT / "tests" / "corpus" / "console-hf-healthy")
    assert run.get("loss") is not None
    assert "reading" in capsys.readouterr().err
