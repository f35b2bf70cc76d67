"""The total beside an in-epoch batch counter is one epoch's length, not the run's plan.

"Epoch 2 ; Iter 50/213" counts the batches of epoch 2 out of the epoch's 213: the
steps are numbered epoch x batches + batch, and `max_steps` = 213 would tell the rules that
judge against the plan (warmup share, reached the end, schedule) that a run of many
epochs was over after its first. The plan is epochs x 213 when the epochs' total is
printed ("Epoch 2/30"), and unknown when it is not.
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run

# tests/real/healthy_harvardnlp_data2text_rotowire_ppl_8226_to_31p6_rerun_no_nan (verbatim)
_ONMT_LUA = (
    "Epoch 1 ; Iter 150/213 ; LR 1.0000 ; Target tokens/s 1307 ; PPL 2249.66 ;\n"
    "Epoch 1 ; Iter 200/213 ; LR 1.0000 ; Target tokens/s 1313 ; PPL 1623.21 ;\n"
    "Epoch 2 ; Iter 50/213 ; LR 1.0000 ; Target tokens/s 1326 ; PPL 311.73 ;\n"
    "Epoch 2 ; Iter 100/213 ; LR 1.0000 ; Target tokens/s 1322 ; PPL 197.73 ;\n"
)


def _read(tmp_path: Path, text: str):
    path = tmp_path / "paste.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def test_in_epoch_total_is_not_the_plan(tmp_path: Path) -> None:
    run = _read(tmp_path, _ONMT_LUA)
    s = next(iter(run.series.values()))
    assert list(s.steps)[2] > 213  # epoch 2's batches sit after epoch 1's
    assert run.fact("max_steps") is None  # 213 is one epoch's batches


def test_epochs_total_times_batches_is_the_plan(tmp_path: Path) -> None:
    # constructed: the same lines with the epochs' total printed ("Epoch 2/30")
    run = _read(
        tmp_path,
        _ONMT_LUA.replace("Epoch 1 ;", "Epoch 1/30 ;").replace("Epoch 2 ;", "Epoch 2/30 ;"),
    )
    assert run.fact("num_train_epochs") == 30
    assert run.fact("max_steps") == 30 * 213


def test_near_miss_run_counter_keeps_its_total(tmp_path: Path) -> None:
    # a counter over the whole run ("Step 150/5000") is the plan, epoch or not
    text = "".join(
        f"Epoch {e} ; Step {s}/5000 ; loss {v}\n"
        for e, s, v in ((1, 150, 2.5), (1, 200, 2.4), (2, 263, 2.3), (2, 313, 2.2))
    )
    run = _read(tmp_path, text)
    assert run.fact("max_steps") == 5000
