"""What a live monitor recorded (<run>/traindoc/findings.jsonl), read back by diagnose."""

from __future__ import annotations

import math
from pathlib import Path

from traindoc.engine import diagnose
from traindoc.live.persist import Sink
from traindoc.model import Finding, Severity
from traindoc.readers import discover_runs, load_run
from traindoc.readers import live as live_reader


def _finding(rule: str, step: int, family: str = "loss", **evidence) -> Finding:
    return Finding(rule, family, Severity.ERROR, f"{rule} at {step}", step, evidence=evidence)


def _live_run(tmp_path: Path, recorded: list[tuple[Finding, str]], steps: int = 50) -> Path:
    """A plain-loop output dir as the monitor leaves it: metrics, config, findings."""
    sink = Sink(tmp_path, {"vocab_size": 50257, "regime": "pretraining"})
    for s in range(1, steps + 1):
        sink.metrics({"step": s, "loss": 10.8 - 0.1 * s, "lr": 3e-4, "time": 1.7e9 + s})
    for f, action in recorded:
        sink.finding(f, action, 1.7e9 + (f.step or 0))
    sink.close()
    return tmp_path


def test_recorded_findings_are_read_with_what_the_monitor_did(tmp_path: Path) -> None:
    root = _live_run(tmp_path, [(_finding("nonfinite-loss", 7, loss=math.nan), "stop")])
    found, notes = live_reader.read(root / "traindoc" / "findings.jsonl")
    assert not notes
    (f,) = found
    assert (f.rule, f.step, f.severity) == ("nonfinite-loss", 7, Severity.ERROR)
    assert f.evidence["live"]["action"] == "stop" and f.evidence["live"]["time"] == 1.7e9 + 7
    assert math.isnan(f.evidence["loss"])  # NaN evidence stays NaN
    assert Finding.from_dict(f.to_dict()) == f


def test_a_cut_last_line_and_a_bad_record_are_notes_and_the_rest_is_kept(tmp_path: Path) -> None:
    root = _live_run(tmp_path, [(_finding("loss-spike", 5), "warn")] * 2)
    p = root / "traindoc" / "findings.jsonl"
    good = p.read_bytes().splitlines()
    p.write_bytes(b"\n".join([good[0], b'{"rule": "x"}', good[1], good[1][:40]]) + b"\n")
    found, notes = live_reader.read(p)
    assert len(found) == 2
    text = [str(n) for n in notes]
    assert any(":2:" in t and "unreadable finding" in t for t in text), text
    assert any(":4:" in t and "cut mid-write" in t for t in text), text


def test_diagnose_keeps_stops_and_stalls_and_leaves_live_warnings_to_the_log(
    tmp_path: Path,
) -> None:
    stall = _finding("stalled-training", 50, family="resume", stuck_thread_stack="  File x")
    recorded = [
        (_finding("absurd-initial-loss", 1), "stop"),  # the log cannot show why it ended
        (stall, "warn"),  # needs the clock while it hung
        (_finding("loss-spike", 20), "warn"),  # made on 20 steps; the full log decides
    ]
    root = _live_run(tmp_path, recorded)
    assert discover_runs(root) == [root / "traindoc" / "metrics.jsonl"]  # one run, not two
    run = load_run(root)
    assert len(run.live) == 3 and any(i.kind == "traindoc-live" for i in run.inputs)
    d = diagnose(run)
    rules = {f.rule: f for f in d.findings}
    assert rules["absurd-initial-loss"].evidence["live"]["action"] == "stop"
    assert rules["stalled-training"].evidence["stuck_thread_stack"] == "  File x"
    assert "loss-spike" not in rules  # the smooth log has no spike


def test_an_offline_finding_gains_the_live_record(tmp_path: Path) -> None:
    recorded = _finding("lr-too-low", 3, family="rate", peak_lr=-1.0, seen_only_live="x")
    root = _live_run(tmp_path, [(recorded, "warn")])
    cfg = root / "traindoc" / "metrics.jsonl"
    cfg.write_text(
        "".join(
            f'{{"step": {s}, "loss": 10.8, "lr": 1e-6, "time": {1.7e9 + s}}}\n'
            for s in range(1, 301)
        )
    )
    d = diagnose(load_run(root))
    (f,) = [f for f in d.findings if f.rule == "lr-too-low"]
    assert f.evidence["live"] == {"action": "warn", "time": 1.7e9 + 3, "step": 3}
    assert f.title != "lr-too-low at 3"  # the offline finding, not the recorded one
    assert f.evidence["peak_lr"] == 1e-6  # its numbers win ...
    assert f.evidence["seen_only_live"] == "x"  # ... and what only the live run had is kept


def test_no_traindoc_dir_means_nothing_live(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.9}\n')
    assert load_run(tmp_path).live == ()
