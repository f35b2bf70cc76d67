"""Layers point one way, and underscore means private (docs/layout.md draws the picture).

Checked on the source's import statements (lazy and TYPE_CHECKING ones too), so a
wrong-way import fails here rather than in a reviewer's head. Every top-level
module and package of src/traindoc must be declared in LAYERS, so a new one cannot
escape the check. Heavy frameworks stay out of the core.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src" / "traindoc"

# Top first: (packages, what lives there). A module may import the packages of any
# layer below its own; the packages of one layer are independent and never import
# each other (rules and readers never do, report never diagnoses, live never renders).
# A declared package that does not exist (yet) is fine; one that exists undeclared is
# not. docs/layout.md draws this (`make docs`).
Layers = tuple[tuple[tuple[str, ...], str], ...]
LAYERS: Layers = (
    (("__init__", "__main__"), "the root facade (imports on first use); python -m traindoc"),
    (("cli",), "argv in, exit status out: typer wiring only"),
    (("commands",), "one module per command: arguments -> API -> render(result, fmt, out)"),
    (("api", "integrations"), "the Python API's functions; the HF / Lightning callbacks"),
    (("result",), "the Diagnosis a command or an API call returns (to_json, to_html)"),
    (("report", "live", "preflight", "corpus"), "renderers; live monitor; preflight; corpus eval"),
    (
        ("pipeline", "engine", "settings", "compare"),
        "run dir -> Run; Run -> findings; config; A vs B",
    ),
    (("rules", "readers", "ckpt", "data"), "the rules; the log, checkpoint and dataset readers"),
    (("measure", "outcome"), "shared measurements and fmt; exit codes and InputError"),
    (("model",), "Run, Series, Finding, signals, facts, tensor roles: frozen data, no I/O"),
    (("safepickle", "progress"), "the pickle walker and the progress bar: import no traindoc"),
)

# Wrong-way imports known today, each with its owner and where it is going; delete an
# entry when its file is fixed or gone -- the check below fails on a stale entry so the
# list cannot rot. (Empty since the command glue moved to commands/.)
KNOWN: dict[tuple[str, str], str] = {}

HEAVY = {"torch", "transformers", "lightning", "pandas", "tensorboard"}


def _module_name(path: Path, src: Path) -> str:
    parts = [src.name, *path.relative_to(src).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(name: str, src: Path) -> bool:
    return (src.parent / name.replace(".", "/")).is_dir()


def _is_module(name: str, src: Path) -> bool:
    rel = src.parent / name.replace(".", "/")
    return rel.is_dir() or rel.with_suffix(".py").is_file()


def imported(path: Path, src: Path) -> set[str]:
    """Every traindoc name a file imports, dotted: modules, and module.attribute for
    `from m import attr` (relative imports resolved), so a private attribute shows."""
    me = _module_name(path, src)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *base.split(".")] if base else up)
            out |= {f"{base}.{a.name}" if a.name != "*" else base for a in node.names}
    return {n for n in out if n.split(".")[0] == src.name}


def top_of(name: str, src: Path) -> str | None:
    """The top-level package a dotted name lands in; None for the root's own names
    (`from traindoc import __version__, CallablePackage`), which import nothing."""
    parts = name.split(".")
    if len(parts) < 2 or not _is_module(".".join(parts[:2]), src):
        return None
    return parts[1]


def private_owner(name: str, src: Path) -> str | None:
    """The package that owns the first underscore part of a dotted name, or None.

    `traindoc.rules._stats.fmt` and `traindoc.rules.api._plan` belong to
    `traindoc.rules` (the package the underscore module or name sits in); only
    modules inside that package, at any depth, may import them. Dunders are public.
    """
    parts = name.split(".")
    for i, part in enumerate(parts[1:], 1):
        if part.startswith("_") and not part.startswith("__"):
            owner = parts[:i]
            while len(owner) > 1 and not _is_package(".".join(owner), src):
                owner = owner[:-1]
            return ".".join(owner)
    return None


def declared(layers: Layers) -> dict[str, int]:
    """Package -> its layer's rank (0 at the top)."""
    return {pkg: rank for rank, (layer, _) in enumerate(layers) for pkg in layer}


def undeclared(src: Path, layers: Layers) -> list[str]:
    """Top-level modules and packages of src that LAYERS does not place."""
    tops = {p.stem for p in src.glob("*.py")} | {
        p.name for p in src.iterdir() if p.is_dir() and any(p.rglob("*.py"))
    }
    return sorted(tops - declared(layers).keys())


def layer_violations(src: Path, layers: Layers) -> dict[tuple[str, str], str]:
    """(file, imported top-level package) -> the import, for every import that does not
    point strictly down the layers (same layer counts as wrong: they are independent)."""
    rank = declared(layers)
    bad: dict[tuple[str, str], str] = {}
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        mine = rel.parts[0].removesuffix(".py")
        for name in sorted(imported(path, src)):
            other = top_of(name, src)
            if other is None or other == mine or mine not in rank:
                continue
            if other not in rank or rank[other] <= rank[mine]:
                bad.setdefault((rel.as_posix(), other), name)
    return bad


