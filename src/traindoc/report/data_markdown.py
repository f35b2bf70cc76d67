"""`traindoc data --format markdown`: the audit's counts and the findings, to paste."""

from __future__ import annotations

from typing import TYPE_CHECKING

from traindoc.report.data import counts, details, source
from traindoc.report.markdown import cell, findings

if TYPE_CHECKING:
    from traindoc.report.render import Report


def render(r: Report) -> str:
    d = r.runs[0]
    s = d.run.data
    out = [f"### traindoc data: `{cell(d.run.name)}` is **{d.verdict}**", ""]
    if s is not None:
        src, what = source(s)
        out += [f"`{cell(src)}` · {cell(what)}", "", "| what | count | share |", "|---|---:|---:|"]
        for name, count, share, problem in counts(s):
            shown = f"**{count:,}**" if problem and count else f"{count:,}"
            out.append(f"| {cell(name)} | {shown} | {share} |")
        out.append("")
        out += [f"- {cell(line)}" for line in details(s)]
        out += [f"- note: {cell(n)}" for n in s.notes[:10]]
        out += [""] if details(s) or s.notes else []
    out += findings(d)
    if r.extra.get("export_path"):
        out += [f"Rows to drop written to `{cell(str(r.extra['export_path']))}`.", ""]
    return "\n".join(out).rstrip("\n")
