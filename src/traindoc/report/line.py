"""A finding in words on one line: the one place its steps and title become text.

The terminal, the Markdown table, the HTML cards, the GitHub annotations, the
SARIF results and `traindoc watch` all say where a finding happened; they say
it the same way because they ask here.
"""

from __future__ import annotations

from traindoc.model import Finding


def step_range(f: Finding) -> str:
    """ "12", "12–30", or "" for a finding about the whole run (a table's steps column)."""
    if f.step is None:
        return ""
    if f.end_step is not None and f.end_step != f.step:
        return f"{f.step}–{f.end_step}"
    return str(f.step)


def steps_text(f: Finding) -> str:
    """ "step 12", "steps 12–30", or "" for a finding about the whole run."""
    where = step_range(f)
    if not where:
        return ""
    return f"steps {where}" if "–" in where else f"step {where}"


def finding_line(f: Finding, run: str | None = None) -> str:
    """The title, then the steps unless the title already names them; `run: ` first when
    several runs share one output (a folder of runs in one annotation list)."""
    where = steps_text(f) if "step" not in f.title.lower() else ""
    head = f"{run}: " if run else ""
    return f"{head}{f.title}" + (f" ({where})" if where else "")
