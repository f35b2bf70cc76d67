"""Reader gaps earlier helpers saw on dev cases (readers20): icefall's `tot_loss[...]`
group, a loss named "CE V", AWR / CS285 return columns, a Kaggle-style `val_score`, a
user's `<- note` after a pasted nanoGPT line, and an integer epoch's repeated report lines.

Each fix is built on the real lines (sources quoted) and has a near miss it must leave alone.
"""

from __future__ import annotations

import math
from pathlib import Path

from tests.readers.helpers import one_log, values
from traindoc.measure.metrics import direction, task_metrics
from traindoc.model.signals import canonical, kind
from traindoc.readers import load_run


def _steps(run, name: str) -> list[float]:
    return [float(s) for s in run.get(name).steps]


def _load(tmp_path: Path, body: str, name: str = "train.log"):
    """The run load_run makes of the text (the derived loss included)."""
    p = tmp_path / name
    p.write_text(body)
    return load_run(p)


# -- 1. icefall: `loss[...]` is the batch, `tot_loss[...]` the tracker's running means ----

# https://github.com/k2-fsa/icefall/issues/320 (two lines, verbatim)
_ICEFALL = (
    "2022-04-21 08:29:40,058 INFO [train.py:518] Epoch 0, batch 2900, loss[ctc_loss=1.005, "
    "att_loss=0.8781, loss=0.9034, over 2403 frames.], tot_loss[ctc_loss=1.037, "
    "att_loss=0.9067, loss=0.9327, over 477013.1835074181 frames.], batch size: 11\n"
    "2022-04-21 08:32:02,863 INFO [train.py:518] Epoch 0, batch 2950, loss[ctc_loss=0.83, "
    "att_loss=0.7117, loss=0.7353, over 2322 frames.], tot_loss[ctc_loss=1.035, "
    "att_loss=0.9043, loss=0.9305, over 477016.8214064601 frames.], batch size: 8\n"
)


def test_icefall_tot_loss_members_are_running_means(tmp_path: Path) -> None:
    # before: the tot_loss group repeated the batch group's names: loss_5, ctc_loss_3
    run = one_log(tmp_path, _ICEFALL)
    assert values(run, "loss") == [0.9034, 0.7353]
    assert values(run, "loss_avg") == [0.9327, 0.9305]
    assert values(run, "ctc_loss_avg") == [1.037, 1.035]
    assert values(run, "att_loss") == [0.8781, 0.7117]
    assert not [n for n in run.series if n.rsplit("_", 1)[-1].isdigit()]


def test_a_group_not_named_for_a_mean_keeps_its_names(tmp_path: Path) -> None:
    # near miss: a `train[...]` group is no running mean; its members keep their names
    body = _ICEFALL.replace("tot_loss[", "train[")
    run = one_log(tmp_path, body)
    assert run.get("loss_avg") is None
    assert run.get("ctc_loss_avg") is None


# -- 2. "CE V=": the cross-entropy of the video stream is the loss --------------------

# https://github.com/VIPL-Audio-Visual-Speech-Understanding/learn-an-effective-lip-reading-
# model-without-pains/issues/19 (lines verbatim)
_LIP = (
    "epoch=0,train_iter=0,eta=36370.56232s,CE V=6.21437,lr=0.004800,best_acc=0.000000\n"
    "epoch=0,train_iter=1,eta=1969.14507s,CE V=6.45720,lr=0.004800,best_acc=0.000000\n"
    "epoch=1,train_iter=3819,eta=2056.03918s,CE V=7.47496,lr=0.004799,best_acc=0.000000\n"
)


def test_ce_with_a_stream_tag_is_the_loss(tmp_path: Path) -> None:
    # before: read as an unnamed series `v`, and the run had no loss
    run = _load(tmp_path, _LIP)
    assert values(run, "ce_v") == [6.21437, 6.4572, 7.47496]
    assert values(run, "loss") == [6.21437, 6.4572, 7.47496]
    assert run.get("v") is None


