"""Long series take the memory-light paths (views, parts at a time, no cached copies):
each gives what the plain whole-array numpy formula gave, and a diagnosis of a long
run stays under 2x the series it keeps."""

from __future__ import annotations

import gc
import pickle
import tracemalloc

import numpy as np
import pytest

from traindoc.engine import diagnose
from traindoc.measure import floor, spikes, stats
from traindoc.model import Fact, Run, Series
from traindoc.rules.grads import nonfinite_gradients
from traindoc.rules.loss import epoch_staircase

RNG = np.random.default_rng(7)


def _noisy(n: int) -> np.ndarray:
    return 3 + np.exp(-np.arange(n) / (n / 5)) + RNG.normal(0, 0.05, n)


def test_after_is_a_view_of_the_tail_and_a_copy_otherwise() -> None:
    s = Series("x", np.arange(10) * 2, np.arange(10.0))
    for step in (-1, 0, 5, 18, 19):
        a = s.after(step)
        keep = s.steps >= step
        assert a.steps.tolist() == s.steps[keep].tolist()
        assert a.values.tolist() == s.values[keep].tolist()
        assert a.values.size == 0 or np.shares_memory(a.values, s.values)
    odd = Series("x", np.array([5, 1, 7]), np.array([1.0, 2.0, 3.0]))  # not in step order
    assert odd.after(3).steps.tolist() == [5, 7] and odd.after(3).values.tolist() == [1.0, 3.0]


def test_finite_is_shared_while_held_and_recomputed_once_dropped() -> None:
    s = Series("x", np.arange(5), np.array([1.0, np.nan, 2.0, np.inf, 3.0]))
    f = s.finite()
    assert f.steps.tolist() == [0, 2, 4] and s.finite() is f
    del f
    gc.collect()
    g = s.finite()
    assert g.values.tolist() == [1.0, 2.0, 3.0] and g is s.finite()
    clean = Series("y", np.arange(3), np.ones(3))
    assert clean.finite() is clean
    assert pickle.loads(pickle.dumps(s)).values.size == 5  # the cache is not in the object


@pytest.mark.parametrize("n", [10, 1000, 250_001])
def test_diff_mad_is_the_mad_of_the_differences(n: int) -> None:
    x = _noisy(n)
    assert stats.diff_mad(x) == stats.mad(np.diff(x))


def test_bins_in_parts_equal_one_gathered_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Series("x", np.arange(1, 100_001), _noisy(100_000))
    n, n_bins = 100_000, 200
    edges = np.linspace(0, n, n_bins + 1).astype(np.int64)
    sizes = np.diff(edges)
    want = np.empty(n_bins)
    for size in np.unique(sizes):
        rows = np.flatnonzero(sizes == size)
        want[rows] = np.median(s.values[edges[rows, None] + np.arange(size)], axis=1)
    monkeypatch.setattr(stats, "_GATHER", 1000)  # a few rows per call
    st, vals = stats._bins(s, n_bins)
    assert vals.tolist() == want.tolist()
    assert st.tolist() == s.steps[(edges[:-1] + edges[1:]) // 2].astype(float).tolist()


def test_block_medians_in_parts_equal_the_whole_array_formula(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, w = _noisy(50_003), 25
    m = x.size // w
    blocks = np.partition(x[: m * w].reshape(m, w), w // 2, axis=1)[:, w // 2]
    centres = np.arange(m) * w + (w - 1) / 2.0
    blocks = np.r_[blocks, np.median(x[m * w :])]
    centres = np.r_[centres, (m * w + x.size - 1) / 2.0]
    want = np.interp(np.arange(x.size, dtype=np.float64), centres, blocks)
    monkeypatch.setattr(stats, "_GATHER", 777)
    assert stats.rolling_median(x, w).tolist() == want.tolist()
    m2 = x.size // w
    b2 = np.median(x[: m2 * w].reshape(m2, w), axis=1)
    want2 = np.interp(np.arange(x.size), np.arange(m2) * w + w / 2.0, b2)
    monkeypatch.setattr(spikes, "_PART", 999)
    assert spikes.baseline(x, w).tolist() == want2.tolist()


def test_trend_of_a_long_int_series_skips_the_float_copies() -> None:
    steps, y = np.arange(1, 30_001), _noisy(30_000)
    y[::997] = np.nan
    ok = np.isfinite(y)
    x = steps.astype(np.float64)[ok]
    bx, by = stats.bins(Series.from_arrays("t", x.astype(np.int64), y[ok]), 200)
    want = stats.trend(bx, by)  # short: the plain path
    assert stats.trend(steps, y) == want


def test_identical_stretch_in_parts_matches_the_run_lengths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def reference(v: np.ndarray, at_least: int) -> float | None:
        change = np.flatnonzero(np.diff(v) != 0)
        starts = np.r_[0, change + 1]
        lengths = np.diff(np.r_[starts, v.size])
        i = int(np.argmax(lengths))
        return float(v[starts[i]]) if lengths[i] >= at_least else None

    monkeypatch.setattr(floor, "_PART", 2)
    for _ in range(3000):
        v = RNG.integers(0, int(RNG.integers(1, 4)), int(RNG.integers(1, 30))).astype(float)
        for at in (1, 3, 6):
            assert floor._identical_stretch(v, at) == reference(v, at), (v, at)


def test_first_of_each_equals_unique_with_indices() -> None:
    for ids in (np.array([0, 0, 1, 1, 1, 3, 4, 4]), np.array([2, 1, 1, 0]), np.array([5])):
        got, want = epoch_staircase._first_of_each(ids), np.unique(ids, return_index=True)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]


def test_isin_in_parts_equals_isin() -> None:
    a, b = RNG.integers(0, 100, 1001), RNG.integers(0, 100, 30)
    assert nonfinite_gradients._isin(a, b, part=7).tolist() == np.isin(a, b).tolist()


def test_loss_spikes_in_parts_find_the_same_spikes(monkeypatch: pytest.MonkeyPatch) -> None:
    y = _noisy(60_000)
    y[[5000, 20000, 41000]] += 3.0
    f = Series("loss", np.arange(1, y.size + 1), y)
    whole = spikes.loss_spikes(f)
    monkeypatch.setattr(spikes, "_PART", 1234)
    assert spikes.loss_spikes(f) == whole and whole and len(whole) == 3


def test_diagnosing_a_long_run_holds_under_twice_its_series() -> None:
    """600k steps of loss, grad norm (with NaN, so its finite copy is real), lr, epoch
    and an eval every 500 steps: what the diagnosis allocates on top of the kept arrays
    stays under them (0.86x here; 1.49x before the long paths were made light)."""
    n = 600_000
    steps = np.arange(1, n + 1)
    gn = np.abs(RNG.normal(1, 0.3, n))
    gn[::100_003] = np.nan
    ev = steps[499::500]
    series = {
        "loss": Series("loss", steps, _noisy(n)),
        "grad_norm": Series("grad_norm", steps, gn),
        "lr": Series("lr", steps, 3e-4 * np.minimum(1, steps / 2000)),
        "epoch": Series("epoch", steps.copy(), steps / 2e5),  # logged by evals too: own steps
        "eval_loss": Series("eval_loss", ev, _noisy(ev.size) + 0.1),
    }
    run = Run("long", series, {"trainer": Fact("jsonl", "test")})
    kept = sum(a.nbytes for s in series.values() for a in (s.steps, s.values))
    kept -= 2 * steps.nbytes  # loss, grad norm and lr share one steps array
    tracemalloc.start()
    try:
        diagnose(run)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.0 * kept, (peak / kept, kept)
