"""`make eval-fresh BASE=<commit>`: the real cases added since BASE, scored by BASE's code
and by today's, side by side, and every real case scored by both, per split.

Cases collected after BASE were never seen by BASE's code, so BASE's score on them is
the honest estimate of how traindoc does on runs nobody here has seen; today's score
on the same cases shows how much of a session's gain is fitted to them. The holdout
part of the whole-corpus line says whether today's code generalises past BASE at all.
Counts only, so the holdout stays unread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run under one tree's src (PYTHONPATH): each result as one JSON line per case.
_SCORE = """
import json, sys
from pathlib import Path
from traindoc.corpus import real_cases, score_real
for c in real_cases(Path(sys.argv[1])):
    try:
        r = score_real(c)
    except Exception as e:  # an older tree may crash where today's reads: a miss
        print("crash", c, e, file=sys.stderr)
        continue
    if r is not None:
        print(json.dumps({"name": r.name, "split": r.split, "healthy": r.healthy,
            "expected": r.expected, "missed": r.missed, "fa": r.false_alarms,
            "errors": r.errors, "unreadable": bool(r.error)}))
"""


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: eval_fresh.py BASE_COMMIT", file=sys.stderr)
        return 2
    base = sys.argv[1]
    listed = _git("ls-tree", "-d", "--name-only", base, "tests/real/").split()
    old = {Path(p).name for p in listed}
    with tempfile.TemporaryDirectory(prefix="traindoc-base-") as tmp:
        tree = Path(tmp) / "tree"
        _git("worktree", "add", "--detach", str(tree), base)
        try:
            then = _score(tree / "src")
        finally:
            _git("worktree", "remove", "--force", str(tree))
    now = _score(ROOT / "src")
    for title, keep in (
        (f"cases added since {base[:10]}", lambda r: r["name"] not in old),
        ("every real case", lambda r: True),
    ):
        print(f"== {title}")
        for split in ("dev", "holdout"):
            for who, res in ((f"{base[:10]} code", then), ("today's code", now)):
                print(
                    f"  {split:<8} {who:<16} {_line([r for r in res if keep(r) and r['split'] == split])}"
                )
    fresh = [r for r in then if r["name"] not in old and not r["healthy"]]
    print(f"fresh recall by label ({base[:10]} code): {_by_label(fresh)}")
    return 0


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout


def _score(src: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_WAIT_POLICY": "PASSIVE"}
    out = subprocess.run(
        [sys.executable, "-c", _SCORE, str(ROOT / "tests/real")],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _line(rs: list[dict]) -> str:
    faulty = [r for r in rs if not r["healthy"]]
    healthy = [r for r in rs if r["healthy"]]
    labels = sum(len(r["expected"]) for r in faulty)
    hit = labels - sum(len(r["missed"]) for r in faulty)
    warned = sum(bool(r["fa"]) for r in healthy)
    errors = sum(bool(r["errors"]) for r in healthy)
    unread = sum(r["unreadable"] for r in rs)
    return (
        f"{len(rs):4} cases  recall {hit}/{labels} = {hit / max(labels, 1):.0%}  "
        f"healthy warned {warned}/{len(healthy)} ({errors} errors)  unreadable {unread}"
    )


def _by_label(rs: list[dict]) -> str:
    total: Counter[str] = Counter()
    hit: Counter[str] = Counter()
    for r in rs:
        total.update(r["expected"])
        hit.update(set(r["expected"]) - set(r["missed"]))
    return ", ".join(f"{k} {hit[k]}/{n}" for k, n in total.most_common())


if __name__ == "__main__":
    raise SystemExit(main())
