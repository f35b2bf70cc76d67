"""Write tests/real/reads.json: what traindoc reads from each real case.

Review the diff against the logs before committing it: tests/real/test_reads.py
holds the reader to the file, and checks the structured cases against an
independent count of their own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from traindoc.corpus import read_summary, real_cases

ROOT = Path(__file__).resolve().parents[1] / "tests" / "real"


def main() -> int:
    snap = {c.name: read_summary(c) for c in real_cases(ROOT)}
    (ROOT / "reads.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
    print(f"{len(snap)} cases written to {ROOT / 'reads.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
