"""C99's NaN with its parenthesised n-char-sequence, read as NaN (helper nan8): the Microsoft
runtime since VS 2015 prints a NaN as `-nan(ind)` (indeterminate) or `nan(snan)`, so darknet's
Windows builds log `-nan(ind), -nan(ind) avg loss`; a bare `(ind)` after `-nan` is part of the
value, not a parenthesised running average. Lines as the frameworks' code formats them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.readers.helpers import one_log
from traindoc.readers.logs.numbers import nonfinite_text, parse, to_num


def test_c99_nan_char_sequence_parses_as_nan() -> None:
    for raw in ("-nan(ind)", "nan(ind)", "nan(snan)", "-nan(snan)", "NaN(0)", "nan()"):
        assert math.isnan(parse(raw)), raw
        assert math.isnan(to_num(raw.encode())), raw
        assert nonfinite_text(raw), raw
    # near misses: a name, and a number with a parenthesised average, are not NaN spellings
    assert parse("nanny(ind)") is None
    assert parse("1.5(ind)") is None


# darknet's per-iteration line (detector.c: "%ld: %f, %f avg loss, %f rate, %lf seconds, %d
# images") as a VS 2015+ build prints a NaN
_DARKNET_UCRT = (
    " 1001: 5.123456, 5.234567 avg loss, 0.001000 rate, 3.456000 seconds, 64064 images\n"
    " 1002: 5.012345, 5.212345 avg loss, 0.001000 rate, 3.456000 seconds, 64128 images\n"
    " 1003: -nan(ind), -nan(ind) avg loss, 0.001000 rate, 3.456000 seconds, 64192 images\n"
    " 1004: -nan(ind), -nan(ind) avg loss, 0.001000 rate, 3.456000 seconds, 64256 images\n"
)


def test_darknet_ucrt_nan_ind_keeps_its_lines(tmp_path: Path) -> None:
    run = one_log(tmp_path, _DARKNET_UCRT)
    loss = run.get("loss")
    assert list(loss.steps) == [1001, 1002, 1003, 1004]
    assert np.isfinite(loss.values[:2]).all() and np.isnan(loss.values[2:]).all()
