"""W&B offline runs written by wandb 0.31 (scripts/make_wandb_fixtures.py), checked
against wandb's own reader (leet.json = `wandb leet inspect --json`), plus broken copies."""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import load_checked
from traindoc.readers import ReadError, load_run
from traindoc.readers._base import Notes
from traindoc.readers._wandb_log import BLOCK, MAGIC, records

CORPUS = Path(__file__).parents[1] / "corpus"
CASES = ["wandb-healthy", "wandb-divergence"]
# our canonical series <- the key HF's WandbCallback logs
KEYS = {"loss": "train/loss", "lr": "train/learning_rate", "grad_norm": "train/grad_norm"}


def _log(case: str) -> Path:
    return next((CORPUS / case / "wandb").glob("offline-run-*/run-*.wandb"))


@pytest.mark.parametrize("case", CASES)
def test_matches_wandb_leet(case: str) -> None:
    ref = json.loads((CORPUS / case / "leet.json").read_text())["history"]
    run = load_checked(CORPUS / case)
    assert run.fact("trainer") == "wandb" and not run.notes
    for name, key in KEYS.items():
        s = run.get(name)
        assert s is not None and len(s) == ref[key]["count"]
        assert float(np.sum(s.values)) == pytest.approx(ref[key]["sum"], rel=1e-12)
        assert s.values[-1] == pytest.approx(ref[key]["last"])
    loss = run.get("loss")
    assert loss is not None and loss.steps[0] == 1  # train/global_step, not wandb's _step
    assert loss.times is not None and loss.times[0] > 1.7e9
    assert run.fact("learning_rate") in (2e-3, 1.0) and run.fact("per_device_batch") == 4
    assert run.fact("versions")["wandb"] == "0.31.0" and run.fact("exit_code") == 0


def test_paths_run_dir_wandb_dir_and_file() -> None:
    log = _log("wandb-healthy")
    for p in (log, log.parent, log.parent.parent):
        assert len(load_checked(p).get("loss") or ()) == 150


def _copy(tmp: Path, data: bytes) -> Path:
    d = tmp / "wandb" / "offline-run-20260101_000000-abc"
    d.mkdir(parents=True)
    (d / "run-abc.wandb").write_bytes(data)
    return d


def test_truncated_keeps_the_records_before(tmp_path: Path) -> None:
    data = _log("wandb-healthy").read_bytes()
    run = load_run(_copy(tmp_path, data[: BLOCK + 5000]))
    loss = run.get("loss")
    assert loss is not None and 0 < len(loss) < 150
    assert any("truncated" in n.message for n in run.notes)


def test_bad_crc_stops_with_a_note(tmp_path: Path) -> None:
    data = bytearray(_log("wandb-healthy").read_bytes())
    data[BLOCK + 100] ^= 0xFF  # a payload byte in the second block
    run = load_run(_copy(tmp_path, bytes(data)))
    loss = run.get("loss")
    assert loss is not None and 0 < len(loss) < 150
    assert any("checksum" in n.message for n in run.notes)


def _frame(payloads: list[bytes]) -> bytes:
    """A .wandb file as wandb frames it: records split across 32 KiB blocks."""
    out = bytearray(MAGIC + b"\x00")
    for p in payloads:
        first = True
        while True:
            left = BLOCK - len(out) % BLOCK
            if left < 7:
                out += bytes(left)
                continue
            frag, p = p[: left - 7], p[left - 7 :]
            kind = (1 if not p else 2) if first else (4 if not p else 3)
            out += struct.pack("<IHB", zlib.crc32(bytes([kind]) + frag), len(frag), kind) + frag
            first = False
            if not p:
                break
    return bytes(out)


def test_reframed_file_and_undecodable_record(tmp_path: Path) -> None:
    recs = list(records(_log("wandb-healthy").read_bytes(), Path("x"), Notes()))
    bad = b"\x12\xff\xff\x01"  # a history field whose length runs past the record
    # an unknown field 200 of 64 KiB: spans three blocks (FIRST/MIDDLE/LAST), then skipped
    padding = b"\xc2\x0c" + b"\x80\x80\x04" + b"x" * 65536
    data = _frame([recs[0], bad, padding, *recs[1:]])
    run = load_run(_copy(tmp_path, data))
    assert [n.message for n in run.notes] == ["skipped 1 undecodable record (first is record 1)"]
    assert len(run.get("loss") or ()) == 150


@pytest.mark.parametrize(("data", "msg"), [(b"", "empty"), (b"PK\x03\x04 not wandb", "header")])
def test_unusable(tmp_path: Path, data: bytes, msg: str) -> None:
    d = _copy(tmp_path, data)
    with pytest.raises(ReadError, match=msg):
        load_run(d / "run-abc.wandb")


def test_old_client_files_only(tmp_path: Path) -> None:
    d = tmp_path / "run-20200101_000000-xyz" / "files"
    d.mkdir(parents=True)
    (d / "config.yaml").write_text(
        "_wandb:\n  value: {}\nlearning_rate:\n  desc: null\n  value: 0.0003\n"
    )
    (d / "wandb-summary.json").write_text('{"train/loss": 2.5, "_step": 99}')
    run = load_checked(d.parent)
    assert run.fact("learning_rate") == 0.0003
    assert run.fact("results") == {"train/loss": 2.5} and not run.series
    assert any("summary" in n.message for n in run.notes)


def test_latest_run_symlink_and_two_runs(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for case in CASES:
        src = _log(case).parent
        shutil.copytree(src, root / "wandb" / src.name)
    (root / "wandb" / "latest-run").symlink_to(src.name)
    run = load_run(root)  # the newest run dir is read, the other named in a note
    assert any("also found" in n.message for n in run.notes)


@pytest.mark.parametrize("cut", [0, 5, 1000, BLOCK + 3])
def test_records_read_in_block_chunks_equal_the_whole_read(cut: int) -> None:
    """Chunks of one block: records spanning blocks, and a cut file, read as from bytes."""
    import io

    real = sorted(Path(__file__).parents[1].glob("real/*wandb*/*/*.wandb"))
    data = (real[0] if real else _log("wandb-healthy")).read_bytes()
    data = data[: len(data) - cut]
    whole_notes, small_notes = Notes(), Notes()
    whole = list(records(data, Path("x"), whole_notes))
    small = list(records(io.BytesIO(data), Path("x"), small_notes, chunk=BLOCK))
    assert small == whole and small_notes.build() == whole_notes.build()
    assert whole and (not cut or whole_notes.build())


def test_history_rows_in_batches_give_the_same_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from traindoc.readers import wandb

    path = _log("wandb-healthy")
    want = {
        k: (s.steps.tolist(), repr(s.values.tolist())) for k, s in load_run(path).series.items()
    }
    monkeypatch.setattr(wandb, "_ROWS", 7)
    got = {k: (s.steps.tolist(), repr(s.values.tolist())) for k, s in load_run(path).series.items()}
    assert got == want
