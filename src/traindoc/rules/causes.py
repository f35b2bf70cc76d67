"""Finding ids and the cause graph between findings: the engine's last two steps.

Ids first: `caused_by`, the reports' marks and the live merge all name a
finding by its id, so two findings of one rule (one per checkpoint, one per
resume) must not share one. Then the edges: a rule names the *rules* that
explain it (`explained_by`, or a Hit's `caused_by`), and which of that rule's
findings is meant is decided here, from what the two findings are about.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from traindoc.model import Finding
from traindoc.model.finding import qualified
from traindoc.rules.api import RuleSpec

# Evidence naming what a finding is about. Two findings that name different values
# (checkpoint "best" and "checkpoint-500"; the resumes at 1500 and 3000) are about
# different events, so neither explains the other, whatever their rules say.
SUBJECT = ("checkpoint", "resume_step")
_NEVER = 1 << 62


def unique_ids(findings: Iterable[Finding]) -> list[Finding]:
    """The same findings, each id unique: a shared id becomes `id@<step>` when the
    findings sharing it have distinct steps, else `id#2`, `id#3` after the first."""
    out = list(findings)
    shared = Counter(f.id for f in out)
    for id_, n in shared.items():
        if n < 2:
            continue
        group = [i for i, f in enumerate(out) if f.id == id_]
        steps = [out[i].step for i in group]
        if None not in steps and len(set(steps)) == len(steps):
            for i in group:
                out[i] = _with_id(out[i], qualified(id_, out[i].step))
    taken: set[str] = set()
    for i, f in enumerate(out):
        new, k = f.id, 1
        while new in taken:
            k += 1
            new = f"{f.id}#{k}"
        taken.add(new)
        if new != f.id:
            out[i] = _with_id(f, new)
    return out


def same_subject(a: Finding, b: Finding, keys: Iterable[str] = SUBJECT) -> bool | None:
    """True when a and b name the same checkpoint or resume, False when they name
    different ones, None when they have none of these in common."""
    said = None
    for k in keys:
        va, vb = a.evidence.get(k), b.evidence.get(k)
        if va is None or vb is None:
            continue
        if va != vb:
            return False
        said = True
    return said


def explaining(
    effect: Finding, candidates: list[Finding], keys: Iterable[str] = SUBJECT
) -> list[Finding]:
    """Which of one cause rule's findings explain `effect`.

    Those about the same checkpoint or resume; never one about another. Else the
    only one; else the latest that began at or before the effect (a cause comes
    first); else, with no steps to go by, all of them.
    """
    keys = tuple(keys)
    fit = [c for c in candidates if same_subject(effect, c, keys) is not False]
    same = [c for c in fit if same_subject(effect, c, keys)]
    if same or len(fit) <= 1:
        return same or fit
    if effect.step is not None:
        before = [c.step for c in fit if c.step is not None and c.step <= effect.step]
        if before:
            return [c for c in fit if c.step == max(before)]
    return fit


def link_causes(findings: list[Finding], specs: Mapping[str, RuleSpec]) -> list[Finding]:
    """Set `caused_by` (finding ids) from each rule's `explained_by`, keeping the graph acyclic.

    A name in `explained_by` or in a finding's own `caused_by` is a rule id (its
    findings are narrowed by `explaining`) or a finding id. Edges are added in
    order of the cause's severity and onset, and an edge that would close a cycle
    is dropped, so two findings that each claim to explain the other end up with
    the more severe / earlier one as the root.
    """
    by_id = {f.id: f for f in findings}
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    onset = {f.id: (-f.severity, f.step if f.step is not None else _NEVER) for f in findings}
    edges: dict[str, set[str]] = {f.id: set() for f in findings}
    wanted: list[tuple[tuple, str, str]] = []
    for f in findings:
        spec = specs.get(f.rule)
        names = dict.fromkeys((*f.caused_by, *(spec.explained_by if spec else ())))
        causes: dict[str, None] = {}
        for name in names:
            if name in by_rule:
                keys = subject_keys(spec, specs.get(name))
                causes |= dict.fromkeys(c.id for c in explaining(f, by_rule[name], keys))
            elif name in by_id:
                causes[name] = None
        for c in causes:
            if c != f.id:
                wanted.append((onset[c], f.id, c))
    for _, effect, cause in sorted(wanted):
        if not _reaches(edges, cause, effect):
            edges[effect].add(cause)
    # ties (same severity and onset) by id: a set's order changes with PYTHONHASHSEED
    return [
        f.with_causes(tuple(sorted(edges[f.id], key=lambda c: (onset[c], c)))) for f in findings
    ]


def subject_keys(*specs: RuleSpec | None) -> tuple[str, ...]:
    """SUBJECT plus the evidence keys these rules qualify their findings by."""
    extra = [k for s in specs if s is not None for k in s.qualifier_keys]
    return tuple(dict.fromkeys((*SUBJECT, *extra)))


def _with_id(f: Finding, id_: str) -> Finding:
    return replace(f, id=id_)


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
