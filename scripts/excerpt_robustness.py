"""How often a diagnosis survives being cut to an issue-sized excerpt (dev cases only).

Users paste 5-20 lines, not the whole log. For every dev real case whose labels are
all found, this cuts each run's series to a window of N loss points around the first
finding that names a label, to its first N and its last N loss points, and thins the
whole run to N points (a sparse log), and re-diagnoses the cut run. It prints, per rule, how often the label is
still named. Holdout cases are never touched. Diagnostic only: nothing is asserted.

    python scripts/excerpt_robustness.py [--points 12]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from traindoc.corpus import ACCEPT, score_real, target  # noqa: E402
from traindoc.engine import diagnose  # noqa: E402
from traindoc.model import Run, Series, Severity  # noqa: E402
from traindoc.pipeline import load_all  # noqa: E402


def _cut(s: Series, lo: float, hi: float) -> Series:
    keep = (s.steps >= lo) & (s.steps <= hi)
    t = s.times[keep] if s.times is not None else None
    return Series(s.name, s.steps[keep], s.values[keep], t, s.source)


def _thin(s: Series, n: int) -> Series:
    if len(s) <= n:
        return s
    idx = np.unique(np.linspace(0, len(s) - 1, n).round().astype(int))
    t = s.times[idx] if s.times is not None else None
    return Series(s.name, s.steps[idx], s.values[idx], t, s.source)


def window(run: Run, step: int, n: int) -> Run | None:
    loss = run.get("loss")
    if loss is None or len(loss) < 3 * n:
        return None
    i = int(np.searchsorted(loss.steps, step))
    a = max(0, min(i - n // 2, len(loss) - n))
    lo, hi = float(loss.steps[a]), float(loss.steps[a + n - 1])
    series = {k: _cut(s, lo, hi) for k, s in run.series.items()}
    return dataclasses.replace(run, series={k: s for k, s in series.items() if len(s)})


def edge(run: Run, n: int, tail: bool) -> Run | None:
    """The first (or last) n loss logs with every series cut to their steps: the head of
    a log pasted when a run misbehaves from the start, or the tail when it ends badly."""
    loss = run.get("loss")
    if loss is None or len(loss) < 3 * n:
        return None
    a = len(loss) - n if tail else 0
    lo, hi = float(loss.steps[a]), float(loss.steps[a + n - 1])
    series = {k: _cut(s, lo, hi) for k, s in run.series.items()}
    return dataclasses.replace(run, series={k: s for k, s in series.items() if len(s)})


def thinned(run: Run, n: int) -> Run | None:
    loss = run.get("loss")
    if loss is None or len(loss) < 3 * n:
        return None
    return dataclasses.replace(run, series={k: _thin(s, n) for k, s in run.series.items()})


def named(runs: list[Run], label: str) -> bool:
    want = ACCEPT[label]
    for r in runs:
        d = diagnose(r)
        if any(f.rule in want and f.severity >= Severity.WARNING for f in d.findings):
            return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=12)
    ap.add_argument("--show", action="store_true", help="list the cases that lose a label")
    a = ap.parse_args()
    kept: Counter[str] = Counter()
    tried: Counter[str] = Counter()
    lost: list[str] = []
    for case in sorted((ROOT / "tests/real").glob("*/meta.json")):
        meta = json.loads(case.read_text(encoding="utf-8"))
        if meta.get("split", "dev") != "dev":
            continue
        res = score_real(case.parent)
        if res is None or res.healthy or not res.ok:
            continue
        runs = load_all(target(case.parent, meta.get("files", [])))
        for label in res.expected:
            for how in ("window", "thin", "head", "tail"):
                cut = []
                for r in runs:
                    d = diagnose(r)
                    hit = next((f for f in d.findings if f.rule in ACCEPT[label]), None)
                    if hit is None:
                        continue
                    if how == "window":
                        c = window(r, hit.step or 0, a.points)
                    elif how == "thin":
                        c = thinned(r, a.points)
                    else:
                        c = edge(r, a.points, tail=how == "tail")
                    if c is not None:
                        cut.append(c)
                if not cut:
                    continue
                key = f"{label} ({how})"
                tried[key] += 1
                if named(cut, label):
                    kept[key] += 1
                else:
                    lost.append(f"{key}: {case.parent.name}")
    for key in sorted(tried):
        print(f"{key:40s} {kept[key]}/{tried[key]}")
    if a.show:
        print("\n".join(lost))


if __name__ == "__main__":
    main()
