"""Reader fixes found on real cases (issue 12): ESPnet lines and skips, a Keras card's
precision, log furniture that is no metric, eval lines that repeat a train step.

Each fix has a line it must read, one it must not, and a near miss.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from traindoc.readers.logs import text
from traindoc.readers.logs.records import metric_name

ESPNET = (
    "[host] 2023-05-01 10:00:0{s},000 (trainer:737) INFO: 1epoch:train:{a}-{b}batch: "
    "iter_time=1.5e-04, forward_time=0.142, loss={loss}, optim_step_time=0.046, "
    "optim0_lr0=1.3e-04, train_time=0.5\n"
)


def _one(tmp_path: Path, body: str):
    p = tmp_path / "train.log"
    p.write_text(body)
    (run,) = text.read(p)
    return run


def _espnet(n: int = 4) -> str:
    return "".join(
        ESPNET.format(s=i, a=i * 100 + 1, b=(i + 1) * 100, loss=9.0 - i) for i in range(n)
    )


def test_espnet_location_and_level_are_not_metrics(tmp_path: Path) -> None:
    run = _one(tmp_path, _espnet())
    assert not {"trainer", "info"} & set(run.series)
    assert list(run.get("loss").values) == [9.0, 8.0, 7.0, 6.0]
    assert run.get("lr") is not None
    assert run.fact("trainer") == "espnet"


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        # a word that names a measurement stays, whatever the logger prints before it
        ("step {s} | error: 0.{s}5 | loss: 1.{s}\n", "error"),
        # a key that only starts like a level ("Information") is a key
        ("step {s} | Information gain: 0.{s}5 | loss: 1.{s}\n", "information_gain"),
    ],
)
def test_near_misses_keep_their_keys(tmp_path: Path, line: str, kept: str) -> None:
    run = _one(tmp_path, "".join(line.format(s=s) for s in range(1, 5)))
    assert kept in run.series


def test_source_file_and_level_prefix(tmp_path: Path) -> None:
    # Swin/DeiT: "[time name](main.py 310): INFO Train: [0/300][4050/5004] ... loss 3.2 (3.3)"
    body = "".join(
        f"[2021-04-25 05:35:1{s} swin](main_prune.py 310): INFO Train: [0/300][{s}0/5004]  "
        f"lr 0.000500  loss 3.{s}572 (3.3279)\n"
        for s in range(1, 5)
    )
    run = _one(tmp_path, body)
    assert not {"main_prune.py", "info_train", "train", "info"} & set(run.series)
    assert run.get("loss") is not None


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("trainer", None),  # the logger's module, "(trainer:737)"
        ("INFO", None),
        ("root", None),
        ("loss='binary_crossentropy',\\n", None),  # code around a number
        ("step", "step"),  # a counter, not furniture
        ("error", "error"),  # names a measurement
        ("trainer_loss", "trainer_loss"),  # near miss: furniture inside a longer name
    ],
)
def test_metric_name_rule(key: str, name: str | None) -> None:
    assert metric_name(key, "", "") == name


GRAD_NAN = "(trainer:582) WARNING: The grad norm is {v}. Skipping updating the model.\n"


@pytest.mark.parametrize("v", ["nan", "inf"])
def test_espnet_grad_norm_skip_is_the_skipped_step_event(tmp_path: Path, v: str) -> None:
    run = _one(tmp_path, _espnet() + GRAD_NAN.format(v=v) * 3)
    over = [e for e in run.events if e.kind == "skipped-update"]
    # at the last record's step: its batch range ends at 400 (1epoch:train:301-400batch)
    assert len(over) == 3 and over[0].step == 400
    # the skip happens in fp32 too: it states no precision (a scaler's message does)
    assert run.fact("precision") is None


def test_grad_norm_without_skip_is_no_event(tmp_path: Path) -> None:
    run = _one(tmp_path, _espnet() + "(trainer:582) WARNING: The grad norm is nan.\n")
    assert not [e for e in run.events if e.kind in ("fp16-overflow", "skipped-update")]


def test_scaler_overflow_still_states_fp16(tmp_path: Path) -> None:
    body = "".join(f"step {s} | loss: 1.{s}\n" for s in range(1, 5))
    body += "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0\n"
    assert _one(tmp_path, body).fact("precision") == "fp16"


CARD = """---
tags:
- generated_from_keras_callback
---
# model
This model is a fine-tuned version of [google/mt5-small](https://huggingface.co/google/mt5-small)

## Training procedure

### Training hyperparameters

The following hyperparameters were used during training:
- optimizer: {{'name': 'Adam', 'learning_rate': 5e-05}}
- training_precision: {prec}

### Training results

| Train Loss | Validation Loss | Epoch |
|:----------:|:---------------:|:-----:|
| 2.5        | 2.4             | 0     |
| 2.1        | 2.2             | 1     |
| 1.9        | 2.1             | 2     |
"""


@pytest.mark.parametrize(
    ("prec", "fact"),
    [
        ("mixed_float16", "fp16"),
        ("float16", "fp16"),
        ("mixed_bfloat16", "bf16"),
        ("float32", "fp32"),
        ("whatever64", None),  # near miss: no dtype policy Keras has
    ],
)
def test_keras_card_training_precision(tmp_path: Path, prec: str, fact: str | None) -> None:
    p = tmp_path / "README.md"
    p.write_text(CARD.format(prec=prec))
    (run,) = text.read(p)
    assert run.fact("precision") == fact


TF1 = "= >   step: {s} loss: {loss} accuracy:{acc}\n"
TF1_EVAL = "= >  = = = = = =  > > > > > >    step: {s} loss: {loss} accuracy:{acc}\n"


def test_eval_lines_repeating_a_train_step_are_evals(tmp_path: Path) -> None:
    body = ""
    for s in range(20):
        body += TF1.format(s=s, loss=0.6931, acc=0.60 + s / 100)
        if s % 10 == 9:
            body += TF1_EVAL.format(s=s, loss=0.6931, acc=0.66)
    run = _one(tmp_path, body)
    assert len(run.get("loss")) == 20 and len(run.get("accuracy")) == 20
    assert run.get("accuracy").values[9] == pytest.approx(0.69)  # the train value, kept
    assert list(run.get("eval_loss").steps) == [9, 19]
    assert list(run.get("eval_accuracy").values) == [0.66, 0.66]


def test_a_second_logger_copying_the_line_is_no_eval(tmp_path: Path) -> None:
    # near miss: the repeated line carries the same values (one record printed twice)
    body = ""
    for s in range(20):
        body += TF1.format(s=s, loss=1 - s / 100, acc=0.5)
        if s % 10 == 9:
            body += TF1_EVAL.format(s=s, loss=1 - s / 100, acc=0.5)
    run = _one(tmp_path, body)
    assert "eval_loss" not in run.series


def test_a_val_line_with_its_own_names_is_left_alone(tmp_path: Path) -> None:
    # modded-nanogpt: the val line shares the clock names only; they stay one series
    body = ""
    for s in range(1, 21):
        body += f"step:{s}/20 train_loss:{4 - s / 10:.2f} train_time:{s * 100}ms step_avg:100ms\n"
        if s % 10 == 0:
            body += (
                f"step:{s}/20 val_loss:{4 - s / 10:.2f} train_time:{s * 100 + 5}ms step_avg:99ms\n"
            )
    run = _one(tmp_path, body)
    assert not [n for n in run.series if n.startswith("eval_") and n != "eval_loss"]
