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
    vocab_size: Annotated[int | None, typer.Option(help="Override the vocabulary size V.")] = None,
    num_classes: Annotated[
        int | None, typer.Option(help="Classifier: number of classes C.")
    ] = None,
    regime: Annotated[str | None, typer.Option(help="pretraining | full-finetune | lora")] = None,
    checkpoints: Annotated[
        bool, typer.Option(help="Also check the tensors of the checkpoints in the run dir.")
    ] = True,
) -> None:
    """Diagnose a finished or running training run."""
    from traindoc.engine import diagnose as run_rules
    from traindoc.pipeline import load
    from traindoc.readers import ReadError

    if regime is not None and regime not in REGIMES:
        _fail(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
    try:
        run = load(path, checkpoints=checkpoints)
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
    _exit_for(d.findings, fail_on)


@app.command()
def ckpt(
    path: Annotated[Path, typer.Argument(help="Checkpoint file or dir, or a run dir.")],
    against: Annotated[
        Path | None, typer.Option(help="An earlier checkpoint: show the update in between.")
    ] = None,
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.terminal,
    fail_on: Annotated[FailOn, typer.Option(help="Exit 1 at this level.")] = FailOn.error,
    workers: Annotated[int | None, typer.Option(help="Processes for sharded files.")] = None,
) -> None:
    """Check a checkpoint's tensors: exploded, NaN, zero, untrained adapters, frozen."""
    import json

    from traindoc.ckpt.api import CheckpointError, summarize
    from traindoc.ckpt.compare import compare
    from traindoc.engine import diagnose as run_rules
    from traindoc.rules.registry import load_all

    try:
        found = summarize(path, workers=workers)
        cmp = compare(path, against) if against else None
    except CheckpointError as exc:
        _fail(str(exc))
    cks = tuple(found if isinstance(found, list) else [found])
    if cmp is not None and cmp.b.path not in {c.path for c in cks}:
        cks = (cmp.b, *cks)
    specs = [s for s in load_all().values() if s.family == "ckpt"]
    d = run_rules(Run(name=str(path), checkpoints=cks), specs)
    if format is Format.json:
        from traindoc.report.json_report import _finite

        out = {
            "checkpoints": [c.to_dict() for c in cks],
            "verdict": d.verdict,
            "findings": [f.to_dict() for f in d.findings],
            "against": cmp.to_dict() if cmp else None,
        }
        print(json.dumps(_finite(out), indent=2, allow_nan=False))
    else:
        from traindoc.report.checkpoints import render_all, render_comparison
        from traindoc.report.terminal import render_findings

        console = Console(highlight=False)
        flagged = {
            (f.evidence.get("checkpoint"), t) for f in d.findings for t in _tensor_names(f.evidence)
        }
        render_all(cks, flagged, console)
        if cmp is not None:
            render_comparison(cmp, console)
        render_findings(d, console)
    _exit_for(d.findings, fail_on)


def _tensor_names(evidence: dict) -> list[str]:
    names = evidence.get("tensors") or evidence.get("tensor") or []
    return [names] if isinstance(names, str) else [n for n in names if isinstance(n, str)]


def _exit_for(findings, fail_on: FailOn) -> None:
    if fail_on is not FailOn.never:
        level = Severity.parse(fail_on.value)
        if any(f.severity >= level for f in findings):
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
