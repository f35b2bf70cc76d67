"""A JSON object whose metrics are columns is a per-epoch log (collect21): Keras'
History.history saved with json.dump, or a run's results file that holds such a block
under a key (the BS-Data grid's results.json: "training_history": {"epoch": [...],
"train_loss": [...], "val_loss": [...]}). The i-th value of every column is one epoch.

Built on the real file's lines (SimonHofmann94/BS-Data, code/experiments/results/
experiment_grid_lr0.1_wd0.0001_s42_20251127_060307/results.json, shortened to three
epochs), with near misses it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.readers.detect import detect_file

_RESULTS = "\n".join(
    [
        "{",
        '  "experiment_name": "experiment_grid_lr0.1_wd0.0001_s42_20251127_060307",',
        '  "model": "ConvNextTiny",',
        '  "loss": "CrossEntropyLossWrapper",',
        '  "best_epoch": 5,',
        '  "config": {',
        '    "model": {',
        '      "name": "convnext_tiny",',
        '      "cbam_stages": [',
        "        3,",
        "        4",
        "      ]",
        "    },",
        '    "image_size": [',
        "      150,",
        "      150",
        "    ],",
        '    "betas": [',
        "      0.9,",
        "      0.999",
        "    ]",
        "  },",
        '  "training_history": {',
        '    "epoch": [',
        "      1,",
        "      2,",
        "      3",
        "    ],",
        '    "train_loss": [',
        "      0.2295902494543766,",
        "      0.2967920777656793,",
        "      0.5672403394739498",
        "    ],",
        '    "val_loss": [',
        "      0.13892152117421994,",
        "      0.17044855861996228,",
        "      0.21101224654389975",
        "    ]",
        "  }",
        "}",
        "",
    ]
)


def test_a_results_file_training_history_block_is_read_per_epoch(tmp_path: Path) -> None:
    # before: "no training log recognised" (a pretty-printed object, no line a record)
    run = one_log(tmp_path, _RESULTS, name="results.json")
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert values(run, "loss") == [0.2295902494543766, 0.2967920777656793, 0.5672403394739498]
    assert values(run, "eval_loss") == [
        0.13892152117421994,
        0.17044855861996228,
        0.21101224654389975,
    ]


def test_the_results_file_is_detected_by_its_content(tmp_path: Path) -> None:
    p = tmp_path / "results.json"
    p.write_text(_RESULTS)
    src = detect_file(p)
    assert src is not None and src.kind == "console"


def test_a_keras_history_dict_gets_its_epochs_numbered(tmp_path: Path) -> None:
    body = (
        '{"loss": [2.30, 1.91, 1.52], "accuracy": [0.11, 0.32, 0.45], "val_loss": [2.1, 1.8, 1.7]}'
    )
    run = one_log(tmp_path, body, name="history.json")
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert values(run, "eval_loss") == [2.1, 1.8, 1.7]


def test_lists_with_no_loss_are_no_log(tmp_path: Path) -> None:
    # near miss: a config's equally long lists (image size, betas) name no loss
    p = tmp_path / "config.json"
    p.write_text('{\n  "image_size": [150, 150],\n  "betas": [0.9, 0.999]\n}\n')
    assert detect_file(p) is None


def test_columns_of_unequal_length_are_no_log(tmp_path: Path) -> None:
    # near miss: lists that do not line up are not one record an epoch
    p = tmp_path / "stats.json"
    p.write_text('{\n  "loss_weights": [1.0, 0.5, 0.25],\n  "milestones": [30, 60]\n}\n')
    assert detect_file(p) is None


# The same results file's config block as written (lines of the real file, shortened): the
# settings nest by topic, the optimizer is a dict named by its type.
_CONFIG = "\n".join(
    [
        "{",
        '  "best_epoch": 5,',
        '  "config": {',
        '    "model": {"name": "convnext_tiny", "num_classes": 2, "pretrained": true},',
        '    "training": {',
        '      "num_epochs": 50,',
        '      "learning_rate": 0.1,',
        '      "weight_decay": 0.0001,',
        '      "warmup_epochs": 2',
        "    },",
        '    "optimizer": {"type": "adamw", "lr": 0.1, "betas": [0.9, 0.999]},',
        '    "scheduler": {"type": "cosine", "warmup_epochs": 3}',
        "  },",
        '  "training_history": {',
        '    "epoch": [1, 2, 3],',
        '    "train_loss": [0.2295902494543766, 0.2967920777656793, 0.5672403394739498],',
        '    "val_loss": [0.13892152117421994, 0.17044855861996228, 0.21101224654389975]',
        "  }",
        "}",
        "",
    ]
)


def test_a_results_file_config_block_gives_the_runs_settings(tmp_path: Path) -> None:
    # before: the LR (0.1) and the optimizer were unknown, so no rate rule could judge the run
    run = one_log(tmp_path, _CONFIG, name="results.json")
    assert run.fact("learning_rate") == 0.1
    assert run.fact("optim") == "adamw"
    assert run.fact("lr_scheduler") == "cosine"
    assert run.fact("num_classes") == 2
    assert run.fact("num_train_epochs") == 50


def test_settings_outside_a_config_block_are_not_the_runs(tmp_path: Path) -> None:
    # near miss: an LR under another key (an LR finder's suggestion, a metric block) is not
    # what the run trained at, and a Keras history with no config block states nothing
    body = _CONFIG.replace('"config": {', '"lr_finder": {')
    run = one_log(tmp_path, body, name="results.json")
    assert run.fact("learning_rate") is None and run.fact("optim") is None
    history = '{"loss": [2.30, 1.91, 1.52], "val_loss": [2.1, 1.8, 1.7], "lr": 0.01}'
    assert one_log(tmp_path, history, name="history.json").fact("learning_rate") is None
