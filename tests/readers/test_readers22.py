"""Reader gaps seen on dev cases (readers22): WeNet's `TRAIN Batch EPOCH/BATCH` counter
(the number after the slash climbs, so it is no total) and a timestamped logger message
between records read as a user's prose (a paste cut).

Each fix is built on the real lines (sources quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import one_log


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


# https://github.com/wenet-e2e/wenet/issues/825 (verbatim, the last line cut in the thread)
_WENET = (
    "2021-11-30 17:25:35,809 DEBUG TRAIN Batch 0/4000 loss inf loss_att 78.135910 loss_ctc inf "
    "lr 0.00001905 rank 0\n"
    "2021-11-30 17:25:56,021 WARNING NaN or Inf found in input tensor.\n"
    "2021-11-30 17:26:13,986 WARNING NaN or Inf found in input tensor.\n"
    "2021-11-30 17:26:33,053 DEBUG TRAIN Batch 0/4100 loss 156.104248 loss_att 146.877640 "
    "loss_ctc 177.633026 lr 0.00001953 rank 0\n"
    "2021-11-30 17:27:41,611 WARNING NaN or Inf found in input tensor.\n"
    "2021-11-30 17:28:30,782 DEBUG TRAIN Batch 0/4200 loss 90.697769 loss_att 89.033356 "
    "loss_ctc 94.581398 lr 0.00002000 rank 0\n"
    "2021-11-30 17:29:08,341 WARNING NaN or Inf found in input tensor.\n"
    "2021-11-30 17:29:34,919 DEBUG TRAIN Batch 0/4300 loss 193.539017 loss_att 188.552368\n"
)


def test_wenet_batch_after_the_slash_is_the_counter(tmp_path: Path) -> None:
    # before: "0/4000" read as a bar at 0 of 4000, every line one finished epoch: steps 1-4
    run = one_log(tmp_path, _WENET)
    assert _steps(run, "loss") == [4000.0, 4100.0, 4200.0, 4300.0]


def test_a_counter_over_a_fixed_total_is_still_a_bar(tmp_path: Path) -> None:
    # near miss: "Batch 100/4000", "Batch 200/4000": the total stays, the count climbs
    body = (
        _WENET.replace("Batch 0/4000", "Batch 100/4000")
        .replace("Batch 0/4100", "Batch 200/4000")
        .replace("Batch 0/4200", "Batch 300/4000")
        .replace("Batch 0/4300", "Batch 400/4000")
    )
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [100.0, 200.0, 300.0, 400.0]


def test_a_logger_warning_between_records_is_no_paste_cut(tmp_path: Path) -> None:
    # before: each "... WARNING NaN or Inf found in input tensor." was prose: paste_cuts
    run = one_log(tmp_path, _WENET)
    assert not run.fact("paste_cuts")


def test_a_users_sentence_between_records_is_still_a_cut(tmp_path: Path) -> None:
    # near miss: the same place holds the user's own words (no stamp, no level)
    body = _WENET.replace(
        "2021-11-30 17:27:41,611 WARNING NaN or Inf found in input tensor.",
        "then I waited 2 more hours and the same thing happened again",
    )
    run = one_log(tmp_path, body)
    assert run.fact("paste_cuts")


# https://github.com/wenet-e2e/wenet/issues/496 (verbatim): one step, printed by 4 ranks
_RANKS = (
    "2021-07-07 04:50:40,966 WARNING NaN or Inf found in input tensor.\n"
    "2021-07-07 04:50:41,064 DEBUG TRAIN Batch 20100/282164 loss nan loss_att nan loss_ctc nan "
    "lr 0.00004021 rank 3\n"
    "2021-07-07 04:50:41,080 DEBUG TRAIN Batch 20100/282164 loss nan loss_att nan loss_ctc nan "
    "lr 0.00004021 rank 0\n"
    "2021-07-07 04:50:41,082 DEBUG TRAIN Batch 20100/282164 loss nan loss_att nan loss_ctc nan "
    "lr 0.00004021 rank 2\n"
    "2021-07-07 04:50:41,084 DEBUG TRAIN Batch 20100/282164 loss nan loss_att nan loss_ctc nan "
    "lr 0.00004021 rank 1\n"
)


def test_a_line_per_rank_is_one_step(tmp_path: Path) -> None:
    # before: the repeated counter read as four finished epochs, steps 1-4
    run = one_log(tmp_path, _RANKS)
    assert _steps(run, "loss") == [20100.0]


def test_a_lora_rank_at_the_line_end_names_no_process(tmp_path: Path) -> None:
    # near miss: "lora_rank 8" on every line is a setting, not four processes
    body = "".join(
        ln.rsplit(" rank ", 1)[0] + " lora_rank 8\n" if "TRAIN" in ln else ln + "\n"
        for ln in _RANKS.splitlines()
    )
    run = one_log(tmp_path, body)
    assert len(_steps(run, "loss")) == 4


# https://github.com/facebookresearch/fairseq/issues/430 (verbatim): the last refresh of
# epoch 9's bar, padded with blanks, then the epoch's summary on the same pasted line
_PADDED = (
    "| epoch 009: 100%|█| 35/35 [00:40<00:00,  1.22s/it, loss=11.869, ppl=3740.42, wps=2218, "
    "ups=0.4, wpb=2560, bsz=174, num_updates=315, lr=0.025, gnorm=0.637, clip"
    + " "
    * 160
    + "| epoch 009 | loss 11.869 | ppl 3740.42 | wps 2218 | ups 0.4 | wpb 2560 | bsz 174 "
    "| num_updates 315 | lr 0.025 | gnorm 0.637 | clip 100% | oom 0 | wall 686 | train_wall 354\n"
    "| epoch 009 | valid on 'valid' subset | valid_loss 12.0871 | valid_ppl 4350.90 "
    "| num_updates 315 | best 12.0871\n"
)


def test_a_padded_bar_and_the_print_after_it_are_two_lines(tmp_path: Path) -> None:
    # before: the summary's keys became suffixed copies of the bar's (loss_8, bsz_13)
    run = one_log(tmp_path, _PADDED)
    assert not [n for n in run.series if n.rsplit("_", 1)[-1].isdigit()]
    assert _steps(run, "loss") == [315.0]


def test_a_bar_with_a_few_blanks_stays_one_line(tmp_path: Path) -> None:
    # near miss: a postfix's own spacing is no padding: one record, the bar's values
    body = _PADDED.replace(" " * 160, "  ", 1)
    run = one_log(tmp_path, body)
    assert _steps(run, "loss") == [315.0]
    assert [n for n in run.series if n.rsplit("_", 1)[-1].isdigit()]
