"""Lines traindoc did not read before (readers23): LR plateau messages (Keras', PyTorch's)
as the LR series, aihwkit's "Loss error", lone one-token losses ("grpo_loss is 0.0123")
once they repeat, a block's "<Name> loss" lines named in full, long-format tables with a
phase column (CSV, TSV, space-aligned and Markdown), and MATLAB trainNetwork's two-row
header. Each with a near miss it must leave alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.helpers import load_log, one_log, values
from traindoc.model import Run
from traindoc.readers import load_run

# -- LR plateau messages ------------------------------------------------------------------

# The shape of tests/real/no_learning_facenet_keras_triplet_val_loss_frozen_at_margin_0p2000
# (Keras 2, verbose=1): the message after the epoch's bar and its checkpoint notice.
_KERAS_BAR = (
    "1539/1539 [==============================] - 3411s 2s/step - loss: {l} - val_loss: 0.2000\n"
)


def _keras(plateau: str) -> str:
    body = ""
    for epoch, loss in enumerate((0.1902, 0.1872, 0.1844, 0.1820, 0.1794), start=1):
        body += f"Epoch {epoch}/15\n" + _KERAS_BAR.format(l=loss)
        body += f"\nEpoch {epoch:05d}: val_loss did not improve from 0.20000\n"
        if epoch == 3:
            body += plateau
    return body


def test_keras_plateau_message_is_the_lr_at_the_epoch_it_ends(tmp_path: Path) -> None:
    run = one_log(
        tmp_path, _keras("\nEpoch 00003: ReduceLROnPlateau reducing learning rate to 4.9999e-06.\n")
    )
    assert values(run, "lr") == [4.9999e-06]
    # printed when epoch 3 ends: the LR the scheduler just set, at that epoch's step (as an
    # HF trainer logs the LR its scheduler set), not at the next epoch's
    assert run.get("lr").steps.tolist() == [run.get("loss").steps.tolist()[2]]
    assert len(run.get("loss")) == 5 and values(run, "epoch") == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_keras_plateau_newer_spelling_reads_too(tmp_path: Path) -> None:
    run = one_log(
        tmp_path, _keras("\nEpoch 3: ReduceLROnPlateau reducing learning rate to 1e-05.\n")
    )
    assert values(run, "lr") == [1e-05]


def test_keras_plateau_under_the_next_heading_at_a_paste_end_stays_in_the_run(
    tmp_path: Path,
) -> None:
    # tests/real/healthy_sleap_...: verbose=2 prints the message under the "Epoch 22/200"
    # heading, and the paste ends before that epoch's line: one run, the LR where it got to
    line = "1490/1490 - 105s - loss: {l} - val_loss: 1.6679e-05 - lr: 1.0000e-04 - 105s/epoch\n"
    body = "".join(f"Epoch {e}/200\n" + line.format(l=1e-5 * (3 - e / 10)) for e in (19, 20, 21))
    body += "Epoch 22/200\n\nEpoch 00022: ReduceLROnPlateau reducing learning rate to 5e-05.\n"
    run = one_log(tmp_path, body)
    assert len(run.get("loss")) == 3
    assert max(run.get("lr").steps) == max(run.get("loss").steps)


def test_a_plateau_sentence_in_prose_is_no_lr(tmp_path: Path) -> None:
    body = _keras("I think ReduceLROnPlateau reducing learning rate to 1e-5 did not help.\n")
    assert one_log(tmp_path, body).get("lr") is None


def test_pytorch_plateau_message_reads_group_0_only(tmp_path: Path) -> None:
    # PyTorch's verbose message (no_learning_r2c_vcr_... and deep_avsr's shape), one line per
    # param group: a second group's lower LR would read as a drop at the same step
    body = "".join(f"Epoch {e} train loss {1 - e / 10:.2f} val loss 0.95\n" for e in (1, 2, 3))
    body += "Epoch     3: reducing learning rate of group 0 to 1.0000e-04.\n"
    body += "Epoch     3: reducing learning rate of group 1 to 1.0000e-05.\n"
    body += "".join(f"Epoch {e} train loss {1 - e / 10:.2f} val loss 0.95\n" for e in (4, 5))
    run = one_log(tmp_path, body)
    assert values(run, "lr") == [1e-04]
    assert run.get("lr").steps.tolist() == [3]


# -- losses on lines of their own -------------------------------------------------------------


def test_aihwkit_loss_error_lines_are_the_loss(tmp_path: Path) -> None:
    # IBM aihwkit's examples: `print("Loss error: {:.16f}".format(loss))` after each step
    body = "".join(f"Loss error: {0.5 / (i + 1):.16f}\n" for i in range(8))
    run = one_log(tmp_path, body)
    assert len(run.get("loss")) == 8 and values(run, "loss")[0] == 0.5


def test_lone_one_token_loss_lines_read_once_they_repeat(tmp_path: Path) -> None:
    body = "".join(f"grpo_loss is {0.0123 - 0.001 * i:.4f}\n" for i in range(5))
    run = load_log(tmp_path, body)
    assert values(run, "grpo_loss") == [0.0123, 0.0113, 0.0103, 0.0093, 0.0083]
    assert len(run.get("loss")) == 5  # the only loss logged: the run's loss (derived)


def test_a_one_token_loss_setting_printed_once_is_no_record(tmp_path: Path) -> None:
    body = "z_loss: 0.0001\nmse_loss: 0.5\nmse_loss: 0.4\n"
    body += "".join(f"step {i} loss {2.0 - 0.1 * i:.1f}\n" for i in range(1, 6))
    run = one_log(tmp_path, body)
    assert run.get("z_loss") is None and run.get("mse_loss") is None
    assert len(run.get("loss")) == 5


def test_named_loss_lines_alone_read_under_their_whole_name(tmp_path: Path) -> None:
    # "<Name> loss: x" printed each step by a hand-written loop: the CE loss, not "a" loss
    body = "".join(f"CE loss: {2.1 - 0.1 * i:.1f}\n" for i in range(4))
    run = load_log(tmp_path, body)
    assert values(run, "ce_loss") == [2.1, 2.0, 1.9, 1.8]
    assert len(run.get("loss")) == 4  # the only loss logged (derived)


def test_alternating_named_losses_are_one_record_per_round(tmp_path: Path) -> None:
    body = "".join(
        f"Reconstruction loss: {0.6 - 0.1 * e:.2f}\nKL loss: {0.01 * e:.2f}\n" for e in (1, 2, 3)
    )
    run = load_log(tmp_path, body)
    assert run.get("kl_loss").steps.tolist() == run.get("reconstruction_loss").steps.tolist()
    assert values(run, "loss") == pytest.approx([0.51, 0.42, 0.33])  # their sum (derived)
    gan = "".join(f"Generator loss: {2 - e / 10}\nDiscriminator loss: 0.6\n" for e in range(4))
    run = load_log(tmp_path, gan, "gan.log")
    assert len(run.get("generator_loss")) == 4 and run.get("loss") is None  # two players


def test_a_log_level_before_a_loss_is_no_name_of_it(tmp_path: Path) -> None:
    # NeMo's "WARNING: Loss is NaN or inf tensor(nan, ...)" repeated (tests/real/nan_nemo_...):
    # an event per skipped batch, not a loss named "WARNING" nor points of the loss
    body = "step 1 loss 100.5\nstep 2 loss 148.9\n"
    body += (
        "WARNING: Loss is NaN or inf tensor(nan, device='cuda:0', grad_fn=<MeanBackward0>)\n" * 5
    )
    run = one_log(tmp_path, body)
    assert len(run.get("loss")) <= 3 and run.get("warning_loss") is None


def test_a_running_best_loss_alone_is_no_record(tmp_path: Path) -> None:
    body = "".join(f"Best loss: {0.5 - 0.1 * i:.1f}\nbest_loss: 0.1\n" for i in range(4))
    body += "".join(f"step {i} loss {2.0 - 0.1 * i:.1f}\n" for i in range(1, 6))
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [1.9, 1.8, 1.7, 1.6, 1.5]
    assert run.get("best_loss") is None


def test_loss_terms_one_per_line_under_an_epoch_heading_keep_their_names(
    tmp_path: Path,
) -> None:
    # a VAE loop's "Epoch N" then "Reconstruction loss: x" and "KL loss: y": each alone would
    # name "the" loss, and the KL term (printed last) would stand for it
    body = "".join(
        f"Epoch {e}\nReconstruction loss: {0.6 - 0.1 * e:.2f}\nKL loss: {0.01 * e:.2f}\n"
        for e in (1, 2, 3)
    )
    run = load_log(tmp_path, body)
    assert values(run, "reconstruction_loss") == [0.5, 0.4, 0.3]
    assert values(run, "kl_loss") == [0.01, 0.02, 0.03]
    assert values(run, "loss") == pytest.approx([0.51, 0.42, 0.33])  # their sum (derived)


def test_one_loss_per_epoch_heading_is_still_the_loss(tmp_path: Path) -> None:
    body = "".join(f"Epoch {e}\nReconstruction loss: {0.6 - 0.1 * e:.2f}\n" for e in (1, 2, 3))
    assert values(one_log(tmp_path, body), "loss") == [0.5, 0.4, 0.3]


# -- a record printed as a sentence ------------------------------------------------------------


def test_loss_sentences_after_their_step_read_as_records(tmp_path: Path) -> None:
    body = "".join(f"Epoch {e}: the loss is {0.6 - 0.1 * e:.3f}\n" for e in (1, 2, 3))
    assert values(one_log(tmp_path, body), "loss") == [0.5, 0.4, 0.3]
    body = "".join(
        f"epoch {e}, the train loss is {0.6 - 0.1 * e:.3f} and the val loss is 0.6{e}\n"
        for e in (1, 2, 3)
    )
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [0.61, 0.62, 0.63]
    assert values(run, "epoch") == [1.0, 2.0, 3.0]


def test_a_users_sentence_about_the_loss_is_no_record(tmp_path: Path) -> None:
    body = "The loss is nan\nAfter 3 epochs the loss is 0.5 and the model is broken\n"
    body += "".join(f"step {i} loss {2.0 - 0.1 * i:.1f}\n" for i in range(1, 6))
    assert values(one_log(tmp_path, body), "loss") == [1.9, 1.8, 1.7, 1.6, 1.5]


# -- long-format tables: a phase column ---------------------------------------------------------

_ROWS = [(1, "train", 0.812, 0.61), (1, "val", 0.901, 0.58), (2, "train", 0.612, 0.71)]
_ROWS += [(2, "val", 0.701, 0.66), (3, "train", 0.512, 0.75), (3, "val", 0.651, 0.66)]


def _table(sep: str, md: bool = False) -> str:
    cells = [("epoch", "phase", "loss", "acc"), *_ROWS]
    if md:
        lines = ["| " + " | ".join(str(c) for c in row) + " |" for row in cells]
        lines.insert(1, "|---|---|---|---|")
    else:
        lines = [sep.join(str(c) for c in row) for row in cells]
    return "\n".join(lines) + "\n"


def _split_by_phase(run: Run) -> None:
    assert values(run, "loss") == [0.812, 0.612, 0.512]
    assert values(run, "eval_loss") == [0.901, 0.701, 0.651]
    assert values(run, "val_acc") == [0.58, 0.66, 0.66]
    assert run.get("loss").steps.tolist() == run.get("eval_loss").steps.tolist()


def test_phase_column_splits_train_and_val_rows_in_pasted_tables(tmp_path: Path) -> None:
    for body in (_table(","), _table("\t"), _table("  "), _table("", md=True)):
        _split_by_phase(one_log(tmp_path, body))


def test_phase_column_in_a_csv_file(tmp_path: Path) -> None:
    p = tmp_path / "history.csv"
    p.write_text(_table(","))
    _split_by_phase(load_run(p))


def test_a_row_whose_phase_cell_names_no_phase_is_not_read(tmp_path: Path) -> None:
    body = _table(",").replace("3,val,", "3,swa,")
    run = one_log(tmp_path, body)
    assert values(run, "eval_loss") == [0.901, 0.701]


def test_markdown_note_cells_stay_out_of_the_values(tmp_path: Path) -> None:
    body = "| epoch | train_loss | val_loss | note |\n|---|---|---|---|\n"
    body += "| 1 | 0.812 | 0.901 | |\n| 2 | 0.612 | 0.701 | |\n| 3 | 0.512 | 0.601 | lr halved |\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [0.812, 0.612, 0.512]
    assert values(run, "eval_loss") == [0.901, 0.701, 0.601]


# -- MATLAB trainNetwork ------------------------------------------------------------------------

# trainNetwork's verbose table (Deep Learning Toolbox), each name over two header rows
MATLAB = """\
|======================================================================================================================|
|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Validation  |  Mini-batch  |  Validation  |  Base Learning  |
|         |             |   (hh:mm:ss)   |   Accuracy   |   Accuracy   |     Loss     |     Loss     |      Rate       |
|======================================================================================================================|
|       1 |           1 |       00:00:01 |       10.16% |       12.50% |       2.3578 |       2.3012 |          0.0100 |
|       2 |          50 |       00:00:09 |       75.00% |       70.31% |       0.8203 |       0.9450 |          0.0100 |
|       3 |         100 |       00:00:17 |       88.28% |       80.47% |       0.4213 |       0.7013 |          0.0010 |
|======================================================================================================================|
"""


def test_matlab_two_row_header_names_each_column(tmp_path: Path) -> None:
    run = one_log(tmp_path, MATLAB)
    assert values(run, "loss") == [2.3578, 0.8203, 0.4213]
    assert values(run, "eval_loss") == [2.3012, 0.9450, 0.7013]
    assert values(run, "lr") == [0.01, 0.01, 0.001]
    assert run.get("loss").steps.tolist() == [1, 50, 100]


def test_a_row_with_a_blank_cell_and_a_number_is_no_continuation(tmp_path: Path) -> None:
    # a first data row whose eval cell is empty, right under the header: a row, not names
    body = "| step | loss | val_loss |\n| 10 | 2.5 | |\n| 20 | 2.4 | 2.6 |\n| 30 | 2.3 | 2.5 |\n"
    run = one_log(tmp_path, body)
    assert values(run, "loss") == [2.5, 2.4, 2.3]
    assert values(run, "eval_loss") == [2.6, 2.5]
