"""The deterministic slice of `make fuzz` that `make test` runs: the first cases of the
same stream (scripts/fuzz.py runs 100,000+), in-process, plus property tests of the
number parser and the pickle walker."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz import harness
from traindoc import safepickle
from traindoc.model import numbers

SLICE = 80  # cases: about half a minute on two cores, torch import included


@pytest.fixture(scope="module")
def scratch():
    harness.warm()
    with tempfile.TemporaryDirectory(prefix="traindoc-fuzz-") as d:
        yield Path(d)


@pytest.mark.parametrize("n", range(0, SLICE * 37, 37))  # spread over the seeds
def test_case(n: int, scratch: Path) -> None:
    marker = scratch / "MARKER"
    case = harness.make_case(n, 0, str(marker))
    out = harness.run_case(case, scratch, marker)
    assert out.kind == "ok", f"case {n} ({case.seed}, {case.argv[0]}): {out}"


@given(st.one_of(st.integers(), st.floats(), st.text(max_size=50), st.none(), st.booleans()))
def test_number_never_raises(v: object) -> None:
    f = numbers.number(v)
    assert f is None or isinstance(f, float)
    c = numbers.count(v)
    assert c is None or (isinstance(c, int) and 0 <= c <= numbers.MAX_STEP)


@given(st.integers(min_value=-(10**5000), max_value=10**5000))
def test_huge_integers_are_infinities(v: int) -> None:
    f = numbers.number(v)
    assert f is not None and (math.isfinite(f) or abs(v) > 1e308)


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_pickle_walker_raises_only_its_error(data: bytes) -> None:
    try:
        obj = safepickle.load(b"\x80\x02" + data)
    except safepickle.PickleError:
        return
    safepickle.plain(obj)
    list(safepickle.leaves(obj, int))
