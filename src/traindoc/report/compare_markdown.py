"""`traindoc compare --format markdown`: the config diff and where each run parts."""

from __future__ import annotations

from traindoc.compare import RunComparison
from traindoc.report.compare_terminal import value_text
from traindoc.report.markdown import cell


def render(c: RunComparison) -> str:
    names = [r.name for r in c.runs]
    out = [f"### traindoc compare: {', '.join(f'`{cell(n)}`' for n in names)}", ""]
    if c.config:
        if not any(row.differs for row in c.config):
            out += ["Same config in every run (as far as recorded).", ""]
        out += ["| setting | " + " | ".join(cell(n) for n in names) + " |"]
        out += ["|" + "---|" * (len(names) + 1)]
        for row in c.config:  # the settings that differ are first, and in bold
            vals = [cell(value_text(v)) for v in row.values]
            key = f"**{cell(row.key)}**" if row.differs else cell(row.key)
            out.append(
                f"| {key} | " + " | ".join(f"**{v}**" if row.differs else v for v in vals) + " |"
            )
        out.append("")
    out += ["| run | steps | final loss |", "|---|---:|---:|"]
    for r in c.runs:
        loss = r.get("loss")
        last = value_text(float(loss.values[-1])) if loss is not None and len(loss) else "—"
        out.append(f"| {cell(r.name)} | {r.last_step or 0} | {last} |")
    out.append("")
    for x in c.comparisons:
        first = x.first
        parts = (
            f"parts at step **{first.step}** ({first.signal})" if first else "does not part from it"
        )
        out += [f"**{cell(x.other)}** vs **{cell(x.reference)}**: {parts}", ""]
        out += ["| signal | step | why |", "|---|---:|---|"]
        out += [
            f"| {cell(p.signal)} | {'' if p.step is None else p.step} | {cell(p.reason)} |"
            for p in x.partings
        ]
        out.append("")
    return "\n".join(out).rstrip("\n")