def private_violations(src: Path) -> list[str]:
    """Imports of an underscore module or name from outside the package that owns it."""
    bad = []
    for path in sorted(src.rglob("*.py")):
        me = _module_name(path, src)
        for name in sorted(imported(path, src)):
            owner = private_owner(name, src)
            if owner is not None and me != owner and not me.startswith(owner + "."):
                bad.append(
                    f"{path.relative_to(src).as_posix()} imports {name} (private to {owner})"
                )
    return bad


def test_every_package_is_declared_in_a_layer() -> None:
    assert not undeclared(SRC, LAYERS), f"add these to LAYERS: {undeclared(SRC, LAYERS)}"


def test_layers_point_one_way() -> None:
    found = layer_violations(SRC, LAYERS)
    bad = [f"{key[0]} imports {name}" for key, name in found.items() if key not in KNOWN]
    assert not bad, bad


def test_known_exceptions_are_still_needed() -> None:
    found = layer_violations(SRC, LAYERS)
    stale = [f"{f} -> {pkg}" for f, pkg in KNOWN if (f, pkg) not in found]
    assert not stale, f"fixed or gone: delete from KNOWN: {stale}"


def test_no_module_imports_another_packages_private_module() -> None:
    bad = private_violations(SRC)
    assert not bad, bad


def _tree(root: Path, files: dict[str, str]) -> Path:
    src = root / "traindoc"
    for rel, text in files.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        for parent in path.relative_to(src).parents:
            (src / parent / "__init__.py").touch()
    return src


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A small tree laid out like src/traindoc, with wrong-way and private imports planted."""
    return _tree(
        tmp_path,
        {
            "__init__.py": "class CallablePackage: ...\n__version__ = '0'\n",
            "model/run.py": "",
            "measure/stats.py": "from traindoc.model import run\n",
            "ckpt/stats.py": "from traindoc.model.run import Run\n",
            "report/terminal.py": "from traindoc import __version__\n",
            "readers/_config.py": "def load(): ...\n",
            "readers/console.py": "from traindoc.readers import _config\n",
            "rules/_stats.py": "def fmt(): ...\n",
            "rules/api.py": "def _plan(): ...\n",
            # fine: down the layers, the root's own names, own package's private parts
            "rules/loss/ok.py": (
                "from traindoc import CallablePackage\n"
                "from traindoc.measure.stats import x\n"
                "from traindoc.rules._stats import fmt\n"
                "from .._stats import fmt as f2\n"
                "from traindoc.rules.api import _plan\n"
            ),
            # planted: rules over a reader, data over report (lazily), a relative way up
            "rules/x.py": "import traindoc.ckpt.stats\n",
            "data/y.py": "def f():\n    from traindoc.report import terminal\n",
            "rules/grads/_common.py": "def spikes(): ...\n",
            "rules/numerics/_common.py": "from traindoc.rules.grads._common import spikes\n",
            "rules/loss/up.py": "from ...readers import console\n",
            "preflight/config.py": "from traindoc.readers import _config\n",
            "preflight/name.py": "from traindoc.rules.api import _plan\n",
            "model/bad.py": "from traindoc.measure import stats\n",
            "newpkg/thing.py": "",
        },
    )


def test_the_layer_check_reports_planted_violations(planted: Path) -> None:
    found = layer_violations(planted, LAYERS)
    assert set(found) >= {
        ("rules/x.py", "ckpt"),
        ("data/y.py", "report"),
        ("rules/loss/up.py", "readers"),
        ("model/bad.py", "measure"),
    }
    assert found[("data/y.py", "report")] == "traindoc.report.terminal"
    assert not [k for k in found if k[0] in ("rules/loss/ok.py", "report/terminal.py")]
    assert not [k for k in found if k[0].startswith(("measure/", "ckpt/", "readers/"))]
    assert undeclared(planted, LAYERS) == ["newpkg"]


def test_the_private_check_reports_planted_violations(planted: Path) -> None:
    bad = private_violations(planted)
    assert bad == [
        "preflight/config.py imports traindoc.readers._config (private to traindoc.readers)",
        "preflight/name.py imports traindoc.rules.api._plan (private to traindoc.rules)",
        "rules/numerics/_common.py imports traindoc.rules.grads._common.spikes"
        " (private to traindoc.rules.grads)",
    ]


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


def test_renderers_read_model_data_not_the_engine() -> None:
    """report/ takes Diagnosis from model/ (the data), never from the engine that made it."""
    bad = [
        f"{path.relative_to(SRC).as_posix()} imports {name}"
        for path in sorted((SRC / "report").rglob("*.py"))
        for name in sorted(imported(path, SRC))
        if top_of(name, SRC) == "engine"
    ]
    assert not bad, bad


def test_findings_are_made_only_by_rule_specs() -> None:
    """A Finding built by hand bypasses its rule's id, family, severity and docs: only the
    spec (rules/api.py) makes one, and the model's own from_dict reads one back."""
    bad = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() in ("rules/api.py", "model/finding.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding":
                bad.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not bad, bad