def test_a_one_letter_key_after_a_non_loss_word_stays_its_own(tmp_path: Path) -> None:
    # near miss: "Top V=" is no loss's stream; the key stays the one word
    run = one_log(tmp_path, _LIP.replace("CE V=", "Top V="))
    assert run.get("ce_v") is None and run.get("top_v") is None


def test_ce_names_the_cross_entropy() -> None:
    assert kind("ce") == "component_loss"  # CNTK's `ce = 2.30255688`
    assert kind("CE V") == "component_loss"
    # near misses: words that merely contain the letters
    assert kind("force") == "other" and kind("ace") == "other" and kind("cet") == "other"


# -- 3. return columns of RL table logs are the reward -------------------------------

# JKinx/awr output/Reacher-v2_8000/log.txt @ e76065e (header and two rows, verbatim)
_AWR = (
    "Iteration                Wall_Time                Samples                  Train_Return             Train_Paths              Test_Return              Test_Paths               Critic_Loss              Critic_Steps             Actor_Loss               Actor_Steps              Adv_Mean                 Adv_Std                  Adv_Weights_Min          Adv_Weights_Mean         Adv_Weights_Max          \n"
    "0                        0.00022517734103732638   2091                     -15.897555944143054      41                       -12.890292205706752      32                       0.0040965335286078765    201                      -0.7503159682114761      1001                     -5.8268247               8.464905                 0.091209665              1.726204                 44.561806                \n"
    "50                       0.030875637465053136     106641                   -13.035910231660951      2050                     -8.874114852735753       32                       0.00013470689566870826   10251                    -0.7299883953936688      51051                    0.08195968               1.6425953                0.00065698684            2.018919                 9589.121                 \n"
)


def test_awr_train_return_is_the_reward(tmp_path: Path) -> None:
    run = one_log(tmp_path, "".join(_AWR), name="log.txt")
    assert values(run, "reward") == [-15.897555944143054, -13.035910231660951]
    # near miss: the deterministic test paths keep their own name (an eval's return)
    assert values(run, "test_return") == [-12.890292205706752, -8.874114852735753]


def test_cs285_episode_return_is_the_reward() -> None:
    # CS285's DQN logger: {"Train_EpisodeReturn": info["episode"]["r"]} per finished episode
    assert canonical("Train_EpisodeReturn") == "reward"
    assert canonical("Eval_AverageReturn") != "reward"  # the eval twin keeps its name


# -- 4. a Kaggle pipeline's `val_score` is an eval task metric, higher better ---------

# EvgeniyAzarov/birdclef-24 baseline/lightning_logs/version_3/metrics.csv @ f8da2f3 (head)
_BIRD = (
    "epoch,step,train_loss,val_score\n"
    "0,49,2.5804696083068848,\n"
    "0,75,,0.9074739813804626\n"
    "0,99,2.2396085262298584,\n"
    "0,149,1.973998785018921,\n"
    "0,151,,0.9607560634613037\n"
)


def test_val_score_is_an_eval_task_metric(tmp_path: Path) -> None:
    d = tmp_path / "lightning_logs" / "version_3"
    d.mkdir(parents=True)
    (d / "metrics.csv").write_text(_BIRD)
    run = load_run(d)
    got = {s.name: up for s, up in task_metrics(run)}
    assert got == {"val_score": True}


def test_score_direction() -> None:
    assert direction("combined_score") is True  # run_glue's STS-B combined score
    assert direction("loss/scores/fake") is None  # near miss: a GAN's scores, no metric
    assert direction("val_scores") is None


# -- 5. a user's `<- note` after a pasted line ------------------------------------------

# https://github.com/karpathy/nanoGPT/pull/392 (lines verbatim)
_NANO = (
    "iter 7: loss 3.9021, time 22.30ms, mfu 0.05%\n"
    "iter 8: loss 3.8626, time 21.99ms, mfu 0.05% <- steady state looks 1.5~2X faster. "
    "compared to no compile version\n"
    "iter 9: loss 3.7704, time 21.84ms, mfu 0.05%\n"
)


