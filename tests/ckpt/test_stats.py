"""Streaming statistics against a float64 reference (1e-5 relative), all float dtypes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ckpt._write import from_raw, to_raw
from traindoc.ckpt.stats import Moments, Streamer, reference_stats

RTOL = 1e-5


def stream(raw: np.ndarray, dtype: str, chunk: int = 1 << 19) -> dict:
    acc = Moments()
    Streamer(chunk).update(acc, raw.reshape(-1), dtype)
    return acc.result()


def assert_close(got: dict, ref: dict) -> None:
    assert got["nan"] == ref["nan"] and got["inf"] == ref["inf"]
    assert got["zeros"] == ref["zeros"]
    if math.isnan(ref["mean"]):
        assert math.isnan(got["mean"])
        return
    assert got["min"] == ref["min"] and got["max"] == ref["max"]
    for k in ("std", "rms"):
        assert math.isclose(got[k], ref[k], rel_tol=RTOL, abs_tol=1e-30), (k, got[k], ref[k])
    # A mean near zero has no relative precision to speak of: judge it against the spread.
    assert abs(got["mean"] - ref["mean"]) <= RTOL * max(abs(ref["mean"]), ref["std"])


@pytest.mark.parametrize("dtype", ["F32", "BF16", "F16", "F64"])
@pytest.mark.parametrize(
    ("mean", "std"),
    [(0.0, 0.02), (0.5, 0.02), (1.0, 0.01), (1e-3, 1.0), (100.0, 1e-3), (-3.0, 0.5)],
)
def test_moments_match_float64_reference(dtype: str, mean: float, std: float) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1_500_000) * std + mean
    raw = to_raw(x, dtype)
    assert_close(stream(raw, dtype), reference_stats(from_raw(raw, dtype)))


@pytest.mark.parametrize("dtype", ["F32", "BF16", "F16"])
def test_nonfinite_and_zeros_are_counted_exactly(dtype: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(700_001).astype(np.float32) * 0.02
    x[::7000] = np.nan
    x[5], x[9], x[600_000] = np.inf, -np.inf, np.inf
    x[100:300] = 0.0
    raw = to_raw(x, dtype)
    # Small chunks: non-finite values land in several chunks, one chunk ends mid-run of zeros.
    got = stream(raw, dtype, chunk=1 << 16)
    assert_close(got, reference_stats(from_raw(raw, dtype)))
    assert got["nan"] == 101 and got["inf"] == 3


def test_all_nan_all_zero_and_constant() -> None:
    assert stream(np.full(10, np.nan, np.float32), "F32")["nan"] == 10
    z = stream(np.zeros(1000, np.float32), "F32")
    assert z["zeros"] == 1000 and z["std"] == 0 and z["mean"] == 0
    neg = stream(np.full(8, -0.0, np.float32), "F32")
    assert neg["zeros"] == 8
    one = stream(np.ones(300, np.float32), "F32")
    assert one["mean"] == 1 and one["std"] == 0 and one["rms"] == 1


def test_chunk_merge_is_exact_across_chunk_sizes() -> None:
    x = np.random.default_rng(2).standard_normal(300_000).astype(np.float32) + 2.0
    ref = reference_stats(x)
    for chunk in (1000, 4096, 65_536, 1 << 19):
        assert_close(stream(x, "F32", chunk), ref)


def test_textbook_formula_would_fail_here() -> None:
    """The case FORMATS.md measured 8.9% off with E[x^2]-E[x]^2: bf16, mean 0.5, std 0.02."""
    x = np.random.default_rng(3).standard_normal(3_000_000) * 0.02 + 0.5
    raw = to_raw(x, "BF16")
    vals = from_raw(raw, "BF16").astype(np.float32)
    naive = math.sqrt(max(float(np.dot(vals, vals)) / vals.size - float(vals.mean()) ** 2, 0))
    ref = reference_stats(from_raw(raw, "BF16"))
    assert abs(naive - ref["std"]) / ref["std"] > 1e-3  # the naive way is visibly wrong
    assert_close(stream(raw, "BF16"), ref)
