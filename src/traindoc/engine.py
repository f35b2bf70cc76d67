"""Runs the rules over a run: skip what lacks data, isolate crashes, link causes.

The engine is the only place that knows about all rules at once. Rules stay
pure functions of the run; the engine decides which can run, turns their hits
into findings, links findings into a cause graph and orders the report so the
root causes come first.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from dataclasses import replace

from traindoc.model import Finding, Run
from traindoc.model.diagnosis import INCONCLUSIVE, VERDICTS, Diagnosis, Skipped
from traindoc.rules.api import NotJudged, RuleSpec
from traindoc.rules.registry import load_all

# Diagnosis and Skipped are model data (traindoc.model.diagnosis); named here too, as before.
__all__ = ["INCONCLUSIVE", "VERDICTS", "Diagnosis", "Skipped", "diagnose"]

STALL = "stalled-training"


def diagnose(run: Run, rules: Iterable[RuleSpec] | None = None) -> Diagnosis:
    specs = list(rules) if rules is not None else list(load_all().values())
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    not_judged: list[Skipped] = []
    core: list[str] = []
    errors: list[str] = []
    # Two passes: the symptom rules first, then the cause rules that read their
    # findings (RuleSpec.reads) on a view of the run that carries them.
    second = [s for s in specs if s.reads]
    view = run
    for spec in [s for s in specs if not s.reads] + second:
        if second and spec is second[0]:
            view = replace(run, symptoms=tuple(findings))
        missing = spec.missing(view)
        if missing:
            skipped.append(Skipped(spec.id, "needs " + ", ".join(missing)))
            continue
        try:
            for out in spec.check(view, spec.params):
                if isinstance(out, NotJudged):
                    not_judged.append(Skipped(spec.id, out.reason))
                    if spec.core:
                        core.append(spec.id)
                else:
                    findings.append(spec.finding(out))
        except Exception as exc:  # a crashing rule must not take the report down
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            errors.append(
                f"rule {spec.id} failed: {type(exc).__name__}: {exc} "
                f"({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
            )
    by_id = {s.id: s for s in specs}
    findings = merge_live(findings, run.live, by_id)
    linked = link_causes(findings, by_id)
    return Diagnosis(
        run,
        tuple(order(linked)),
        tuple(skipped),
        tuple(errors),
        not_judged=tuple(not_judged),
        core_not_judged=tuple(dict.fromkeys(core)),
    )


def merge_live(
    findings: list[Finding], live: Iterable[Finding], specs: dict[str, RuleSpec]
) -> list[Finding]:
    """Fold in what a live monitor recorded while the run trained.

    The offline rules see the whole log and win where both speak: their
    finding keeps its title and numbers, and gains `evidence["live"]` plus
    the evidence only the live run had (a stalled thread's stack). A
    live-only finding is kept when the log cannot show it: a stall (it needs
    the clock while the run hung) or one the monitor stopped training for
    (the log ends there). Other live-only warnings were made on a shorter
    history and are left to the offline verdict.
    """
    out = list(findings)
    where = {f.rule: i for i, f in enumerate(out)}
    for f in live:
        seen = f.evidence.get("live", {})
        if f.rule in where:
            i = where[f.rule]
            if "live" not in out[i].evidence:
                merged = {**f.evidence, **out[i].evidence, "live": {**seen, "step": f.step}}
                out[i] = replace(out[i], evidence=merged)
        elif f.rule in specs and (f.rule == STALL or seen.get("action") == "stop"):
            where[f.rule] = len(out)
            out.append(f)
    return out


def link_causes(findings: list[Finding], specs: dict[str, RuleSpec]) -> list[Finding]:
    """Add `caused_by` from each rule's `explained_by`, keeping the graph acyclic.

    Edges are added in order of the cause's severity and onset, and an edge that
    would close a cycle is dropped, so two rules that each claim to explain the
    other end up with the more severe / earlier one as the root.
    """
    present = {f.rule for f in findings}
    onset = {f.rule: (-(f.severity), f.step if f.step is not None else 1 << 62) for f in findings}
    edges: dict[str, set[str]] = {f.rule: set() for f in findings}
    wanted: list[tuple[tuple, str, str]] = []
    for f in findings:
        causes = set(f.caused_by)
        spec = specs.get(f.rule)
        if spec:
            causes |= set(spec.explained_by)
        for c in causes & present - {f.rule}:
            wanted.append((onset[c], f.rule, c))
    for _, effect, cause in sorted(wanted):
        if not _reaches(edges, cause, effect):
            edges[effect].add(cause)
    # ties (same severity and onset) by id: a set's order changes with PYTHONHASHSEED
    return [
        f.with_causes(tuple(sorted(edges[f.rule], key=lambda c: (onset[c], c)))) for f in findings
    ]


def _reaches(edges: dict[str, set[str]], start: str, target: str) -> bool:
    stack, seen = [start], set()
    while stack:
        node = stack.pop()
        if node == target:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(edges.get(node, ()))
    return False


def order(findings: list[Finding]) -> list[Finding]:
    """Root causes first, then by severity, then by onset step."""

    def key(f: Finding) -> tuple:
        return (bool(f.caused_by), -f.severity, f.step if f.step is not None else 1 << 62, f.rule)

    return sorted(findings, key=key)