def test_arrow_note_after_a_line_is_dropped(tmp_path: Path) -> None:
    # before: the note's numbers made the line a shape of its own, and iter 8 was lost
    run = one_log(tmp_path, _NANO)
    assert _steps(run, "loss") == [7.0, 8.0, 9.0]
    assert values(run, "loss") == [3.9021, 3.8626, 3.7704]


def test_an_arrow_before_a_number_is_kept() -> None:
    from traindoc.readers.logs.lines import drop_arrow_note

    # near misses: R's assignment and a negative number after "<-" are not notes
    assert drop_arrow_note(b"x <- 5") == b"x <- 5"
    assert drop_arrow_note(b"loss 3 <-5") == b"loss 3 <-5"
    assert drop_arrow_note(b"loss 0.3 <-- spike") == b"loss 0.3"


# -- 6. an integer epoch's periodic report lines are distinct points ----------------------

# https://github.com/flashlight/wav2letter/issues/206 (two lines, verbatim): a report every
# --reportiters batches, each printing the epoch it is in
_W2L = (
    "I0215 01:21:18.356604   671 Train.cpp:279] epoch:        2 | lr: 0.100000 | lrcriterion: 0.000000 | runtime: 00:00:07 | bch(ms): 70.58 | smp(ms): 46.81 | fwd(ms): 12.42 | crit-fwd(ms): 9.88 | bwd(ms): 5.22 | optim(ms): 1.17 | loss:        inf | train-TER: 99.96 | data/dev-TER: 99.89 | avg-isz: 524 | avg-tsz: 030 | max-tsz: 069 | hrs:    0.58 | thrpt(sec/sec): 297.15\n"
    "I0215 01:22:41.344269   671 Train.cpp:279] epoch:        2 | lr: 0.100000 | lrcriterion: 0.000000 | runtime: 00:00:07 | bch(ms): 73.59 | smp(ms): 50.86 | fwd(ms): 11.64 | crit-fwd(ms): 9.20 | bwd(ms): 4.89 | optim(ms): 1.19 | loss:        inf | train-TER: 99.98 | data/dev-TER: 100.00 | avg-isz: 461 | avg-tsz: 027 | max-tsz: 055 | hrs:    0.51 | thrpt(sec/sec): 250.96\n"
)


def test_wav2letter_reports_within_one_epoch_are_two_points(tmp_path: Path) -> None:
    # before: both at step 2, the first lost
    run = one_log(tmp_path, "".join(_W2L))
    assert values(run, "train_ter") == [99.96, 99.98]
    assert all(math.isinf(v) for v in values(run, "loss"))
    assert len(run.get("loss")) == 2


# https://github.com/filliptm/ComfyUI-FL-AceStep-Training/issues/2 (lines verbatim): each
# epoch's line printed twice, by the node and by the trainer
_ACESTEP = (
    "[FL AceStep] Epoch 11/100 | Loss: nan\n"
    "Epoch 11/100 | Loss: nan\n"
    "[FL AceStep] Epoch 12/100 | Loss: nan\n"
    "Epoch 12/100 | Loss: nan\n"
)


def test_one_line_printed_twice_stays_one_point(tmp_path: Path) -> None:
    # near miss: the same values at the same epoch are a reprint, one point per epoch
    run = one_log(tmp_path, _ACESTEP)
    assert _steps(run, "loss") == [11.0, 12.0]


def test_an_epoch_with_its_batch_counter_stays_one_point_per_epoch(tmp_path: Path) -> None:
    # near miss: SwAV's "Epoch: [0][50]" prints the batch after the epoch (read as before)
    body = (
        "INFO - 09/02/20 14:19:41 - 0:02:03 - Epoch: [0][50]\tTime 2.376 (1.927)\t"
        "Data 0.000 (0.014)\tLoss 4.2079 (4.2377)\tLr: 0.0019\n"
        "INFO - 09/02/20 14:21:10 - 0:03:31 - Epoch: [0][100]\tTime 1.714 (1.851)\t"
        "Data 0.000 (0.007)\tLoss 4.1233 (4.1972)\tLr: 0.0038\n"
    )
    run = one_log(tmp_path, body)
    assert len(run.get("loss")) == 1
