"""Layers point one way: cli -> {report, engine} -> {rules, readers, ckpt} -> measure -> model.

Checked on the source's import statements, so a wrong-way import fails here
rather than in a reviewer's head. Heavy frameworks stay out of the core.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parents[1] / "src" / "traindoc"

# package -> traindoc packages it must not import
_ABOVE = {
    "engine",
    "report",
    "cli",
    "corpus",
    "pipeline",
    "live",
    "preflight",
    "integrations",
    "api",
    "result",
    "settings",
}
FORBIDDEN = {
    "model": {"readers", "rules", "measure", "data", "ckpt", *_ABOVE},
    # the one pickle walker (readers/ and ckpt/ share it): a leaf, it imports no traindoc
    "safepickle": {"model", "readers", "rules", "measure", "data", "ckpt", *_ABOVE},
    # the one progress bar (readers/, ckpt/ and data/ share it): a leaf as well
    "progress": {"model", "readers", "rules", "measure", "data", "ckpt", *_ABOVE},
    # one measurement layer: curve summaries, floors, schedules, spikes; over the model only
    "measure": {"readers", "rules", "data", "ckpt", *_ABOVE},
    "readers": {"rules", "data", "ckpt", *_ABOVE},
    "rules": {"readers", "data", *_ABOVE},
    "ckpt": {"readers", "rules", "data", *_ABOVE},
    "report": {"readers", "cli", "api", "result"},
}
HEAVY = {"torch", "transformers", "lightning", "pandas", "tensorboard"}


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_layers_point_one_way() -> None:
    bad = []
    for pkg, forbidden in FORBIDDEN.items():
        paths = [SRC / f"{pkg}.py"] if (SRC / f"{pkg}.py").is_file() else (SRC / pkg).rglob("*.py")
        for path in paths:
            for mod in _imports(path):
                parts = mod.split(".")
                if parts[0] == "traindoc" and len(parts) > 1 and parts[1] in forbidden:
                    bad.append(f"{path.relative_to(SRC)} imports {mod}")
    assert not bad, bad


def test_core_never_imports_heavy_frameworks_at_module_level() -> None:
    bad = []
    for path in SRC.rglob("*.py"):
        if "integrations" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level only: lazy imports inside functions are fine
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            bad += [f"{path.relative_to(SRC)}: {n}" for n in names if n.split(".")[0] in HEAVY]
    assert not bad, bad
