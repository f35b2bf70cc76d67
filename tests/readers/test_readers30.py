"""Reader fixes found by probing common trainers' console formats (readers30): litgpt's
`val: n/a` before its first validation (the line's training loss was read as an eval
loss), fairseq's `--log-format json` records stepped by their `num_updates` (they were
numbered by their line), and a paste of two HF Trainer runs whose dicts carry no step
(the second run's epochs start over: a new run, not a resume with a loss jump).

Each fix has a near miss it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.readers.helpers import load_log, one_log, read_log, values

# -- 1. litgpt: `loss train: X, val: n/a` -- n/a is a missing value, not an eval context --

# litgpt finetune's progress line before the first evaluation prints the val loss as
# "n/a" (litgpt/finetune/lora.py: f"... | loss train: {loss:.3f}, val: {val_loss} | ...")
_LITGPT_NA = "".join(
    f"Epoch 1 | iter {i} step {i // 2} | loss train: {loss:.3f}, val: n/a | "
    f"iter time: 352.{i:02d} ms{' (step)' if i % 2 == 0 else ''}\n"
    for i, loss in enumerate([2.158, 2.101, 1.987, 1.902, 1.811, 1.764], start=1)
)


def test_litgpt_val_na_leaves_the_training_loss_a_training_loss(tmp_path: Path) -> None:
    # before: the whole line was read in an eval context ("eval_loss_train"), no loss
    run = one_log(tmp_path, _LITGPT_NA)
    assert "loss" in run.series
    assert not any(n.startswith("eval") for n in run.series)
    assert values(run, "loss")[0] == 2.158


def test_a_missing_value_does_not_hide_a_later_val_loss(tmp_path: Path) -> None:
    body = _LITGPT_NA + (
        "Epoch 1 | iter 7 step 3 | loss train: 1.702, val: 1.655 | iter time: 352.07 ms\n"
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [1.655]
    assert values(run, "loss")[-1] == 1.702


def test_an_eval_word_with_numbers_still_makes_an_eval_line(tmp_path: Path) -> None:
    # near miss: a free "val" heading a line of numbers is the eval context it always was
    body = "".join(
        f"Epoch {e} | val | loss: {loss}, acc: {acc}\n"
        for e, loss, acc in [(1, 1.2, 0.5), (2, 1.1, 0.55), (3, 1.05, 0.6)]
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [1.2, 1.1, 1.05]
    assert "loss" not in run.series


def test_a_qualified_key_with_no_value_is_a_field_too(tmp_path: Path) -> None:
    # litgpt's draft print (Lightning-AI/litgpt#1055): the missing value's key carries a
    # parenthesised qualifier
    body = "".join(
        f"Ep 1 | iter {i} | step {i}: loss train (curr): {loss}, val (prev val iter): None | "
        f"iter time: 174.64 ms (opt.step)\n"
        for i, loss in enumerate([1.657, 1.506, 1.41, 1.32], start=1)
    )
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [1.657, 1.506, 1.41, 1.32]
    assert not any(n.startswith("eval") for n in run.series)


# -- 2. fairseq --log-format json: the step is num_updates --------------------------------

# fairseq's JsonProgressBar prints every value as a string
_FAIRSEQ_JSON = "".join(
    json.dumps(
        {
            "epoch": 1,
            "update": round(0.02 * k, 3),
            "loss": f"{loss:.3f}",
            "nll_loss": f"{loss - 0.15:.3f}",
            "ppl": "815.87",
            "wps": "15092.1",
            "ups": "4.48",
            "wpb": "3367.2",
            "bsz": "138.9",
            "num_updates": str(100 * k),
            "lr": "1.25e-05",
            "gnorm": "2.262",
            "train_wall": "22",
            "wall": str(25 * k),
        }
    )
    + "\n"
    for k, loss in enumerate([9.821, 9.402, 9.011, 8.73], start=1)
)


def test_fairseq_json_records_are_stepped_by_num_updates(tmp_path: Path) -> None:
    run = load_log(tmp_path, _FAIRSEQ_JSON, "train.log")
    assert [float(s) for s in run.get("loss").steps] == [100, 200, 300, 400]
    assert "num_updates" not in run.series


def test_a_step_key_still_wins_over_num_updates(tmp_path: Path) -> None:
    # near miss: a record that prints both counters is stepped by its own `step`
    body = "".join(
        json.dumps({"step": k, "num_updates": 10 * k, "loss": 3.0 - k / 10}) + "\n"
        for k in range(1, 5)
    )
    run = load_log(tmp_path, body, "metrics.jsonl")
    assert [float(s) for s in run.get("loss").steps] == [1, 2, 3, 4]


# -- 3. two HF runs pasted one after the other, their dicts with no step ------------------


def _hf_dicts(losses: list[float], lr: float, epochs: list[float]) -> str:
    return "".join(
        f"{{'loss': {loss}, 'learning_rate': {lr}, 'epoch': {e}}}\n"
        for loss, e in zip(losses, epochs, strict=True)
    )


_EPOCHS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
_FIRST = [2.31, 2.05, 1.83, 1.66, 1.52, 1.43, 1.37, 1.33]


def test_hf_dicts_whose_epochs_start_over_are_a_second_run(tmp_path: Path) -> None:
    # before: one run of 16 points, a "resume" with a loss jump at the 9th
    body = _hf_dicts(_FIRST, 5e-05, _EPOCHS) + _hf_dicts(
        [3.4, 3.1, 2.9, 2.8, 2.75, 2.7, 2.66, 2.62], 1e-03, _EPOCHS
    )
    runs = read_log(tmp_path, body)
    assert len(runs) == 2
    assert values(runs[0], "loss") == _FIRST
    assert values(runs[1], "loss")[0] == 3.4


def test_hf_dicts_going_back_part_way_stay_one_run(tmp_path: Path) -> None:
    # near miss: a resume from a checkpoint goes on from the checkpoint's epoch (0.5 after
    # 0.8), it does not start over at the first epochs
    body = _hf_dicts(_FIRST, 5e-05, _EPOCHS) + _hf_dicts([1.5, 1.42, 1.36], 5e-05, [0.5, 0.6, 0.7])
    runs = read_log(tmp_path, body)
    assert len(runs) == 1


# -- 4. a printed TrainingArguments: max_steps=-1 is "not set", not a plan -----------------

_TRAINING_ARGS = (
    "TrainingArguments(output_dir='out/', overwrite_output_dir=True, do_train=True, "
    "per_device_train_batch_size=32, learning_rate=3e-05, weight_decay=0.01, "
    "num_train_epochs=3.0, max_steps=-1, warmup_steps=0, logging_dir=None, fp16=True, "
    "fp16_opt_level='O1', seed=42)\n"
)


def test_max_steps_minus_one_is_not_a_planned_length(tmp_path: Path) -> None:
    body = _TRAINING_ARGS + _hf_dicts(_FIRST, 3e-05, _EPOCHS)
    run = one_log(tmp_path, body)
    assert "max_steps" not in run.facts
    assert run.facts["num_train_epochs"].value == 3.0


def test_a_positive_max_steps_is_still_the_plan(tmp_path: Path) -> None:
    # near miss: a set max_steps is read as before
    body = _TRAINING_ARGS.replace("max_steps=-1", "max_steps=500") + _hf_dicts(
        _FIRST, 3e-05, _EPOCHS
    )
    run = one_log(tmp_path, body)
    assert run.facts["max_steps"].value == 500
