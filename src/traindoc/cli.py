"""Command line: the only layer that reads argv or prints.

Exit status (../shared/RULES.md): 0 when nothing reaches --fail-on, 1 when
something does, 2 for unusable input, arguments or settings (one line on
stderr; a settings file's errors are all listed, one per line).
"""

from __future__ import annotations

import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from traindoc import __version__
from traindoc.model import REGIMES
from traindoc.outcome import InputError, write_text

if TYPE_CHECKING:
    from traindoc.result import Diagnosis
    from traindoc.settings import Settings

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
    github = "github"
    sarif = "sarif"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


# Options the report commands share: where the settings come from, and how the
# terminal output fits where it goes (report/console.py).
FormatOpt = Annotated[
    Format,
    typer.Option(
        "--format",
        "-f",
        help="terminal, json, markdown, github (Actions annotations) or sarif (SARIF 2.1.0).",
    ),
]
FailOnOpt = Annotated[
    FailOn | None,
    typer.Option(
        help="Exit 1 when a finding reaches this level (default: the settings', else error)."
    ),
]
SelectOpt = Annotated[
    list[str] | None,
    typer.Option(help="Only these rule ids or families (comma-separated or repeated)."),
]
IgnoreOpt = Annotated[
    list[str] | None,
    typer.Option(help="Leave out these rule ids or families (added to the settings')."),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(help="Settings file (traindoc.toml, pyproject.toml) instead of the one found."),
]
WidthOpt = Annotated[
    int | None,
    typer.Option(min=20, help="Wrap at N columns (default: the terminal's width; piped: never)."),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", help="No colours or styles (also: NO_COLOR set).")
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Terminal: only the verdict line of each run.")
]


