"""Finding ids: unique within a run, what `caused_by` lists and what every report keys by."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from io import StringIO
from pathlib import Path

from rich.console import Console

from tests.rules.synth import build_run
from traindoc.engine import diagnose, merge_live
from traindoc.model import Finding, Severity
from traindoc.report import github, html, json_report, markdown, sarif, terminal
from traindoc.rules.causes import explaining, link_causes, unique_ids
from traindoc.rules.registry import load_all

RULES = load_all()
HEAD = {"lm_head.weight": {"std": 13.87}}
TWO_EXPLODED = {
    "facts": {"vocab_size": 256},
    "series": {"loss": {"segments": [{"n": 300, "from": 5.5, "to": 3.0}], "noise": 0.02}},
    "checkpoints": [
        {"name": "checkpoint-100", "step": 100, "set": HEAD},
        {"name": "checkpoint-200", "step": 200, "set": HEAD},
    ],
}
# Resumed twice; only the first resume restarted the LR warmup (scheduler not restored).
TWO_RESUMES = {
    "facts": {"resume_steps": [1500, 3000], "lr_scheduler": "linear", "max_steps": 4500},
    "series": {
        "loss": {
            "segments": [
                {"n": 1500, "from": 3.0, "to": 2.0, "shape": "exp"},
                {"n": 1500, "from": 2.6, "to": 1.8, "shape": "exp", "rate": 8},
                {"n": 1500, "from": 2.4, "to": 1.6, "shape": "exp", "rate": 8},
            ],
            "noise": 0.03,
        },
        "lr": {
            "segments": [
                {"n": 30, "from": 1.0e-5, "to": 3.0e-4},
                {"n": 1470, "from": 3.0e-4, "to": 2.1e-4},
                {"n": 30, "from": 1.0e-5, "to": 3.0e-4},
                {"n": 2970, "from": 3.0e-4, "to": 0.0},
            ]
        },
    },
}


def test_two_exploded_checkpoints_have_two_ids_in_every_report() -> None:
    d = diagnose(build_run(TWO_EXPLODED), [RULES["exploded-weights"]])
    ids = [f.id for f in d.findings]
    assert sorted(ids) == ["exploded-weights@checkpoint-100", "exploded-weights@checkpoint-200"]
    doc = json.loads(json_report.render(d))
    found = doc["runs"][0]["findings"]
    assert [next(iter(f)) for f in found] == ["id", "id"]  # "id" leads, as in RULES.md
    assert sorted(f["id"] for f in found) == sorted(ids)
    page = html.render(d)
    cards = re.findall(
        r'class="card [^"]*" data-f="(f\d)" data-rule="[^"]*" data-id="([^"]*)"', page
    )
    assert sorted(cards) == [("f1", ids[0]), ("f2", ids[1])]
    assert {"f1", "f2"} <= set(re.findall(r'<rect class="band (f\d)"', page))  # on the loss
    for i, id_ in enumerate(ids, 1):  # one lane each, and each lane and card its own number
        assert f'class="finding-mark f{i}" data-f="f{i}" data-rule="exploded-weights" ' in page
        assert f'data-id="{id_}"' in page
    md = markdown.render(d)
    assert all(f"`{i}`" in md for i in ids)
    out = StringIO()
    terminal.render(d, Console(file=out, width=200, color_system=None))
    assert all(f"[{i}]" in out.getvalue() for i in ids)
    titles = re.findall(r"title=([^,:]+)::", github.render([d]))
    assert sorted(titles) == sorted(ids)
    results = sarif.to_dict([d])["runs"][0]["results"]
    assert sorted(r["properties"]["id"] for r in results) == sorted(ids)
    assert {r["ruleId"] for r in results} == {"exploded-weights"}  # SARIF rules stay rules


def test_two_resumes_give_two_jumps_each_linked_to_its_own_cause() -> None:
    run = build_run(TWO_RESUMES)
    d = diagnose(run, [RULES["resume-loss-jump"], RULES["schedule-restarted"]])
    by_id = {f.id: f for f in d.findings}
    assert {"resume-loss-jump@1500", "resume-loss-jump@3000", "schedule-restarted"} <= set(by_id)
    assert by_id["schedule-restarted"].evidence["resume_step"] == 1500
    # the warmup restart at 1500 explains the jump at 1500, not the one at 3000
    assert by_id["resume-loss-jump@1500"].caused_by == ("schedule-restarted",)
    assert by_id["resume-loss-jump@3000"].caused_by == ()
    assert {f.id for f in d.roots} == {"schedule-restarted", "resume-loss-jump@3000"}


def _f(rule: str, step: int | None = None, **evidence: object) -> Finding:
    return Finding(rule, "resume", Severity.ERROR, rule, step, evidence=evidence)


def test_ids_that_still_clash_get_the_step_then_a_number() -> None:
    steps = unique_ids([_f("loss-spike", 10), _f("loss-spike", 40), _f("divergence", 5)])
    assert [f.id for f in steps] == ["loss-spike@10", "loss-spike@40", "divergence"]
    same = unique_ids([_f("loss-spike", 10), _f("loss-spike", 10), _f("loss-spike")])
    assert [f.id for f in same] == ["loss-spike", "loss-spike#2", "loss-spike#3"]


def test_a_cause_about_another_resume_never_explains() -> None:
    jump = _f("resume-loss-jump", 3000, resume_step=3000)
    other = _f("schedule-restarted", 1500, resume_step=1500)
    unsaid = _f("schedule-restarted", 2000)
    assert explaining(jump, [other]) == []
    assert explaining(jump, [other, unsaid]) == [unsaid]
    a, b = _f("exploded-weights", 100), _f("exploded-weights", 200)
    assert explaining(_f("absurd-initial-loss", 150), [a, b]) == [a]  # the latest before it
    assert explaining(_f("absurd-initial-loss"), [a, b]) == [a, b]  # nothing to go by: both


def test_a_rule_named_in_caused_by_links_to_its_findings_ids() -> None:
    cause = replace(_f("exploded-weights", 0, checkpoint="a"), id="exploded-weights@a")
    effect = Finding(
        "absurd-initial-loss", "loss", Severity.ERROR, "t", 1, caused_by=("exploded-weights",)
    )
    linked = link_causes([cause, effect], RULES)
    assert linked[1].caused_by == ("exploded-weights@a",) and linked[0].caused_by == ()


def _as(f: Finding, id_: str) -> Finding:
    return replace(f, id=id_)


def test_finding_json_carries_its_id_and_old_json_still_loads() -> None:
    f = _as(_f("resume-loss-jump", 1500, resume_step=1500), "resume-loss-jump@1500")
    assert next(iter(f.to_dict())) == "id"
    assert Finding.from_dict(f.to_dict()) == f
    old = {k: v for k, v in f.to_dict().items() if k != "id"}
    assert Finding.from_dict(old).id == "resume-loss-jump"
    assert _f("divergence").id == "divergence"  # unset: the rule id


def test_live_records_merge_into_the_finding_with_their_id() -> None:
    offline = [
        _as(_f("resume-loss-jump", 1500, resume_step=1500), "resume-loss-jump@1500"),
        _as(_f("resume-loss-jump", 3000, resume_step=3000), "resume-loss-jump@3000"),
    ]
    live = _as(
        _f("resume-loss-jump", 3001, resume_step=3000, live={"action": "warn"}),
        "resume-loss-jump@3000",
    )
    merged = merge_live(offline, [live], RULES)
    assert "live" not in merged[0].evidence and merged[1].evidence["live"]["step"] == 3001
    # a record written before ids (its rule id only) joins the rule's one finding, if only one
    old = _f("divergence", 90, live={"action": "warn"})
    (one,) = merge_live([_f("divergence", 80)], [old], RULES)
    assert one.evidence["live"]["action"] == "warn"


def test_every_qualified_rule_names_evidence_its_findings_carry() -> None:
    """A qualifier reading a key no finding has would silently leave ids bare."""
    qualified = {s.id: s.qualifier_keys for s in RULES.values() if s.qualifier}
    assert {"exploded-weights", "resume-loss-jump", "throughput-drop"} <= set(qualified)
    for rule_id, keys in qualified.items():
        text = Path(RULES[rule_id].check.__code__.co_filename).read_text()
        assert all(f'"{k}"' in text for k in keys), (rule_id, keys)


def test_a_live_straggler_is_not_folded_into_the_offline_drop() -> None:
    """Same rule, other subject: the record names rank 1, the offline finding no rank."""
    drop = Finding("throughput-drop", "resume", Severity.WARNING, "drop", 500)
    straggler = replace(
        drop, id="throughput-drop@rank-1", evidence={"rank": 1, "live": {"action": "warn"}}
    )
    (only,) = merge_live([drop], [straggler], RULES)
    assert only == drop  # a warning made live on a shorter history is left to the log
    stop = replace(straggler, evidence={"rank": 1, "live": {"action": "stop"}})
    assert [f.id for f in merge_live([drop], [stop], RULES)] == [drop.id, stop.id]
