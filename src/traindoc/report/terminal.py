"""The terminal report: readable in ten seconds, root causes first."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from traindoc.measure.floor import log_name
from traindoc.measure.stats import fmt
from traindoc.model import Finding, Severity
from traindoc.model.diagnosis import Diagnosis
from traindoc.report._live import live_line
from traindoc.report.console import colored
from traindoc.report.line import steps_text
from traindoc.report.sparkline import sparkline

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
VERDICT_STYLE = {
    "broken": "bold white on red",
    "suspect": "bold black on yellow",
    "healthy": "bold white on green",
    "inconclusive": "bold black on white",
}
KEY_FACTS = (
    "regime",
    "vocab_size",
    "num_classes",
    "learning_rate",
    "lr_scheduler",
    "effective_batch",
    "precision",
    "max_steps",
)


def render(d: Diagnosis, console: Console, *, metrics_expected: bool = True) -> None:
    """The diagnosis; `metrics_expected` is False where only a config is checked (preflight)."""
    run = d.run
    console.print(verdict_line(d, metrics_expected=metrics_expected))
    facts = [f"{k}={_short(run.fact(k))}" for k in KEY_FACTS if run.fact(k) is not None]
    if facts:
        console.print(Text("  " + "  ".join(facts), style="dim"))
    _curve(d, console)
    _inputs(d, console)
    render_findings(d, console, metrics_expected=metrics_expected)


def verdict_line(d: Diagnosis, *, metrics_expected: bool = True) -> Text:
    """The report's first line (all that --quiet prints): verdict, run, steps."""
    head = Text()
    if metrics_expected and d.empty:  # "healthy" would claim more than was checked
        head.append(" NO METRICS YET ", style="bold black on white")
    elif d.verdict == "inconclusive":
        head.append(" NOT ENOUGH DATA ", style=VERDICT_STYLE["inconclusive"])
    else:
        head.append(f" {d.verdict.upper()} ", style=VERDICT_STYLE[d.verdict])
    head.append(f"  {d.run.name}", style="bold")
    if d.run.last_step is not None:
        head.append(f"  ·  {d.run.last_step} steps")
    return head


def render_findings(d: Diagnosis, console: Console, *, metrics_expected: bool = True) -> None:
    """Findings, root causes first, then the readers' notes and internal errors."""
    run = d.run
    if metrics_expected and d.empty:
        console.print("\n  No metric logged yet: only the configuration was checked.")
    elif d.verdict == "inconclusive":
        console.print("\n  Nothing wrong found, but too little was logged to call the run healthy:")
        core = set(d.core_not_judged)
        for s in d.not_judged:
            if s.rule in core:
                console.print(Text(f"    {s.rule}: {s.reason}", style="dim"))
    elif not d.findings:
        console.print("\n  No problems found.", style="green")
    roots = [f for f in d.findings if not f.caused_by]
    effects = [f for f in d.findings if f.caused_by]
    if roots:
        console.print("\n[bold]Root causes[/]" if effects else "")
    for i, f in enumerate(roots, 1):
        _finding(console, f, i, d)
    if effects:
        console.print("\n[bold]Consequences[/]")
        for i, f in enumerate(effects, len(roots) + 1):
            _finding(console, f, i, d)
    for note in run.notes[:8]:
        console.print(Text(f"  note: {note}", style="dim"))
    if len(run.notes) > 8:
        console.print(Text(f"  ... and {len(run.notes) - 8} more notes", style="dim"))
    for err in d.errors:
        console.print(Text(f"  internal: {err}", style="magenta"))


def _finding(console: Console, f: Finding, i: int, d: Diagnosis) -> None:
    line = Text(f"\n {i}. ")
    line.append(f"{str(f.severity).upper():7}", style=STYLE[f.severity])
    line.append(f" {f.title}", style="bold")
    line.append(f"  [{f.id}]", style="dim")
    console.print(line)
    where = steps_text(f)
    if where or f.caused_by:
        extra = f"caused by {', '.join(f.caused_by)}" if f.caused_by else ""
        console.print(Text("    " + "  ·  ".join(x for x in (where, extra) if x), style="dim"))
    live = live_line(f)
    if live:
        console.print(Text(f"    {live}", style="yellow"))
    if f.explanation:
        console.print(f"    [dim]why:[/] {escape(f.explanation)}")
    if f.prescription:
        console.print(f"    [green]do:[/]  {escape(f.prescription)}")


def _curve(d: Diagnosis, console: Console) -> None:
    loss = d.run.get("loss")
    if loss is None:
        return
    floor = d.run.floor
    cells, on_floor = sparkline(loss, 60, floor)
    if not cells:
        return
    t = Text("  loss ")
    t.append(fmt(float(loss.finite().values[0])) + " ")
    for c, f in zip(cells, on_floor, strict=True):
        t.append(c, style="red" if f else "blue")
    t.append(" " + fmt(float(loss.finite().values[-1])))
    if floor:  # the legend names a colour only where there is colour
        legend = "red = on the floor" if colored(console) else "the floor"
        # ln C for a classifier's classes, ln V for a vocabulary; log2 for a loss in bits
        count = "C" if d.run.fact("num_classes") else "V"
        t.append(f"   ({legend} {log_name(d.run)} {count} = {floor:.2f})", style="dim")
    console.print(t)


def _inputs(d: Diagnosis, console: Console) -> None:
    """What was read from each log, so a misread shows at once."""
    for line in read_lines(d):
        console.print(Text(f"  {line}", style="dim"))


def read_lines(d: Diagnosis, top: int = 6) -> list[str]:
    """One line per metrics input: the series found (most points first), the steps' origin,
    and the lines that named a metric but were not understood (with the first)."""
    out = []
    for i in d.run.inputs:
        if i.series is None:
            continue
        name = i.path.rsplit("/", 1)[-1]
        dialect = d.run.fact("trainer")
        how = f"{i.kind}, {dialect} lines" if i.kind == "text-log" and dialect else i.kind
        ranked = sorted(i.series.items(), key=lambda kv: (-kv[1], kv[0]))
        found = ", ".join(f"{k} {n}" for k, n in ranked[:top]) or "no series"
        if len(ranked) > top:
            found += f", +{len(ranked) - top} more"
        line = f"read {name} ({how}): {found}"
        if i.steps_from and i.kind == "text-log":
            line += f"; steps from {i.steps_from.split(' (')[0]}"
        if i.lines_not_understood:
            line += f"; {i.lines_not_understood} line(s) naming a metric not understood"
            if i.first_not_understood:
                line += f", first {i.first_not_understood[:100]!r}"
        out.append(line)
    data = [i.path.rsplit("/", 1)[-1] for i in d.run.inputs if i.kind == "data"]
    if data and d.run.data is not None:
        rows = f"{d.run.data.rows} rows" + (
            f", eval {d.run.data.eval_rows}" if d.run.data.eval_rows else ""
        )
        out.append(f"audited data found with the run: {', '.join(data[:4])} ({rows})")
    return out


def _short(v: object) -> str:
    if isinstance(v, float):
        return fmt(v, 3)
    return str(v)
