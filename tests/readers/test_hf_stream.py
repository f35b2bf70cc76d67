"""Streamed trainer_state.json: the same Run as the json.load reader it replaced.

`hf_reference` is the reader as it was (json.load of each whole state); every
trainer_state.json in tests/ (corpus, real runs, assets) and a set of odd files must
come out identical from both: series, facts, notes, inputs, or the same ReadError.
Normal files must stream (the json.load fallback unused), at any chunk size.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.readers import hf_reference
from tests.readers.helpers import SUMMARY, eval_entry, state, train_entry, write_state
from traindoc.model import Run
from traindoc.readers import ReadError, _jsonarray, hf_trainer
from traindoc.readers._base import Notes
from traindoc.readers._columns import Columns

TESTS = Path(__file__).resolve().parents[1]


def _targets() -> list[Path]:
    """Each state file, and each run dir holding states (top and checkpoint-*/)."""
    out: set[Path] = set()
    for f in TESTS.rglob(hf_trainer.STATE):
        out.add(f)
        out.add(f.parent.parent if f.parent.name.startswith("checkpoint-") else f.parent)
    return sorted(out)


def _snap(run: Run) -> tuple:
    series = {
        k: (s.name, s.steps.tolist(), repr(s.values.tolist()), repr(s.times), s.source)
        for k, s in run.series.items()
    }
    facts = {k: (repr(f.value), f.source) for k, f in run.facts.items()}
    return run.name, series, facts, run.notes, run.inputs


def _both(path: Path) -> tuple[Any, Any]:
    out = []
    for read in (hf_reference.read, hf_trainer.read):
        try:
            out.append(_snap(read(path)))
        except ReadError as exc:
            out.append(("ReadError", str(exc), exc.line))
    return out[0], out[1]


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(f: Path) -> None:
        raise AssertionError(f"{f} was read whole, not streamed")

    monkeypatch.setattr(hf_trainer, "_load_state", fail)


@pytest.fixture
def fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    plain = hf_trainer._load_state

    def spy(f: Path) -> dict:
        seen.append(f)
        return plain(f)

    monkeypatch.setattr(hf_trainer, "_load_state", spy)
    return seen


TARGETS = _targets()


def test_the_targets_cover_the_real_runs_and_the_corpus() -> None:
    names = {p.relative_to(TESTS).parts[0] for p in TARGETS}
    assert {"real", "corpus", "readers", "ckpt"} <= names
    assert len([p for p in TARGETS if p.is_file()]) >= 60


@pytest.mark.parametrize("path", TARGETS, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_state_in_tests_reads_as_the_json_load_reader_did(path: Path) -> None:
    old = hf_reference.read(path)
    new = hf_trainer.read(path)
    assert _snap(new) == _snap(old)
    assert new.series or any("empty" in n.message for n in new.notes)


@pytest.mark.parametrize(
    "path",
    [p for p in TARGETS if p.is_dir() and ((p / "checkpoint-1134").exists() or "real" in p.parts)],
    ids=lambda p: p.name,
)
def test_real_runs_stream_at_a_tiny_chunk_size(
    path: Path, monkeypatch: pytest.MonkeyPatch, no_fallback: None
) -> None:
    """61-byte chunks: every record is cut across reads, every batch is a record or two."""
    old = _snap(hf_reference.read(path))
    monkeypatch.setattr(_jsonarray, "CHUNK", 61)
    assert _snap(hf_trainer.read(path)) == old


def test_a_long_history_comes_in_many_small_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = [train_entry(s, 3 - s / 1e4) for s in range(1, 3001)]
    f = tmp_path / "trainer_state.json"
    write_state(f, json.dumps(state(hist, 3000), indent=2, sort_keys=True))
    monkeypatch.setattr(_jsonarray, "CHUNK", 8192)
    sizes: list[int] = []
    starts: list[int] = []
    rest = _jsonarray.stream(
        f, "log_history", lambda b, i: (sizes.append(len(b)), starts.append(i))
    )
    assert rest is not None and rest["log_history"] == [] and rest["global_step"] == 3000
    assert sum(sizes) == 3000 and len(sizes) > 40 and max(sizes) < 100
    assert starts == list(np.cumsum([0, *sizes[:-1]]))


def _write(tmp_path: Path, text: str | bytes, name: str = "trainer_state.json") -> Path:
    f = tmp_path / name
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    return f


def _hist(n: int = 40) -> list[Any]:
    h: list[Any] = []
    for s in range(1, n + 1):
        h.append(train_entry(s, 4 - s / 100, gn=math.nan if s == 7 else 0.5 + s / 100))
        if s % 10 == 0:
            h.append(eval_entry(s, 3.9 - s / 100))
    return [*h, SUMMARY]


def _pretty(st: dict) -> str:
    return json.dumps(st, indent=2, sort_keys=True)


STREAMED = {
    "hf-layout": lambda: _pretty(state(_hist())),
    "compact": lambda: json.dumps(state(_hist()), separators=(",", ":")),
    "history-first": lambda: json.dumps({"log_history": _hist(), "global_step": 40}),
    "history-last": lambda: json.dumps(
        {"global_step": 40, "max_steps": 40, "log_history": _hist()}
    ),
    "crlf-and-tabs": lambda: _pretty(state(_hist())).replace("\n", "\r\n").replace("  ", "\t"),
    "nan-inside-a-string": lambda: _pretty(
        state([*_hist(), {"step": 41, "loss": 1.0, "note": "NaN, Infinity"}])
    ),
    "nested-records": lambda: _pretty(
        state(
            [
                {**e, "extra": {"a": {"b": [1, {"c": 2}]}}, "list": [{"x": 1}, {"y": 2}]}
                if isinstance(e, dict) and e["step"] % 3 == 0
                else e
                for e in _hist()
            ]
        )
    ),
    "junk-entries": lambda: _pretty(state([*_hist()[:5], "junk", 5, {"loss": 1.0}, *_hist()[5:]])),
    "name-as-a-value-first": lambda: json.dumps(
        {"best_model_checkpoint": "log_history", "trial_name": '"log_history": [', **state(_hist())}
    ),
    "bad-utf8-in-a-record": lambda: (
        _pretty(state(_hist()))
        .encode()
        .replace(b'"step": 12\n', b'"step": 12,\n      "tag": "\xff\xfe"\n', 1)
    ),
    "empty-history": lambda: _pretty(state([])),
    "huge-numbers": lambda: _pretty(
        state([*_hist(), {"step": 2**64, "loss": 1.0}, {"step": 50, "loss": 12345}])
    ).replace("12345", "1" * 5000),
    "string-numbers": lambda: _pretty(
        state([*_hist(), {"step": "41", "loss": "nan"}, {"step": 42.0, "loss": "1e309"}])
    ),
}

FALLBACK = {  # shapes the stream declines: read whole, the same result or error
    "non-dict-last": lambda: _pretty(state([*_hist(), "junk"])),
    "history-null": lambda: _pretty(state(None)),
    "history-object": lambda: _pretty(state({"loss": 1})),
    "no-history": lambda: json.dumps({"global_step": 3}),
    "nested-key-first": lambda: json.dumps(
        {
            "stateful_callbacks": {"log_history": [{"step": 1, "loss": 9.0}]},
            **{k: v for k, v in state(_hist()).items() if k != "stateful_callbacks"},
        }
    ),
    "duplicate-key": lambda: _pretty(state(_hist())).replace(
        '"logging_steps"', '"log_history": [{"step": 1, "loss": 5.0}],\n  "logging_steps"'
    ),
    "trailing-comma": lambda: _pretty(state(_hist())).replace("}\n  ],", "},\n  ],", 1),
    "truncated-at-a-record": lambda: (
        _pretty(state(_hist())).split('"step": 20\n    }')[0] + '"step": 20\n    }'
    ),
    "truncated-mid-record": lambda: _pretty(state(_hist()))[:2500],
    "truncated-after-history": lambda: _pretty(state(_hist())).rsplit('"max_steps"', 1)[0],
    "bom": lambda: "\ufeff" + _pretty(state(_hist())),
    "a-list": lambda: json.dumps([_hist()]),
    "not-json": lambda: "log_history: [1, 2]",
    "whitespace": lambda: "  \n ",
}


@pytest.mark.parametrize("chunk", [7, 64, 4096])
@pytest.mark.parametrize("case", sorted(STREAMED))
def test_odd_but_valid_states_stream_to_the_same_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_fallback: None, case: str, chunk: int
) -> None:
    f = _write(tmp_path, STREAMED[case]())
    monkeypatch.setattr(_jsonarray, "CHUNK", chunk)
    old, new = _both(f)
    assert new == old
    assert new[0] != "ReadError"


@pytest.mark.parametrize("chunk", [7, 4096])
@pytest.mark.parametrize("case", sorted(FALLBACK))
def test_shapes_the_stream_declines_are_read_whole_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallbacks: list[Path], case: str, chunk: int
) -> None:
    f = _write(tmp_path, FALLBACK[case]())
    monkeypatch.setattr(_jsonarray, "CHUNK", chunk)
    old, new = _both(f)
    assert new == old
    assert fallbacks == [f]


def test_a_state_that_breaks_halfway_leaves_no_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The top state streams 30 steps (new keys, a clock, a step going back) and then
    turns out truncated: the run is the checkpoint's alone, as if it was never opened."""
    ckpt = [train_entry(s, 5 - s / 100) for s in range(1, 21)]
    write_state(tmp_path / "checkpoint-20" / "trainer_state.json", _pretty(state(ckpt, 20)))
    top = [{**train_entry(s, 4 - s / 100), "time": 1.7e9 + s, "new_key": s} for s in range(1, 31)]
    top.insert(15, {"step": 3, "eval_loss": 1.0, "text": "a"})
    text = _pretty(state(top, 30))
    write_state(tmp_path / "trainer_state.json", text[: text.index('"step": 30')])
    monkeypatch.setattr(_jsonarray, "CHUNK", 300)
    batches: list[int] = []
    stream = _jsonarray.stream

    def spy(f: Path, key: str, on_batch: Any, seen: Any = None) -> Any:
        return stream(f, key, lambda b, i: (batches.append(len(b)), on_batch(b, i)), seen)

    monkeypatch.setattr(_jsonarray, "stream", spy)
    old, new = _both(tmp_path)
    assert new == old
    assert sum(batches) > 20 + 10  # the top state's records did go out before the break
    assert set(new[1]) == {"loss", "grad_norm", "lr", "epoch"}
    assert any("not read: truncated JSON" in n.message for n in new[3])


