"""The Dask path on a local 2-worker cluster gives the single-machine path's findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.data.corpus import planted, write
from traindoc.data.audit import audit


def test_dask_matches_single_machine(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    from traindoc.data.distributed import audit_distributed

    p = planted()
    for k in range(4):
        write(p.train[k::4], tmp_path / "train" / f"part-{k:05d}.jsonl", "jsonl")
    write(p.eval, tmp_path / "eval.jsonl", "jsonl")
    (tmp_path / "train" / "part-00004.jsonl").write_text('{"text": "x", "label": "pos"}\n{bad\n')
    one = audit(tmp_path / "train", tmp_path / "eval.jsonl")
    dist = audit_distributed(tmp_path / "train", tmp_path / "eval.jsonl", n_workers=2)
    a, b = one.summary.to_dict(), dist.summary.to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert one.export == dist.export
    assert a["duplicates"] == p.duplicates and a["malformed"] == 1
