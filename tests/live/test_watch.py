"""traindoc watch on a run being written by another process."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from traindoc.commands.watch import watch
from traindoc.live.watch import Watcher
from traindoc.outcome import InputError
from traindoc.report.console import make_console
from traindoc.report.render import Output

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
    assert watch(tmp_path, Output(), once=True) == 1
    out = capsys.readouterr().out
    assert "nonfinite-loss" in out
    with pytest.raises(InputError, match="no such file"):  # the CLI's exit 2
        watch(tmp_path / "missing", Output(), once=True)


def _append(path: Path, *records: dict) -> None:
    with path.open("a") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def test_heartbeat_at_a_steady_pace_and_never_twice_for_one_step(tmp_path: Path) -> None:
    log = tmp_path / "metrics.jsonl"
    w = Watcher(tmp_path, every=30.0)
    assert w.poll(now=0.0).waiting  # nothing written yet
    _append(log, {"step": 1, "loss": 2.5, "lr": 1e-4, "grad_norm": 1.5, "time": 100.0})
    first = w.poll(now=1.0).beat
    assert first is not None and first.step == 1  # the first record: a beat at once
    _append(log, {"step": 2, "loss": 2.4, "lr": 2e-4, "grad_norm": 1.2, "time": 102.0})
    assert w.poll(now=11.0).beat is None  # 10 s after the last beat: not yet
    _append(log, {"step": 3, "loss": 2.3, "lr": 3e-4, "grad_norm": 1.1, "time": 104.0})
    assert w.poll(now=21.0).beat is None
    beat = w.poll(now=31.0).beat  # 30 s on, nothing new written since step 3: still due
    assert beat is not None and beat.step == 3
    assert beat.values == {"loss": 2.3, "lr": 3e-4, "grad_norm": 1.1}  # the newest record
    assert beat.steps_per_s == 0.5  # 2 steps in the log's own 4 s
    assert w.poll(now=90.0).beat is None  # no new step: no second beat for step 3
    _append(log, {"step": 4, "loss": 2.2, "lr": 3e-4, "time": 106.0})
    assert w.poll(now=91.0).beat.step == 4  # type: ignore[union-attr]


def test_pace_from_the_watchers_clock_when_the_log_records_no_time(tmp_path: Path) -> None:
    log = tmp_path / "metrics.jsonl"
    w = Watcher(tmp_path, every=5.0)
    _append(log, {"step": 10, "loss": 2.5})
    w.poll(now=0.0)
    _append(log, {"step": 30, "loss": 2.4})
    beat = w.poll(now=10.0).beat
    assert beat is not None and beat.steps_per_s == 2.0 and beat.values == {"loss": 2.4}


def test_watch_waits_quietly_then_follows_a_growing_log_to_its_end(tmp_path: Path, capsys) -> None:
    import io
    import threading

    run = tmp_path / "out"

    def write() -> None:
        time.sleep(0.4)
        run.mkdir()
        (run / "train.log").touch()  # created, nothing in it yet
        time.sleep(0.4)
        t0 = time.time()
        for step in range(1, 13):
            _append(
                run / "metrics.jsonl",
                {"step": step, "loss": 3.0 - 0.1 * step, "lr": 1e-4, "time": t0 + 0.1 * step},
            )
            time.sleep(0.1)
        _append(run / "metrics.jsonl", {"step": 12, "train_runtime": 1.2})

    out = io.StringIO()
    rc: list[int] = []
    writer = threading.Thread(target=write, daemon=True)
    follower = threading.Thread(
        target=lambda: rc.append(watch(run, _to(out), interval=0.05, every=0.3)), daemon=True
    )
    writer.start()
    follower.start()
    follower.join(timeout=60)
    assert not follower.is_alive(), out.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0] == f"waiting for {run} to be written… (Ctrl-C to stop)"
    err = capsys.readouterr().err
    assert "supported" not in err and "not readable" not in err  # no list of formats
    beats = [ln for ln in lines if " step " in ln and "steps/s" in ln]
    steps = [int(ln.split(" step ")[1].split()[0]) for ln in beats]
    assert len(beats) >= 2 and steps == sorted(set(steps))  # one per new step at most
    assert "loss " in beats[0] and "lr 1.00e-04" in beats[0]
    assert any("finished at step 12" in ln and "train_runtime" in ln for ln in lines)
    assert lines[-1].endswith("out  ·  12 steps")  # the last diagnosis's verdict line
    assert "stalled" not in out.getvalue()
    assert rc == [0]


def test_watch_names_a_real_hf_run_finished_at_max_steps(tmp_path: Path) -> None:
    """A real HF Trainer writes checkpoint-N/trainer_state.json while the watcher polls."""
    import threading

    pytest.importorskip("transformers")
    from transformers import Trainer, TrainerCallback, TrainingArguments

    from tests.live.conftest import lm_data, tiny_gpt2

    class Slow(TrainerCallback):  # a pace the watcher can follow on a loaded machine
        def on_step_end(self, args, state, control, **kw):
            time.sleep(0.05)

    args = TrainingArguments(
        output_dir=str(tmp_path / "out"),
        max_steps=8,
        per_device_train_batch_size=2,
        logging_steps=1,
        save_steps=4,
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
        save_only_model=True,
    )
    trainer = Trainer(model=tiny_gpt2(), args=args, train_dataset=lm_data(), callbacks=[Slow()])
    job = threading.Thread(target=trainer.train, daemon=True)
    w = Watcher(tmp_path / "out", every=0.01)
    job.start()
    seen: list[tuple[int | None, bool]] = []
    done = None
    deadline = time.monotonic() + 120
    while done is None and time.monotonic() < deadline:
        u = w.poll()
        seen.append((u.last_step, u.finished is not None))
        done = u.finished
        time.sleep(0.05)
    job.join(timeout=60)
    assert done is not None and done.step == 8
    assert "max_steps 8" in done.how or "train_runtime" in done.how
    assert (4, False) in seen  # checkpoint-4 (global_step 4 of 8) was not called finished


def test_lightning_end_of_fit_line_in_a_console_log_is_the_end(tmp_path: Path) -> None:
    import shutil

    corpus = Path(__file__).parents[1] / "corpus" / "lightning-healthy" / "lightning_logs"
    shutil.copytree(corpus, tmp_path / "lightning_logs")
    w = Watcher(tmp_path, stall_after=1.0)
    first = w.poll(now=0.0)
    assert first.last_step == 191 and first.finished is None  # metrics.csv alone: no end
    (tmp_path / "train.log").write_text(
        "GPU available: False, used: False\n`Trainer.fit` stopped: `max_epochs=3` reached.\n"
    )
    done = w.poll(now=5.0).finished
    assert done is not None and done.step == 191
    assert done.how == "train.log: `Trainer.fit` stopped: `max_epochs=3` reached."
    # finished, then silent for ever: not a stall
    assert w.poll(now=10_000.0).stall is None


def test_on_a_terminal_the_heartbeat_is_one_status_line(tmp_path: Path) -> None:
    import io
    import re

    from traindoc.live.beat import Beat
    from traindoc.live.watch import Update
    from traindoc.model import Finding, Severity
    from traindoc.report.render import render

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    nan = Finding("nonfinite-loss", "loss", Severity.ERROR, "Loss is NaN", step=3)
    shown = {}
    for buf in (Tty(), io.StringIO()):
        out = _to(buf)
        for u in (
            Update(beat=Beat(1, {"loss": 2.0})),
            Update(beat=Beat(2, {"loss": 1.9})),
            Update(findings=(nan,), beat=Beat(3, {"loss": math.nan})),
        ):
            render(u, "terminal", out, kind="watch")
        out.end_status()
        shown[buf.isatty()] = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", buf.getvalue())
    # rewritten in place; cleared for a finding, which stays; the last one ended at exit
    assert shown[True] == (
        "\r\x1b[Kstep 1  loss 2\r\x1b[Kstep 2  loss 1.9\r\x1b[K"
        "ERROR   nonfinite-loss: Loss is NaN (step 3)\n\r\x1b[Kstep 3  loss nan\n"
    )
    assert shown[False] == (  # piped: plain lines
        "step 1  loss 2\nstep 2  loss 1.9\nERROR   nonfinite-loss: Loss is NaN (step 3)\n"
        "step 3  loss nan\n"
    )


def test_a_run_still_unreadable_at_the_next_look_is_said_once(tmp_path: Path) -> None:
    _append(tmp_path / "metrics.jsonl", {"step": 1, "loss": 2.5})
    w = Watcher(tmp_path)
    assert w.poll(now=0.0).error is None
    state = tmp_path / "trainer_state.json"
    state.write_text('{"log_history": [')  # caught mid-write
    first = w.poll(now=1.0).error
    state.write_text('{"log_history": [  ')  # grown, still mid-write the same way
    again = w.poll(now=2.0).error
    state.write_text('{"log_history": [{')  # another error: said
    other = w.poll(now=3.0).error
    assert first is not None and "truncated JSON" in first
    assert again is None
    assert other is not None and other != first


def _to(buf: object) -> Output:
    """An Output writing into buf, as the CLI's would into stdout."""
    return Output(make_console(file=buf, color=False))  # type: ignore[arg-type]
