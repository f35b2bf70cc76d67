"""`make eval`: expected vs found rules per corpus case, then recall and false alarms."""

from __future__ import annotations

import sys
from pathlib import Path

from traindoc.corpus import cases, score


def main(root: str) -> int:
    results = [score(c) for c in cases(Path(root))]
    if not results:
        print(f"no cases under {root}")
        return 2
    width = max(len(r.name) for r in results)
    for r in results:
        mark = "ok " if r.ok else "BAD"
        exp = ", ".join(r.expected) or "(healthy)"
        got = ", ".join(r.found) or "-"
        extra = f"  MISSED {', '.join(r.missed)}" if r.missed else ""
        extra += f"  FALSE ALARM {', '.join(r.false_alarms)}" if r.false_alarms else ""
        extra += f"  ERROR {r.error}" if r.error else ""
        print(f"{mark} {r.name:<{width}}  expected: {exp:<40} found: {got}{extra}")
    n_exp = sum(len(r.expected) for r in results)
    n_hit = n_exp - sum(len(r.missed) for r in results)
    healthy = [r for r in results if r.healthy]
    alarms = sum(len(r.false_alarms) for r in healthy)
    print(
        f"\nrecall: {n_hit}/{n_exp} = {n_hit / max(n_exp, 1):.0%}   "
        f"false alarms on {len(healthy)} healthy runs: {alarms}"
    )
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/corpus"))
