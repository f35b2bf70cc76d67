"""Streaming per-tensor statistics over raw little-endian bytes (numpy only).

A tensor is read in chunks of `CHUNK` elements converted into one reusable
float32 buffer, so memory stays bounded whatever the tensor's size:

* BF16 -> F32 by writing the 16-bit words into the high halves of a zeroed
  uint32 buffer (one strided copy, no shifts, no temporaries);
* F16 -> F32 by numpy's cast; F32 used in place; F64 in float64.

Moments are accurate: each chunk is centred on its own mean (d = x - m_c,
M2_c = d.d) and chunks are merged with Chan's parallel formula. The textbook
E[x^2] - E[x]^2 loses most digits when |mean| >> std (a norm weight at
1 +- 0.01 came out 9% wrong in FORMATS.md 7.2). Non-finite values are counted
and excluded; that slow path runs only on chunks whose min or max is not finite.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
from dataclasses import dataclass

import numpy as np

from traindoc.model.checkpoint import TensorStats
from traindoc.model.roles import classify

# Elements per chunk: 512 Ki float32 = 2 MiB, so the chunk and its centred copy
# stay in cache, and the float32 dot over 2^19 terms stays accurate to ~1e-6.
CHUNK = 1 << 19

NUMPY_DTYPE = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
}


@dataclass
class Moments:
    """Mergeable running statistics of the finite values seen so far."""

    n: int = 0  # finite values
    mean: float = 0.0
    m2: float = 0.0
    min: float = math.inf
    max: float = -math.inf
    nan: int = 0
    inf: int = 0
    zeros: int = 0

    def add(self, n: int, mean: float, m2: float) -> None:
        """Chan et al.: merge a block of n values with its own mean and M2."""
        if n == 0:
            return
        if self.n == 0:
            self.n, self.mean, self.m2 = n, mean, m2
            return
        tot = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / tot
        self.m2 += m2 + delta * delta * self.n * n / tot
        self.n = tot

    def merge(self, other: Moments) -> None:
        self.add(other.n, other.mean, other.m2)
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)
        self.nan += other.nan
        self.inf += other.inf
        self.zeros += other.zeros

    @property
    def std(self) -> float:
        return math.sqrt(self.m2 / self.n) if self.n else math.nan

    @property
    def rms(self) -> float:
        return math.sqrt(self.m2 / self.n + self.mean * self.mean) if self.n else math.nan

    def result(self) -> dict[str, float | int]:
        if self.n == 0:
            nan = math.nan
            return dict(mean=nan, std=nan, rms=nan, min=nan, max=nan, absmax=nan, m2=nan,
                        nan=self.nan, inf=self.inf, zeros=self.zeros)  # fmt: skip
        return dict(
            mean=self.mean,
            std=self.std,
            rms=self.rms,
            min=self.min,
            max=self.max,
            absmax=max(abs(self.min), abs(self.max)),
            m2=self.m2,
            nan=self.nan,
            inf=self.inf,
            zeros=self.zeros,
        )


class Streamer:
    """Reusable conversion buffers; feed it typed views, read a `Moments` back.

    One per process: the buffers are allocated once (about 4 x CHUNK x 4 bytes).
    """

    def __init__(self, chunk: int = CHUNK) -> None:
        self.chunk = chunk
        self._u32 = np.zeros(chunk, np.uint32)
        self._f32 = np.empty(chunk, np.float32)
        self._d32 = np.empty(chunk, np.float32)
        self._ones32 = np.ones(chunk, np.float32)
        self._ones64 = np.ones(chunk, np.float64)
        self._bool = np.empty(chunk, np.bool_)

    def update(self, acc: Moments, raw: np.ndarray, dtype: str) -> None:
        """Add the elements of `raw` (a 1-D view with NUMPY_DTYPE[dtype]) to `acc`."""
        step = self.chunk
        for i in range(0, raw.size, step):
            part = raw[i : i + step]
            n = part.size
            if dtype == "BF16":
                # bf16 is the top half of a float32: widen and shift in one ufunc call.
                u = self._u32[:n]
                np.left_shift(part, 16, out=u, dtype=np.uint32)
                x = u.view(np.float32)
            elif dtype == "F16":
                x = self._f32[:n]
                np.copyto(x, part, casting="unsafe")
            else:  # F32, F64: the mapped bytes themselves
                x = part
            self._chunk(acc, x)

    def _chunk(self, acc: Moments, x: np.ndarray) -> None:
        mn = x.min()
        mx = x.max()
        if not (math.isfinite(mn) and math.isfinite(mx)):
            # Slow path, paid only by bad chunks: count, then drop non-finite values.
            nan = int(np.count_nonzero(np.isnan(x)))
            inf = int(np.count_nonzero(np.isinf(x)))
            acc.nan += nan
            acc.inf += inf
            if nan + inf == x.size:
                return
            x = x[np.isfinite(x)]
            mn = x.min()
            mx = x.max()
        fmn, fmx = float(mn), float(mx)
        if fmn < acc.min:
            acc.min = fmn
        if fmx > acc.max:
            acc.max = fmx
        n = x.size
        if fmn == fmx:  # constant chunk (all zero, all one, ...): exact
            acc.zeros += n if fmn == 0 else 0
            acc.add(n, fmn, 0.0)
            return
        if fmn <= 0 <= fmx:
            # Compare into a bool buffer and count that: 4x faster than count_nonzero on
            # floats, and exact for -0.0 too (an integer view would miss it).
            eq = self._bool[:n]
            np.equal(x, 0, out=eq)
            acc.zeros += int(np.count_nonzero(eq))
        ones = self._ones64[:n] if x.dtype == np.float64 else self._ones32[:n]
        m_c = float(np.dot(x, ones)) / n
        ss = float(np.dot(x, x))
        if x.dtype != np.float64 and m_c * m_c * n <= 0.25 * ss:
            # |mean| <= rms/2: sum(x^2) - n m^2 keeps all but < 1 bit of the
            # float32 dot's accuracy (relative error <= 4/3 of it), so no centring
            # pass is needed. Typical weight matrices (mean ~ 0) take this path.
            acc.add(n, m_c, max(ss - n * m_c * m_c, 0.0))
            return
        # Mean far from zero (norm weights ~ 1 +- 0.01): centre the chunk first.
        if x.dtype == np.float64:
            d = x - m_c
        else:
            d = self._d32[:n]
            np.subtract(x, np.float32(m_c), out=d)
        # Pairwise sums here, not BLAS dots: with a constant-ish, quantised chunk (bf16
        # near 1.0) a dot's long accumulators round the same way every time (2e-5 off).
        s_d = float(np.add.reduce(d))
        np.multiply(d, d, out=d)
        acc.add(n, m_c + s_d / n, max(float(np.add.reduce(d)) - s_d * s_d / n, 0.0))


def array_stats(values: np.ndarray) -> dict[str, float | int]:
    """Statistics of an in-memory array (tests, small tensors); same maths as streaming."""
    arr = np.ascontiguousarray(values)
    dtype = {np.dtype("float64"): "F64", np.dtype("float32"): "F32", np.dtype("float16"): "F16"}[
        arr.dtype
    ]
    acc = Moments()
    Streamer(min(CHUNK, max(arr.size, 1))).update(acc, arr.reshape(-1), dtype)
    return acc.result()


def reference_stats(values: np.ndarray) -> dict[str, float | int]:
    """Two-pass float64 reference (whole array in memory): what tests compare against."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    fin = x[np.isfinite(x)]
    out: dict[str, float | int] = dict(
        nan=int(np.isnan(x).sum()), inf=int(np.isinf(x).sum()), zeros=int((fin == 0).sum())
    )
    if fin.size == 0:
        return out | dict(mean=math.nan, std=math.nan, rms=math.nan, min=math.nan, max=math.nan)
    mean = float(fin.mean())
    out.update(
        mean=mean,
        std=float(np.sqrt(np.mean((fin - mean) ** 2))),
        rms=float(np.sqrt(np.mean(fin * fin))),
        min=float(fin.min()),
        max=float(fin.max()),
        absmax=float(np.abs(fin).max()),
    )
    return out


