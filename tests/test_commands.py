"""Commands are thin pipes: they never print, and every format they offer is real.

The format a command writes is decided in one place (report/render.py); these
tests check that nothing else decides it, that each command offers exactly the
formats that table lists, that `--format markdown` gives Markdown for every
command, and that every JSON document is strict JSON.
"""

from __future__ import annotations

import ast
import json
import math
import re
import typing
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from traindoc import cli as cli_module
from traindoc.cli import app
from traindoc.compare import ConfigRow, RunComparison
from traindoc.model import Finding, Run, Series, Severity
from traindoc.report.line import finding_line, step_range, steps_text
from traindoc.report.render import RENDERERS, Output, formats, render, to_text

SRC = Path(__file__).parents[1] / "src" / "traindoc"
ROOT = Path(__file__).parents[1]
SEED_A = ROOT / "examples" / "seed-a"
HEALTHY = ROOT / "examples" / "healthy"
CKPT = ROOT / "tests" / "ckpt" / "assets"
FORMAT_NAMES = {"terminal", "json", "markdown", "github", "sarif", "html"}
# the rich markup and escape codes a terminal view would leave in a text format
MARKUP = re.compile(r"\[/?(bold|dim|red|green|yellow|cyan|magenta)[^\]]*\]|\[/\]|\x1b\[")

needs_examples = pytest.mark.skipif(not SEED_A.exists(), reason="examples not generated")


