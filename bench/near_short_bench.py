"""Near duplicates in short texts: traindoc's audit against datasketch's MinHashLSH.

    PYTHONPATH=src .venv/bin/python bench/near_short_bench.py [--docs 3000] [--pairs 105]

The data of tests/data/test_near_short.py, scaled: `--docs` unrelated 8-20-word
texts (Zipf-drawn words, so unrelated texts share frequent words) and
`--pairs` one-word edits (a word replaced, deleted or inserted) of the first
ones. Prints, per method, how many planted edits were found, how many
reported rows are not planted copies, and documents/s from raw text to
pairs. datasketch runs twice: with the former shingles (word 3-grams at 0.8)
and with traindoc's (word 1+2-grams at 0.6).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.data.corpus

from tests.data.corpus import short_planted
from tests.data.test_near_short import _datasketch
from traindoc.data.audit import Options, audit
from traindoc.data.minhash import NGRAMS, THRESHOLD


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--pairs", type=int, default=105)
    a = ap.parse_args()
    texts, copies = short_planted(a.docs, a.pairs)
    want = set(copies)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "short.jsonl"
        f.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
        t0 = time.perf_counter()
        got = set(audit(f, opts=Options()).export["near_duplicates"])
        secs = time.perf_counter() - t0
    rows = [("traindoc audit, word 1+2-grams @ 0.6 (whole audit)", got, secs)]
    for ngrams, th in (((3,), 0.8), (NGRAMS, THRESHOLD)):
        t0 = time.perf_counter()
        found = _datasketch(texts, ngrams, th)
        name = "+".join(map(str, ngrams))
        rows.append(
            (f"datasketch MinHashLSH, word {name}-grams @ {th}", found, time.perf_counter() - t0)
        )
    for name, found, s in rows:
        print(
            f"{name:55s} found {len(found & want):>5} of {len(want)}  "
            f"false {len(found - want):>3}  {len(texts) / s:>9,.0f} docs/s"
        )


if __name__ == "__main__":
    main()
