"""`make eval`: expected vs found per case, then each corpus scored on its own.

Own tiny trainings (tests/corpus + examples) and real third-party runs
(tests/real) are reported apart; the real runs' holdout split (kept out of
tuning) is reported apart again, and per reader.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

from traindoc.corpus import CaseResult, cases, real_cases, score, score_real

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    own = [score(c) for c in cases(ROOT / "tests/corpus") + cases(ROOT / "examples")]
    real = [r for c in real_cases(ROOT / "tests/real") if (r := score_real(c)) is not None]
    _table("own tiny trainings", own)
    # Holdout cases are listed only by name and mark: their details are not for tuning.
    show = "--show-holdout" in sys.argv
    _table("real third-party runs", [r for r in real if show or r.split == "dev"])
    if not show:
        held = [r for r in real if r.split == "holdout"]
        print(
            f"(+{len(held)} holdout cases, {sum(r.ok for r in held)} ok: --show-holdout lists them)"
        )
    print()
    _summary("own tiny trainings", own)
    for split in ("dev", "holdout"):
        _summary(f"real runs, {split}", [r for r in real if r.split == split])
    print("\nreal runs by label and rule (counts only, so the holdout stays unread):")
    for split in ("dev", "holdout"):
        _tallies(split, [r for r in real if r.split == split])
    by_reader: dict[str, list[CaseResult]] = defaultdict(list)
    for r in real:
        by_reader[r.reader or "unreadable"].append(r)
    print("\nreal runs per reader:")
    for reader, rs in sorted(by_reader.items()):
        ok = sum(r.ok for r in rs)
        held = [r for r in rs if r.split == "holdout"]
        part = f"   (holdout {sum(r.ok for r in held)}/{len(held)})" if held else ""
        print(f"  {reader:<34} {ok}/{len(rs)} ok{part}")
    return 0


def _table(title: str, results: list[CaseResult]) -> None:
    print(f"\n== {title}")
    width = max((len(r.name) for r in results), default=10)
    for r in results:
        mark = "ok " if r.ok else "BAD"
        exp = ", ".join(r.expected) or "(healthy)"
        got = ", ".join(r.found) or "-"
        extra = f"  MISSED {', '.join(r.missed)}" if r.missed else ""
        extra += f"  FALSE ALARM {', '.join(r.false_alarms)}" if r.false_alarms else ""
        extra += f"  UNREADABLE {r.error[:100]}" if r.error else ""
        split = " [holdout]" if r.split == "holdout" else ""
        print(f"{mark} {r.name:<{width}}{split}  expected: {exp:<40} found: {got}{extra}")


def _tallies(split: str, results: list[CaseResult]) -> None:
    """Recall per label and false alarms per rule: where a split's misses live."""
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for r in results:
        if not r.healthy:
            total.update(r.expected)
            hit.update(set(r.expected) - set(r.missed))
    # an error-level false alarm is marked "(error)": the done-when allows none
    healthy_fa = Counter(
        f + (" (error)" if f in r.errors else "")
        for r in results
        if r.healthy
        for f in r.false_alarms
    )
    faulty_fa = Counter(f for r in results if not r.healthy for f in r.false_alarms)
    recall = ", ".join(f"{k} {hit[k]}/{n}" for k, n in total.most_common())
    print(f"  {split:<8} recall by label: {recall}")
    print(f"  {split:<8} false alarms on healthy runs by rule: {dict(healthy_fa.most_common())}")
    print(
        f"  {split:<8} unexpected findings on faulty runs by rule: {dict(faulty_fa.most_common())}"
    )


def _summary(title: str, results: list[CaseResult]) -> None:
    faulty = [r for r in results if not r.healthy]
    healthy = [r for r in results if r.healthy]
    n_exp = sum(len(r.expected) for r in faulty)
    n_hit = n_exp - sum(len(r.missed) for r in faulty)
    errors = sum(len(r.false_alarms) for r in healthy)
    hard = sum(len(set(r.false_alarms) & set(r.errors)) for r in healthy)
    warn_runs = sum(1 for r in healthy if r.false_alarms)
    extra_runs = sum(1 for r in faulty if r.false_alarms)
    unreadable = sum(1 for r in results if r.error)
    print(
        f"{title:<24} {len(results):>3} cases  recall {n_hit}/{n_exp} = "
        f"{n_hit / max(n_exp, 1):.0%}   false alarms: healthy runs {warn_runs}/{len(healthy)} "
        f"({errors} findings, {hard} of them errors), faulty runs {extra_runs}/{len(faulty)}   unreadable: {unreadable}"
    )


if __name__ == "__main__":
    sys.exit(main())