def cli(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1"})
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def strict(text: str) -> object:
    """Parse JSON, refusing the bare NaN / Infinity that Python's json accepts."""

    def refuse(name: str) -> object:
        raise AssertionError(f"bare {name} in the JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small labelled set with 20 exact duplicates and an eval split that leaks."""
    d = tmp_path_factory.mktemp("data")
    rows = [
        {"text": f"sample {i} says {i * 7 % 13} things", "label": "ab"[i % 2]} for i in range(400)
    ]
    (d / "train.jsonl").write_text("\n".join(json.dumps(r) for r in rows + rows[:20]) + "\n")
    (d / "eval.jsonl").write_text("\n".join(json.dumps(r) for r in rows[:10]) + "\n")
    return d


# --- no command prints ---------------------------------------------------------------------


def _calls(path: Path) -> list[str]:
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            fn = node.func
            if (isinstance(fn, ast.Name) and fn.id == "print") or (
                isinstance(fn, ast.Attribute) and fn.attr == "print"
            ):
                bad.append(f"{path.name}:{node.lineno} calls print")
        if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr"):
            bad.append(f"{path.name}:{node.lineno} touches sys.{node.attr}")
    return bad


def test_no_command_prints() -> None:
    paths = sorted((SRC / "commands").glob("*.py"))
    assert {p.stem for p in paths} >= {"diagnose", "ckpt", "compare", "data", "preflight", "watch"}
    bad = [b for p in paths for b in _calls(p)]
    assert not bad, bad


def test_the_print_check_sees_a_print(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import sys\nprint(1)\nconsole.print(2)\nsys.stderr.write('x')\n")
    assert len(_calls(f)) == 3


def test_commands_stay_small() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in (SRC / "commands").glob("*.py")}
    assert max(sizes.values()) <= 120, sizes


# --- the format is decided in one place ----------------------------------------------------


def _format_compares(path: Path) -> list[str]:
    return [f"{path.relative_to(SRC)}:{n}" for n in _format_compares_at(path)]


def _format_compares_at(path: Path) -> list[int]:
    """Comparisons against a format's name (`fmt == "json"`, `format is Format.sarif`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        for side in (node.left, *node.comparators):
            named = (isinstance(side, ast.Constant) and side.value in FORMAT_NAMES) or (
                isinstance(side, ast.Attribute) and side.attr in FORMAT_NAMES
            )
            if named:
                out.append(node.lineno)
    return out


def test_no_module_dispatches_on_the_format_itself() -> None:
    """Only report/render.py maps a format to its renderer (a table, not an if/elif)."""
    paths = [p for p in sorted(SRC.rglob("*.py")) if p != SRC / "report" / "render.py"]
    bad = [b for p in paths for b in _format_compares(p)]
    assert not bad, bad


def test_the_dispatch_check_sees_an_if_elif(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("if fmt == 'json':\n    pass\nelif format is Format.sarif:\n    pass\n")
    assert len(_format_compares_at(f)) == 2


def test_every_renderer_in_the_table_exists() -> None:
    for kind, table in RENDERERS.items():
        for fmt, named in table.items():
            assert callable(named.function()), (kind, fmt, named.target)


def _options(command: str) -> dict[str, object]:
    """The CLI function's parameters and their types (typer builds the options from them)."""
    return typing.get_type_hints(getattr(cli_module, command))


@pytest.mark.parametrize("command", ["diagnose", "ckpt", "compare", "data", "preflight"])
def test_each_command_offers_exactly_the_formats_it_can_write(command: str) -> None:
    opts = _options(command)
    offered = {f.value for f in opts["format"]}  # type: ignore[attr-defined]
    written = set(formats(command))
    assert offered == written - {"html"}
    assert ("html" in opts) == ("html" in written)
    code, shown, _ = cli(command, "--help")
    assert code == 0 and "--format" in shown  # and typer built the option from them


def test_a_format_a_kind_does_not_have_is_an_input_error() -> None:
    from traindoc.outcome import InputError

    c = RunComparison.of([_run("a", [3.0, 2.0]), _run("b", [3.0, 2.5])])
    with pytest.raises(InputError, match="compare writes terminal, json, markdown"):
        render(c, "sarif", Output())


# --- markdown is markdown, JSON is strict ----------------------------------------------------


def _table_header(md: str) -> bool:
    lines = md.splitlines()
    return any(
        a.startswith("| ") and a.endswith(" |") and re.fullmatch(r"\|(-+:?\|)+", b)
        for a, b in pairwise(lines)
    )


def _cases(dataset: Path) -> dict[str, list[str]]:
    return {
        "ckpt": ["ckpt", str(CKPT / "seed-a")],
        "ckpt --against": [
            "ckpt",
            str(CKPT / "healthy-run" / "checkpoint-40"),
            "--against",
            str(CKPT / "healthy-run" / "checkpoint-20"),
        ],
        "data": ["data", str(dataset / "train.jsonl"), "--eval", str(dataset / "eval.jsonl")],
        "compare": ["compare", str(SEED_A), str(HEALTHY)],
        "diagnose": ["diagnose", str(SEED_A)],
        "preflight": ["preflight", "--learning-rate", "1e-6", "--regime", "pretraining"],
    }


@needs_examples
@pytest.mark.parametrize("case", ["ckpt", "ckpt --against", "data", "compare"])
def test_markdown_is_markdown(case: str, dataset: Path) -> None:
    argv = _cases(dataset)[case]
    code, md, err = cli(*argv, "--format", "markdown")
    assert code in (0, 1), err
    assert md.startswith("### traindoc"), md[:200]
    assert _table_header(md), md
    assert not MARKUP.search(md), MARKUP.search(md)
    _, term, _ = cli(*argv)
    assert md != term  # not the terminal view under another name
    if case.startswith("ckpt"):
        assert "| role | layer | tensors |" in md
    if case == "ckpt --against":
        assert "| role | layer | tensors | relative update | frozen |" in md
    if case == "ckpt":  # the exploded head is marked, as the terminal marks it in red
        assert re.search(r"\| \*\*lm_head\*\* \|", md), md
    if case == "data":
        assert "| exact duplicates | **20** |" in md and "train-eval-leakage" in md
    if case == "compare":
        assert "| setting | seed-a | healthy |" in md and "parts at step" in md


@needs_examples
@pytest.mark.parametrize(
    "case", ["ckpt", "ckpt --against", "data", "compare", "diagnose", "preflight"]
)
def test_json_parses_and_has_no_bare_nan(case: str, dataset: Path) -> None:
    code, text, err = cli(*_cases(dataset)[case], "--format", "json")
    assert code in (0, 1), err
    doc = strict(text)
    assert isinstance(doc, dict) and doc


def test_nan_in_a_report_is_a_string_in_the_json() -> None:
    nan = RunComparison(
        (_run("a", [3.0, 2.0]), _run("b", [3.0, 2.5])),
        (),
        (ConfigRow("max_grad_norm", (math.nan, math.inf), True),),
    )
    doc = strict(to_text(nan, "json"))
    assert doc["config"][0]["values"] == ["NaN", "Infinity"]  # type: ignore[index]


def test_ckpt_nan_tensors_stay_strict_json() -> None:
    code, text, _ = cli("ckpt", str(CKPT / "nan-layer"), "-f", "json")
    assert code == 1
    assert "nonfinite-weights" in {f["rule"] for f in strict(text)["findings"]}  # type: ignore[index]


@needs_examples
def test_the_api_gives_what_the_cli_prints(dataset: Path) -> None:
    import traindoc

    _, md, _ = cli("ckpt", str(CKPT / "seed-a"), "-f", "markdown")
    speed = re.compile(r", [0-9.]+ GB/s")  # the read speed of each call, not the report
    assert speed.sub("", traindoc.ckpt(CKPT / "seed-a").to_markdown() + "\n") == speed.sub("", md)
    assert speed.search(md)  # the pattern matches what it strips
    d = traindoc.audit_data(dataset / "train.jsonl")
    _, js, _ = cli("data", str(dataset / "train.jsonl"), "-f", "json")
    strip = re.compile(r'"seconds": [0-9.e-]+')
    assert strip.sub("", d.to_json() + "\n") == strip.sub("", js)


# --- a finding as one line -------------------------------------------------------------------


def _f(title: str, step: int | None = None, end: int | None = None) -> Finding:
    return Finding("loss-spike", "loss", Severity.WARNING, title, step=step, end_step=end)


def _run(name: str, loss: list[float]) -> Run:
    steps = list(range(1, len(loss) + 1))
    return Run(name=name, series={"loss": Series.from_arrays("loss", steps, loss)})


def test_finding_line_says_the_steps_once() -> None:
    assert steps_text(_f("x")) == "" and step_range(_f("x")) == ""
    assert steps_text(_f("x", 3)) == "step 3" and step_range(_f("x", 3, 3)) == "3"
    assert steps_text(_f("x", 3, 9)) == "steps 3–9" and step_range(_f("x", 3, 9)) == "3–9"
    assert finding_line(_f("2 spikes", 3, 9)) == "2 spikes (steps 3–9)"
    assert finding_line(_f("Loss is NaN from step 3", 3)) == "Loss is NaN from step 3"
    assert finding_line(_f("2 spikes"), "run-b") == "run-b: 2 spikes"


def test_watch_github_and_sarif_say_a_finding_the_same_way() -> None:
    from traindoc.engine import Diagnosis
    from traindoc.report import github, sarif
    from traindoc.report.watch import line

    f = _f("2 spikes", 3, 9)
    d = Diagnosis(Run(name="r"), (f,))
    said = finding_line(f)
    assert line(f, "12:00:00") == f"[12:00:00] WARNING loss-spike: {said}"
    assert github.message(f).startswith(said)
    assert sarif.to_dict([d])["runs"][0]["results"][0]["message"]["text"] == said


def test_output_writes_text_as_is_and_warns_on_stderr(capsys: pytest.CaptureFixture) -> None:
    out = Output()
    out.write("[bold]not markup[/]")
    out.write("")  # an empty report (no annotations) writes nothing, not a blank line
    out.warn("one run left out")
    got = capsys.readouterr()
    assert got.out == "[bold]not markup[/]\n"
    assert got.err == "traindoc: one run left out\n"
