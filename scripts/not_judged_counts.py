"""Counts only: why no-learning / rl-no-signal left a run unjudged, over every real case.

For each real case labelled no_learning or rl_no_signal (confidence low left out) whose
label no accepted rule names, tally the `not_judged` reasons of no-learning and
rl-no-signal, by split and label ("(none)": the rules said nothing of the kind).
Holdout cases are only counted, never listed; `--dev` lists the dev cases as well.

    PYTHONPATH=src python scripts/not_judged_counts.py [--dev]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from traindoc.corpus import ACCEPT, real_cases, target
from traindoc.engine import diagnose
from traindoc.pipeline import load_all
from traindoc.readers import ReadError

RULES = frozenset({"no-learning", "rl-no-signal"})
LABELS = frozenset({"no_learning", "rl_no_signal"})


def main(root: Path = Path("tests/real"), show_dev: bool = False) -> None:
    counts: Counter[tuple[str, str, str]] = Counter()
    for case in real_cases(root):
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        labels = sorted(set(meta.get("labels", [])) & LABELS)
        if not labels or meta.get("confidence") == "low":
            continue
        split = meta.get("split", "dev")
        try:
            ds = [diagnose(r) for r in load_all(target(case, meta.get("files", [])))]
        except ReadError:
            counts[(split, "-", "unreadable")] += 1
            continue
        found = {f.rule for d in ds for f in d.findings}
        reasons = {f"{s.rule}: {s.reason}" for d in ds for s in d.not_judged if s.rule in RULES}
        for label in labels:
            if ACCEPT[label] & found:
                continue
            for reason in reasons or {"(none)"}:
                counts[(split, label, reason)] += 1
            if show_dev and split == "dev":
                print("dev", label, case.name, "|", "; ".join(sorted(reasons)) or "(none)")
    for (split, label, reason), n in sorted(counts.items()):
        print(f"{n:4d}  {split:8s} {label:14s} {reason}")


if __name__ == "__main__":
    main(show_dev="--dev" in sys.argv)
