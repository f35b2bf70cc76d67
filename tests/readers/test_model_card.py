"""An HF Trainer model card (README.md): its hyperparameter list and its results table.

The header bullets under "results on the evaluation set" are the final eval values,
already in the table; `No log` in the Training Loss column is a value never logged
(logging_steps above the run's steps), not a number and not a text column.
"""

from __future__ import annotations

import math
from pathlib import Path

from traindoc.readers import load_runs

CARD = """\
It achieves the following results on the evaluation set:
- Loss: 6.5909

## Training procedure

### Training hyperparameters

The following hyperparameters were used during training:
- learning_rate: 5e-05
- train_batch_size: 32
- gradient_accumulation_steps: 8
- total_train_batch_size: 256
- lr_scheduler_type: cosine
- lr_scheduler_warmup_steps: 1000
- num_epochs: 50
- mixed_precision_training: Native AMP

### Training results

| Training Loss | Epoch | Step | Validation Loss |
|:-------------:|:-----:|:----:|:---------------:|
| No log        | 0.94  | 15   | 10.7009         |
| No log        | 1.94  | 30   | 10.0799         |
| No log        | 2.94  | 45   | nan             |
"""


def _card(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "README.md"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_hyperparameter_list_is_the_runs_plan(tmp_path: Path) -> None:
    (run,) = load_runs(_card(tmp_path, CARD))
    assert run.fact("warmup_steps") == 1000
    assert run.fact("num_train_epochs") == 50
    assert run.fact("effective_batch") == 256
    assert run.fact("precision") == "fp16"  # the card says Native AMP only for --fp16
    assert run.fact("learning_rate") == 5e-05 and run.fact("lr_scheduler") == "cosine"


def test_no_log_rows_give_eval_points_and_no_train_loss(tmp_path: Path) -> None:
    (run,) = load_runs(_card(tmp_path, CARD))
    assert run.get("loss") is None  # not the header's "- Loss: 6.5909", not "No log"
    ev = run.get("eval_loss")
    assert ev is not None and ev.steps.tolist() == [15, 30, 45]
    assert ev.values[0] == 10.7009 and math.isnan(ev.values[2])
    assert run.get("epoch").values.tolist() == [0.94, 1.94, 2.94]


def test_a_train_loss_logged_on_some_rows_is_read_on_those(tmp_path: Path) -> None:
    """The near miss: a longer run whose first rows come before the first logging step."""
    text = CARD.replace("| No log        | 2.94  | 45 ", "| 7.1234        | 2.94  | 45 ")
    (run,) = load_runs(_card(tmp_path, text))
    loss = run.get("loss")
    assert loss is not None and loss.steps.tolist() == [45] and loss.values[0] == 7.1234
    assert len(run.get("eval_loss")) == 3


def test_max_steps_ratio_and_apex_spellings(tmp_path: Path) -> None:
    """`training_steps` is written when max_steps is set; Apex is fp16 too."""
    text = (
        CARD.replace("- num_epochs: 50\n", "- training_steps: 45\n")
        .replace("lr_scheduler_warmup_steps: 1000", "lr_scheduler_warmup_ratio: 0.1")
        .replace("Native AMP", "Apex, opt level O1")
    )
    (run,) = load_runs(_card(tmp_path, text))
    assert run.fact("max_steps") == 45 and run.fact("warmup_ratio") == 0.1
    assert run.fact("precision") == "fp16"


def test_no_precision_without_the_cards_line(tmp_path: Path) -> None:
    """Without mixed_precision_training the card says nothing of precision (fp32 or bf16:
    the card does not tell), and another tool's `mixed_precision: no` is no precision."""
    plain = CARD.replace("- mixed_precision_training: Native AMP\n", "")
    (run,) = load_runs(_card(tmp_path, plain))
    assert run.fact("precision") is None
    other = CARD.replace("- mixed_precision_training: Native AMP", "- mixed_precision: no")
    (run,) = load_runs(_card(tmp_path, other))
    assert run.fact("precision") is None


KERAS_CARD = """\
This model is a fine-tuned version of [distilbert-base-multilingual-cased](https://huggingface.co/x) on an unknown dataset.

| Train Loss | Train Sparse Categorical Accuracy | Validation Loss | Validation Sparse Categorical Accuracy | Epoch |
|:----------:|:---------------------------------:|:---------------:|:--------------------------------------:|:-----:|
| 0.4908     | 0.8335                            | 0.2872          | 0.9060                                 | 0     |
| 0.2496     | 0.9180                            | 0.3137          | 0.8978                                 | 1     |
| 0.1947     | 0.9351                            | 0.3234          | 0.9062                                 | 2     |
"""


def test_a_keras_cards_table_with_four_word_column_names(tmp_path: Path) -> None:
    (run,) = load_runs(_card(tmp_path, KERAS_CARD))
    assert run.get("loss").values.tolist() == [0.4908, 0.2496, 0.1947]
    assert run.get("eval_loss").values.tolist() == [0.2872, 0.3137, 0.3234]
    assert run.fact("regime") == "full-finetune"  # "a fine-tuned version of", no PEFT
    assert run.fact("base_model") == "distilbert-base-multilingual-cased"


def test_a_peft_card_is_a_lora_fine_tune(tmp_path: Path) -> None:
    (run,) = load_runs(_card(tmp_path, "---\nlibrary_name: peft\n---\n" + KERAS_CARD))
    assert run.fact("regime") == "lora"


def test_space_aligned_seven_word_names_are_still_a_sentence(tmp_path: Path) -> None:
    """Only pipes or tabs bound a long name; a space-separated line of 4+ word chunks
    is prose, and no table is read from it."""
    text = (
        "the loss went down at first  then the validation loss went up  epoch\n"
        "0.49  0.28  0\n0.24  0.31  1\n0.19  0.32  2\n"
    )
    runs = load_runs(_card(tmp_path, text + KERAS_CARD))
    assert runs[0].get("loss").values.tolist() == [0.4908, 0.2496, 0.1947]


CARRIED = """\
### Training results

| Training Loss | Epoch | Step | Validation Loss | Rouge1 |
|:-------------:|:-----:|:----:|:---------------:|:------:|
| No log        | 1.0   | 334  | 2.2258          | 7.3686 |
| No log        | 2.0   | 668  | 2.1389          | 9.0551 |
| 3.2831        | 3.0   | 1002 | 2.1030          | 9.2792 |
| 3.2831        | 4.0   | 1336 | 2.0841          | 9.337  |
| 3.2831        | 5.0   | 1670 | 2.0487          | 9.4244 |
| 2.9012        | 6.0   | 2004 | 2.0580          | 9.4598 |
| 2.9012        | 7.0   | 2338 | 2.0426          | 9.501  |
"""


def test_a_train_loss_carried_over_several_evals_is_one_log(tmp_path: Path) -> None:
    # The card's Training Loss cell is the last loss logged before each eval: with
    # logging_steps above the eval interval one logged value fills several rows.
    (run,) = load_runs(_card(tmp_path, CARRIED))
    loss = run.get("loss")
    assert loss is not None
    assert list(loss.values) == [3.2831, 2.9012]
    assert list(loss.steps) == [1002, 2004]  # the first row that shows each value
    assert len(run.get("eval_loss")) == 7  # every eval is its own reading


PER_CLASS = """\
### Training results

| Training Loss | Epoch | Step | Validation Loss | 0 Precision | 0 Recall | 0 F1-score | 1 Precision | 1 Recall | 1 F1-score |
|:-------------:|:-----:|:----:|:---------------:|:-----------:|:--------:|:----------:|:-----------:|:--------:|:----------:|
| 2.395         | 4.16  | 100  | 2.2004          | 0.2449      | 1.0      | 0.3934     | 0.0         | 0.0      | 0.0        |
| 2.2919        | 8.33  | 200  | 2.1576          | 0.2449      | 1.0      | 0.3934     | 0.0         | 0.0      | 0.0        |
| 1.01          | 41.65 | 1000 | 0.9496          | 0.2474      | 1.0      | 0.3967     | 1.0         | 0.24     | 0.3871     |
"""


def test_per_class_columns_named_by_a_class_index_are_a_header(tmp_path: Path) -> None:
    """'| 0 Precision | 1 Recall |': a number before a name is part of the column's name
    (the class), so the row is the table's header and each class keeps its own series."""
    (run,) = load_runs(_card(tmp_path, PER_CLASS))
    assert list(run.get("loss").values) == [2.395, 2.2919, 1.01]
    assert list(run.get("eval_loss").steps) == [100, 200, 1000]
    f1 = [s for n, s in run.series.items() if "f1" in n.lower()]
    assert len(f1) == 2
    assert sorted(float(s.values[-1]) for s in f1) == [0.3871, 0.3967]


def test_a_key_before_its_value_between_pipes_is_a_record_not_a_header(tmp_path: Path) -> None:
    """PyTorch's word-language-model lines ("| epoch   1 |   200/ 2983 batches | lr 20.00 |
    ... | loss  6.95 | ppl  1043.26") hold values after their keys: records, not a header."""
    text = "".join(
        f"| epoch   1 | {b:5d}/ 2983 batches | lr 20.00 | ms/batch 52.10 | "
        f"loss  {loss:5.2f} | ppl {math.exp(loss):8.2f}\n"
        for b, loss in ((200, 7.63), (400, 6.86), (600, 6.49), (800, 6.30))
    )
    (run,) = load_runs(_card(tmp_path, text).rename(tmp_path / "log.txt"))
    assert list(run.get("loss").values) == [7.63, 6.86, 6.49, 6.30]
