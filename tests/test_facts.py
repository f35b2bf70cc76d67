"""Every fact name the source sets or reads is declared in traindoc.model.facts.

Facts are plain strings on both sides (`facts["vocab_size"] = Fact(..)` in a reader,
`run.fact("vocab_size")` in a rule), so a typo on either side is silence, not an
error. The scan (tests/fact_names.py) reads the source, not a run, so it covers
every code path, not only the ones our assets happen to reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import layout_doc
from tests.fact_names import scan
from traindoc.model.facts import CONFIG_NAMES, FACTS

SRC = Path(__file__).parents[1] / "src" / "traindoc"

# Places whose fact key the scan cannot follow, and why that is fine. The check
# below fails on an entry that no longer applies, so the list stays true.
UNFOLLOWED = {
    "traindoc/rules/api.py:_has": "a rule's requirements: read as their 'fact:' strings",
    "traindoc/live/monitor.py:_run_view": "the names the user passes to Monitor(**facts)",
    "traindoc/readers/_sidefiles.py:read_all": "copies facts from training_args / a tool YAML",
    "traindoc/readers/logs/steps.py:_facts": "copies the facts configs.py made of config lines",
    "traindoc/report/markdown.py:render": "reads back the CONFIG_FACTS it just listed",
}

# Read, but set by no code and not from a config: gaps, left to the rules' owners.
READ_NOT_SET = {
    "skipped_steps": "fp16-instability reads it; logs carry a series of that name instead",
    "load_dtype": "preflight's memory estimate reads it; nothing sets it (model_dtype is set)",
}


@pytest.fixture(scope="module")
def found():
    return scan(SRC)


def test_every_fact_set_is_declared(found) -> None:
    missing = {n: sorted(w)[:3] for n, w in found.writes.items() if n not in FACTS}
    assert not missing, f"declare in src/traindoc/model/facts.py: {missing}"


def test_every_fact_read_is_declared(found) -> None:
    missing = {n: sorted(w)[:3] for n, w in found.reads.items() if n not in FACTS}
    assert not missing, f"declare in src/traindoc/model/facts.py: {missing}"


def test_every_declared_fact_is_used(found) -> None:
    """A declared name nothing sets or reads is a stale declaration (or a misspelt use)."""
    unused = sorted(set(FACTS) - found.writes.keys() - found.reads.keys())
    assert not unused, unused


def test_the_facts_read_can_be_set(found) -> None:
    """A name read but never set must come from a config under its own spelling, or be
    a known gap (READ_NOT_SET): otherwise the code reading it is dead."""
    unset = set(found.reads) - set(found.writes) - CONFIG_NAMES
    assert unset == set(READ_NOT_SET), sorted(unset ^ set(READ_NOT_SET))


def test_unfollowed_keys_are_the_known_ones(found) -> None:
    assert found.unresolved == set(UNFOLLOWED), (
        f"new: {sorted(found.unresolved - set(UNFOLLOWED))}, "
        f"no longer: {sorted(set(UNFOLLOWED) - found.unresolved)}"
    )


def test_declarations_are_complete() -> None:
    for name, spec in FACTS.items():
        assert spec.name == name and spec.type and spec.meaning, name
    assert len(FACTS) == len({s.name for s in FACTS.values()})


def test_the_scan_finds_planted_names(tmp_path: Path) -> None:
    """The scanner on a tree whose facts are known: it can miss, and this would fail."""
    src = tmp_path / "traindoc"
    (src / "readers").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "readers" / "__init__.py").write_text("")
    (src / "readers" / "tables.py").write_text(
        'FIELDS = {"lr": "learning_rate", **dict.fromkeys(("bs", "batch"), "per_device_batch")}\n'
        'FLAGS = {"seq": ("max_seq_len", int)}\n'
    )
    (src / "readers" / "one.py").write_text(
        "from traindoc.model import Fact\n"
        "from traindoc.readers.tables import FIELDS, FLAGS\n"
        "def read(cfg, facts, run):\n"
        '    facts["vocab_size"] = Fact(1, "x")\n'
        '    facts.setdefault("regime", Fact("lora", "x"))\n'
        "    for key, fact in FIELDS.items():\n"
        '        facts[fact] = Fact(cfg[key], "x")\n'
        '    for key, fact in (("r", "lora_r"),):\n'
        '        facts[fact] = Fact(cfg[key], "x")\n'
        '    name, typ = FLAGS["seq"]\n'
        '    facts[name] = Fact(typ(1), "x")\n'
        '    out = {"task": Fact("lm", "x")}\n'
        '    if "effective_batch" in facts or run.fact("max_steps"):\n'
        '        _val(facts, "devices")\n'
        "    keys = ('a_key',)\n"
        "    return [run.fact(k) for k in keys], out\n"
        "def _val(facts, key):\n"
        "    return facts.get(key)\n"
        "def copy(facts, other):\n"
        "    for key, f in other.items():\n"
        "        facts[key] = Fact(f.value, 'copied')\n"
        'REQUIRES = ("fact:resume_step|fact:resume_steps",)\n'
    )
    got = scan(src)
    assert set(got.writes) == {
        "vocab_size",
        "regime",
        "learning_rate",
        "per_device_batch",
        "lora_r",
        "max_seq_len",
        "task",
    }
    assert set(got.reads) == {
        "effective_batch",
        "max_steps",
        "devices",
        "a_key",
        "resume_step",
        "resume_steps",
    }
    assert got.unresolved == {"traindoc/readers/one.py:copy"}
    assert got.writes["vocab_size"] == {"traindoc/readers/one.py:4"}


@pytest.mark.parametrize("block", sorted(layout_doc.BLOCKS))
def test_the_layout_page_is_fresh(block: str) -> None:
    """docs/layout.md shows the layers and facts the tests enforce (`make docs` redraws it)."""
    assert layout_doc.shown(block) == layout_doc.BLOCKS[block](), "stale: run `make docs`"
