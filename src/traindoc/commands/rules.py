"""`traindoc rules` and `traindoc explain RULE`: what traindoc checks, from the registry."""

from __future__ import annotations

from traindoc.outcome import InputError
from traindoc.report.render import Output
from traindoc.rules.registry import load_all
from traindoc.settings import Settings


def rules(out: Output, settings: Settings | None = None) -> int:
    """Every rule; with `settings`, the effective settings and where each came from."""
    from traindoc.report import rules as view

    if settings is not None:
        from traindoc.report.settings import render as render_settings

        render_settings(settings, load_all().values(), out.console)
    else:
        view.table(load_all().values(), out)
    return 0


def explain(rule_id: str, out: Output) -> int:
    """One rule's page; InputError naming `traindoc rules` for an unknown id."""
    from traindoc.report import rules as view

    found = load_all()
    if rule_id not in found:
        raise InputError(f"unknown rule {rule_id!r}; run `traindoc rules` for the list")
    out.write(view.page(found[rule_id]))
    return 0
