"""A progress counter over the whole run, printed once per epoch, is the step.

kohya sd-scripts draws one "steps:" bar over all the run's optimizer steps and prints
"epoch 2/80" between its redraws; a paste that keeps one redraw per epoch has the counter
at 41, 82, 123, ...: each epoch's record at k x 41. Read as an in-epoch counter the steps
were epoch x 3280 + counter (13,325 for five epochs of 41 steps).
"""

from __future__ import annotations

from pathlib import Path

from traindoc.readers import load_run

# tests/real/nan_inf_kohya_sd_scripts_lora_avr_loss_nan_every_epoch_from_start (verbatim)
_KOHYA = """\
                    INFO     epoch is incremented. current_epoch: 0, epoch: 1                          train_util.py:779
steps:   1%|▋                                                        | 41/3280 [00:50<1:06:54,  1.24s/it, avr_loss=nan]
epoch 2/80

2025-06-29 11:57:32 INFO     epoch is incremented. current_epoch: 1, epoch: 2                          train_util.py:779
steps:   2%|█▍                                                       | 82/3280 [01:40<1:05:00,  1.22s/it, avr_loss=nan]
epoch 3/80

2025-06-29 11:58:21 INFO     epoch is incremented. current_epoch: 2, epoch: 3                          train_util.py:779
steps:   4%|██                                                      | 123/3280 [02:28<1:03:43,  1.21s/it, avr_loss=nan]
epoch 4/80

2025-06-29 11:59:10 INFO     epoch is incremented. current_epoch: 3, epoch: 4                          train_util.py:779
steps:   5%|██▊                                                     | 164/3280 [03:17<1:02:40,  1.21s/it, avr_loss=nan]
epoch 5/80

2025-06-29 11:59:59 INFO     epoch is incremented. current_epoch: 4, epoch: 5                          train_util.py:779
steps:   6%|███▌                                                    | 205/3280 [04:07<1:01:47,  1.21s/it, avr_loss=nan]
epoch 6/80
"""


def _read(tmp_path: Path, text: str):
    path = tmp_path / "paste.log"
    path.write_text(text, encoding="utf-8")
    return load_run(path)


def test_run_counter_once_per_epoch_is_the_step(tmp_path: Path) -> None:
    run = _read(tmp_path, _KOHYA)
    assert list(run.series["loss"].steps) == [41, 82, 123, 164, 205]


def test_near_miss_in_epoch_counter_once_per_epoch(tmp_path: Path) -> None:
    # constructed: an in-epoch counter printed once an epoch, at no even pace, stays
    # epoch x batches + batch
    text = "".join(
        f"epoch {e}/30\nsteps:  {p}%|##| {i}/500 [00:10<00:20, 1.0it/s, avr_loss=0.{e}]\n"
        for e, i, p in ((1, 120, 24), (2, 310, 62), (3, 330, 66))
    )
    run = _read(tmp_path, text)
    steps = list(run.series["loss"].steps)
    assert steps[-1] > 500