END = "differs from the final trainer_state.json"


@pytest.mark.parametrize("final_nan", [True, False])
def test_divergence_from_compact_losses_matches_the_dict_walk(
    tmp_path: Path, final_nan: bool
) -> None:
    old_h = [train_entry(s, 3 - s / 100) for s in range(2, 41, 2)]
    old_h[5]["loss"] = math.nan  # NaN in both states is the same record, not a difference
    new_h = [dict(e) for e in old_h[:12]] + [train_entry(s, 9.0) for s in range(26, 41, 2)]
    new_h[5]["loss"] = math.nan if final_nan else 1.0
    new_h.insert(3, {"step": 8, "loss": 2.0})  # logged twice: the last write, the same, counts
    write_state(tmp_path / "checkpoint-20" / "trainer_state.json", _pretty(state(old_h[:10], 20)))
    write_state(tmp_path / "checkpoint-40" / "trainer_state.json", _pretty(state(old_h, 40)))
    write_state(tmp_path / "trainer_state.json", _pretty(state(new_h, 40)))
    old, new = _both(tmp_path)
    assert new == old
    resume = dict(new[2])["resume_steps"]
    if final_nan:  # checkpoint-20 agrees; checkpoint-40's steps 26.. were redone
        assert resume == ("(20,)", "checkpoint-40/trainer_state.json: loss at step 26 " + END)
    else:  # step 12: NaN in the checkpoints, 1.0 in the final state
        assert resume == ("(0,)", "checkpoint-20/trainer_state.json: loss at step 12 " + END)


