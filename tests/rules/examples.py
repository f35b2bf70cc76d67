"""Each rule's docs example: its first `flag` case (tests/rules/cases/<id>.yaml), run.

The example on a rule's page is what the rule really says on that input, so it
can never drift from the code: `make docs` writes it, test_docs_are_fresh checks it.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.rules.synth import build_run
from traindoc.engine import diagnose
from traindoc.rules.registry import load_all

CASES = Path(__file__).parent / "cases"


def examples() -> dict[str, str]:
    specs = load_all()
    out = {}
    for path in sorted(CASES.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        spec = specs.get(doc["rule"])
        case = next((c for c in doc["cases"] if c["expect"] == "flag"), None)
        if spec is None or case is None:
            continue
        found = [f for f in diagnose(build_run(case), [spec]).findings if f.rule == spec.id]
        if not found:
            continue
        f = found[0]
        evidence = {k: v for k, v in f.evidence.items() if not isinstance(v, (list, dict))}
        out[spec.id] = "\n".join(
            [
                f"Input: {case['name']} (`tests/rules/cases/{path.name}`).",
                "",
                "```",
                f"{f.severity.name} {f.title}  [{f.rule}]",
                f"evidence: {json.dumps(evidence, default=str)[:600]}",
                f"do: {f.prescription}",
                "```",
            ]
        )
    return out
