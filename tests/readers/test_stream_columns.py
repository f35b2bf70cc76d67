"""Streaming JSONL: the same series at any chunk size (lines and keys cut anywhere, key
groups that split mid-file, a truncated last line), and the terminal-only progress bar."""

from __future__ import annotations

import io
import json
import time
from array import array
from pathlib import Path

import numpy as np
import pytest

from traindoc.readers import _progress, jsonl
from traindoc.readers._base import Notes
from traindoc.readers._columns import Columns, _compact


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


def test_repeated_steps_are_dropped_in_place_for_every_key_of_a_group() -> None:
    """An eval line at a train line's step: each step keeps its last write, and the group's
    columns shrink where they are (no copy of every column held next to it)."""
    cols = Columns("x", Notes())
    steps = (1, 2, 2, 3, 3, 3, 4)
    recs = [{"step": s, "a": i, "b": -i, "time": 100 + i} for i, s in enumerate(steps)]
    cols.add(recs[:3], None, 0)
    cols.add(recs[3:], None, 3)
    group = cols.group["a"]
    series, _ = cols.finish("t")
    assert series["a"].steps.tolist() == [1, 2, 3, 4] == series["b"].steps.tolist()
    assert series["a"].values.tolist() == [0, 2, 5, 6]
    assert series["b"].values.tolist() == [0, -2, -5, -6]
    assert series["a"].times is not None and series["a"].times.tolist() == [100, 102, 105, 106]
    assert len(group.steps) == 4 and len(group.times) == 4  # compacted in place


@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_compact_in_blocks_equals_a_boolean_take(block: int) -> None:
    rng = np.random.default_rng(1)
    vals = rng.normal(size=50)
    keep = rng.random(50) > 0.4
    buf = array("d", vals.tobytes())
    _compact(buf, keep, block)
    assert list(buf) == vals[keep].tolist()
