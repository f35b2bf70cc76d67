"""Small real dataset files for the audit tests, written with the real libraries.

Text comes from the standard library (its docstrings' words and `this`'s Zen),
never from a hub. `clean()` samples are random 100-word passages in 10-word
sentences: pairwise unrelated (word 3-gram Jaccard ~ 0). `planted()` adds
exact duplicates, near duplicates (one word replaced, or two sentences
swapped: true Jaccard ~0.85-0.9), label conflicts (same text, other label)
and an eval split with exact and near leaks, and returns what was planted.
"""

from __future__ import annotations

import codecs
import json
import random
import this
from dataclasses import dataclass, field
from pathlib import Path

ZEN = codecs.decode(this.s, "rot13")


def vocabulary() -> list[str]:
    import collections
    import inspect
    import os

    words: set[str] = set(w.strip(".,*!-").lower() for w in ZEN.split())
    for mod in (os, json, random, inspect, collections):
        for obj in vars(mod).values():
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str):
                words.update(w.lower() for w in doc.split() if w.isalpha() and len(w) > 2)
    return sorted(w for w in words if w.isalpha())


def passage(r: random.Random, vocab: list[str], sentences: int = 10) -> str:
    return " ".join(
        " ".join(r.choice(vocab) for _ in range(10)).capitalize() + "." for _ in range(sentences)
    )


def edit(r: random.Random, vocab: list[str], text: str) -> str:
    sents = text.split(". ")
    if r.random() < 0.5:
        i, j = r.sample(range(len(sents) - 1), 2)
        sents[i], sents[j] = sents[j], sents[i]
    else:
        s = r.randrange(len(sents))
        ws = sents[s].split()
        ws[r.randrange(1, len(ws) - 1)] = r.choice(vocab)
        sents[s] = " ".join(ws)
    return ". ".join(sents)


@dataclass
class Planted:
    train: list[dict] = field(default_factory=list)
    eval: list[dict] = field(default_factory=list)
    duplicates: int = 0
    near: int = 0
    conflict_pairs: int = 0
    leaked_exact: int = 0
    leaked_near: int = 0


def clean(n: int = 1200, seed: int = 0, labels: tuple[str, ...] = ("pos", "neg")) -> list[dict]:
    r = random.Random(seed)
    vocab = vocabulary()
    return [{"text": passage(r, vocab), "label": labels[i % len(labels)]} for i in range(n)]


def planted(n: int = 1200, seed: int = 1) -> Planted:
    r = random.Random(seed)
    vocab = vocabulary()
    p = Planted(train=clean(n, seed))
    base = p.train[:]
    for i in range(30):  # exact copies, case and punctuation changed
        src = base[i]
        p.train.append({"text": src["text"].upper().replace(".", " !"), "label": src["label"]})
    p.duplicates = 30
    for i in range(30, 60):  # near duplicates, same label
        p.train.append({"text": edit(r, vocab, base[i]["text"]), "label": base[i]["label"]})
    p.near = 30
    for i in range(60, 80):  # same text, the other label
        other = "neg" if base[i]["label"] == "pos" else "pos"
        p.train.append({"text": base[i]["text"], "label": other})
    p.conflict_pairs = 20
    p.eval = clean(40, seed + 100)
    p.eval += [dict(base[i]) for i in range(100, 105)]
    p.eval += [
        {"text": edit(r, vocab, base[i]["text"]), "label": base[i]["label"]}
        for i in range(105, 110)
    ]
    p.leaked_exact, p.leaked_near = 5, 5
    r.shuffle(p.train)
    return p


def write(rows: list[dict], path: Path, fmt: str) -> Path:
    """Writes rows as `fmt` with the library a user would use; returns the path to audit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    elif fmt == "json":
        path.write_text(json.dumps(rows, indent=1))
    elif fmt == "csv":
        import csv

        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=500)
    elif fmt == "arrow":  # the IPC stream format, as HF datasets write it
        import pyarrow as pa

        table = pa.Table.from_pylist(rows)
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table, max_chunksize=500)
    elif fmt == "hf":
        import datasets

        datasets.Dataset.from_list(rows).save_to_disk(str(path), num_shards=2)
    else:
        raise ValueError(fmt)
    return path


def short_texts(n: int, seed: int = 0) -> list[str]:
    """Unrelated 8-20-word texts with words drawn by a Zipf law over the vocabulary.

    Zipf, not uniform: like real text, unrelated samples then share their
    frequent words, which is what makes a too-low threshold pair them.
    """
    import numpy as np

    vocab = vocabulary()
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    lens = rng.integers(8, 21, n)
    ids = rng.choice(len(vocab), int(lens.sum()), p=p).tolist()
    out, pos = [], 0
    for ln in lens.tolist():
        out.append(" ".join(vocab[i] for i in ids[pos : pos + ln]).capitalize() + ".")
        pos += ln
    return out


def one_word_edit(r: random.Random, vocab: list[str], text: str) -> str:
    """The text with one word replaced, deleted or inserted (a third each)."""
    ws = text.rstrip(".").split()
    kind, i = r.randrange(3), r.randrange(len(ws))
    if kind == 0:
        old = ws[i].lower()
        while ws[i].lower() == old:
            ws[i] = r.choice(vocab)
    elif kind == 1:
        del ws[i]
    else:
        ws.insert(i, r.choice(vocab))
    return " ".join(ws) + "."


def short_planted(n: int = 3000, pairs: int = 105, seed: int = 5) -> tuple[list[str], list[int]]:
    """`n` unrelated short texts, then `pairs` one-word edits of the first ones.

    Returns the texts and the indices of the copies (the edit of text i is at
    n + i), each of which must be found as a near duplicate and nothing else.
    """
    r = random.Random(seed)
    vocab = vocabulary()
    texts = short_texts(n, seed)
    texts += [one_word_edit(r, vocab, texts[i]) for i in range(pairs)]
    return texts, list(range(n, n + pairs))
