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
from graphlib import TopologicalSorter

from traindoc.model import Finding, Run
from traindoc.model.diagnosis import INCONCLUSIVE, VERDICTS, Diagnosis, Skipped
from traindoc.rules.api import NotJudged, RuleSpec
from traindoc.rules.causes import link_causes, same_subject, subject_keys, unique_ids
from traindoc.rules.registry import load_all

# Diagnosis and Skipped are model data (traindoc.model.diagnosis); named here too, as before.
__all__ = ["INCONCLUSIVE", "VERDICTS", "Diagnosis", "Skipped", "diagnose", "link_causes"]

STALL = "stalled-training"


def _after_what_they_read(specs: list[RuleSpec]) -> list[RuleSpec]:
    """Rules that read other rules' findings, each after those it reads (a rule that
    reads itself or forms a cycle is a bug, and graphlib says so)."""
    ids = {s.id: s for s in specs}
    graph = {s.id: [r for r in s.reads if r in ids] for s in specs}
    return [ids[i] for i in TopologicalSorter(graph).static_order()]


def diagnose(run: Run, rules: Iterable[RuleSpec] | None = None) -> Diagnosis:
    specs = list(rules) if rules is not None else list(load_all().values())
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    not_judged: list[Skipped] = []
    core: list[str] = []
    errors: list[str] = []
    # The symptom rules first, then the cause rules that read findings
    # (RuleSpec.reads), each after the rules it reads, on a view of the run that
    # carries every finding made so far.
    first = [s for s in specs if not s.reads]
    view = run
    blank = _nothing_logged(run)
    # a GAN's two players and no single loss: the curve rules have nothing they can read
    gan = run.fact("task") == "gan" and run.get("loss") is None
    for spec in first + _after_what_they_read([s for s in specs if s.reads]):
        if spec.reads:
            view = replace(run, symptoms=tuple(findings))
        missing = spec.missing(view)
        if (
            missing
            and spec.core
            and (blank or gan)
            and any("loss" in m.split("|") for m in missing)
        ):
            # a training log that gave settings and events but no curve: the rules that
            # call a run healthy could not look at it, which is not "nothing wrong"
            reason = (
                "no metric series was read from the log; needs " + ", ".join(missing)
                if blank
                else "a GAN's generator and discriminator losses are opponents, not one "
                "learning curve; judge it by its samples or a quality metric (FID, IS)"
            )
            not_judged.append(Skipped(spec.id, reason))
            core.append(spec.id)
            continue
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
    findings = unique_ids(merge_live(unique_ids(findings), run.live, by_id))
    linked = link_causes(findings, by_id)
    return Diagnosis(
        run,
        tuple(order(linked)),
        tuple(skipped),
        tuple(errors),
        not_judged=tuple(not_judged),
        core_not_judged=tuple(dict.fromkeys(core)),
    )


def _nothing_logged(run: Run) -> bool:
    """A run read from training output that holds no series, checkpoint or data audit
    (preflight checks a setup by design: its run has none of them)."""
    return not (run.series or run.checkpoints or run.data is not None or run.fact("preflight"))


def merge_live(
    findings: list[Finding], live: Iterable[Finding], specs: dict[str, RuleSpec]
) -> list[Finding]:
    """Fold in what a live monitor recorded while the run trained.

    The offline rules see the whole log and win where both speak: their
    finding keeps its title and numbers, and gains `evidence["live"]` plus
    the evidence only the live run had (a stalled thread's stack). Both speak
    of the same thing when the ids match, or when a record naming only its
    rule (written before ids existed) meets that rule's one offline finding,
    and it is not about another checkpoint or resume. A live-only finding is
    kept when the log cannot show it: a stall (it needs the clock while the
    run hung) or one the monitor stopped training for (the log ends there).
    Other live-only warnings were made on a shorter history and are left to
    the offline verdict.
    """
    out = list(findings)
    where = {f.id: i for i, f in enumerate(out)}
    for f in live:
        seen = f.evidence.get("live", {})
        i = where.get(f.id)
        if i is None and f.id == f.rule:
            same = [j for j, g in enumerate(out) if g.rule == f.rule]
            keys = subject_keys(specs.get(f.rule))
            if len(same) == 1 and same_subject(f, out[same[0]], keys) is not False:
                i = same[0]
        if i is not None:
            if "live" not in out[i].evidence:
                merged = {**f.evidence, **out[i].evidence, "live": {**seen, "step": f.step}}
                out[i] = replace(out[i], evidence=merged)
        elif f.rule in specs and (f.rule == STALL or seen.get("action") == "stop"):
            where[f.id] = len(out)
            out.append(f)
    return out


def order(findings: list[Finding]) -> list[Finding]:
    """Root causes first, then by severity, then by onset step."""

    def key(f: Finding) -> tuple:
        return (bool(f.caused_by), -f.severity, f.step if f.step is not None else 1 << 62, f.id)

    return sorted(findings, key=key)