def test_rollback_undoes_batches_new_keys_split_groups_and_clocks() -> None:
    def batch(lo: int, hi: int, **extra: Any) -> list[dict]:
        return [{"step": s, "loss": 1 / s, "lr": 0.1, **extra} for s in range(lo, hi)]

    def finished(cols: Columns) -> tuple[dict, dict]:
        series, facts = cols.finish("t")
        out = {k: (s.steps.tolist(), s.values.tolist(), repr(s.times)) for k, s in series.items()}
        return out, {k: f.value for k, f in facts.items()}

    plain = Columns("x", Notes())
    plain.add(batch(1, 50), None, 0)
    undone = Columns("x", Notes())
    undone.add(batch(1, 50), None, 0)
    m = undone.mark()
    undone.add(batch(50, 60, time=1.7e9, gn="bad"), None, 49)  # a clock, a text key
    undone.add([{"step": 60, "loss": 0.5}, {"step": 2, "eval_loss": 1.0}], None, 59)  # lr leaves
    undone.add([{"step": 1, "loss": 0.5, "event": "resume"}], None, 61)  # step back, a marker
    undone.rollback(m)
    assert finished(undone) == finished(plain)
    assert undone.records == 49 and not undone.bad and undone.last_step == 49
    assert not undone.resumes and not undone.marked
