"""The console log beside a structured log lends it the settings its config dump states:
mmengine writes vis_data/scalars.json (the curves, read first) beside <timestamp>.log,
whose config dump names the optimizer (`optimizer=dict(type='SGD', lr=0.1, ...)`). The
rate rules read the logged LR on that optimizer's scale (SGD's LRs sit ~100x Adam's)."""

from __future__ import annotations

import json
from pathlib import Path

from traindoc.readers import load_run

_TRAIN = (
    "2023/06/06 16:43:{s:02d} - mmengine - INFO - Epoch(train)   [{e}][100/109]  lr: 1.0000e-01"
    "  eta: 0:10:17  time: 0.0436  data_time: 0.0006  memory: 2884  loss: {loss}"
)
_CONFIG = (
    "optim_wrapper = dict(\n"
    "    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.0001))\n"
)


def _run_dir(tmp_path: Path, config: str) -> Path:
    (tmp_path / "vis_data").mkdir()
    rows = [
        {"lr": 0.1, "loss": 3.3 - 0.2 * e, "epoch": e, "step": 109 * e, "time": 0.04}
        for e in range(1, 7)
    ]
    (tmp_path / "vis_data" / "scalars.json").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n"
    )
    lines = [_TRAIN.format(s=e, e=e, loss=f"{3.3 - 0.2 * e:.4f}") for e in range(1, 7)]
    (tmp_path / "20230606_164304.log").write_text(config + "\n".join(lines) + "\n")
    return tmp_path


def test_the_config_dump_beside_scalars_names_the_optimizer(tmp_path: Path) -> None:
    run = load_run(_run_dir(tmp_path, _CONFIG))
    assert run.inputs[0].kind == "jsonl"  # the curves are still the JSON lines'
    assert run.fact("optim") == "sgd"
    assert run.fact("learning_rate") == 0.1


def test_a_console_without_a_config_dump_lends_no_optimizer(tmp_path: Path) -> None:
    run = load_run(_run_dir(tmp_path, ""))
    assert run.inputs[0].kind == "jsonl"
    assert run.fact("optim") is None
