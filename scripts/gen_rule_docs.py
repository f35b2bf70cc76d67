"""`make docs`: regenerate docs/rules/ from the rules' docstrings and their test cases,
the README's demo block from traindoc's output on examples/seed-a, and docs/layout.md's
layer picture and fact list from tests/test_layers.py and traindoc.model.facts."""

import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests import layout_doc, readme_demo  # noqa: E402
from tests.rules.examples import examples  # noqa: E402
from traindoc.rules.docs import write  # noqa: E402

if __name__ == "__main__":
    write(ROOT / "docs" / "rules", examples())
    readme_demo.write()
    layout_doc.write()
