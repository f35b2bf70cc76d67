"""A Markdown report to paste into a bug report, with what maintainers always ask for.

The config (LR, scheduler, warmup, batch x accumulation x devices, dtype), the
library versions, the step of the first anomaly, and the loss / grad_norm / LR
around it — so nobody needs a round trip to ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from traindoc.measure.stats import fmt
from traindoc.model import Run
from traindoc.model.diagnosis import Diagnosis
from traindoc.report._live import live_line
from traindoc.report.line import step_range

if TYPE_CHECKING:
    from traindoc.report.render import Report

CONFIG_FACTS = (
    "regime",
    "vocab_size",
    "num_classes",
    "learning_rate",
    "lr_scheduler",
    "warmup_steps",
    "warmup_ratio",
    "per_device_batch",
    "devices",
    "grad_accum",
    "effective_batch",
    "precision",
    "max_grad_norm",
    "max_steps",
    "resume_steps",
)


def cell(text: str) -> str:
    """Text safe inside a table cell (and anywhere else in the report)."""
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def report(r: Report) -> str:
    """`--format markdown` of diagnose and preflight: a block per run, then the summary."""
    from traindoc.report import summary

    parts = [render(d) for d in r.runs]
    rows = r.summary()
    if rows:
        parts.append(summary.render_markdown(rows))
    return "\n\n".join(parts)


def render(d: Diagnosis) -> str:
    run = d.run
    out = [f"### traindoc: `{cell(run.name)}` is **{d.verdict}**", ""]
    out += findings(d)
    cfg = [(k, run.fact(k)) for k in CONFIG_FACTS if run.fact(k) is not None]
    if cfg:
        out += ["<details><summary>Config</summary>", "", "| key | value | from |", "|---|---|---|"]
        out += [f"| {k} | {cell(str(v))} | {cell(run.facts[k].source)} |" for k, v in cfg]
        out += ["", "</details>", ""]
    out += [versions_line(run.fact("versions") or {}), ""]
    step = d.first_anomaly_step()
    if step is not None:
        out += [f"First anomaly at step **{step}**:", "", *around(run, step), ""]
    from traindoc.report.terminal import read_lines

    read = read_lines(d)
    if read:
        out += ["<details><summary>What was read</summary>", ""]
        out += [f"- {cell(x)}" for x in read] + ["", "</details>", ""]
    out.append(f"<sub>traindoc · inputs: {', '.join(cell(i.path) for i in run.inputs)}</sub>")
    return "\n".join(out)


def findings(d: Diagnosis) -> list[str]:
    """The findings table and what to do about each root cause (or why none is listed)."""
    out: list[str] = []
    if d.findings:
        out += [
            "| # | severity | finding id | finding | steps | caused by |",
            "|---|---|---|---|---|---|",
        ]
        for i, f in enumerate(d.findings, 1):
            out.append(
                f"| {i} | {f.severity} | `{f.id}` | {cell(f.title)} | {step_range(f)} | "
                f"{', '.join(f.caused_by)} |"
            )
        out.append("")
        for f in d.findings:
            live = live_line(f)
            if f.caused_by and not live:
                continue
            out += [f"**{cell(f.title)}** — {cell(f.prescription)}", ""]
            out += [f"_{cell(live[0].upper() + live[1:])}._", ""] if live else []
    elif d.verdict == "inconclusive":
        out += ["Nothing wrong found, but too little was logged to call the run healthy:", ""]
        core = set(d.core_not_judged)
        out += [f"- `{s.rule}`: {cell(s.reason)}" for s in d.not_judged if s.rule in core]
        out.append("")
    else:
        out += ["No problems found.", ""]
    return out


def versions_line(recorded: dict[str, str]) -> str:
    """Python, torch, transformers and traindoc, always, then any other recorded library.

    What the run's artefacts recorded wins; otherwise the version installed
    where traindoc ran, marked "here", since a bug report needs them either
    way and the training machine is usually this one.
    """
    import platform
    from importlib import metadata

    from traindoc import __version__

    def here(dist: str) -> str:
        try:
            return f"{metadata.version(dist)} (here)"
        except metadata.PackageNotFoundError:
            return "not recorded"

    low = {k.lower(): str(v) for k, v in recorded.items()}
    parts = [
        f"Python {low.pop('python', None) or platform.python_version() + ' (here)'}",
        f"torch {low.pop('torch', None) or here('torch')}",
        f"transformers {low.pop('transformers', None) or here('transformers')}",
        f"traindoc {__version__}",
    ]
    low.pop("traindoc", None)
    return "Versions: " + ", ".join(parts + [f"{k} {v}" for k, v in sorted(low.items())])


def around(run: Run, step: int, k: int = 5) -> list[str]:
    """A short loss / grad_norm / lr table of the logged points around `step`."""
    loss = run.get("loss")
    if loss is None:
        return []
    i = int(np.searchsorted(loss.steps, step))
    steps = loss.steps[max(0, i - k) : i + k + 1]
    cols = [(name, run.get(name)) for name in ("loss", "grad_norm", "lr")]
    cols = [(n, s) for n, s in cols if s is not None]
    rows = ["| step | " + " | ".join(n for n, _ in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for st in steps:
        vals = []
        for _, s in cols:
            j = np.searchsorted(s.steps, st)
            vals.append(fmt(float(s.values[j])) if j < len(s) and s.steps[j] == st else "")
        rows.append(f"| {st} | " + " | ".join(vals) + " |")
    return rows
