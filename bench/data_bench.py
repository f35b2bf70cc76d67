"""Near-duplicate detection: traindoc's vectorised MinHash+LSH against datasketch's MinHashLSH.

    .venv/bin/python bench/data_bench.py [--docs 1000000] [--pairs 10000] [--ref-docs N]

Generates `--docs` short synthetic documents (30-60 words drawn from the
words of the standard library's docstrings, in 10-word sentences) and plants
`--pairs` near-duplicate pairs: a copy with one word replaced, one word
deleted, or two sentences swapped. Both methods see the same texts and the
same shingles (lower-cased word 1- and 2-grams, minhash.NGRAMS), use 128
permutations and the audit's Jaccard threshold (minhash.THRESHOLD, 0.6),
and verify LSH candidates with their signatures. datasketch runs with its
defaults (sha1 shingle hashing, equal-weight bands); traindoc uses its
recall-weighted bands (see minhash.optimal_bands). Short texts (8-20
words, one-word edits): bench/near_short_bench.py.

Throughput is documents per second from raw text to verified pairs. Quality
is judged against exact Jaccard computed on the shingle sets:
  recall    = planted pairs with true Jaccard >= 0.8 that were reported
  precision = reported pairs whose true Jaccard >= 0.8
datasketch runs on the first `--ref-docs` documents (default: all); its
figures are then over that prefix, and ours are given on the same prefix too.
Target (issue 7): >= 5x datasketch's documents/s at equal or better recall.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time

import numpy as np

from traindoc.data.minhash import (
    NGRAMS,
    THRESHOLD,
    MinHasher,
    band_keys,
    candidate_pairs,
    estimate,
    optimal_bands,
)

PERM = 128


def vocabulary() -> list[str]:
    import importlib

    words: set[str] = set()
    for name in (
        "os",
        "json",
        "random",
        "inspect",
        "collections",
        "argparse",
        "typing",
        "re",
        "pathlib",
        "subprocess",
        "email",
        "http.client",
        "logging",
        "unittest",
        "ast",
    ):
        mod = importlib.import_module(name)
        for obj in vars(mod).values():
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str):
                continue
            words.update(w.lower() for w in doc.split() if w.isalpha() and len(w) > 2)
    return sorted(words)


def corpus(n: int, pairs: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    vocab = vocabulary()
    lens = rng.integers(3, 7, n) * 10  # 30-60 words in 10-word sentences
    ids = rng.integers(0, len(vocab), int(lens.sum())).tolist()
    docs: list[str] = []
    pos = 0
    for ln in lens.tolist():
        w = [vocab[i] for i in ids[pos : pos + ln]]
        pos += ln
        docs.append(". ".join(" ".join(w[i : i + 10]) for i in range(0, ln, 10)) + ".")
    r = random.Random(seed)
    src = rng.choice(n // 2, pairs, replace=False)
    dst = n // 2 + rng.choice(n - n // 2, pairs, replace=False)
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        sents = docs[a].rstrip(".").split(". ")
        kind = r.randrange(3)
        if kind == 0:  # replace a word
            s = r.randrange(len(sents))
            ws = sents[s].split()
            ws[r.randrange(len(ws))] = r.choice(vocab)
            sents[s] = " ".join(ws)
        elif kind == 1:  # delete a word
            s = r.randrange(len(sents))
            ws = sents[s].split()
            del ws[r.randrange(len(ws))]
            sents[s] = " ".join(ws)
        else:  # swap two sentences
            i, j = r.sample(range(len(sents)), 2)
            sents[i], sents[j] = sents[j], sents[i]
        docs[b] = ". ".join(sents) + "."
    return docs, np.stack([src, dst], axis=1)


def shingle_set(doc: str) -> set[str]:
    w = " ".join(doc.lower().replace(".", " ").split()).split()
    return {" ".join(w[i : i + n]) for n in NGRAMS for i in range(max(len(w) - n + 1, 1))}


def true_jaccard(docs: list[str], pairs: np.ndarray) -> np.ndarray:
    out = np.empty(len(pairs))
    for k, (a, b) in enumerate(pairs.tolist()):
        x, y = shingle_set(docs[a]), shingle_set(docs[b])
        out[k] = len(x & y) / len(x | y)
    return out


def ours(docs: list[str], batch: int = 8192) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    mh = MinHasher(PERM)
    b, r = optimal_bands(THRESHOLD, PERM)
    keys, sigs = [], []
    for s in range(0, len(docs), batch):
        wh, lens = mh.words(docs[s : s + batch])
        sig = mh.from_shingles(*mh.shingles(wh, lens))
        keys.append(band_keys(sig, b, r))
        sigs.append((sig >> 16).astype(np.uint16))
    k, sg = np.concatenate(keys), np.concatenate(sigs)
    pairs = candidate_pairs(k)
    sim = estimate(sg, pairs)
    return pairs[sim >= THRESHOLD], time.perf_counter() - t0


def reference(docs: list[str]) -> tuple[np.ndarray, float]:
    from datasketch import MinHash, MinHashLSH

    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=PERM)
    ms = []
    for i, d in enumerate(docs):
        m = MinHash(num_perm=PERM)
        m.update_batch([s.encode() for s in shingle_set(d)])
        lsh.insert(i, m)
        ms.append(m)
    found = []
    for i, m in enumerate(ms):
        for j in lsh.query(m):
            if j > i and m.jaccard(ms[j]) >= THRESHOLD:
                found.append((i, j))
    return np.array(found, np.int64).reshape(-1, 2), time.perf_counter() - t0


def quality(docs: list[str], planted: np.ndarray, found: np.ndarray) -> tuple[float, float, int]:
    tj = true_jaccard(docs, planted)
    truth = {tuple(p) for p, j in zip(planted.tolist(), tj, strict=True) if j >= THRESHOLD}
    got = {tuple(sorted(p)) for p in found.tolist()}
    recall = len(truth & got) / len(truth) if truth else 1.0
    fj = true_jaccard(docs, np.array(sorted(got), np.int64).reshape(-1, 2)) if got else np.empty(0)
    precision = float((fj >= THRESHOLD).mean()) if got else 1.0
    return recall, precision, len(truth)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--ref-docs", type=int, default=None)
    ap.add_argument("--skip-ref", action="store_true", help="traindoc only (no datasketch)")
    a = ap.parse_args()
    t = time.perf_counter()
    docs, planted = corpus(a.docs, a.pairs)
    print(
        f"corpus: {len(docs):,} docs, {len(planted):,} planted pairs ({time.perf_counter() - t:.1f} s)"
    )
    found, secs = ours(docs)
    rec, prec, nt = quality(docs, planted, found)
    print(f"planted pairs with true Jaccard >= {THRESHOLD}: {nt:,} of {len(planted):,}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"traindoc   {len(docs) / secs:>10,.0f} docs/s  {secs:7.1f} s  recall {rec:.4f}  "
        f"precision {prec:.4f}  pairs {len(found):,}  (process peak RSS {rss:,.0f} MB, corpus included)"
    )
    if a.skip_ref:
        return
    n_ref = min(a.ref_docs or len(docs), len(docs))
    ref_docs = docs[:n_ref]
    ref_planted = planted[(planted < n_ref).all(axis=1)]
    if n_ref < len(docs):
        f2, s2 = ours(ref_docs)
        r2, p2, _ = quality(ref_docs, ref_planted, f2)
        print(
            f"traindoc   {n_ref / s2:>10,.0f} docs/s on the first {n_ref:,}: recall {r2:.4f} precision {p2:.4f}"
        )
        secs, rec = s2, r2
    rfound, rsecs = reference(ref_docs)
    rrec, rprec, _ = quality(ref_docs, ref_planted, rfound)
    print(
        f"datasketch {n_ref / rsecs:>10,.0f} docs/s  {rsecs:7.1f} s  recall {rrec:.4f}  "
        f"precision {rprec:.4f}  pairs {len(rfound):,}"
    )
    speed = (n_ref / secs) / (n_ref / rsecs)
    ok = speed >= 5 and rec >= rrec - 1e-9
    print(
        f"speed-up {speed:.1f}x, recall {rec:.4f} vs {rrec:.4f}: {'PASS' if ok else 'FAIL'} "
        "(target: >= 5x at equal or better recall)"
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
