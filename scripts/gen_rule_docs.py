"""`make docs`: regenerate docs/rules/ from the rules' docstrings and their test cases,
and the README's demo block from traindoc's output on examples/seed-a."""

import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests import readme_demo  # noqa: E402
from tests.rules.examples import examples  # noqa: E402
from traindoc.rules.docs import write  # noqa: E402

if __name__ == "__main__":
    write(ROOT / "docs" / "rules", examples())
    readme_demo.write()
