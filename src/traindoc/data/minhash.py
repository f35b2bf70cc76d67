"""Vectorised MinHash and banded LSH over many documents at once, in numpy.

datasketch builds one `MinHash` object per document and pays Python overhead
for every document and every band. Here a whole batch is one array program:

1. each distinct word is hashed once (zlib.crc32, deterministic across
   processes, unlike `hash()`), then spread to 64 bits (splitmix64);
2. shingles (word 1- and 2-grams, see `MinHasher`) are combined from
   neighbouring word hashes;
3. all k permutations are one (k x shingles) array op `a*x + b (mod 2**32)`
   with odd `a` on well-mixed 32-bit shingle hashes, and the per-document
   minimum is one `np.minimum.reduceat`;
4. LSH bands are hashed to one uint32 key per (document, band); candidate
   pairs are the runs of equal keys after a sort, per band.

Candidates are then verified with the signatures (estimated Jaccard >= the
threshold), so a band-key collision costs time, never precision.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"\w+")
_SEP = "\x01"
_TOKEN = re.compile(r"\w+|\x01")
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)


def normalise(text: str) -> str:
    """Lower case, words only, single spaces: the form duplicates are compared in."""
    return " ".join(_WORD.findall(text.lower()))


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijection that spreads every input bit."""
    x = x ^ (x >> np.uint64(30))
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


NGRAMS = (1, 2)  # word unigrams + bigrams: see MinHasher
THRESHOLD = 0.6  # Jaccard of those sets; one-word edits of 8-20-word texts are >= 0.67


