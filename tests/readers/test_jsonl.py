"""Generic JSONL metrics: key spellings, NaN spellings, bad lines, batches, streaming."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import load_checked
from traindoc.readers import ReadError, jsonl


def _write(path: Path, lines: list[str | bytes]) -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def test_key_spellings_and_times(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {"iter": i, "train/loss": 10.0 - i, "learning_rate": 1e-3, "_timestamp": 1.7e9 + i}
        )
        for i in range(5)
    ]
    lines.append(json.dumps({"iter": 4, "val_loss": 6.5, "_timestamp": 1.7e9 + 5}))
    run = load_checked(_write(tmp_path / "metrics.jsonl", lines))
    loss, lr, ev = run.get("loss"), run.get("lr"), run.get("eval_loss")
    assert loss is not None and lr is not None and ev is not None
    assert loss.steps.tolist() == [0, 1, 2, 3, 4] and loss.values[-1] == 6.0
    assert loss.times is not None and loss.times[0] == 1.7e9
    assert ev.steps.tolist() == [4]
    assert run.fact("trainer") == "jsonl" and not run.notes


def test_millisecond_and_iso_times(tmp_path: Path) -> None:
    lines = [json.dumps({"step": 1, "loss": 1.0, "timestamp": 1.7e12})]
    lines.append(json.dumps({"step": 2, "loss": 1.0, "timestamp": 1.7e12 + 500}))
    run = load_checked(_write(tmp_path / "ms.jsonl", lines))
    loss = run.get("loss")
    assert loss is not None and loss.times is not None
    assert loss.times.tolist() == pytest.approx([1.7e9, 1.7e9 + 0.5])
    iso = [json.dumps({"step": 1, "loss": 1.0, "time": "2026-01-01T00:00:10Z"})]
    run = load_checked(_write(tmp_path / "iso.jsonl", iso))
    loss = run.get("loss")
    assert loss is not None and loss.times is not None and loss.times[0] == 1767225610.0
    assert set(run.series) == {"loss"}


def test_no_step_counter_uses_the_line_index(tmp_path: Path) -> None:
    run = load_checked(_write(tmp_path / "m.jsonl", [json.dumps({"loss": v}) for v in (3, 2, 1)]))
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [0, 1, 2]


def test_nan_spellings(tmp_path: Path) -> None:
    lines = [
        '{"step": 1, "loss": NaN}',
        '{"step": 2, "loss": Infinity}',
        '{"step": 3, "loss": "nan"}',
    ]
    lines += [
        '{"step": 4, "loss": "NaN"}',
        '{"step": 5, "loss": -Infinity}',
        '{"step": 6, "loss": null}',
    ]
    run = load_checked(_write(tmp_path / "m.jsonl", lines))
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [1, 2, 3, 4, 5]  # null = not logged
    v = loss.values
    assert (
        np.isnan(v[0]) and v[1] == np.inf and np.isnan(v[2]) and np.isnan(v[3]) and v[4] == -np.inf
    )


def test_bad_lines_are_counted_once_with_first_line(tmp_path: Path) -> None:
    lines: list[str | bytes] = [
        '{"step": 1, "loss": 2.0}',
        "not json",
        "[1, 2]",
        "",
        '{"step": 2, "loss": "abc"}',
    ]
    lines += [b'{"step": 3, "loss": 1.5, "note": "\xff\xfe"}', "{oops", '{"step": 4, "loss": 1.0}']
    path = _write(tmp_path / "m.jsonl", lines)
    with path.open("ab") as f:
        f.write(b'{"step": 5, "loss": 0.')  # truncated last line, no newline
    run = load_checked(path)
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [1, 3, 4]
    by_msg = {n.message: n.line for n in run.notes}
    assert by_msg["skipped 2 malformed lines, first at line 2 (invalid JSON)"] == 2
    assert by_msg["skipped 1 non-object line, first at line 3 (a JSON list)"] == 3
    assert any("truncated last line" in m and "line 9" in m for m in by_msg)
    assert any("invalid UTF-8" in m and "line 6" in m for m in by_msg)
    assert any("non-numeric 'loss'" in m and "line 5" in m for m in by_msg)


def test_text_columns_are_ignored_with_one_note(tmp_path: Path) -> None:
    lines = [
        json.dumps({"step": i, "loss": 1.0, "split": "train", "phase": "0:00:42"}) for i in range(3)
    ]
    run = load_checked(_write(tmp_path / "m.jsonl", lines))
    assert set(run.series) == {"loss"}
    assert [n.message for n in run.notes] == ["ignored non-numeric keys: phase, split"]


def test_step_regression_is_a_resume(tmp_path: Path) -> None:
    steps = [*range(1, 11), *range(6, 16)]
    lines = [json.dumps({"step": s, "loss": 5.0 - s / 10}) for s in steps]
    run = load_checked(_write(tmp_path / "m.jsonl", lines))
    assert run.fact("resume_steps") == (6,)
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == list(range(1, 16))  # later write wins


def test_many_batches_and_fallback_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "_CHUNK", 256)  # force many chunks and line splits across them
    lines = [json.dumps({"step": i, "loss": 1.0 / (i + 1), "grad_norm": 0.5}) for i in range(500)]
    lines[250] = '{"step": 250, "loss": '
    run = load_checked(_write(tmp_path / "m.jsonl", lines))
    loss = run.get("loss")
    assert loss is not None and len(loss) == 499 and 250 not in loss.steps
    assert [n.line for n in run.notes] == [251]


def test_sparse_keys_keep_their_own_steps(tmp_path: Path) -> None:
    lines = [json.dumps({"step": i, "loss": 1.0}) for i in range(10)]
    lines.insert(5, json.dumps({"step": 4, "eval_loss": 2.0}))
    run = load_checked(_write(tmp_path / "m.jsonl", lines))
    ev = run.get("eval_loss")
    assert ev is not None and ev.steps.tolist() == [4] and len(run.series["loss"]) == 10


def test_side_config_gives_facts(tmp_path: Path) -> None:
    _write(tmp_path / "metrics.jsonl", [json.dumps({"step": 1, "loss": 10.9})])
    (tmp_path / "run_config.json").write_text(
        json.dumps({"vocab_size": 50257, "lr": 0.1, "batch_size": 8})
    )
    run = load_checked(tmp_path)
    assert run.fact("vocab_size") == 50257 and run.fact("learning_rate") == 0.1
    assert run.fact("effective_batch") == 8 and run.regime == "pretraining"


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (b"", "empty"),
        (b"\n\n", "no line holds a JSON object"),
        (b"garbage\n[1]\n", "no line holds"),
    ],
)
def test_unusable_files_raise(tmp_path: Path, content: bytes, expect: str) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(content)
    with pytest.raises(ReadError, match=expect) as err:
        load_checked(path)
    assert str(path) in str(err.value)


def test_memory_is_bounded_by_the_numbers_not_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mostly-text lines: the reader holds one chunk, so 4x the file is not 4x the memory."""
    import tracemalloc

    monkeypatch.setattr(jsonl, "_CHUNK", 1 << 20)
    pad = "x" * 1000

    def peak_for(lines: int) -> int:
        path = tmp_path / f"m{lines}.jsonl"
        with path.open("w") as f:
            for i in range(lines):
                f.write(json.dumps({"step": i, "loss": 1.0, "text": pad}) + "\n")
        tracemalloc.start()
        try:
            run = jsonl.read(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(run.series["loss"]) == lines
        return peak

    small, big = peak_for(8_000), peak_for(32_000)  # 8 MB and 32 MB of text
    assert big < 1.3 * small, f"peak grew with the file: {small >> 20} MB -> {big >> 20} MB"
    assert big < 32 << 20
