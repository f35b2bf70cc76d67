"""Two formats real issue excerpts print that were half read: Informer2020's / the
Time-Series-Library's `adjust_learning_rate` line between epochs ("Updating learning rate
to 7.22e-280"), the LR the next epoch runs at; and a GAN's players under bare letters in
a tqdm postfix (musika's "DR=713, DF=nan, G=nan"), losses only when both sides are there.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.readers.helpers import load_log, one_log, values
from traindoc.engine import diagnose
from traindoc.model.signals import kind

# source: https://github.com/zhouhaoyi/Informer2020/issues/469 (comment by boris-lb,
# 2023-07-14), the first 11 lines of its log, verbatim
INFORMER = (
    "Epoch: 915 cost time: 8.273383140563965\n"
    "Epoch: 915, Steps: 153 | Train Loss: 838.6419534 Vali Loss: 22288.1269531"
    " Test Loss: 13408.7802734\n"
    "EarlyStopping counter: 261 out of 3\n"
    "Updating learning rate to 7.220777503459319e-280\n"
    "\titers: 100, epoch: 916 | loss: 1423.6833496\n"
    "\tspeed: 0.0943s/iter; left time: 1217.0741s\n"
    "Epoch: 916 cost time: 8.255328178405762\n"
    "Epoch: 916, Steps: 153 | Train Loss: 846.5157211 Vali Loss: 22320.8281250"
    " Test Loss: 12989.9003906\n"
    "EarlyStopping counter: 262 out of 3\n"
    "Updating learning rate to 3.6103887517296593e-280\n"
    "\titers: 100, epoch: 917 | loss: 906.3619995\n"
)

# source: https://github.com/marcoppasini/musika/issues/22 (issue body by cyrusasfa,
# 2022-10-31), the one pasted line, verbatim
MUSIKA = (
    "Epoch 41/250: 100%|████████████████| 9375/9375 [07:11<00:00, 21.73it/s, DR=713, DF=nan,"
    " G=nan, GP=2.16e+4, LR=0.0001, TIME=0.0615]\n"
)


def test_informer_lr_update_is_the_lr_series_at_the_epoch_it_follows(tmp_path: Path) -> None:
    run = one_log(tmp_path, INFORMER)
    assert values(run, "lr") == [7.220777503459319e-280, 3.6103887517296593e-280]
    # printed after epoch 915's summary (step 153): the LR set for the steps after it, as
    # an HF trainer logs the LR its scheduler just set
    end_of_epoch = run.get("eval_loss").steps.tolist()
    assert run.get("lr").steps.tolist() == end_of_epoch
    assert run.get("loss").steps.tolist()[0] > end_of_epoch[0]
    assert any(f.rule == "lr-too-low" for f in diagnose(run).findings)


def test_an_lr_update_inside_a_sentence_is_no_record(tmp_path: Path) -> None:
    body = INFORMER.replace(
        "Updating learning rate to 3.6103887517296593e-280\n",
        "I tried updating learning rate to 0.01 but nothing changed\n",
    )
    run = one_log(tmp_path, body)
    assert values(run, "lr") == [7.220777503459319e-280]


def test_musika_bare_player_letters_are_the_gan_losses_nan_kept(tmp_path: Path) -> None:
    run = load_log(tmp_path, MUSIKA)
    assert values(run, "d_real") == [713.0]
    assert math.isnan(values(run, "d_fake")[0]) and math.isnan(values(run, "g_loss")[0])
    assert values(run, "gp") == [21600.0]  # the penalty keeps its own name
    assert values(run, "lr") == [0.0001]
    assert run.fact("task") == "gan"
    assert [f.rule for f in diagnose(run).findings][:1] == ["nonfinite-loss"]


@pytest.mark.parametrize(
    "postfix",
    [
        "G=nan, GP=2.16e+4, LR=0.0001",  # a generator alone: no opponent, no GAN
        "D=4, LR=0.0001",  # a bare D alone (a math answer's "D: 4")
    ],
)
def test_a_bare_letter_without_its_opponent_stays_unnamed(tmp_path: Path, postfix: str) -> None:
    line = f"Epoch 41/250: 100%|█████| 9375/9375 [07:11<00:00, 21.73it/s, {postfix}]\n"
    run = one_log(tmp_path, line)
    assert not any(kind(name) == "component_loss" for name in run.series)
    assert run.get("g_loss") is None and run.get("d_loss") is None


def test_lightning_learning_rate_step_in_the_bar_postfix_is_the_lr(tmp_path: Path) -> None:
    # source: https://github.com/sb-ai-lab/RePlay/issues/90, the bar (two lines as
    # pasted, the bar cut at its width), verbatim
    body = (
        "Epoch 0:  71%|██████████████████████\n"
        "| 5880/8295 [04:01<01:39, 24.37it/s, v_num=0, learning_rate_step=0.0005,"
        " train_loss_step=nan.0\n"
    )
    run = load_log(tmp_path, body)
    assert values(run, "lr") == [0.0005]
    assert run.get("learning_rate_step") is None
    assert math.isnan(values(run, "loss")[0])
    assert kind("learning_rate_epoch") != "lr"  # an epoch's mean is not the step's LR