class MinHasher:
    """k permutations over word shingles; the same seed gives the same signatures everywhere.

    Shingles are word 1- and 2-grams together, chosen by measurement
    (tests/data/test_near_short.py, bench/near_short_bench.py): word 3-grams
    are too coarse for short texts, where one replaced word breaks three of a
    handful of shingles (an 8-word text keeps 3 of 9: Jaccard 0.33), so at 0.8
    only 22 of 105 planted one-word edits of 8-20-word texts were found. On
    those pairs the exact Jaccard is >= 0.667 for 1+2-grams (0.59 for char
    5-grams, 0.75 for unigrams alone), while unrelated texts stay <= 0.30
    (0.46 for unigrams: they ignore order and share function words). So
    1+2-grams at 0.6 separate the two with the widest margin on both sides;
    the bigrams keep word order, the unigrams keep a one-word edit from
    costing more than ~1/3 of a short text's shingles.

    Holds a cache of word hashes (bounded), so use one per process or worker.
    """

    def __init__(
        self, num_perm: int = 128, ngrams: tuple[int, ...] = NGRAMS, seed: int = 1
    ) -> None:
        self.num_perm, self.ngrams, self.seed = num_perm, tuple(ngrams), seed
        self._cache: dict[str, int] = {_SEP: -1}

    def words(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """uint64 hashes of every lower-cased word of every text, and the words per text.

        One regex pass over the joined batch instead of one per text; each
        distinct word is hashed once.
        """
        joined = _SEP.join(texts)
        if joined.count(_SEP) != max(len(texts) - 1, 0):  # a text holds the separator
            joined = _SEP.join(t.replace(_SEP, " ") for t in texts)
        tokens = _TOKEN.findall(joined.lower())
        cache = self._cache
        if len(cache) > 2_000_000:
            cache.clear()
            cache[_SEP] = -1
        crc = zlib.crc32
        for w in set(tokens).difference(cache):
            cache[w] = crc(w.encode())
        ids = np.fromiter(map(cache.__getitem__, tokens), np.int64, len(tokens))
        sep = np.flatnonzero(ids < 0)
        bounds = np.concatenate([[-1], sep, [ids.size]])
        lens = np.diff(bounds) - 1
        if len(texts) == 0:
            lens = lens[:0]
        wh = _mix(ids[ids >= 0].astype(np.uint64))
        return wh, lens

    def exact(self, wh: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """One uint64 per text: equal for texts with the same words in the same order."""
        pos = np.arange(wh.size, dtype=np.uint64) - np.repeat(
            (np.cumsum(lens) - lens).astype(np.uint64), lens
        )
        with np.errstate(over="ignore"):
            terms = _mix(wh + _mix(pos + _P2))
            starts = np.cumsum(lens) - lens
            out = np.zeros(lens.size, np.uint64)
            nz = np.flatnonzero(lens > 0)
            if nz.size:
                out[nz] = np.add.reduceat(terms, starts[nz])
            return _mix(out ^ _mix(lens.astype(np.uint64) + _P1))

    def shingles(self, wh: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """uint32 hashes of every text's word n-grams (each n of `ngrams`), and the count per text.

        A text's shingles are contiguous, the texts in order. A text shorter
        than n has one n-shingle of all its words; an empty one has none.
        """
        lens = np.asarray(lens, np.int64)
        if len(self.ngrams) == 1:
            return self._ngrams(wh, lens, self.ngrams[0])
        parts = [self._ngrams(wh, lens, n) for n in self.ngrams]
        counts = sum(c for _, c in parts)
        out = np.empty(int(counts.sum()), np.uint32)
        before = np.cumsum(counts) - counts  # where each text's shingles start in `out`
        for h, c in parts:  # scatter each part after the earlier parts' shingles of a text
            out[np.repeat(before - (np.cumsum(c) - c), c) + np.arange(h.size)] = h
            before = before + c
        return out, counts

    def _ngrams(self, wh: np.ndarray, lens: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        starts = np.cumsum(lens) - lens
        counts = np.where(lens >= n, lens - n + 1, np.minimum(lens, 1))
        total = int(counts.sum())
        if total == 0:
            return np.empty(0, np.uint32), counts
        first = np.repeat(starts, counts) + (
            np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        )
        width = np.repeat(np.minimum(lens, n), counts)
        acc = np.full(total, n, np.uint64)  # n seeds the hash: a 1-gram is never a 2-gram
        with np.errstate(over="ignore"):
            for j in range(n):
                idx = np.minimum(first + j, wh.size - 1)
                acc = np.where(width > j, (acc * _P1) ^ wh[idx], acc)
            acc = _mix(acc + _P2)
        return (acc >> np.uint64(32)).astype(np.uint32), counts

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts) x k) uint32 MinHash signatures; empty texts get all-ones rows."""
        wh, lens = self.words(texts)
        return self.from_shingles(*self.shingles(wh, lens))

    def from_shingles(self, sh: np.ndarray, counts: np.ndarray, chunk: int = 4096) -> np.ndarray:
        """Minimum over each text's shingles of k permutations `a*x + b (mod 2**32)`.

        Odd `a` makes each a bijection of the 32-bit space; on well-mixed
        shingle hashes the estimates match the ideal error (checked against
        64-bit multiply-shift and datasketch in tests/data). uint32 halves the
        memory traffic, which is what bounds this loop.
        """
        a, b = _coefficients(self.num_perm, self.seed)
        k, nd = self.num_perm, counts.size
        out = np.full((k, nd), 0xFFFFFFFF, np.uint32)
        offs = np.concatenate([[0], np.cumsum(counts)])
        d0 = 0
        while d0 < nd:
            d1 = int(np.searchsorted(offs, offs[d0] + chunk, side="right")) - 1
            d1 = min(max(d1, d0 + 1), nd)
            lo, hi = int(offs[d0]), int(offs[d1])
            if hi > lo:
                t = a * sh[None, lo:hi]
                t += b
                c = counts[d0:d1]
                nz = np.flatnonzero(c > 0)
                out[:, d0 + nz] = np.minimum.reduceat(t, (offs[d0:d1] - lo)[nz], axis=1)
            d0 = d1
        return np.ascontiguousarray(out.T)


@lru_cache(maxsize=8)
def _coefficients(k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 1 << 32, size=k, dtype=np.uint32) | np.uint32(1)  # odd multipliers
    b = rng.integers(0, 1 << 32, size=k, dtype=np.uint32)
    return a[:, None], b[:, None]


@lru_cache(maxsize=64)
def optimal_bands(threshold: float, num_perm: int, fp_weight: float = 0.1) -> tuple[int, int]:
    """(bands, rows) minimising weighted false positives + false negatives around `threshold`.

    datasketch's `_optimal_param` criterion (numerical integration of the LSH
    S-curve), but weighted towards recall: every candidate is verified with
    the signatures, so a false candidate costs a comparison, while a missed
    pair is lost. At 0.8 and 128 permutations this gives 14 bands of 9 rows
    (a pair at Jaccard 0.8 is a candidate with p = 0.87, at 0.85 with 0.975;
    datasketch's equal weights give 9 x 13: 0.40 and 0.69).
    """
    best, opt = math.inf, (1, num_perm)
    s = np.linspace(0.0, 1.0, 2001)
    below, above = s <= threshold, s >= threshold
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            p = 1 - (1 - s**r) ** b
            fp = np.trapezoid(p[below], s[below])
            fn = np.trapezoid(1 - p[above], s[above])
            err = fp_weight * fp + (1 - fp_weight) * fn
            if err < best:
                best, opt = err, (b, r)
    return opt


def band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(n x bands) uint32 key per band: equal bands give equal keys."""
    n = sig.shape[0]
    keys = np.empty((n, bands), np.uint32)
    mult = _mix(np.arange(1, rows + 1, dtype=np.uint64))
    with np.errstate(over="ignore"):
        for j in range(bands):
            part = sig[:, j * rows : (j + 1) * rows].astype(np.uint64)
            h = _mix((part * mult).sum(axis=1, dtype=np.uint64) + np.uint64(j))
            keys[:, j] = (h >> np.uint64(32)).astype(np.uint32)
    return keys


def candidate_pairs(keys: np.ndarray, max_group: int = 64) -> np.ndarray:
    """(m x 2) int64 pairs i < j sharing a band key, deduplicated.

    A group larger than `max_group` (boilerplate, many copies) is linked as a
    star to its first member instead of all its pairs: the same clusters
    without a quadratic blow-up.
    """
    out = []
    n = keys.shape[0]
    for j in range(keys.shape[1]):
        col = keys[:, j]
        order = np.argsort(col, kind="stable")
        sk = col[order]
        brk = np.flatnonzero(sk[1:] != sk[:-1]) + 1
        starts = np.concatenate([[0], brk])
        sizes = np.diff(np.concatenate([starts, [n]]))
        multi = sizes > 1
        if not multi.any():
            continue
        st, sz = starts[multi], sizes[multi]
        small = sz <= max_group
        # All pairs within small groups, by offset: (g, g+d) for d in 1..size-1.
        for d in range(1, int(sz[small].max(initial=1))):
            sel = sz[small] > d
            if not sel.any():
                break
            base = st[small][sel]
            sizes_d = sz[small][sel]
            # every start position p in [base, base+size-d)
            cnt = sizes_d - d
            p = np.repeat(base, cnt) + (np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt))
            out.append(np.stack([order[p], order[p + d]], axis=1))
        for s, z in zip(st[~small], sz[~small], strict=True):
            members = order[s : s + z]
            out.append(np.stack([np.full(z - 1, members[0]), members[1:]], axis=1))
    if not out:
        return np.empty((0, 2), np.int64)
    pairs = np.concatenate(out).astype(np.int64)
    pairs.sort(axis=1)
    pairs = np.unique(pairs[:, 0] * n + pairs[:, 1])
    return np.stack([pairs // n, pairs % n], axis=1)


def estimate(sig: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Estimated Jaccard similarity of each pair: the share of equal signature slots."""
    if pairs.size == 0:
        return np.empty(0)
    out = np.empty(len(pairs))
    for s in range(0, len(pairs), 1 << 16):
        p = pairs[s : s + (1 << 16)]
        out[s : s + len(p)] = (sig[p[:, 0]] == sig[p[:, 1]]).mean(axis=1)
    return out


def near_pairs(sig: np.ndarray, threshold: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """Pairs whose estimated Jaccard >= threshold, with the estimates."""
    b, r = optimal_bands(threshold, sig.shape[1])
    pairs = candidate_pairs(band_keys(sig, b, r))
    sim = estimate(sig, pairs)
    keep = sim >= threshold
    return pairs[keep], sim[keep]
