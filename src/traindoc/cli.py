"""Command line: the only layer that reads argv or prints.

Exit status (../shared/RULES.md): 0 when nothing reaches --fail-on, 1 when
something does, 2 for unusable input or arguments (one line on stderr).
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from traindoc import __version__
from traindoc.model import REGIMES, Fact, Run
from traindoc.outcome import exit_status, write_text

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
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report here.")
    ] = None,
    pattern: Annotated[
        str | None,
        typer.Option(help="Console log: a regex with named groups (step, loss, lr, grad_norm...)."),
    ] = None,
) -> None:
    """Diagnose a finished or running training run (PATH `-` reads a log from stdin)."""
    from traindoc.engine import diagnose as run_rules
    from traindoc.pipeline import load_all
    from traindoc.readers import ReadError

    if regime is not None and regime not in REGIMES:
        _fail(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
    from traindoc.readers import discover_runs

    overrides = (vocab_size, regime, num_classes)
    found = discover_runs(path) if path.is_dir() and pattern is None else []
    if len(found) > 1:  # a folder of runs: each report, then one summary table
        if html is not None:
            print(f"traindoc: --html takes one run; {path} holds {len(found)}", file=sys.stderr)
        entries = []
        for p in found:
            entries.extend(_entries(p, path, checkpoints))
        status = _diagnose_many(entries, format, fail_on, overrides)
        bad = [(name, e) for name, e in entries if isinstance(e, str)]
        if bad:  # the reports stand; stderr says in one line which runs could not be read
            more = f" (and {len(bad) - 1} more unreadable)" if len(bad) > 1 else ""
            print(f"traindoc: {bad[0][1]}{more}", file=sys.stderr)
        raise typer.Exit(status)
    try:
        runs = load_all(path, checkpoints=checkpoints, pattern=pattern)
    except ReadError as exc:
        _fail(str(exc))
    if len(runs) > 1:  # one file, several runs (a paste of two fragments, a restart)
        if html is not None:
            print(f"traindoc: --html takes one run; {path} holds {len(runs)}", file=sys.stderr)
        raise typer.Exit(_diagnose_many([(r.name, r) for r in runs], format, fail_on, overrides))
    run = apply_overrides(runs[0], *overrides)
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
    if html is not None:
        from traindoc.report.html import render as render_html

        _write(html, render_html(d))
    raise typer.Exit(exit_status(d.findings, fail_on.value))


def _entries(p: Path, parent: Path, checkpoints: bool) -> list[tuple[str, Run | str]]:
    """(name, run) for every run at p, or one (name, error) when p cannot be read."""
    from traindoc.pipeline import load_all
    from traindoc.readers import ReadError
    from traindoc.report import summary

    name = summary.run_name(p, parent)
    try:
        runs = load_all(p, checkpoints=checkpoints)
    except ReadError as exc:
        return [(name, str(exc))]
    if len(runs) == 1:
        return [(name, runs[0])]
    return [(f"{name} [{k + 1}/{len(runs)}]", r) for k, r in enumerate(runs)]


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
    raise typer.Exit(exit_status(d.findings, fail_on.value))


@app.command()
def compare(
    paths: Annotated[
        list[Path], typer.Argument(help="Two or more runs; the first is the reference.")
    ],
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.terminal,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the runs overlaid as HTML here.")
    ] = None,
) -> None:
    """Overlay runs and say the first step where each parts from the first (loss, LR, grad norm)."""
    from traindoc.compare import compare_runs
    from traindoc.pipeline import load
    from traindoc.readers import ReadError

    if len(paths) < 2:
        _fail("compare needs at least two runs")
    try:
        runs = [load(p, checkpoints=False) for p in paths]
    except ReadError as exc:
        _fail(str(exc))
    cmps = compare_runs(runs)
    if format is Format.json:
        import json

        print(json.dumps({"comparisons": [c.to_dict() for c in cmps]}, indent=2))
    else:
        from traindoc.report.compare_terminal import render as render_cmp

        render_cmp(runs, cmps, Console(highlight=False))
    if html is not None:
        from traindoc.report.html import render_compare

        _write(html, render_compare(runs, cmps))


def _write(path: Path, text: str) -> None:
    if (error := write_text(path, text)) is not None:
        _fail(error)


def _diagnose_many(
    entries: list[tuple[str, Run | str]], format: Format, fail_on: FailOn, overrides
) -> int:
    """Diagnose each run; the exit status is the worst over them (2 = a run unreadable)."""
    from traindoc.engine import diagnose as run_rules
    from traindoc.report import summary

    console = Console(highlight=False)
    reports, rows, worst = [], [], 0
    for name, run in entries:
        if isinstance(run, str):
            rows.append(summary.row(name, None, run))
            reports.append({"run": {"name": name}, "verdict": "unreadable", "error": run})
            worst = 2
            continue
        d = run_rules(apply_overrides(replace(run, name=name), *overrides))
        rows.append(summary.row(name, d))
        worst = max(worst, exit_status(d.findings, fail_on.value))
        if format is Format.json:
            from traindoc.report.json_report import to_dict

            reports.append(to_dict(d))
        elif format is Format.markdown:
            from traindoc.report.markdown import render as render_md

            print(render_md(d) + "\n")
        else:
            from traindoc.report.terminal import render as render_term

            render_term(d, console)
    if format is Format.json:
        from traindoc.report.json_report import document, dumps

        print(dumps(document(reports, rows)))
    elif format is Format.markdown:
        print(summary.render_markdown(rows))
    else:
        for r in rows:
            if r["verdict"] == "unreadable":
                console.print(f"[magenta]UNREADABLE[/] {r['run']}: {r['error']}")
        summary.render_terminal(rows, console)
    return worst


def _tensor_names(evidence: dict) -> list[str]:
    names = evidence.get("tensors") or evidence.get("tensor") or []
    return [names] if isinstance(names, str) else [n for n in names if isinstance(n, str)]


@app.command()
def preflight(
    model: Annotated[
        Path | None, typer.Option(help="Checkpoint to start from (dir or file).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            help="TrainingArguments JSON/YAML or .bin, Axolotl / LLaMA-Factory / TRL YAML."
        ),
    ] = None,
    data: Annotated[Path | None, typer.Option(help="Training data to audit.")] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU name, e.g. A100-80GB, RTX4090, T4.")] = None,
    gpu_mem: Annotated[str | None, typer.Option(help="Device memory, e.g. 24GB.")] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Checkpoint a resume would start from.")
    ] = None,
    learning_rate: Annotated[float | None, typer.Option(help="When there is no config.")] = None,
    per_device_batch: Annotated[int | None, typer.Option()] = None,
    grad_accum: Annotated[int | None, typer.Option()] = None,
    devices: Annotated[int | None, typer.Option()] = None,
    max_steps: Annotated[int | None, typer.Option()] = None,
    warmup_ratio: Annotated[float | None, typer.Option()] = None,
    lr_scheduler: Annotated[str | None, typer.Option()] = None,
    precision: Annotated[str | None, typer.Option(help="fp32 | bf16 | fp16")] = None,
    seq_len: Annotated[int | None, typer.Option()] = None,
    regime: Annotated[
        str | None,
        typer.Option(help="pretraining | continued-pretraining | full-finetune | lora | qlora"),
    ] = None,
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.terminal,
    fail_on: Annotated[FailOn, typer.Option(help="Exit 1 at this level.")] = FailOn.error,
    html: Annotated[Path | None, typer.Option("--html", help="Also write an HTML report.")] = None,
) -> None:
    """Check the start, the rate, the resume and the memory before spending GPU time."""
    from traindoc.preflight.command import preflight_command

    raise typer.Exit(
        preflight_command(
            model,
            config,
            data,
            gpu,
            gpu_mem,
            resume,
            format=format.value,
            fail_on=fail_on.value,
            learning_rate=learning_rate,
            per_device_batch=per_device_batch,
            grad_accum=grad_accum,
            devices=devices,
            max_steps=max_steps,
            warmup_ratio=warmup_ratio,
            lr_scheduler=lr_scheduler,
            precision=precision,
            seq_len=seq_len,
            regime=regime,
            html=html,
        )
    )


@app.command()
def data(
    path: Annotated[
        Path, typer.Argument(help="Dataset: JSONL, JSON, CSV, Parquet, Arrow / HF dir, shards.")
    ],
    eval: Annotated[
        Path | None, typer.Option("--eval", help="Eval split, checked for leakage.")
    ] = None,
    text_field: Annotated[str | None, typer.Option(help="Field holding the input text.")] = None,
    label_field: Annotated[str | None, typer.Option(help="Field holding the label/answer.")] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write the row indices of duplicates and conflicts here.")
    ] = None,
    threshold: Annotated[float, typer.Option(help="Near-duplicate Jaccard threshold.")] = 0.8,
    max_seq_len: Annotated[int | None, typer.Option(help="Flag samples longer than this.")] = None,
    distributed: Annotated[bool, typer.Option(help="Run on a local Dask cluster.")] = False,
    workers: Annotated[int, typer.Option(help="Dask workers with --distributed.")] = 2,
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.terminal,
    fail_on: Annotated[FailOn, typer.Option(help="Exit 1 at this level.")] = FailOn.error,
    html: Annotated[Path | None, typer.Option("--html", help="Also write an HTML report.")] = None,
) -> None:
    """Audit a dataset: duplicates, near-duplicates, label conflicts, leakage, imbalance."""
    from traindoc.data.command import data_command

    raise typer.Exit(
        data_command(
            path,
            eval,
            text_field,
            label_field,
            export,
            format=format.value,
            fail_on=fail_on.value,
            distributed=distributed,
            threshold=threshold,
            max_seq_len=max_seq_len,
            workers=workers,
            html=html,
        )
    )


@app.command()
def watch(
    run_dir: Annotated[Path, typer.Argument(help="Output dir another process is writing.")],
    interval: Annotated[float, typer.Option(help="Seconds between looks at the files.")] = 2.0,
    stall_after: Annotated[
        float | None, typer.Option(help="Report a stall after this many silent seconds.")
    ] = None,
    once: Annotated[bool, typer.Option(help="Look once and exit.")] = False,
) -> None:
    """Follow a run being written: print new findings as they appear, and stalls."""
    from traindoc.live.command import watch as follow

    raise typer.Exit(follow(run_dir, interval=interval, stall_after=stall_after, once=once))


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
    # numpy's floating-point warnings (overflow in a cast of 1e308, NaN in a reduce) are
    # not messages for the user: the readers and rules handle non-finite values
    # themselves, and stderr is for the one line that says why input is unusable.
    warnings.filterwarnings("ignore", r".* encountered in ", RuntimeWarning)


def main() -> None:
    app()
