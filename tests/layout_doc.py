"""docs/layout.md's two generated blocks: the layer picture and the list of facts.

The picture is drawn from tests/test_layers.py's LAYERS (the order the tests
enforce) and the table from traindoc.model.facts (the names the tests check), so
the page cannot drift from either. `make docs` writes them
(scripts/gen_rule_docs.py); tests/test_facts.py fails when the page shows anything else.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_layers import LAYERS
from traindoc.model.facts import FACTS

PAGE = Path(__file__).parents[1] / "docs" / "layout.md"


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}: start -->\n)(.*?)(<!-- {name}: end -->)", re.S)


def layers() -> str:
    width = max(len("  ".join(pkgs)) for pkgs, _ in LAYERS) + 4
    lines = []
    for i, (pkgs, what) in enumerate(LAYERS):
        if i:
            lines.append("    |")
        lines.append(f"{'  '.join(pkgs):<{width}}{what}".rstrip())
    return "```\n" + "\n".join(lines) + "\n```\n"


def facts() -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("*", "\\*")

    rows = ["| fact | type | from a config | meaning |", "|---|---|---|---|"]
    for spec in FACTS.values():
        config = "yes" if spec.from_config else ""
        rows.append(f"| `{spec.name}` | `{cell(spec.type)}` | {config} | {cell(spec.meaning)} |")
    return "\n".join(rows) + "\n"


BLOCKS = {"layers": layers, "facts": facts}


def shown(name: str, text: str | None = None) -> str:
    """The block the page shows."""
    m = _block(name).search(PAGE.read_text() if text is None else text)
    assert m, f"docs/layout.md has no <!-- {name}: start --> ... <!-- {name}: end --> block"
    return m.group(2)


def write() -> None:
    text = PAGE.read_text()
    for name, make in BLOCKS.items():
        text = _block(name).sub(
            lambda m, make=make: m.group(1) + make() + m.group(3), text, count=1
        )
    PAGE.write_text(text)