def _fail(message: str) -> NoReturn:
    print(f"traindoc: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _console(width: int | None = None, no_color: bool = False) -> Console:
    from traindoc.report.console import make_console

    return make_console(width=width, color=False if no_color else None)


def _settings(
    start: Path | str,
    config: Path | None,
    select: list[str] | None,
    ignore: list[str] | None,
    fail_on: FailOn | None,
    **values: int | str | None,
) -> Settings:
    """The effective settings; any problem in them ends the command (exit 2, all listed)."""
    from traindoc.settings import load

    try:
        return load(
            start,
            config=config,
            select=select,
            ignore=ignore,
            fail_on=fail_on.value if fail_on is not None else None,
            **values,  # type: ignore[arg-type]
        )
    except InputError as exc:
        _fail(str(exc))


@app.command()
def diagnose(
    path: Annotated[Path, typer.Argument(help="Run directory or log file.")],
    format: FormatOpt = Format.terminal,
    fail_on: FailOnOpt = None,
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
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    config: ConfigOpt = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Diagnose a finished or running training run (PATH `-` reads a log from stdin)."""
    from traindoc.api import diagnose as diagnose_path

    if regime is not None and regime not in REGIMES:
        _fail(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
    settings = _settings(
        path,
        config,
        select,
        ignore,
        fail_on,
        regime=regime,
        vocab_size=vocab_size,
        num_classes=num_classes,
    )
    try:
        d = diagnose_path(path, checkpoints=checkpoints, pattern=pattern, settings=settings)
    except InputError as exc:
        _fail(str(exc))
    n = len(d.runs) + len(d.unreadable)
    if html is not None and n > 1:
        print(f"traindoc: --html takes one run; {path} holds {n}", file=sys.stderr)
    _show(d, format, _console(width, no_color), quiet)
    if d.unreadable and n > 1:  # the reports stand; stderr names what could not be read
        more = f" (and {len(d.unreadable) - 1} more unreadable)" if len(d.unreadable) > 1 else ""
        print(f"traindoc: {d.unreadable[0].error}{more}", file=sys.stderr)
    if html is not None and n == 1:
        _write(html, d.to_html())
    raise typer.Exit(d.exit_status())


def _show(d: Diagnosis, format: Format, console: Console, quiet: bool = False) -> None:
    """The one place that picks a diagnosis's renderer."""
    if format is Format.json:
        print(d.to_json())
    elif format is Format.markdown:
        print(d.to_markdown())
    elif format is Format.github:
        text = d.to_github()
        if text:
            print(text)
    elif format is Format.sarif:
        print(d.to_sarif())
    elif quiet:
        from traindoc.report.terminal import verdict_line

        for r in d.runs:
            console.print(verdict_line(r))
        for u in d.unreadable:
            console.print(f"[bold magenta] UNREADABLE [/]  {escape(u.name)}: {escape(u.error)}")
    else:
        from traindoc.report import summary
        from traindoc.report.terminal import render as render_term

        for r in d.runs:
            render_term(r, console)
        rows = d.summary()
        if rows:
            for u in d.unreadable:
                console.print(f"[magenta]UNREADABLE[/] {escape(u.name)}: {escape(u.error)}")
            summary.render_terminal(rows, console)


@app.command()
def ckpt(
    path: Annotated[Path, typer.Argument(help="Checkpoint file or dir, or a run dir.")],
    against: Annotated[
        Path | None, typer.Option(help="An earlier checkpoint: show the update in between.")
    ] = None,
    format: FormatOpt = Format.terminal,
    fail_on: FailOnOpt = None,
    workers: Annotated[int | None, typer.Option(help="Processes for sharded files.")] = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    config: ConfigOpt = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Check a checkpoint's tensors: exploded, NaN, zero, untrained adapters, frozen."""
    from traindoc.api import ckpt as check

    settings = _settings(path, config, select, ignore, fail_on)
    try:
        d = check(path, against=against, workers=workers, settings=settings)
    except InputError as exc:
        _fail(str(exc))
    console = _console(width, no_color)
    if format in (Format.terminal, Format.markdown) and not quiet:
        # (markdown has no checkpoint table: it shows the terminal view, as it always did)
        from traindoc.report.checkpoints import render_all, render_comparison
        from traindoc.report.terminal import render_findings

        r, cmp = d.runs[0], d.extra.get("comparison")
        flagged = {
            (f.evidence.get("checkpoint"), t) for f in r.findings for t in _tensor_names(f.evidence)
        }
        render_all(r.run.checkpoints, flagged, console)
        if cmp is not None:
            render_comparison(cmp, console)
        render_findings(r, console)
    else:
        _show(d, format, console, quiet)
    raise typer.Exit(d.exit_status())


@app.command()
def compare(
    paths: Annotated[
        list[Path], typer.Argument(help="Two or more runs; the first is the reference.")
    ],
    format: Annotated[
        Format, typer.Option("--format", "-f", help="terminal or json.")
    ] = Format.terminal,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the runs overlaid as HTML here.")
    ] = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
) -> None:
    """Overlay runs and say the first step where each parts from the first (loss, LR, grad norm)."""
    from traindoc.compare import compare_runs, config_diff
    from traindoc.pipeline import load
    from traindoc.readers import ReadError

    if len(paths) < 2:
        _fail("compare needs at least two runs")
    if format in (Format.github, Format.sarif, Format.markdown):
        _fail(f"compare writes terminal or json, not {format.value}")
    try:
        runs = [load(p, checkpoints=False) for p in paths]
    except ReadError as exc:
        _fail(str(exc))
    cmps, config = compare_runs(runs), config_diff(runs)
    if format is Format.json:
        import json

        doc = {
            "runs": [r.name for r in runs],
            "config": [c.to_dict() for c in config],
            "comparisons": [c.to_dict() for c in cmps],
        }
        print(json.dumps(doc, indent=2, default=str))
    else:
        from traindoc.report.compare_terminal import render as render_cmp

        render_cmp(runs, cmps, _console(width, no_color), config)
    if html is not None:
        from traindoc.report.html import render_compare

        _write(html, render_compare(runs, cmps, config))


def _write(path: Path, text: str) -> None:
    if (error := write_text(path, text)) is not None:
        _fail(error)


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
    format: FormatOpt = Format.terminal,
    fail_on: FailOnOpt = None,
    html: Annotated[Path | None, typer.Option("--html", help="Also write an HTML report.")] = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    settings_file: Annotated[
        Path | None,
        typer.Option("--settings", help="traindoc's settings file (--config is the training's)."),
    ] = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Check the start, the rate, the resume and the memory before spending GPU time."""
    from traindoc.preflight.command import preflight_command

    start = next((p for p in (model, config, data, resume) if p is not None), Path("."))
    settings = _settings(start, settings_file, select, ignore, fail_on)
    raise typer.Exit(
        preflight_command(
            model,
            config,
            data,
            gpu,
            gpu_mem,
            resume,
            format=format.value,
            fail_on=settings.fail_on,
            settings=settings,
            console=_console(width, no_color),
            quiet=quiet,
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
    threshold: Annotated[
        float, typer.Option(help="Near-duplicate Jaccard threshold (word 1+2-gram sets).")
    ] = 0.6,
    max_seq_len: Annotated[int | None, typer.Option(help="Flag samples longer than this.")] = None,
    distributed: Annotated[bool, typer.Option(help="Run on a local Dask cluster.")] = False,
    workers: Annotated[int, typer.Option(help="Dask workers with --distributed.")] = 2,
    format: FormatOpt = Format.terminal,
    fail_on: FailOnOpt = None,
    html: Annotated[Path | None, typer.Option("--html", help="Also write an HTML report.")] = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    config: ConfigOpt = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Audit a dataset: duplicates, near-duplicates, label conflicts, leakage, imbalance."""
    from traindoc.data.command import data_command

    settings = _settings(path, config, select, ignore, fail_on)
    raise typer.Exit(
        data_command(
            path,
            eval,
            text_field,
            label_field,
            export,
            format=format.value,
            fail_on=settings.fail_on,
            distributed=distributed,
            threshold=threshold,
            max_seq_len=max_seq_len,
            workers=workers,
            html=html,
            settings=settings,
            console=_console(width, no_color),
            quiet=quiet,
        )
    )


@app.command()
def watch(
    run_dir: Annotated[
        Path, typer.Argument(help="Output dir (or log file) another process is writing.")
    ],
    interval: Annotated[float, typer.Option(help="Seconds between looks at the files.")] = 2.0,
    every: Annotated[
        float, typer.Option(min=0.001, help="Seconds between heartbeats (step, loss, LR).")
    ] = 30.0,
    stall_after: Annotated[
        float | None, typer.Option(help="Report a stall after this many silent seconds.")
    ] = None,
    once: Annotated[bool, typer.Option(help="Look once and exit.")] = False,
    fail_on: FailOnOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Follow a run being written: new findings as they appear, a heartbeat, stalls, the end."""
    from traindoc.live.command import watch as follow

    settings = _settings(run_dir, config, select, ignore, fail_on)
    raise typer.Exit(
        follow(
            run_dir,
            interval=interval,
            stall_after=stall_after,
            once=once,
            every=every,
            settings=settings,
        )
    )


@app.command()
def rules(
    path: Annotated[
        Path | None, typer.Argument(help="With --settings: the run whose settings to show.")
    ] = None,
    settings: Annotated[
        bool,
        typer.Option("--settings", help="Show the effective settings and where each came from."),
    ] = False,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    config: ConfigOpt = None,
    fail_on: FailOnOpt = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
) -> None:
    """List every rule: id, family, default severity, summary (--settings: the effective ones)."""
    from rich.table import Table

    from traindoc.rules.registry import load_all

    console = _console(width, no_color)
    if settings or path is not None:
        from traindoc.report.settings import render as render_settings

        found = _settings(path or Path("."), config, select, ignore, fail_on)
        render_settings(found, load_all().values(), console)
        return
    table = Table(box=None, header_style="bold")
    for col in ("rule", "family", "severity", "what it flags"):
        table.add_column(col)
    for spec in load_all().values():
        table.add_row(spec.id, spec.family, str(spec.severity), spec.summary)
    console.print(table)


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
