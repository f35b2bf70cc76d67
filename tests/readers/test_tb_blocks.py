"""Event files read in blocks: the same records, points and notes at any block size,
records cut by a block's end, truncated and corrupt tails, records bigger than a block."""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from tests.readers.helpers import ASSETS
from traindoc.readers import _tfrecord
from traindoc.readers import tensorboard as tb
from traindoc.readers._tbevents import encode_scalar, encode_version
from traindoc.readers._tfrecord import blocks, frame, split

T0 = 1_700_000_000.0


def _file(steps: int = 300) -> bytes:
    """HF-style: four tags a step, eval every 7 steps, a long text record in the middle."""
    out = [frame(encode_version(T0))]
    for s in range(steps):
        for i, tag in enumerate(("train/loss", "train/learning_rate", "train/grad_norm")):
            out.append(frame(encode_scalar(tag, math.sin(s + i), s, T0 + s)))
        if s % 7 == 0:
            out.append(frame(encode_scalar("eval/loss", s * 0.5, s, T0 + s)))
        if s == 150:
            out.append(frame(b"\x09" + struct.pack("<d", T0) + b"\x1a" + bytes([100]) + b"x" * 100))
    return b"".join(out)


def _joined(data: bytes, size: int) -> tuple[list[bytes], list[str]]:
    recs, problems = [], []
    for block, offs, lens, probs, _ in blocks(io.BytesIO(data), size=size):
        recs += [block[o : o + n] for o, n in zip(offs.tolist(), lens.tolist(), strict=True)]
        problems += probs
    return recs, problems


def _whole(data: bytes) -> tuple[list[bytes], list[str]]:
    offs, lens, problems = split(data)
    return [data[o : o + n] for o, n in zip(offs.tolist(), lens.tolist(), strict=True)], problems


@pytest.mark.parametrize("size", [1, 7, 16, 61, 100, 1000, 1 << 20])
@pytest.mark.parametrize("cut", [0, 3, 13, 40])
def test_blocks_give_the_records_of_the_whole_read(size: int, cut: int) -> None:
    data = _file()
    data = data[: len(data) - cut]  # cut > 0: a truncated last record
    assert _joined(data, size) == _whole(data)
    if cut:
        assert "truncated last record" in _whole(data)[1][0]


def test_a_bad_header_crc_stops_the_file_in_any_block() -> None:
    data = bytearray(_file())
    offs, _, _ = split(bytes(data))
    at = int(offs[500]) - 4  # the header CRC of record 500
    data[at] ^= 0xFF
    whole = _whole(bytes(data))
    assert len(whole[0]) == 500 and "stopped there" in whole[1][0]
    for size in (50, 999, 1 << 20):
        assert _joined(bytes(data), size) == whole


def test_walk_agrees_with_a_plain_walk_on_payloads_full_of_fake_headers() -> None:
    """A payload holding framed records of its own: candidates there must not be taken."""
    inner = _file(20)
    data = frame(encode_version(T0)) + frame(inner) + _file(20)
    heads, pos = [], 0
    while pos + 16 <= len(data):
        heads.append(pos)
        pos += 16 + struct.unpack_from("<Q", data, pos)[0]
    assert _tfrecord._walk(data)[0].tolist() == heads


def _series(run) -> dict:
    """Every point, NaN-safe (repr): steps, values and wall times per series."""
    return {
        k: (s.steps.tolist(), repr(s.values.tolist()), s.times.tolist())
        for k, s in run.series.items()
    }


@pytest.mark.parametrize("size", [64, 4096])
def test_reader_gives_the_same_run_at_any_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(_file()[:-5])
    whole = tb.read(path)
    monkeypatch.setattr(_tfrecord, "BLOCK", size)
    monkeypatch.setattr(
        tb, "blocks", lambda f, check_crc=True: _tfrecord.blocks(f, check_crc, size)
    )
    small = tb.read(path)
    assert _series(small) == _series(whole)
    assert small.notes == whole.notes


def test_real_writer_files_read_the_same_in_tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted(p for p in (ASSETS / "tensorboard").rglob("*tfevents*") if p.is_file())
    assert files
    whole = [_series(tb.read(p)) for p in files]
    monkeypatch.setattr(tb, "blocks", lambda f, check_crc=True: _tfrecord.blocks(f, check_crc, 97))
    assert [_series(tb.read(p)) for p in files] == whole
    assert np.all([bool(w) for w in whole])
