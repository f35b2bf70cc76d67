"""kur's console (kur/model/executor.py) draws its validation pass as a tqdm bar whose
description carries the loss: "Validating, loss=372.212:  94%|...| 256/271 [...]". That
counter counts the validation loader's samples, not the run: read as the step of the
records around it (the bar sits on its record's own line, and a stepless record takes
the first bar after it) it numbered the epoch's "Training loss" summary 256, behind the
train bar's 2352, so one epoch was split into two runs. A bar drawn on an eval record's
own line numbers no train record.

Lines verbatim from the dev case no_learning_kur_deepspeech_epoch88_prediction_empty_
keras2_bug_issue57 (kur issue 57), with near misses.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import read_log, values

_KUR = (
    "> Epoch 88/inf, loss=6.077:  97%|█████████▋| 2352/2432 [25:49<00:45,  1.74samples/s]\n"
    "[INFO 2017-04-01 23:52:55,254 kur.model.executor:369] Training loss: 6.077\n"
    "Validating, loss=372.212:  94%|█████████▍| 256/271 [00:45<00:02,  6.13samples/s]\n"
    "[INFO 2017-04-01 23:53:40,300 kur.model.executor:206] Validation loss: 372.212\n"
    'Prediction: ""\n'
    'Truth: "that\'s it on your account"\n'
)


def test_a_validating_bar_does_not_split_the_epoch(tmp_path: Path) -> None:
    # before: two runs, the "Training loss" line at step 256 (the eval bar's count)
    (run,) = read_log(tmp_path, _KUR, "log_excerpt.txt")
    assert values(run, "loss") == [6.077]
    assert values(run, "eval_loss") == [372.212]
    assert [float(s) for s in run.get("eval_loss").steps] == [
        float(s) for s in run.get("loss").steps
    ]


def test_two_epochs_with_their_validating_bars_are_one_run(tmp_path: Path) -> None:
    lines = _KUR.splitlines(keepends=True)[:4]
    second = [ln.replace("Epoch 88/inf", "Epoch 89/inf").replace("6.077", "6.051") for ln in lines]
    (run,) = read_log(tmp_path, "".join(lines + second), "log_excerpt.txt")
    assert values(run, "loss") == [6.077, 6.051]
    assert values(run, "eval_loss") == [372.212, 372.212]
    # each epoch's validation sits at its epoch's train step (87 x 2432 + 2352, ...)
    steps = [float(s) for s in run.get("eval_loss").steps]
    assert steps == [float(s) for s in run.get("loss").steps] == [213936.0, 216368.0]


def test_a_bar_on_a_train_records_line_still_numbers_it(tmp_path: Path) -> None:
    # near miss: a train record on its bar's line ("| 6/1404 [...] Accuracy: 50.00%") is
    # numbered by that bar, as before
    body = "".join(
        f"{n * 100 // 1404:3d}%|█| {n}/1404 [00:38<1:13:23, 3.15s/it]  loss: {3 - n / 100:.2f}\n"
        for n in (6, 50, 120)
    )
    (run,) = read_log(tmp_path, body, "train.log")
    assert [float(s) for s in run.get("loss").steps] == [6.0, 50.0, 120.0]
