"""`make docs`: regenerate docs/rules/ from the rules' docstrings."""

from pathlib import Path

from traindoc.rules.docs import write

if __name__ == "__main__":
    write(Path(__file__).parents[1] / "docs" / "rules")
