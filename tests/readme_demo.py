"""The README's demo block is traindoc's own output on the shipped seed-A run.

`make docs` writes it (scripts/gen_rule_docs.py); tests/test_readme.py fails when
the README shows anything else. Piped output is used: full lines, no colour.
"""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from traindoc.cli import app

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
COMMAND = "traindoc diagnose examples/seed-a"
BLOCK = re.compile(r"(<!-- demo: start -->\n```\n)(.*?)(```\n<!-- demo: end -->)", re.S)


def output() -> str:
    """What `traindoc diagnose examples/seed-a` prints, run from the repository root."""
    res = CliRunner().invoke(
        app, ["diagnose", str(ROOT / "examples" / "seed-a")], env={"NO_COLOR": "1"}
    )
    assert res.exit_code == 1, res.output  # seed A is broken: exit 1 at --fail-on error
    lines = [ln.rstrip() for ln in res.stdout.splitlines()]
    return "\n".join([f"$ {COMMAND}", *lines]).rstrip() + "\n"


def shown(text: str) -> str:
    """The block the README shows."""
    m = BLOCK.search(text)
    assert m, "README.md has no <!-- demo: start --> ... <!-- demo: end --> block"
    return m.group(2)


def write() -> None:
    text = README.read_text()
    README.write_text(BLOCK.sub(lambda m: m.group(1) + output() + m.group(3), text, count=1))
