"""Discovers every rule module under traindoc.rules.<family>/ and returns the specs."""

from __future__ import annotations

import importlib
import pkgutil

from traindoc.rules.api import FAMILIES, RuleSpec, registered

_loaded = False


def load_all() -> dict[str, RuleSpec]:
    global _loaded
    if not _loaded:
        for family in FAMILIES:
            try:
                pkg = importlib.import_module(f"traindoc.rules.{family}")
            except ModuleNotFoundError:
                continue
            for mod in pkgutil.iter_modules(pkg.__path__):
                if not mod.name.startswith("_"):
                    importlib.import_module(f"{pkg.__name__}.{mod.name}")
        _loaded = True
    return dict(sorted(registered().items()))


def get(rule_id: str) -> RuleSpec:
    rules = load_all()
    if rule_id not in rules:
        raise KeyError(rule_id)
    return rules[rule_id]