# ---------------------------------------------------------------------------
# Scanning tensors laid out in a file (safetensors data, torch zip members).

PAGE = mmap.PAGESIZE
# Pages already read are dropped from this process's mapping every WINDOW
# bytes, so resident memory stays ~WINDOW + buffers however large the file is
# (the page cache keeps them; nothing is re-read).
WINDOW = 64 << 20


@dataclass(frozen=True)
class Entry:
    """Where one tensor's bytes lie in a file (absolute offsets)."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


def scan(path: str, entries: list[Entry], streamer: Streamer | None = None) -> list[TensorStats]:
    """Statistics of each entry, read through one read-only mapping of `path`."""
    st = streamer or Streamer()
    out: list[TensorStats] = []
    float_entries = [e for e in entries if e.dtype in NUMPY_DTYPE and e.end > e.begin]
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if not float_entries or size == 0:
            return [_unread(e) for e in entries]
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            if hasattr(mmap, "MADV_SEQUENTIAL"):
                mm.madvise(mmap.MADV_SEQUENTIAL)
            base = np.frombuffer(mm, dtype=np.uint8)
            released = 0
            for e in sorted(entries, key=lambda e: e.begin):
                if e.dtype not in NUMPY_DTYPE or e.end <= e.begin:
                    out.append(_unread(e))
                    continue
                acc = Moments()
                for lo in range(e.begin, e.end, WINDOW):
                    hi = min(lo + WINDOW, e.end)
                    view = base[lo:hi].view(NUMPY_DTYPE[e.dtype])
                    st.update(acc, view, e.dtype)
                    del view
                    released = _release(mm, released, hi)
                out.append(_stats(e, acc))
            del base
        finally:
            # BufferError: a view is still referenced somewhere; GC will unmap it.
            with contextlib.suppress(BufferError):
                mm.close()
    order = {e.name: i for i, e in enumerate(entries)}
    return sorted(out, key=lambda t: order[t.name])


def _release(mm: mmap.mmap, released: int, upto: int) -> int:
    if not hasattr(mmap, "MADV_DONTNEED"):
        return released
    end = upto // PAGE * PAGE
    if end - released >= WINDOW:
        mm.madvise(mmap.MADV_DONTNEED, released, end - released)
        return end
    return released


def _stats(e: Entry, acc: Moments) -> TensorStats:
    role, layer = classify(e.name)
    r = acc.result()
    return TensorStats(
        name=e.name,
        dtype=e.dtype,
        shape=e.shape,
        role=role,
        layer=layer,
        mean=float(r["mean"]),
        std=float(r["std"]),
        rms=float(r["rms"]),
        min=float(r["min"]),
        max=float(r["max"]),
        absmax=float(r["absmax"]),
        nan=int(r["nan"]),
        inf=int(r["inf"]),
        zeros=int(r["zeros"]),
        m2=float(r["m2"]),
    )


def _unread(e: Entry) -> TensorStats:
    role, layer = classify(e.name)
    if e.dtype in NUMPY_DTYPE:
        note = ""  # empty tensor: nothing to read
    elif e.dtype.startswith("F8"):
        note = f"{e.dtype} (fp8) tensor: statistics not computed"
    elif e.dtype.startswith(("I", "U")):
        note = f"{e.dtype} tensor (integer / quantised): statistics not computed"
    else:
        note = f"{e.dtype} tensor: statistics not computed"
    return TensorStats(name=e.name, dtype=e.dtype, shape=e.shape, role=role, layer=layer, note=note)
