"""A Markdown report to paste into a bug report, with what maintainers always ask for.

The config (LR, scheduler, warmup, batch x accumulation x devices, dtype), the
library versions, the step of the first anomaly, and the loss / grad_norm / LR
around it — so nobody needs a round trip to ask.
"""

from __future__ import annotations

import numpy as np

from traindoc.engine import Diagnosis
from traindoc.measure.stats import fmt
from traindoc.model import Run
from traindoc.report._live import live_line

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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def render(d: Diagnosis) -> str:
    run = d.run
    out = [f"### traindoc: `{_cell(run.name)}` is **{d.verdict}**", ""]
    if d.findings:
        out += [
            "| # | severity | rule | finding | steps | caused by |",
            "|---|---|---|---|---|---|",
        ]
        for i, f in enumerate(d.findings, 1):
            steps = (
                ""
                if f.step is None
                else f"{f.step}" + (f"–{f.end_step}" if f.end_step not in (None, f.step) else "")
            )
            out.append(
                f"| {i} | {f.severity} | `{f.rule}` | {_cell(f.title)} | {steps} | "
                f"{', '.join(f.caused_by)} |"
            )
        out.append("")
        for f in d.findings:
            live = live_line(f)
            if f.caused_by and not live:
                continue
            out += [f"**{_cell(f.title)}** — {_cell(f.prescription)}", ""]
            out += [f"_{_cell(live[0].upper() + live[1:])}._", ""] if live else []
    elif d.verdict == "inconclusive":
        out += ["Nothing wrong found, but too little was logged to call the run healthy:", ""]
        core = set(d.core_not_judged)
        out += [f"- `{s.rule}`: {_cell(s.reason)}" for s in d.not_judged if s.rule in core]
        out.append("")
    else:
        out += ["No problems found.", ""]
    cfg = [(k, run.fact(k)) for k in CONFIG_FACTS if run.fact(k) is not None]
    if cfg:
        out += ["<details><summary>Config</summary>", "", "| key | value | from |", "|---|---|---|"]
        out += [f"| {k} | {_cell(str(v))} | {_cell(run.facts[k].source)} |" for k, v in cfg]
        out += ["", "</details>", ""]
    versions = run.fact("versions") or {}
    if versions:
        out.append("Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
        out.append("")
    step = d.first_anomaly_step()
    if step is not None:
        out += [f"First anomaly at step **{step}**:", "", *around(run, step), ""]
    from traindoc.report.terminal import read_lines

    read = read_lines(d)
    if read:
        out += ["<details><summary>What was read</summary>", ""]
        out += [f"- {_cell(x)}" for x in read] + ["", "</details>", ""]
    out.append(f"<sub>traindoc · inputs: {', '.join(_cell(i.path) for i in run.inputs)}</sub>")
    return "\n".join(out)


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
