"""Command line: the only layer that reads argv or prints.

Exit status (../shared/RULES.md): 0 when nothing reaches --fail-on, 1 when
something does, 2 for unusable input or arguments (one line on stderr).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from traindoc import __version__
from traindoc.model import REGIMES, Fact, Run, Severity

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Tells you why your training run is not learning.",
)


class Format(str, Enum):
    terminal = "terminal"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


def _fail(message: str) -> None:
    print(f"traindoc: {message}", file=sys.stderr)
    raise typer.Exit(2)


def apply_overrides(
    run: Run, vocab_size: int | None, regime: str | None, num_classes: int | None
) -> Run:
    facts = dict(run.facts)
    if vocab_size is not None:
        facts["vocab_size"] = Fact(vocab_size, "--vocab-size")
    if num_classes is not None:
        facts["num_classes"] = Fact(num_classes, "--num-classes")
    if regime is not None:
        facts["regime"] = Fact(regime, "--regime")
    return replace(run, facts=facts)


@app.command()
def diagnose(
    path: Annotated[Path, typer.Argument(help="Run directory or log file.")],
    format: Annotated[
        Format, typer.Option("--format", "-f", help="Output format.")
    ] = Format.terminal,
    fail_on: Annotated[
        FailOn, typer.Option(help="Exit 1 when a finding reaches this level.")
    ] = FailOn.error,
    vocab_size: Annotated[
        int | None, typer.Option(help="Override the vocabulary size V.")
    ] = None,
    num_classes: Annotated[
        int | None, typer.Option(help="Classifier: number of classes C.")
    ] = None,
    regime: Annotated[
        str | None, typer.Option(help="pretraining | full-finetune | lora")
    ] = None,
) -> None:
    """Diagnose a finished or running training run."""
    from traindoc.engine import diagnose as run_rules
    from traindoc.readers import ReadError, load_run

    if regime is not None and regime not in REGIMES:
        _fail(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
    try:
        run = load_run(path)
    except ReadError as exc:
        _fail(str(exc))
    run = apply_overrides(run, vocab_size, regime, num_classes)
    d = run_rules(run)
    if format is Format.json:
        from traindoc.report.json_report import render

        print(render(d))
    elif format is Format.markdown:
        from traindoc.report.markdown import render as render_md

        print(render_md(d))
    else:
        from traindoc.report.terminal import render as render_term

        render_term(d, Console(highlight=False))
    if fail_on is not FailOn.never:
        level = Severity.parse(fail_on.value)
        if any(f.severity >= level for f in d.findings):
            raise typer.Exit(1)


@app.command()
def rules() -> None:
    """List every rule: id, family, default severity, summary."""
    from rich.table import Table

    from traindoc.rules.registry import load_all

    table = Table(box=None, header_style="bold")
    for col in ("rule", "family", "severity", "what it flags"):
        table.add_column(col)
    for spec in load_all().values():
        table.add_row(spec.id, spec.family, str(spec.severity), spec.summary)
    Console().print(table)


@app.command()
def explain(
    rule_id: Annotated[str, typer.Argument(help="A rule id, e.g. uniform-plateau.")],
) -> None:
    """Print one rule's documentation."""
    from traindoc.rules.registry import load_all

    rules = load_all()
    if rule_id not in rules:
        _fail(f"unknown rule {rule_id!r}; run `traindoc rules` for the list")
    spec = rules[rule_id]
    print(f"{spec.id}  ({spec.family}, {spec.severity})\n")
    print(spec.doc)
    if spec.params is not None:
        print("Thresholds:")
        for name, value in vars(spec.params).items():
            print(f"  {name} = {value}")


def _version(value: bool) -> None:
    if value:
        print(f"traindoc {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    """traindoc: tells ML engineers why their training run is not learning."""


def main() -> None:
    app()
