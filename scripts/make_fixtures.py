#!/usr/bin/env python3
"""Generate traindoc's real-training fixtures (tests/corpus/*, examples/*).

Every case runs a REAL tiny training on the CPU (transformers.Trainer, Lightning,
or a plain PyTorch loop) with a real, deliberately introduced fault, then keeps
only the small artefacts a user would have (trainer_state.json, config.json,
training_args.bin, adapter_config.json, metrics.csv, metrics.jsonl, ...) plus an
``expected.json`` naming the RULES.md ids a correct diagnosis must flag.

Model: GPT-2 built from a config (vocab 50257, n_embd 32, 2 layers, 2 heads),
never downloaded. Data: source text of Python's own stdlib, tokenised as UTF-8
bytes (token id = byte value), so the uniform floor is ln(50257) = 10.8249.

Run with the training venv (see tests/corpus/README.md):

    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py            # all
    OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py --only seed-a
    .venv-train/bin/python scripts/make_fixtures.py --list

The cases live in scripts/fixtures/, one module per framework (hf_*, lightning,
plain) over one shared helper module (fixtures/common.py); importing them registers
their cases. Heavy imports happen inside the functions so ``--list`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: the fixtures package

from fixtures.common import REGISTRY, ROOT, base_model, fresh, prune, seed_a_best

# Importing a module registers its cases, in this order (the order --list and a full
# run follow).
CASE_MODULES = (
    "hf_healthy",
    "hf_loss",
    "hf_data",
    "hf_rate",
    "hf_grads",
    "lightning",
    "plain",
    "variants",
)
for _name in CASE_MODULES:
    importlib.import_module(f"fixtures.{_name}")


def write_index(root: Path) -> None:
    """tests/corpus/README.md: one line per case, built from each expected.json."""
    corpus = root / "tests" / "corpus"
    if not corpus.is_dir():
        return
    lines = [
        "# tests/corpus: real tiny training runs with real faults",
        "",
        "Made by `scripts/make_fixtures.py` (see its docstring; regenerate one case with",
        "`OMP_WAIT_POLICY=PASSIVE .venv-train/bin/python scripts/make_fixtures.py --only NAME`).",
        "Every case is a real CPU run (HF `Trainer` 5.24 unless noted; Lightning 2.6; plain",
        "PyTorch loops) of a tiny GPT-2 built from a config (vocab 50257, n_embd 32, 2 layers,",
        "2 heads; floor ln 50257 = 10.8249) on Python stdlib source/docstrings tokenised as",
        "UTF-8 bytes (sequence 32). 'pretrained' = that model after 300 steps on stdlib code",
        "(LR 3e-3 cosine). Weights, optimizer, scheduler and RNG files were deleted after the",
        "run; kept: trainer_state.json (top level and checkpoint-N/), config.json,",
        "training_args.bin, adapter_config.json, *_results.json, metrics.csv/jsonl, hparams.yaml.",
        "",
        "`expected.json`: `expect` = RULES.md ids a correct diagnosis must flag (primary);",
        "`also_applies` = ids that honestly also apply (consequences; allowed, not required);",
        "`numbers` = first/last/min/max of the logged signals, for checking.",
        "",
        "| case | expect | how it was made |",
        "|---|---|---|",
    ]
    for d in sorted(p for p in corpus.iterdir() if (p / "expected.json").exists()):
        e = json.loads((d / "expected.json").read_text())
        ids = ", ".join(e["expect"]) or (
            f"(healthy; info: {', '.join(e['expect_info'])})"
            if e.get("expect_info")
            else "(healthy)"
        )
        lines.append(f"| `{d.name}` | {ids} | {e['story']} |")
    (corpus / "README.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="case name (repeatable, or comma list)")
    ap.add_argument("--out", default=str(ROOT), help="repository root to write into")
    ap.add_argument("--list", action="store_true", help="list cases and exit")
    ap.add_argument("--jobs", type=int, default=1, help="run cases in N parallel processes")
    a = ap.parse_args(argv)
    if a.list:
        for n, (_, e, w) in REGISTRY.items():
            print(f"{w}/{n}: {', '.join(e) or 'healthy'}")
        return 0
    names = [x for o in (a.only or []) for x in o.split(",") if x] or list(REGISTRY)
    bad = [n for n in names if n not in REGISTRY]
    if bad:
        ap.error(f"unknown case(s) {bad}; known: {', '.join(REGISTRY)}")
    root = Path(a.out).resolve()
    os.chdir(root)  # output_dir paths recorded in the artefacts stay repo-relative
    t0 = time.time()
    if a.jobs > 1 and len(names) > 1:
        base_model()  # build the shared caches once, before forking
        seed_a_best()
        procs: list = []
        failed = []
        queue = list(names)
        while queue or procs:
            while queue and len(procs) < a.jobs:
                n = queue.pop(0)
                procs.append(
                    (
                        n,
                        subprocess.Popen(
                            [sys.executable, __file__, "--only", n, "--out", str(root)]
                        ),
                    )
                )
            time.sleep(0.5)
            for n, p in list(procs):
                if p.poll() is not None:
                    procs.remove((n, p))
                    if p.returncode:
                        failed.append(n)
        write_index(root)
        print(f"total {time.time() - t0:.0f}s; failed: {failed or 'none'}")
        return 1 if failed else 0
    failed = []
    for n in names:
        fn, _, where = REGISTRY[n]
        out = fresh(Path(where) / n)
        t1 = time.time()
        try:
            fn(out)
        except Exception as e:  # keep going; report at the end
            import traceback

            traceback.print_exc()
            failed.append(n)
            print(f"[{n}] FAILED: {e}")
            continue
        prune(out)
        kb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1024
        print(f"[{n}] done in {time.time() - t1:.1f}s, {kb:.0f} KB", flush=True)
    write_index(root)
    print(f"total {time.time() - t0:.0f}s; failed: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
