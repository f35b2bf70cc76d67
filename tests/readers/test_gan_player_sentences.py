"""A GAN script's sentences naming whose loss they print ("average running loss for
generator between iter [201, 300] is: 559.80874", "loss for discriminator is 1.38e12"):
the player after "for" owns the loss, and the window "iter [a, b]" the running mean
covers puts the point at b. Read so, the run is a GAN (two players, no summed loss).
Block verbatim from ginobilinie/medSynthesisV1 issue 14 (tests/real/divergence_
medsynthesis_gan_mrct_generator_loss_560_to_1167_disc_1e12_rising_issue14)."""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import load_log, one_log, values
from traindoc.readers.logs.lines import player_sentence

_BLOCK = """************************************************
time now is: Mon Dec 23 16:31:41 2019
average running loss for generator between iter [201, 300] is: 559.80874
lossG_G is 810.52466 respectively.
loss for GDL loss is 1224.602905
loss_real is  -273623008.0 loss_fake is  -1381496520704.0
loss for discriminator is 1381222842368.000000  D cost is -624456368128.000000
lossG_D for generator is -68901937152.000000
cost time for iter [201, 300] is 1535.73
************************************************
"""


def test_the_players_losses_at_the_window_end(tmp_path: Path) -> None:
    second = _BLOCK.replace("[201, 300]", "[301, 400]").replace("559.80874", "1166.54661")
    second = second.replace("1381222842368.000000", "4028526755840.000000")
    run = one_log(tmp_path, _BLOCK + second)
    assert values(run, "loss_generator") == [559.80874, 1166.54661]
    assert values(run, "loss_discriminator") == [1381222842368.0, 4028526755840.0]
    assert list(run.get("loss_generator").steps) == [300, 400]
    loaded = load_log(tmp_path, _BLOCK + second, "gan.log")  # as the tool loads it
    assert loaded.fact("task") == "gan" and loaded.get("loss") is None


def test_player_sentence_near_misses() -> None:
    assert player_sentence(b"lossG_D for generator is -68901937152.000000") == (
        b"lossG_D: -68901937152.000000"
    )
    # no player after "for", no value after "is": left as printed
    for line in (
        b"loss for GDL loss is 1224.602905",
        b"cost time for iter [201, 300] is 1535.73",
        b"the loss for generator is rising",
        b"loss for each class is 0.31",
    ):
        assert player_sentence(line) == line
