"""The audit on real files of each format: planted faults found, clean controls silent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.data.corpus import clean, planted, write
from traindoc.commands.data import data
from traindoc.data.audit import Options, audit
from traindoc.data.readers import DataError
from traindoc.engine import diagnose
from traindoc.model import Run
from traindoc.outcome import InputError
from traindoc.report.render import Output
from traindoc.rules.registry import load_all
from traindoc.settings import Settings

FORMATS = ["jsonl", "json", "csv", "parquet", "arrow", "hf"]
SUFFIX = {
    "jsonl": ".jsonl",
    "json": ".json",
    "csv": ".csv",
    "parquet": ".parquet",
    "arrow": ".arrow",
    "hf": "",
}


def data_command(path: Path, format: str = "terminal", **options) -> int:
    """`traindoc data PATH` with the default settings; its exit status."""
    return data(path, Settings(), Output(), fmt=format, **options)


def _data_findings(summary) -> dict:
    specs = [s for s in load_all().values() if s.family == "data"]
    return {f.rule: f for f in diagnose(Run("t", data=summary), specs).findings}


@pytest.fixture(scope="module")
def plant() -> object:
    return planted()


@pytest.mark.parametrize("fmt", FORMATS)
def test_planted_faults_found_in_each_format(fmt: str, plant, tmp_path: Path) -> None:
    if fmt in ("parquet", "arrow"):
        pytest.importorskip("pyarrow")
    if fmt == "hf":
        pytest.importorskip("datasets")
    train = write(plant.train, tmp_path / f"train{SUFFIX[fmt]}", fmt)
    ev = write(plant.eval, tmp_path / f"eval{SUFFIX[fmt]}", fmt)
    s = audit(train, ev).summary
    assert s.rows == len(plant.train)
    assert s.duplicates == plant.duplicates
    assert plant.near - 3 <= s.near_duplicates <= plant.near + 2, s.near_duplicates
    assert s.conflict_pairs == plant.conflict_pairs
    assert s.conflicts == 2 * plant.conflict_pairs
    assert s.leaked_exact == plant.leaked_exact
    assert plant.leaked_exact + plant.leaked_near - 1 <= s.leaked <= 10
    assert s.labels is not None and set(s.labels) == {"pos", "neg"}
    found = _data_findings(s)
    assert {
        "duplicate-samples",
        "near-duplicate-samples",
        "label-conflicts",
        "train-eval-leakage",
    } <= set(found)
    # Evidence quotes rows where they are: line numbers for line formats.
    ex = s.duplicate_examples[0]
    if fmt in ("jsonl", "csv"):
        assert ex.a.line is not None and ex.b.line is not None
        assert ex.a.preview.lower().split()[:3] == ex.b.preview.lower().replace("!", "").split()[:3]


@pytest.mark.parametrize("fmt", FORMATS)
def test_clean_control_raises_nothing(fmt: str, tmp_path: Path) -> None:
    if fmt in ("parquet", "arrow"):
        pytest.importorskip("pyarrow")
    if fmt == "hf":
        pytest.importorskip("datasets")
    train = write(clean(1200, seed=5), tmp_path / f"train{SUFFIX[fmt]}", fmt)
    ev = write(clean(50, seed=6), tmp_path / f"eval{SUFFIX[fmt]}", fmt)
    s = audit(train, ev).summary
    assert (s.duplicates, s.near_duplicates, s.conflicts, s.leaked, s.empty) == (0, 0, 0, 0, 0)
    assert _data_findings(s) == {}


def test_imbalance_and_small(tmp_path: Path) -> None:
    rows = clean(600, seed=7)
    for i, r in enumerate(rows):
        r["label"] = "rare" if i % 40 == 0 else "common"
    s = audit(write(rows, tmp_path / "t.jsonl", "jsonl")).summary
    found = _data_findings(s)
    assert set(found) == {"class-imbalance", "dataset-too-small"}
    assert found["class-imbalance"].evidence["minority"] == "rare"


def test_shards_and_dataset_dict(plant, tmp_path: Path) -> None:
    for k in range(3):
        write(plant.train[k::3], tmp_path / "shards" / f"part-{k:05d}.jsonl", "jsonl")
    s = audit(tmp_path / "shards").summary
    assert len(s.paths) == 3 and s.rows == len(plant.train)
    assert s.duplicates == plant.duplicates
    datasets = pytest.importorskip("datasets")
    dd = datasets.DatasetDict(
        train=datasets.Dataset.from_list(plant.train), test=datasets.Dataset.from_list(plant.eval)
    )
    dd.save_to_disk(str(tmp_path / "dd"))
    out = tmp_path / "report.json"
    code = data_command(tmp_path / "dd", format="json", export=out)
    assert code == 1  # leakage is an error at 25% of eval
    exported = json.loads(out.read_text())
    assert len(exported["duplicates"]) == plant.duplicates
    assert len(exported["leaked_eval"]) >= 9


def test_malformed_lines_non_utf8_and_empty(tmp_path: Path) -> None:
    rows = clean(1100, seed=8)
    lines = [json.dumps(r).encode() for r in rows]
    lines[10] = b'{"text": "broken'
    lines[20] = b'{"text": "caf\xe9 bytes", "label": "pos"}'
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    s = audit([f, tmp_path / "empty.jsonl"]).summary
    assert s.rows == 1099 and s.malformed == 1
    assert any("t.jsonl:11: malformed JSON" in n for n in s.notes)
    assert any("t.jsonl:21: not UTF-8" in n for n in s.notes)
    assert any("empty.jsonl: empty file" in n for n in s.notes)
    with pytest.raises(InputError, match="no records"):  # the CLI's one line, exit 2
        data_command(tmp_path / "empty.jsonl")


def test_mixed_schemas_noted(tmp_path: Path) -> None:
    a = write(clean(600, seed=9), tmp_path / "d" / "a.jsonl", "jsonl")
    write(
        [{"instruction": r["text"], "output": "ok " + r["label"]} for r in clean(600, seed=10)],
        tmp_path / "d" / "b.jsonl",
        "jsonl",
    )
    s = audit(a.parent).summary
    assert any("mixed schemas" in n and "b.jsonl" in n for n in s.notes)


@pytest.mark.parametrize(
    ("rec", "kind", "conflict"),
    [
        ({"instruction": "Say hi", "input": "", "output": "hi"}, "alpaca", "hello there friend"),
        ({"prompt": "Say hi", "completion": "hi"}, "prompt-completion", "hello there friend"),
        (
            {
                "messages": [
                    {"role": "user", "content": "Say hi"},
                    {"role": "assistant", "content": "hi"},
                ]
            },
            "messages",
            "hello there friend",
        ),
        (
            {
                "conversations": [
                    {"from": "human", "value": "Say hi"},
                    {"from": "gpt", "value": "hi"},
                ]
            },
            "conversations",
            "hello there friend",
        ),
    ],
)
def test_schemas_answers_conflict(rec: dict, kind: str, conflict: str, tmp_path: Path) -> None:
    import copy

    rows = [copy.deepcopy(rec) for _ in range(3)]
    other = json.loads(json.dumps(rec).replace('"hi"', json.dumps(conflict)))
    s = audit(write([*rows, other], tmp_path / "t.jsonl", "jsonl")).summary
    assert s.schema == kind
    assert s.duplicates == 2 and s.conflict_pairs == 1


def test_field_overrides_and_errors(tmp_path: Path) -> None:
    rows = [{"body": r["text"], "y": r["label"]} for r in clean(50, seed=11)]
    f = write(rows, tmp_path / "t.csv", "csv")
    s = audit(f, opts=Options(text_field="body", label_field="y")).summary
    assert s.fields == ("body",) and s.label_field == "y"
    with pytest.raises(DataError, match="field 'nope' not in the records"):
        audit(f, opts=Options(text_field="nope"))
    with pytest.raises(DataError, match="unknown data format"):
        audit(write(rows, tmp_path / "t.txt", "jsonl"))


def test_code_mixed_with_prose(tmp_path: Path) -> None:
    import inspect
    import json as jsonmod

    code = inspect.getsource(jsonmod.decoder).split("\n\n\n")
    rows = [{"text": c} for c in code if c.strip()] * 1
    prose = clean(len(rows) * 2, seed=12)
    s = audit(
        write(rows + [{"text": p["text"]} for p in prose], tmp_path / "t.jsonl", "jsonl")
    ).summary
    assert 0.15 < s.code_share < 0.5
    assert "heterogeneous-mix" in _data_findings(s)


def test_input_never_modified(plant, tmp_path: Path) -> None:
    f = write(plant.train, tmp_path / "t.jsonl", "jsonl")
    before = f.read_bytes()
    data_command(f, export=tmp_path / "x.json", format="json")
    assert f.read_bytes() == before


def test_alpaca_rows_with_a_label_column_are_audited_on_the_label(tmp_path: Path) -> None:
    """Same instruction and output, another `label`: a conflict, not an exact duplicate."""
    import random

    from tests.data.corpus import passage, vocabulary

    r, vocab = random.Random(9), vocabulary()
    rows = [
        {"instruction": passage(r, vocab, 3), "output": passage(r, vocab, 1), "label": i % 2}
        for i in range(60)
    ]
    rows += [dict(rows[i]) for i in range(5)]  # true copies, label included
    rows += [dict(rows[i], label=1 - rows[i]["label"]) for i in range(10, 20)]
    s = audit(write(rows, tmp_path / "sft.jsonl", "jsonl")).summary
    assert s.schema == "alpaca"
    assert s.duplicates == 5
    assert s.conflict_pairs == 10 and s.conflicts == 20
    assert "label-conflicts" in _data_findings(s)
