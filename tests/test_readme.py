"""The README shows what traindoc really says about the shipped example."""

from __future__ import annotations

from tests import readme_demo


def test_readme_demo_is_the_real_output() -> None:
    want = readme_demo.output()
    assert "absurd-initial-loss" in want and "lr-too-low" in want
    assert readme_demo.shown(readme_demo.README.read_text()) == want, "run `make docs`"
