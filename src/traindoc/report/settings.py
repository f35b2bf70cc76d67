"""`traindoc rules --settings`: the effective settings, each value beside where it came from.

Where a value came from is the whole point (ruff's `--show-settings`): a
threshold that is not what you think is found by reading its source column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields

from rich.console import Console
from rich.text import Text

from traindoc.rules.api import RuleSpec
from traindoc.settings import DEFAULT, Settings


def rows(settings: Settings, specs: Iterable[RuleSpec]) -> list[tuple[str, str, str]]:
    """(key, value, source) for every setting and every threshold of every enabled rule."""
    specs = list(specs)
    on = settings.apply(specs)
    on_ids = {s.id for s in on}
    off = [s.id for s in specs if s.id not in on_ids]
    out = [
        ("file", str(settings.file) if settings.file else "none found", ""),
        ("select", ", ".join(settings.select), settings.source("select")),
        ("ignore", ", ".join(settings.ignore) or "-", settings.source("ignore")),
        ("fail-on", settings.fail_on, settings.source("fail_on")),
    ]
    for key in ("regime", "vocab_size", "num_classes"):
        value = getattr(settings, key)
        shown = "inferred from the run" if value is None else str(value)
        out.append((key.replace("_", "-"), shown, settings.source(key)))
    out.append(("rules on", f"{len(on)} of {len(specs)}", ""))
    if off:
        out.append(("rules off", ", ".join(off), ""))
    for spec in on:
        if spec.params is None:
            continue
        for f in fields(spec.params):
            key = f"{spec.id}.{f.name}"
            value = getattr(spec.params, f.name)
            out.append((key, repr(value), settings.source(f"rules.{key}")))
    return out


def render(settings: Settings, specs: Iterable[RuleSpec], console: Console) -> None:
    """One `key = value  # source` line each, like a settings file: greppable, never a
    table padded to its longest cell."""
    found = rows(settings, specs)
    width = max(len(k) for k, _, _ in found)
    for key, value, source in found:
        line = Text(f"{key:<{width}} = {value}", style="dim" if source == DEFAULT else "")
        if source:
            line.append(f"  # {source}", style="dim" if source == DEFAULT else "bold")
        console.print(line)
