"""Epoch headings above lines whose step counter starts over under each of them.

A custom loop that prints "Epoch 2" and then "step 20 , total_loss: ..." lines counting
the epoch's batches is one run of several epochs: read with the printed counter as the
step, the steps went back under every heading and each epoch became a run of its own
(2 points each: too few for any rule). The counter must start over under every new
heading: a global counter ("Iter: 1600" under "Epoch [3/50]") is the step itself, and
where it goes back to 0 under "Epoch [1/50]" a new session starts (a second run).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from traindoc.pipeline import load_all

# the SLi-Rec step lines (tests/real/no_learning_slirec_amazon_valid_auc_0p49_two_evals_tf_metal)
# under epoch headings of the kind custom loops print (constructed: the headings)
_HEADED = (
    "Epoch 1\n"
    "step 20 , total_loss: 1.5846, data_loss: 1.5846\n"
    "step 40 , total_loss: 1.3459, data_loss: 1.3459\n"
    "Epoch 2\n"
    "step 20 , total_loss: 0.5859, data_loss: 0.5859\n"
    "step 40 , total_loss: 0.3387, data_loss: 0.3387\n"
    "Epoch 3\n"
    "step 20 , total_loss: 0.3120, data_loss: 0.3120\n"
    "step 40 , total_loss: 0.2975, data_loss: 0.2975\n"
)

# tests/real/healthy_bilstm_crf_chinese_medical_ner_dev_f1_0p05_to_0p978_appended_runs_train_log
# (verbatim: lines 265-284 and 533-540, a global "Iter" counter and a second session)
_GLOBAL = "2020-05-23 20:10:39,834 - train.log - INFO - Epoch [1/50]\n2020-05-23 20:11:11,028 - train.log - INFO - Iter: 0 | Train Loss: 19825.7910 | Dev Loss: 177.5419 | Dev F1-macro: 0.0085 | Time: 0:00:31 | *\n2020-05-23 20:11:48,853 - train.log - INFO - Iter: 100 | Train Loss: 4970.5537 | Dev Loss: 56.6288 | Dev F1-macro: 0.0450 | Time: 0:01:09 | *\n2020-05-23 20:12:28,590 - train.log - INFO - Iter: 200 | Train Loss: 11953.2754 | Dev Loss: 40.8315 | Dev F1-macro: 0.1221 | Time: 0:01:49 | *\n2020-05-23 20:13:06,195 - train.log - INFO - Iter: 300 | Train Loss: 4156.6245 | Dev Loss: 30.7913 | Dev F1-macro: 0.1767 | Time: 0:02:26 | *\n2020-05-23 20:13:43,291 - train.log - INFO - Iter: 400 | Train Loss: 3372.8823 | Dev Loss: 25.5372 | Dev F1-macro: 0.2326 | Time: 0:03:03 | *\n2020-05-23 20:14:22,403 - train.log - INFO - Iter: 500 | Train Loss: 175.9309 | Dev Loss: 18.5972 | Dev F1-macro: 0.3642 | Time: 0:03:43 | *\n2020-05-23 20:14:59,974 - train.log - INFO - Iter: 600 | Train Loss: 1557.5178 | Dev Loss: 14.0316 | Dev F1-macro: 0.4197 | Time: 0:04:20 | *\n2020-05-23 20:15:36,988 - train.log - INFO - Iter: 700 | Train Loss: 1559.0897 | Dev Loss: 11.6037 | Dev F1-macro: 0.4788 | Time: 0:04:57 | *\n2020-05-23 20:15:43,890 - train.log - INFO - Epoch [2/50]\n2020-05-23 20:16:15,674 - train.log - INFO - Iter: 800 | Train Loss: 1725.0895 | Dev Loss: 9.4871 | Dev F1-macro: 0.5296 | Time: 0:05:36 | *\n2020-05-23 20:16:54,019 - train.log - INFO - Iter: 900 | Train Loss: 109.2420 | Dev Loss: 7.2436 | Dev F1-macro: 0.5803 | Time: 0:06:14 | *\n2020-05-23 20:17:32,406 - train.log - INFO - Iter: 1000 | Train Loss: 155.6110 | Dev Loss: 6.2522 | Dev F1-macro: 0.6129 | Time: 0:06:53 | *\n2020-05-23 20:18:11,464 - train.log - INFO - Iter: 1100 | Train Loss: 90.5041 | Dev Loss: 5.1485 | Dev F1-macro: 0.6426 | Time: 0:07:32 | *\n2020-05-23 20:18:49,048 - train.log - INFO - Iter: 1200 | Train Loss: 1530.6965 | Dev Loss: 4.6082 | Dev F1-macro: 0.6444 | Time: 0:08:09 | *\n2020-05-23 20:19:27,298 - train.log - INFO - Iter: 1300 | Train Loss: 232.5327 | Dev Loss: 4.0608 | Dev F1-macro: 0.6638 | Time: 0:08:47 | *\n2020-05-23 20:20:06,252 - train.log - INFO - Iter: 1400 | Train Loss: 640.4000 | Dev Loss: 3.7425 | Dev F1-macro: 0.7066 | Time: 0:09:26 | *\n2020-05-23 20:20:43,667 - train.log - INFO - Iter: 1500 | Train Loss: 18.3620 | Dev Loss: 3.4712 | Dev F1-macro: 0.7421 | Time: 0:10:04 | *\n2020-05-23 20:20:49,362 - train.log - INFO - Epoch [3/50]\n2020-05-23 20:21:21,907 - train.log - INFO - Iter: 1600 | Train Loss: 129.1643 | Dev Loss: 3.0157 | Dev F1-macro: 0.7837 | Time: 0:10:42 | *\n2020-05-23 21:07:37,001 - train.log - INFO - require_improve:\t5000\n2020-05-23 21:07:38,196 - train.log - INFO - 101218 / 7827 / 16804 sentences in train / dev / test.\n2020-05-23 21:07:42,037 - train.log - INFO - Epoch [1/50]\n2020-05-23 21:08:07,524 - train.log - INFO - Iter: 0 | Train Loss: 46816.7266 | Dev Loss: 177.1681 | Dev F1-macro: 0.0013 | Time: 0:00:25 | *\n2020-05-23 21:08:42,818 - train.log - INFO - Iter: 100 | Train Loss: 17764.7773 | Dev Loss: 56.3677 | Dev F1-macro: 0.0558 | Time: 0:01:01 | *\n2020-05-23 21:09:18,890 - train.log - INFO - Iter: 200 | Train Loss: 7762.8472 | Dev Loss: 37.2377 | Dev F1-macro: 0.1316 | Time: 0:01:37 | *\n2020-05-23 21:09:56,056 - train.log - INFO - Iter: 300 | Train Loss: 4792.2480 | Dev Loss: 27.8467 | Dev F1-macro: 0.2283 | Time: 0:02:14 | *\n2020-05-23 21:10:04,693 - train.log - INFO - Epoch [2/50]\n"


def _runs(tmp_path: Path, text: str):
    path = tmp_path / "paste.log"
    path.write_text(text, encoding="utf-8")
    return load_all(path)


def test_counter_restarting_under_every_heading_is_one_run(tmp_path: Path) -> None:
    runs = _runs(tmp_path, _HEADED)
    assert len(runs) == 1
    loss = runs[0].series["loss"]
    assert len(loss) == 6
    assert (np.diff(loss.steps) > 0).all()  # epoch 2's batches after epoch 1's
    assert loss.values[0] == 1.5846 and loss.values[-1] == 0.2975


def test_global_counter_under_headings_keeps_its_steps(tmp_path: Path) -> None:
    runs = _runs(tmp_path, _GLOBAL)
    assert len(runs) == 2  # the second session starts over at Iter 0 under Epoch [1/50]
    first = runs[0].series["loss"]
    assert first.steps[0] == 0 and first.steps[-1] == 1600  # the printed Iter, untouched
    assert list(runs[1].series["loss"].steps) == [0, 100, 200, 300]
