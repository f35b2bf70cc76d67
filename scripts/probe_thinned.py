"""Robustness probe: every dev real run read again with each series thinned to every
k-th point (a sparser logging interval), then diagnosed.

Real users log every 1, 10 or 500 steps; a rule that holds only at the interval of
the case it was tuned on will not hold on theirs. Prints the labels a dev case loses
and the warnings a healthy dev case gains. The holdout is left out, as in tuning.

    .venv/bin/python scripts/probe_thinned.py 2     # every 2nd point
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from traindoc.corpus import ACCEPT, real_cases, target
from traindoc.engine import diagnose
from traindoc.model import Run, Severity
from traindoc.pipeline import load_all

ROOT = Path(__file__).resolve().parents[1]


def _found(runs: list[Run]) -> set[str]:
    return {f.rule for r in runs for f in diagnose(r).findings if f.severity >= Severity.WARNING}


def _thin(run: Run, k: int) -> Run:
    keep = {
        n: s if len(s) < 2 * k + 6 else replace(s, steps=s.steps[::k], values=s.values[::k])
        for n, s in run.series.items()
    }
    return replace(run, series=keep)


def main() -> int:
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    lost, gained, total = [], [], 0
    for case in real_cases(ROOT / "tests/real"):
        meta = json.loads((case / "meta.json").read_text())
        if meta.get("split") != "dev" or meta.get("confidence") == "low":
            continue
        try:
            runs = load_all(target(case, meta["files"]))
        except Exception:
            continue
        total += 1
        base, thin = _found(runs), _found([_thin(r, k) for r in runs])
        lost += [
            (case.name, lab)
            for lab in meta["labels"]
            if ACCEPT.get(lab, set()) & base and not ACCEPT[lab] & thin
        ]
        if meta["labels"] == ["healthy"] and thin - base:
            gained.append((case.name, sorted(thin - base)))
    print(
        f"every {k}th point: {total} dev cases; labels lost {len(lost)}, new alarms on healthy runs {len(gained)}"
    )
    for name, lab in lost:
        print(f"  lost  {lab:<22} {name}")
    for name, rules in gained:
        print(f"  alarm {', '.join(rules):<22} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
