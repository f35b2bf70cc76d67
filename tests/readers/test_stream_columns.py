"""Streaming JSONL: the same series at any chunk size (lines and keys cut anywhere, key
groups that split mid-file, a truncated last line), and the terminal-only progress bar."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from traindoc.readers import _progress, jsonl


def _log(path: Path) -> Path:
    lines = []
    for s in range(1, 400):
        rec = {"step": s, "loss": 3 - s / 1000, "lr": 1e-4 * s, "epoch": s / 400}
        if s > 200:  # a key that starts late: the train group splits
            rec["grad_norm"] = float("nan") if s == 250 else 1 + s % 7 / 10
        if s % 30 == 0:
            lines.append(json.dumps({"step": s, "eval_loss": 2.5, "epoch": s / 400}))
        if s % 97 == 0:
            rec.pop("lr")  # a key missing now and then
        if s % 50 == 0:
            rec["time"] = 1.7e9 + s  # a clock only sometimes
        lines.append(json.dumps(rec))
    text = "\n".join(lines) + '\n{"step": 400, "loss": 1.'  # a truncated last line
    path.write_text(text)
    return path


def _series(run) -> dict:
    return {
        k: (
            s.steps.tolist(),
            repr(s.values.tolist()),
            repr(None if s.times is None else s.times.tolist()),
        )
        for k, s in run.series.items()
    }


@pytest.mark.parametrize("chunk", [1, 13, 100, 4096])
def test_any_chunk_size_gives_the_whole_reads_series(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    path = _log(tmp_path / "metrics.jsonl")
    whole = jsonl.read(path)
    monkeypatch.setattr(jsonl, "_CHUNK", chunk)
    small = jsonl.read(path)
    assert _series(small) == _series(whole)
    assert small.notes == whole.notes
    assert any("truncated last line" in n.message for n in whole.notes)
    assert len(whole.series["grad_norm"]) == 199 and whole.series["loss"].steps[0] == 1


def test_keys_logged_together_share_one_read_only_step_column(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(json.dumps({"step": s, "loss": 1.0, "acc": 0.5}) + "\n" for s in range(9))
    )
    run = jsonl.read(path)
    a, b = run.series["loss"].steps, run.series["acc"].steps
    assert a is b and not a.flags.writeable


def test_progress_is_silent_off_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    with _progress.progress(tmp_path) as seen:
        seen(10)
    assert err.getvalue() == ""


def test_progress_draws_on_a_terminal_after_the_delay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("TRAINDOC_PROGRESS_DELAY", "0")
    f = tmp_path / "big.jsonl"
    f.write_bytes(b"x" * 100)
    with _progress.progress(f) as seen:
        seen(50)
        time.sleep(0.3)  # the bar is drawn by a timer thread
        seen(100)
    assert "big.jsonl" in err.getvalue()
