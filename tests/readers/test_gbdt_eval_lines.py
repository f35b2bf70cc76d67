"""LightGBM's per-round evaluation lines: the round is the step, the training set's
objective metric the loss, the first held-out set's the eval loss.

"[25]\\ttraining's l2: 0.09\\tvalid_1's l2: 0.10" was read with the apostrophe as a word
break (`s_binary_logloss`, the round no step), and the R package's "[5]:    train's
l2:0.095" (no space after the colon) not at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers import load_run

# tests/real/divergence_lightgbm_binary_logloss_rises_every_round_is_unbalance_and_scale_pos_weight_both_set_issue
_PY = (
    "[1]\ttraining's binary_logloss: 0.712679\tvalid_1's binary_logloss: 0.712513\n"
    "Train until valid scores didn't improve in 100 rounds.\n"
    "[2]\ttraining's binary_logloss: 0.732192\tvalid_1's binary_logloss: 0.731889\n"
    "[3]\ttraining's binary_logloss: 0.751667\tvalid_1's binary_logloss: 0.751244\n"
    "[4]\ttraining's binary_logloss: 0.77109\tvalid_1's binary_logloss: 0.770573\n"
)
# tests/real/healthy_lightgbm_r_maintainer_example_train_valid_l2_falling_31_rounds
_R = (
    "[5]:    train's l2:0.0950898    valid's l2:0.100327\n"
    "[6]:    train's l2:0.0945136    valid's l2:0.100013\n"
    "[10]:   train's l2:0.0922085    valid's l2:0.0986014\n"
)
# tests/real/healthy_lightgbm_ashrae_train_eval_rmse_falling_every_25_rounds_to_550
_EVERY_25 = (
    "Training until validation scores don't improve for 100 rounds\n"
    "[25]    train_loss's rmse: 1.33226      eval's rmse: 1.46993\n"
    "[50]    train_loss's rmse: 1.10662      eval's rmse: 1.27359\n"
    "[75]    train_loss's rmse: 0.961393     eval's rmse: 1.14473\n"
)


def _read(tmp_path: Path, text: str):
    path = tmp_path / "paste.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def _series(run, name):
    s = run.series[name]
    return [int(x) for x in s.steps], pytest.approx([float(v) for v in s.values], rel=1e-5)


def test_python_eval_lines(tmp_path: Path) -> None:
    run = _read(tmp_path, _PY)
    assert set(run.series) == {"loss", "eval_loss"}
    steps, values = _series(run, "loss")
    assert steps == [1, 2, 3, 4]
    assert values == [0.712679, 0.732192, 0.751667, 0.77109]
    assert _series(run, "eval_loss")[1] == [0.712513, 0.731889, 0.751244, 0.770573]


def test_r_eval_lines_no_space_after_colon(tmp_path: Path) -> None:
    run = _read(tmp_path, _R)
    steps, values = _series(run, "loss")
    assert steps == [5, 6, 10]
    assert values == [0.0950898, 0.0945136, 0.0922085]
    assert _series(run, "eval_loss")[0] == [5, 6, 10]


def test_rounds_every_25_and_named_sets(tmp_path: Path) -> None:
    run = _read(tmp_path, _EVERY_25)
    assert _series(run, "loss")[0] == [25, 50, 75]
    assert _series(run, "eval_loss")[1] == [1.46993, 1.27359, 1.14473]


def test_task_metric_keeps_its_name(tmp_path: Path) -> None:
    # constructed: an AUC beside the loss is a task metric of the held-out set, not a loss
    text = "".join(
        f"[{i}]\tvalid_0's auc: 0.6{i}\tvalid_0's binary_logloss: 0.{50 - i}\n" for i in range(1, 5)
    )
    run = _read(tmp_path, text)
    assert set(run.series) == {"eval_auc", "eval_loss"}


def test_near_miss_bracketed_step_without_possessive(tmp_path: Path) -> None:
    # "[3] loss: 0.5" is no boosting line: the key/value reading keeps it as before
    text = "".join(f"[{i}] loss: 0.{90 - i}\n" for i in range(1, 6))
    run = _read(tmp_path, text)
    assert "loss" in run.series and "eval_loss" not in run.series


# tests/real/overfitting_xgboost_eval_logloss_0p42_to_0p91_train_0p16_to_0p002_early_stop_on_train_set
_XGB = (
    "Will train until train-logloss hasn't improved in 1000 rounds.\n"
    "[500]\teval-logloss:0.41906\ttrain-logloss:0.160439\n"
    "[1000]\teval-logloss:0.468176\ttrain-logloss:0.093267\n"
    "[1500]\teval-logloss:0.523016\ttrain-logloss:0.059736\n"
)


def test_xgboost_dash_pairs(tmp_path: Path) -> None:
    # "eval-logloss" was read as a train name and the round as no step
    run = _read(tmp_path, _XGB)
    assert set(run.series) == {"loss", "eval_loss"}
    steps, values = _series(run, "eval_loss")
    assert steps == [500, 1000, 1500]
    assert values == [0.41906, 0.468176, 0.523016]
    assert _series(run, "loss")[1] == [0.160439, 0.093267, 0.059736]


def test_near_miss_dash_key_with_words_after(tmp_path: Path) -> None:
    # constructed: a bracketed counter whose line goes on in words is no evaluation line
    text = "".join(f"[{i}] lr-warmup: 0.{i} done, loss: 0.{90 - i}\n" for i in range(1, 6))
    run = _read(tmp_path, text)
    assert "eval_loss" not in run.series


# tests/real/healthy_catboost_tutorial_logloss_learn_0p657_to_0p148_test_0p137_every_100_iters
_CATBOOST = (
    "0:\tlearn: 0.6569860\ttest: 0.6570642\tbest: 0.6570642 (0)\ttotal: 70.1ms\tremaining: 1m 10s\n"
    "100:\tlearn: 0.1697219\ttest: 0.1530068\tbest: 0.1530068 (100)\ttotal: 3.7s\tremaining: 33s\n"
    "200:\tlearn: 0.1585173\ttest: 0.1407452\tbest: 0.1407452 (200)\ttotal: 8.38s\tremaining: 33.3s\n"
    "300:\tlearn: 0.1553371\ttest: 0.1382992\tbest: 0.1382986 (299)\ttotal: 12.8s\tremaining: 29.7s\n"
)


def test_catboost_learn_test_lines(tmp_path: Path) -> None:
    # was: no line understood
    run = _read(tmp_path, _CATBOOST)
    assert set(run.series) == {"loss", "eval_loss"}
    steps, values = _series(run, "eval_loss")
    assert steps == [0, 100, 200, 300]
    assert values == [0.6570642, 0.1530068, 0.1407452, 0.1382992]


def test_near_miss_catboost_score_is_no_loss(tmp_path: Path) -> None:
    # constructed: "best" above the test value: the eval metric is a score (AUC)
    text = "".join(
        f"{i}:\tlearn: 0.95{i}\ttest: 0.82{i}\tbest: 0.8356 (1)\ttotal: 1s\tremaining: 1m\n"
        for i in range(2, 7)
    )
    run = _read(tmp_path, text)
    assert "eval_loss" not in run.series and "loss" not in run.series
