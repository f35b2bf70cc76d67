"""HiFi-GAN's console line (jik876/hifi-gan train.py): "Steps : 1000, Gen Loss Total :
30.2, Mel-Spec. Error : 0.61, s/b : 0.3". The generator's total holds the adversarial and
feature-matching terms, which move with the discriminator, so it is one player's
objective and no learning curve; the mel-spectrogram error is the L1 reconstruction the
generator is trained toward, the curve HiFi-GAN's maintainers tell users to watch. The
text reader named it a bare "error" (the abbreviation "Mel-Spec." was cut off at its
dot) and read no loss at all.

Lines verbatim from the dev case nan_inf_hifigan_ljspeech_gen_loss_100_spike_6p5e7_step30_
nan_from_step40_issue143, with near misses.
"""

from __future__ import annotations

from pathlib import Path

from tests.readers.helpers import load_log, values
from traindoc.model.signals import kind

_HIFIGAN = """checkpoints directory :  cp_hifigan
Epoch: 1
Steps : 0, Gen Loss Total : 101.349, Mel-Spec. Error : 2.058, s/b : 585.139
Steps : 5, Gen Loss Total : 135.118, Mel-Spec. Error : 2.176, s/b : 0.496
Steps : 10, Gen Loss Total : 106.757, Mel-Spec. Error : 1.938, s/b : 0.435
Steps : 15, Gen Loss Total : 94.055, Mel-Spec. Error : 1.701, s/b : 0.435
Steps : 40, Gen Loss Total :  nan, Mel-Spec. Error : 2.021, s/b : 0.443
Steps : 45, Gen Loss Total :  nan, Mel-Spec. Error :  nan, s/b : 0.449
"""


def test_the_mel_error_is_the_vocoders_loss(tmp_path: Path) -> None:
    # before: "error" (a task metric) and gen_loss_total (a player's objective): no loss
    run = load_log(tmp_path, _HIFIGAN, name="log_excerpt.txt")
    loss = run.get("loss")
    assert [float(s) for s in loss.steps] == [0.0, 5.0, 10.0, 15.0, 40.0, 45.0]
    assert values(run, "loss")[:5] == [2.058, 2.176, 1.938, 1.701, 2.021]
    assert "mel" in (loss.source or "")
    # the generator's total is kept under its own name, not summed into the loss
    assert values(run, "gen_loss_total")[:4] == [101.349, 135.118, 106.757, 94.055]
    assert run.get("error") is None


def test_mel_error_names_are_a_reconstruction_loss() -> None:
    for name in ("mel-spec_error", "mel_error", "mel_spec_error", "mel_l1"):
        assert kind(name) == "component_loss", name
    assert kind("val_mel_error") == "eval_component_loss"
    # near misses: a bare error, and a word that only starts with "mel", stay task metrics
    assert kind("error") == "task"
    assert kind("melody_error") == "task"


def test_a_sentence_ending_before_the_key_is_no_abbreviation(tmp_path: Path) -> None:
    # near miss: "done." ends a sentence (words before it), so the key is "Loss" alone
    body = "".join(f"Epoch {i} done. Loss: {2.0 - i / 10:.2f}\n" for i in range(1, 5))
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [1.9, 1.8, 1.7, 1.6]


def test_a_gan_without_a_mel_error_still_has_no_loss(tmp_path: Path) -> None:
    # near miss: a generator's and a discriminator's objectives alone are opponents
    body = "".join(
        f"Steps : {i * 5}, Gen Loss Total : {30 + i:.1f}, Disc Loss Total : {2 - i / 10:.2f}\n"
        for i in range(5)
    )
    run = load_log(tmp_path, body)
    assert run.get("loss") is None


def test_a_mel_error_alone_is_the_loss_as_before(tmp_path: Path) -> None:
    # near miss: no player's objective beside it, read by the usual parts path
    body = "".join(f"Steps : {i * 5}, Mel-Spec. Error : {2 - i / 10:.2f}\n" for i in range(5))
    run = load_log(tmp_path, body)
    assert values(run, "loss") == [2.0, 1.9, 1.8, 1.7, 1.6]
