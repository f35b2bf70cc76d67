"""Command line: the only layer that reads argv; typer wiring over traindoc.commands.

Each command here declares its options, builds the settings and the Output,
and calls its traindoc.commands module, which renders through report.render;
an InputError from any of them becomes the one `traindoc: ...` line on
stderr. Exit status (../shared/RULES.md): 0 when nothing reaches --fail-on, 1 when
something does, 2 for unusable input, arguments or settings (one line on
stderr; a settings file's errors are all listed, one per line).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from traindoc import __version__
from traindoc.model import REGIMES
from traindoc.outcome import InputError

if TYPE_CHECKING:
    from traindoc.report.render import Output
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


class CompareFormat(str, Enum):
    terminal = "terminal"
    json = "json"
    markdown = "markdown"


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


def _out(width: int | None = None, no_color: bool = False, quiet: bool = False) -> Output:
    """Where the report goes: stdout, fitted to it (report/console.py)."""
    from traindoc.report.console import make_console
    from traindoc.report.render import Output

    return Output(make_console(width=width, color=False if no_color else None), quiet=quiet)


def _run(status: Callable[[], int]) -> NoReturn:
    """Run a command; its status is the exit status, an InputError the one line and 2."""
    try:
        code = status()
    except InputError as exc:
        _fail(str(exc))
    raise typer.Exit(code)


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
    from traindoc.commands.diagnose import diagnose as command

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
    out = _out(width, no_color, quiet)
    _run(
        lambda: command(
            path,
            settings,
            out,
            fmt=format.value,
            checkpoints=checkpoints,
            pattern=pattern,
            html=html,
        )
    )


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
    from traindoc.commands.ckpt import ckpt as command

    settings = _settings(path, config, select, ignore, fail_on)
    out = _out(width, no_color, quiet)
    _run(lambda: command(path, settings, out, fmt=format.value, against=against, workers=workers))


@app.command()
def compare(
    paths: Annotated[
        list[Path], typer.Argument(help="Two or more runs; the first is the reference.")
    ],
    format: Annotated[
        CompareFormat, typer.Option("--format", "-f", help="terminal, json or markdown.")
    ] = CompareFormat.terminal,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the runs overlaid as HTML here.")
    ] = None,
    width: WidthOpt = None,
    no_color: NoColorOpt = False,
) -> None:
    """Overlay runs and say the first step where each parts from the first (loss, LR, grad norm)."""
    from traindoc.commands.compare import compare as command

    out = _out(width, no_color)
    _run(lambda: command(paths, out, fmt=format.value, html=html))


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
    from traindoc.commands.preflight import preflight as command

    start = next((p for p in (model, config, data, resume) if p is not None), Path("."))
    settings = _settings(start, settings_file, select, ignore, fail_on)
    out = _out(width, no_color, quiet)
    _run(
        lambda: command(
            settings,
            out,
            model=model,
            config=config,
            data=data,
            gpu=gpu,
            gpu_mem=gpu_mem,
            resume=resume,
            fmt=format.value,
            html=html,
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
    from traindoc.commands.data import data as command

    settings = _settings(path, config, select, ignore, fail_on)
    out = _out(width, no_color, quiet)
    _run(
        lambda: command(
            path,
            settings,
            out,
            fmt=format.value,
            eval_path=eval,
            text_field=text_field,
            label_field=label_field,
            export=export,
            threshold=threshold,
            max_seq_len=max_seq_len,
            distributed=distributed,
            workers=workers,
            html=html,
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
    from traindoc.commands.watch import watch as command

    settings = _settings(run_dir, config, select, ignore, fail_on)
    out = _out()
    _run(
        lambda: command(
            run_dir,
            out,
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
    from traindoc.commands.rules import rules as command

    found = None
    if settings or path is not None:
        found = _settings(path or Path("."), config, select, ignore, fail_on)
    out = _out(width, no_color)
    _run(lambda: command(out, found))


@app.command()
def explain(
    rule_id: Annotated[str, typer.Argument(help="A rule id, e.g. uniform-plateau.")],
) -> None:
    """Print one rule's documentation."""
    from traindoc.commands.rules import explain as command

    _run(lambda: command(rule_id, _out()))


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
