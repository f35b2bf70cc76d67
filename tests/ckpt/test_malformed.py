"""Malformed checkpoints fail with one clear error naming the file; pickles never run."""

from __future__ import annotations

import io
import json
import pickle
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.ckpt._write import header_bytes, write
from traindoc.ckpt.api import summarize, summarize_run
from traindoc.ckpt.safetensors import CheckpointError

ASSETS = Path(__file__).parent / "assets"


@pytest.fixture
def good(tmp_path: Path) -> Path:
    p = tmp_path / "model.safetensors"
    rng = np.random.default_rng(0)
    write(
        p,
        {
            "a.weight": ("F32", rng.standard_normal((64, 32))),
            "b.weight": ("BF16", rng.standard_normal(100)),
        },
    )
    return p


def test_good_file_reads(good: Path) -> None:
    s = summarize(good)
    assert [t.name for t in s.tensors] == ["a.weight", "b.weight"]


def test_truncated_file_names_file_and_tensor(good: Path) -> None:
    data = good.read_bytes()
    good.write_bytes(data[:-50])
    with pytest.raises(
        CheckpointError, match=r"model\.safetensors: truncated.*50 missing.*b\.weight"
    ):
        summarize(good)


def test_truncated_header(tmp_path: Path) -> None:
    p = tmp_path / "x.safetensors"
    p.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(CheckpointError, match="truncated: header needs 1008 bytes"):
        summarize(p)
    p.write_bytes(b"\x01\x02")
    with pytest.raises(CheckpointError, match="too short"):
        summarize(p)


def _rewrite_header(p: Path, edit) -> None:
    data = p.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    head = json.loads(data[8 : 8 + n])
    edit(head)
    raw = json.dumps(head).encode()
    raw += b" " * (-len(raw) % 8)
    p.write_bytes(struct.pack("<Q", len(raw)) + raw + data[8 + n :])


def test_header_offsets_that_overlap(good: Path) -> None:
    def lie(h):  # b.weight claims to start inside a.weight (same length, so sizes still match)
        b, e = h["b.weight"]["data_offsets"]
        h["b.weight"]["data_offsets"] = [b - 100, e - 100]

    _rewrite_header(good, lie)
    with pytest.raises(CheckpointError, match=r"'b\.weight' overlaps 'a\.weight'"):
        summarize(good)


def test_header_size_that_lies(good: Path) -> None:
    _rewrite_header(good, lambda h: h["a.weight"].__setitem__("shape", [64, 33]))
    with pytest.raises(CheckpointError, match=r"'a\.weight'.*needs 8448"):
        summarize(good)


def test_header_with_a_gap(tmp_path: Path) -> None:
    p = tmp_path / "gap.safetensors"
    head = header_bytes([("a", "F32", (4,), 16)])
    doc = json.loads(head[8:])
    doc["a"]["data_offsets"] = [8, 24]
    raw = json.dumps(doc).encode()
    p.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(24))
    with pytest.raises(CheckpointError, match="belong to no tensor"):
        summarize(p)


def test_header_not_json(tmp_path: Path) -> None:
    p = tmp_path / "x.safetensors"
    p.write_bytes(struct.pack("<Q", 8) + b"{not js}")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        summarize(p)


def test_shard_missing_from_index(tmp_path: Path) -> None:
    d = tmp_path / "sharded"
    shutil.copytree(ASSETS / "formats" / "sharded", d)
    (d / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(
        CheckpointError, match=r"index\.json: 1 of 2 shards .* missing: model-00002"
    ):
        summarize(d)


def test_index_promises_a_tensor_the_shard_lacks(tmp_path: Path) -> None:
    d = tmp_path / "sharded"
    shutil.copytree(ASSETS / "formats" / "sharded", d)
    idx = d / "model.safetensors.index.json"
    doc = json.loads(idx.read_text())
    doc["weight_map"]["ghost.weight"] = "model-00001-of-00002.safetensors"
    idx.write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match=r"ghost\.weight"):
        summarize(d)


def test_broken_checkpoint_in_a_run_is_a_note_not_a_crash(tmp_path: Path, good: Path) -> None:
    run = tmp_path / "run"
    (run / "checkpoint-10").mkdir(parents=True)
    (run / "checkpoint-10" / "model.safetensors").write_bytes(good.read_bytes()[:-8])
    shutil.copytree(ASSETS / "nan-layer", run / "checkpoint-20")
    cks = summarize_run(run)
    assert cks[0].format == "unreadable" and "truncated" in cks[0].notes[0]
    assert cks[1].tensors


# --- pickles: the payload creates a file when unpickled; we prove it never ran ---------


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _evil_zip(path: Path, marker: Path) -> None:
    """A torch-zip-shaped checkpoint whose data.pkl opens (creates) `marker`."""
    buf = io.BytesIO()
    pickle.dump({"weight": _Payload(marker)}, buf, protocol=2)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("evil/data.pkl", buf.getvalue())
        z.writestr("evil/version", "3\n")


def test_payload_is_live(tmp_path: Path) -> None:
    """Control: the payload really creates the file when a normal unpickler runs it."""
    marker = tmp_path / "control"
    pickle.loads(pickle.dumps(_Payload(marker), protocol=2)).close()
    assert marker.exists()


def test_hostile_zip_pickle_is_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    p = tmp_path / "pytorch_model.bin"
    _evil_zip(p, marker)
    s = summarize(p)
    assert not marker.exists()
    assert s.tensors == ()
    assert any("builtins.open" in n or "io.open" in n for n in s.notes), s.notes


def test_hostile_legacy_pickle_is_skipped(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    p = tmp_path / "model.pt"
    p.write_bytes(pickle.dumps({"weight": _Payload(marker)}, protocol=2))
    s = summarize(p)
    assert not marker.exists()
    assert "legacy" in s.notes[0] and "never unpickled" in s.notes[0]
