"""A run's metrics.json holding its history as plural-named columns (collect54): the
blueberry-llm experiments write {"final_metrics": ..., "actual_steps": 200, "history":
{"steps": [10, 20, ...], "val_losses": [...], "learning_rates": [...]},
"experiment_config": {...}}, pretty-printed. Each column is named by the plural of what
one record holds, so the i-th value of "val_losses" is one step's val_loss.

Built on the real file's layout (Open-Superintelligence-Lab/blueberry-llm,
experiments/exp9_muon_vs_adam/adam_lr_sweep_results/adam_lr_0.01_fast/metrics.json,
shortened to four evaluations), with near misses it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.readers.detect import detect_dir

_METRICS = {
    "final_metrics": {"val_loss": 8.1562, "val_accuracy": 0.0563, "val_perplexity": 3483.4},
    "total_time_minutes": 0.59,
    "stopped_early": False,
    "actual_steps": 40,
    "history": {
        "steps": [10, 20, 30, 40],
        "val_losses": [10.0515, 8.0463, 8.1808, 8.1562],
        "val_accuracies": [0.0512, 0.0799, 0.0504, 0.0563],
        "val_perplexities": [23170.1, 3124.6, 3574.3, 3483.4],
        "elapsed_times": [0.03, 0.06, 0.09, 0.12],
        "learning_rates": [0.0025, 0.005, 0.0075, 0.01],
    },
    "experiment_config": {"name": "adam_lr_0.01_fast", "max_steps": 200},
}


def test_plural_columns_read_as_one_record_a_step(tmp_path: Path) -> None:
    # before: val_losses / learning_rates were unknown columns and the steps were
    # renumbered as epochs 1..4, so the run had no loss and no LR to judge
    run = one_log(tmp_path, json.dumps(_METRICS, indent=2), name="metrics.json")
    assert [float(s) for s in run.get("eval_loss").steps] == [10.0, 20.0, 30.0, 40.0]
    assert values(run, "eval_loss") == [10.0515, 8.0463, 8.1808, 8.1562]
    assert values(run, "lr") == [0.0025, 0.005, 0.0075, 0.01]


def test_the_metrics_json_is_found_in_its_run_dir(tmp_path: Path) -> None:
    # before: a run dir holding only this pretty-printed metrics.json was "no training log
    # recognised" (its first line, "{", is no JSON-lines record)
    (tmp_path / "metrics.json").write_text(json.dumps(_METRICS, indent=2))
    found = detect_dir(tmp_path)
    assert [(s.kind, s.path.name) for s in found] == [("console", "metrics.json")]


def test_a_singular_name_beside_its_plural_is_kept(tmp_path: Path) -> None:
    # near miss: a block with both "loss" and "losses" keeps both as they are named
    body = {"history": {"step": [1, 2, 3], "loss": [3.0, 2.5, 2.1], "losses": [9.0, 8.0, 7.0]}}
    run = one_log(tmp_path, json.dumps(body, indent=2), name="metrics.json")
    assert values(run, "loss") == [3.0, 2.5, 2.1]


def test_a_metrics_json_of_final_numbers_only_is_no_log(tmp_path: Path) -> None:
    # near miss: a metrics.json of single results (no columns) is not a training log
    (tmp_path / "metrics.json").write_text(
        json.dumps({"final_metrics": {"val_loss": 5.1}, "actual_steps": 500}, indent=2)
    )
    assert detect_dir(tmp_path) == []
