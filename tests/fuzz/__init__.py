"""The fuzz suite: seeds taken from the repo, mutators (generic and format-aware),
and one harness that runs a case through the CLI in-process and judges it.

`make fuzz` drives it over >= 100,000 inputs (scripts/fuzz.py); `make test` runs a
short deterministic slice (test_slice.py). See harness.py for what passing means.
"""
