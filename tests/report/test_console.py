"""Terminal output fits where it goes: whole lines piped, --width, colour only when wanted."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from tests.test_cli import SEED_A, needs_examples
from traindoc.engine import Diagnosis
from traindoc.model import Fact, Finding, Run, Series, Severity
from traindoc.report.console import colored, make_console
from traindoc.report.terminal import render, render_findings

LONG = "Loss is stuck " + "far above the floor and the reason is long " * 6 + "end-of-title"


def _out(width: int | None = None) -> list[str]:
    buf = io.StringIO()
    d = Diagnosis(Run(name="r"), (Finding("no-learning", "loss", Severity.ERROR, LONG, step=1),))
    render_findings(d, make_console(width=width, file=buf))
    return buf.getvalue().splitlines()


def test_a_long_title_piped_is_one_line_and_width_wraps_it() -> None:
    (line,) = [x for x in _out() if "Loss is stuck" in x]
    assert line.endswith("end-of-title  [no-learning]") and len(line) > 250
    wrapped = _out(width=60)
    assert all(len(x) <= 60 for x in wrapped) and sum("far above" in x for x in wrapped) > 2
    assert not any(x.endswith("reas") or x.startswith("on is") for x in wrapped)  # whole words


def test_no_color_when_asked_or_not_a_terminal(monkeypatch) -> None:
    assert not colored(make_console(file=io.StringIO()))  # not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert colored(make_console(file=io.StringIO()))
    assert not colored(make_console(file=io.StringIO(), color=False))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colored(make_console(file=io.StringIO()))


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "traindoc", *args],
        capture_output=True,
        text=True,
        env={**base, "COLUMNS": "80", **env},
        timeout=120,
    )


@needs_examples
def test_cli_piped_output_keeps_whole_lines() -> None:
    out = run("diagnose", str(SEED_A)).stdout.splitlines()
    (title,) = [x for x in out if "Loss does not decrease" in x]
    assert title.endswith("[no-learning]") and len(title) > 80  # COLUMNS does not wrap a pipe
    assert "(the floor ln V = 10.82)" in "\n".join(out)  # no colour: no legend naming one
    narrow = run("diagnose", str(SEED_A), "--width", "60").stdout.splitlines()
    assert all(len(x) <= 60 for x in narrow) and len(narrow) > len(out)


@needs_examples
def test_cli_colour_legend_only_with_colour() -> None:
    coloured = run("diagnose", str(SEED_A), FORCE_COLOR="1").stdout
    assert "\x1b[" in coloured and "red = on the floor" in coloured
    for plain in (
        run("diagnose", str(SEED_A), FORCE_COLOR="1", NO_COLOR="1").stdout,
        run("diagnose", str(SEED_A), "--no-color", FORCE_COLOR="1").stdout,
    ):
        assert "\x1b[" not in plain and "red =" not in plain and "BROKEN" in plain


@needs_examples
def test_quiet_prints_the_verdict_line_only() -> None:
    p = run("diagnose", str(SEED_A), "--quiet")
    assert p.returncode == 1
    assert p.stdout.splitlines() == [" BROKEN   seed-a  ·  300 steps"]


def test_quiet_for_preflight_too() -> None:
    p = run("preflight", "--learning-rate", "1e-6", "--regime", "pretraining", "--quiet")
    assert p.stdout.splitlines() == [" SUSPECT   preflight: preflight"], p.stdout


def test_the_floor_legend_names_classes_or_vocabulary_and_the_log_base() -> None:
    """A classifier's floor is ln C, an LM's ln V; a loss logged in bits is log2."""
    loss = Series.from_arrays("loss", [1, 2, 3], [1.39, 1.38, 1.39])

    def legend(**facts: object) -> str:
        run = Run(
            name="r", series={"loss": loss}, facts={k: Fact(v, "test") for k, v in facts.items()}
        )
        buf = io.StringIO()
        render(Diagnosis(run, ()), make_console(file=buf))
        return buf.getvalue()

    assert "(the floor ln C = 1.39)" in legend(num_classes=4)
    assert "(the floor ln V = 10.82)" in legend(vocab_size=50257)
    assert "(the floor log2 V = 15.62)" in legend(vocab_size=50257, loss_base=2)
